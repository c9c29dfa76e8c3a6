"""Browser-test fixtures: a real server subprocess and Debian Chromium through Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT_DIR = ROOT / "reports" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def pytest_addoption(parser):
    parser.addoption("--screenshots", action="store_true", default=False,
                     help="save a PNG of each page into reports/screenshots/")


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def screenshot(request):
    enabled = request.config.getoption("--screenshots") or os.environ.get("VIGNETTE_SCREENSHOTS") == "1"

    def take(page, name: str) -> None:
        if enabled:
            SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOT_DIR / f"{name}.png"), full_page=True)
    return take


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """A workbench server in a subprocess; ``url`` is its base URL."""

    def __init__(self, tmp: Path, *, users_file: Path | None = None, mock_evaluator: bool = True):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"server-{self.port}.log"
        # Not "app.duckdb": DuckDB names the catalog after the file, which would clash with schema app.
        args = [sys.executable, str(Path(__file__).with_name("_server.py")), str(tmp / "workbench.duckdb"),
                str(self.port), str(users_file) if users_file else "-"]
        if mock_evaluator:
            args.append("--mock-evaluator")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self._fh = open(self.log, "w")
        self.proc = subprocess.Popen(args, stdout=self._fh, stderr=subprocess.STDOUT, env=env, cwd=str(tmp))
        deadline = time.time() + 240  # the first Presidio import is slow on a busy machine
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                urllib.request.urlopen(self.url + "/liveness-check", timeout=1)
            except urllib.error.HTTPError:
                return  # the server answers (404 is fine): it is up
            except OSError:
                time.sleep(0.5)
                continue
            return
        raise RuntimeError("server did not start in time")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._fh.close()


@pytest.fixture(scope="module")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def watch_requests(page) -> list[str]:
    """Collect every request that leaves localhost (must stay empty)."""
    outside: list[str] = []

    def on_request(req):
        url = req.url
        if not url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "http://localhost", "ws://localhost",
                               "data:", "blob:http://127.0.0.1", "about:")):
            outside.append(url)
    page.on("request", on_request)
    return outside


@pytest.fixture(scope="session")
def live_server_cls():
    """The :class:`LiveServer` class (test modules cannot import conftest directly)."""
    return LiveServer


@pytest.fixture(scope="session")
def outside_requests():
    """``outside_requests(page)`` starts collecting requests that leave localhost."""
    return watch_requests
