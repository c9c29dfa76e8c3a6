"""The workbench behind JupyterLab's proxy (issue 16): entry point, Unix-socket server, no MathJax.

The server process is the real one jupyter-server-proxy starts (``python -m
vignette_lab.app.jupyter_proxy``), spoken to over its Unix socket; the browser side (JupyterLab's
login, launcher tile, every page by clicking) is in ``tests/browser/test_browser_navigation.py``.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import panel as pn
import pytest
from bokeh.document import Document

from vignette_lab.app import jupyter_proxy
from vignette_lab.app.serve import load_mathjax_only_for_tex, page_renders_tex

ROOT = Path(__file__).resolve().parent.parent


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float = 30):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


def _get(sock: str, path: str) -> tuple[int, bytes]:
    conn = _UnixConnection(sock)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _wait_for_socket(sock: str, proc: subprocess.Popen, log: Path, timeout: float = 240) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()[-2000:]}")
        if os.path.exists(sock):
            try:
                _get(sock, "/")
                return
            except OSError:
                pass
        time.sleep(0.3)
    raise RuntimeError(f"server did not answer: {log.read_text()[-2000:]}")


def _roots(view) -> list:
    doc = Document()
    return [view.get_root(doc)]


def test_entry_point_and_server_process():
    """pyproject registers the entry point; jupyter-server-proxy accepts what it returns."""
    from jupyter_server_proxy.config import ServerProcess

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    group = project["project"]["entry-points"]["jupyter_serverproxy_servers"]
    assert group == {jupyter_proxy.PROXY_NAME: "vignette_lab.app.jupyter_proxy:setup_workbench"}
    config = jupyter_proxy.setup_workbench()
    process = ServerProcess(name=jupyter_proxy.PROXY_NAME, **config)
    assert process.unix_socket is True and process.absolute_url is True
    assert process.timeout >= 60  # the app's imports take longer than the proxy's 5 s default
    assert process.command[:3] == [sys.executable, "-m", "vignette_lab.app.jupyter_proxy"]
    assert "{unix_socket}" in process.command and "{base_url}vignette" in process.command
    assert process.launcher_entry.enabled
    # what a user reads (the word joiners that keep 워크벤치 on one line are invisible)
    assert process.launcher_entry.title.replace("\u2060", "") == "Vignette Lab 워크벤치"
    assert Path(process.launcher_entry.icon_path).is_file()
    assert process.launcher_entry.path_info == "vignette/"


def test_mathjax_only_where_tex_would_be_typeset():
    load_mathjax_only_for_tex()
    load_mathjax_only_for_tex()  # idempotent
    import panel.io.resources as resources

    assert resources._panel_use_mathjax is page_renders_tex
    plain = pn.Column(pn.pane.Markdown("## 상담 회기"), pn.pane.HTML("<b>$$x^2$$</b> 입력 그대로"))
    assert page_renders_tex(_roots(plain)) is False  # HTML panes: math off; Markdown: no TeX
    nested = pn.Column(pn.Row(pn.pane.Markdown("면적은 $$\\pi r^2$$ 입니다")))
    assert page_renders_tex(_roots(nested)) is True  # math on and TeX delimiters, however deep
    # The Markdown pane's own disable_math only changes its rendering; its model still has math on,
    # so the browser would still typeset the delimiters: MathJax stays.
    assert page_renders_tex(_roots(pn.pane.Markdown("$$\\pi$$", disable_math=True))) is True


@pytest.mark.slow
def test_server_on_unix_socket_under_prefix(tmp_path):
    """The proxied server: pages and assets under the prefix, no MathJax, owner-only socket folder,
    and it stops when JupyterLab (its parent) is gone."""
    sock_dir = Path(tempfile.mkdtemp(prefix="vl-proxy-test-"))  # like jupyter-server-proxy's folder
    sock = str(sock_dir / "socket")
    log = tmp_path / "proxy.log"
    env = {**{k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"},
           "PYTHONPATH": str(ROOT), "VIGNETTE_DB": str(tmp_path / "wb.duckdb"),
           "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", "HF_HUB_OFFLINE": "1"}
    # A stand-in for JupyterLab: a shell that starts the server and prints its pid.
    parent = subprocess.Popen(
        ["bash", "-c", f'"{sys.executable}" -m vignette_lab.app.jupyter_proxy --unix-socket "{sock}" '
                       f'--prefix /user/kim/vignette >"{log}" 2>&1 & echo $!; wait'],
        stdout=subprocess.PIPE, text=True, env=env, cwd=str(tmp_path), start_new_session=True)
    child = int(parent.stdout.readline())
    try:
        _wait_for_socket(sock, parent, log)
        assert stat.S_IMODE(sock_dir.stat().st_mode) == 0o700
        status, body = _get(sock, "/user/kim/vignette/?page=session")
        assert status == 200
        page = body.decode("utf-8")
        assert "static/js/bokeh.min.js" in page and "bokeh-mathjax" not in page
        status, _ = _get(sock, "/user/kim/vignette/static/js/bokeh.min.js")
        assert status == 200
        status, body = _get(sock, "/user/kim/vignette/?page=review")
        assert status == 200 and "bokeh-mathjax" not in body.decode("utf-8")
        assert _get(sock, "/?page=session")[0] == 404  # nothing outside the prefix
        os.kill(parent.pid, signal.SIGKILL)  # JupyterLab dies without cleaning up
        parent.wait(timeout=10)
        deadline = time.time() + 6 * jupyter_proxy.PARENT_CHECK_S + 10
        while time.time() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the workbench server outlived its parent")
    finally:
        for pid in (parent.pid, child):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
