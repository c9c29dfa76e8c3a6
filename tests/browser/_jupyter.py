"""A real JupyterLab server (with jupyter-server-proxy and Panel's extension) for browser tests and bench.

``JupyterServer(tmp)`` starts ``jupyter lab`` on a free 127.0.0.1 port with the repository as
its root, a random token and ``VIGNETTE_DB`` pointing into ``tmp``; ``app_url(query)`` is the
workbench inside it the way the launcher opens it: the one workbench server behind JupyterLab's
proxy at ``/vignette/`` (:mod:`vignette_lab.app.jupyter_proxy`, started on first use);
``preview_url(query)`` is the older route, Panel's extension rendering
``notebooks/workbench_app.py`` in a new kernel per page (``/panel-preview/render/…``).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP_PATH = "/vignette/"
PREVIEW_PATH = "/panel-preview/render/notebooks/workbench_app.py"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterServer:
    """JupyterLab in a subprocess; the workbench behind its proxy (or rendered by Panel's extension)."""

    def __init__(self, tmp: Path, *, db_path: Path | None = None, timeout: float = 180):
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.db_path = db_path or tmp / "workbench.duckdb"
        self.log = tmp / f"jupyter-{self.port}.log"
        env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}  # the scripted engine
        env.update({"PYTHONPATH": str(ROOT), "VIGNETTE_DB": str(self.db_path),
                    "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", "HF_HUB_OFFLINE": "1",
                    "JUPYTER_RUNTIME_DIR": str(tmp / "jupyter-runtime"),
                    # a workspace saved by an earlier JupyterLab (the user-level default restores its
                    # last tabs, e.g. a notebook instead of the launcher) must not leak into a test
                    "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "jupyter-workspaces")})
        args = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
                f"--ServerApp.token={self.token}", f"--ServerApp.root_dir={ROOT}", "--allow-root",
                "--ServerApp.open_browser=False"]
        self._fh = open(self.log, "w")
        self.proc = subprocess.Popen(args, stdout=self._fh, stderr=subprocess.STDOUT, env=env, cwd=str(tmp))
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter exited: {self.log.read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2)
                return
            except urllib.error.HTTPError:
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError("jupyter did not start in time")

    def app_url(self, query: str = "") -> str:
        """The workbench inside JupyterLab (the proxy route), with the token (which also sets the login cookie)."""
        sep = "&" if query else ""
        return f"{self.url}{APP_PATH}?{query}{sep}token={self.token}"

    def preview_url(self, query: str = "") -> str:
        """The same app rendered by Panel's JupyterLab extension, a new kernel per page (the older route)."""
        sep = "&" if query else ""
        return f"{self.url}{PREVIEW_PATH}?{query}{sep}token={self.token}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._fh.close()
