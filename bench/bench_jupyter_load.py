"""Where a page load of the workbench goes, per route, from the browser's performance entries.

For each code tree given with ``--root`` (default: this repository; give ``/path/to/main`` too for a
paired before/after), it starts that tree's standalone server and a JupyterLab on it, then loads
the session page ``--loads`` times per route in a fresh browser context (empty cache, as a first
visit), interleaving the routes so they share the machine's load:

- ``standalone``: ``/?page=session`` of the standalone Panel server;
- ``proxy``: ``/vignette/?page=session``, the workbench server behind JupyterLab's proxy (only
  where the tree registers it; its first load, which starts the server, is reported apart);
- ``panel-preview``: ``/panel-preview/render/notebooks/workbench_app.py?page=session``, Panel's
  JupyterLab extension, a new kernel per page.

Per load: ``ttfb`` (navigation → first byte of the HTML: server work, a kernel start for
panel-preview), ``html_done``, ``dcl`` (DOMContentLoaded: scripts fetched and run), ``ws_open``
(Bokeh's websocket open), ``idle`` ("document idle": the page synced), ``ready`` (the page's
controls visible, what ``bench_app.py`` calls page_load), ``kb`` transferred, ``mathjax_kb`` and
``mathjax_ms`` (bokeh-mathjax.min.js). Also the wall time of the Python imports a panel-preview
kernel pays (``python -c 'import ipykernel, panel, vignette_lab.app.serve'``).

2 cores shared with other jobs: quote medians and the load average printed with them.

    PYTHONPATH=. .venv/bin/python bench/bench_jupyter_load.py --root . --root /work/main --loads 5
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests" / "browser"))
from _jupyter import PREVIEW_PATH, _free_port  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
READY = ".vl-start button, .vl-input input, .vl-review-body"
TIMEOUT_MS = 240_000
#: Records, in the page, when Bokeh's websocket opened and when the document went idle.
PROBE = """
(() => {
  const Native = window.WebSocket;
  window.WebSocket = function (...a) {
    const ws = new Native(...a);
    ws.addEventListener('open', () => { window.__vlWsOpen = window.__vlWsOpen || performance.now(); });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  for (const k of ['log', 'info', 'debug']) {
    const orig = console[k].bind(console);
    console[k] = (...a) => {
      if (!window.__vlIdle && a.some(x => String(x).includes('document idle'))) { window.__vlIdle = performance.now(); }
      orig(...a);
    };
  }
})();
"""
COLLECT = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const mj = res.find(r => r.name.includes('bokeh-mathjax'));
  const bytes = res.reduce((s, r) => s + (r.transferSize || 0), 0) + (nav.transferSize || 0);
  return {ttfb: nav.responseStart, html_done: nav.responseEnd, dcl: nav.domContentLoadedEventEnd,
          ws_open: window.__vlWsOpen || null, idle: window.__vlIdle || null,
          kb: bytes / 1024, mathjax_kb: mj ? mj.transferSize / 1024 : 0, mathjax_ms: mj ? mj.duration : 0};
}
"""


def _env(root: Path, tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update({"PYTHONPATH": str(root), "VIGNETTE_DB": str(tmp / "wb.duckdb"), "VL_TOKEN_DELAY": "0.02",
                "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "JUPYTER_RUNTIME_DIR": str(tmp / "rt")})
    return env


def _wait(url: str, proc: subprocess.Popen, timeout: float = 240) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[:3]} exited")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer")


class Tree:
    """One code tree's standalone server and JupyterLab."""

    def __init__(self, root: Path):
        self.root = root
        self.tmp = Path(tempfile.mkdtemp(prefix="vl_jload_"))
        self.log = open(self.tmp / "servers.log", "w")
        env = _env(root, self.tmp)
        self.sport, self.jport, self.token = _free_port(), _free_port(), secrets.token_hex(16)
        self.procs = [
            subprocess.Popen([sys.executable, str(root / "tests" / "browser" / "_server.py"),
                              str(self.tmp / "standalone.duckdb"), str(self.sport), "-"],
                             env=env, cwd=self.tmp, stdout=self.log, stderr=subprocess.STDOUT),
            subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1",
                              f"--port={self.jport}", f"--ServerApp.token={self.token}",
                              f"--ServerApp.root_dir={root}", "--allow-root"],
                             env=env, cwd=self.tmp, stdout=self.log, stderr=subprocess.STDOUT)]
        _wait(f"http://127.0.0.1:{self.sport}/liveness-check", self.procs[0])
        _wait(f"http://127.0.0.1:{self.jport}/api/status", self.procs[1])
        j = f"http://127.0.0.1:{self.jport}"
        self.routes = {"standalone": f"http://127.0.0.1:{self.sport}/?page=session",
                       "panel-preview": f"{j}{PREVIEW_PATH}?page=session&token={self.token}"}
        self.proxy = f"{j}/vignette/?page=session&token={self.token}"

    def has_proxy(self) -> bool:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{self.jport}/server-proxy/servers-info?token={self.token}",
                                   timeout=10)
        except OSError:
            return False
        t0 = time.perf_counter()
        try:
            urllib.request.urlopen(self.proxy, timeout=240)
        except urllib.error.HTTPError:
            return False
        self.first_proxy_s = time.perf_counter() - t0  # starts the server: the first-use cost
        self.routes["proxy"] = self.proxy
        return True

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        self.log.close()


def _one_load(browser, url: str) -> dict[str, float]:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_init_script(PROBE)
    page = context.new_page()
    try:
        t0 = time.perf_counter()
        with page.expect_console_message(lambda m: "document idle" in m.text, timeout=TIMEOUT_MS):
            page.goto(url, timeout=TIMEOUT_MS)
        page.wait_for_selector(READY, timeout=TIMEOUT_MS)
        ready = time.perf_counter() - t0
        out = page.evaluate(COLLECT)
        out = {k: (v / 1000 if k in ("ttfb", "html_done", "dcl", "ws_open", "idle") and v is not None else v)
               for k, v in out.items()}
        out["ready"] = ready
        return out
    finally:
        context.close()


def _import_cost(root: Path, runs: int) -> list[float]:
    env = _env(root, Path(tempfile.mkdtemp(prefix="vl_jimp_")))
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import ipykernel.kernelapp, panel, vignette_lab.app.serve"],
                       env=env, check=True, capture_output=True)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", action="append", type=Path, help="code tree to measure (repeatable)")
    parser.add_argument("--loads", type=int, default=5, help="page loads per route and tree")
    parser.add_argument("--import-runs", type=int, default=3)
    args = parser.parse_args()
    roots = [r.resolve() for r in (args.root or [HERE])]
    from playwright.sync_api import sync_playwright

    load_start = os.getloadavg()
    trees = [Tree(r) for r in roots]
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    first_use = {}
    try:
        for t in trees:
            if t.has_proxy():
                first_use[str(t.root)] = t.first_proxy_s
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for t in trees:  # one warm-up load per route (file cache, kernel spec)
                for url in t.routes.values():
                    _one_load(browser, url)
            for _ in range(args.loads):
                for t in trees:
                    for name, url in t.routes.items():
                        results.setdefault((str(t.root), name), []).append(_one_load(browser, url))
            browser.close()
    finally:
        for t in trees:
            t.stop()
    imports = {str(r): _import_cost(r, args.import_runs) for r in roots}
    load_end = os.getloadavg()
    keys = ["ttfb", "html_done", "dcl", "ws_open", "idle", "ready", "kb", "mathjax_kb", "mathjax_ms"]
    print(f"load average at start {load_start[0]:.1f}, at end {load_end[0]:.1f} (1-min); fresh browser context "
          f"per load (empty cache); medians of n = {args.loads} per row; times in s, sizes in KiB")
    print()
    print("| tree | route | n | " + " | ".join(keys) + " |")
    print("|---|---|---:|" + "---:|" * len(keys))
    for (root, name), rows in results.items():
        cells = []
        for k in keys:
            vals = [r[k] for r in rows if r.get(k) is not None]
            cells.append(f"{statistics.median(vals):.3f}" if vals and k not in ("kb", "mathjax_kb", "mathjax_ms")
                         else f"{statistics.median(vals):.0f}" if vals else "–")
        ready = [r["ready"] for r in rows]
        print(f"| {root} | {name} | {len(rows)} | " + " | ".join(cells) + f" |  (ready {min(ready):.2f}–{max(ready):.2f})")
    print()
    for root, s in first_use.items():
        print(f"first proxy request of {root} (starts the workbench server): {s:.2f} s")
    for root, vals in imports.items():
        print(f"imports a panel-preview kernel pays ({root}): median {statistics.median(vals):.2f} s wall "
              f"(n = {len(vals)})")


if __name__ == "__main__":
    main()
