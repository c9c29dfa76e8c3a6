"""The workbench inside JupyterLab: the standalone Panel server behind JupyterLab's own proxy.

Panel's JupyterLab extension (``/panel-preview/render/notebooks/workbench_app.py``) starts a
fresh kernel for every page load and imports the app there, which costs 3-5 s a page on this
machine. Instead, `jupyter-server-proxy <https://jupyter-server-proxy.readthedocs.io>`_ starts
one long-lived workbench server on first use (this module's :func:`main`) and proxies
``{base_url}vignette/`` to it:

- the pages live under the JupyterLab URL and behind JupyterLab's login (token or password):
  the proxy refuses unauthenticated requests and cross-origin websockets, and the server
  listens on a Unix socket in a fresh owner-only folder, so nothing reaches it around JupyterLab;
- the server runs in single-user local mode, like the ``panel-preview`` route it replaces (the
  JupyterLab user is the local user);
- the JupyterLab launcher gets a "Vignette Lab" tile that opens it.

The server is registered through the ``jupyter_serverproxy_servers`` entry point
(``pyproject.toml``), so any JupyterLab of an environment where the package is installed has it.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["LAUNCHER_TITLE", "PROXY_NAME", "START_TIMEOUT_S", "main", "setup_workbench"]

#: The proxy's path below JupyterLab's base URL (``/vignette/``) and the entry point's name.
PROXY_NAME = "vignette"
#: Seconds JupyterLab waits for the server to answer on its first start (the app's imports take
#: 3-10 s on a loaded 2-core machine; jupyter-server-proxy's own default of 5 s is too short).
START_TIMEOUT_S = 120.0
#: Seconds between checks that JupyterLab (the parent process) is still alive.
PARENT_CHECK_S = 2.0
ICON = Path(__file__).resolve().parent / "static" / "workbench.svg"
#: The launcher tile's label. JupyterLab's launcher cards are narrow and break Korean text between
#: any two syllables ("Vignette Lab 워크" / "벤치"); word joiners (U+2060, invisible) keep 워크벤치
#: in one piece, so the label wraps at the space: "Vignette Lab" / "워크벤치".
LAUNCHER_TITLE = "Vignette Lab " + "\u2060".join("워크벤치")


def setup_workbench() -> dict[str, Any]:
    """The ``jupyter_serverproxy_servers`` entry point: how JupyterLab starts and proxies the app.

    Returns
    -------
    dict
        A jupyter-server-proxy server process: the command (``{unix_socket}`` and ``{base_url}``
        are filled in by the proxy), a Unix socket in a fresh temporary folder, absolute URLs
        (the server knows its prefix, so its assets and websocket resolve under JupyterLab) and
        the launcher tile.
    """
    return {
        "command": [sys.executable, "-m", "vignette_lab.app.jupyter_proxy",
                    "--unix-socket", "{unix_socket}", "--prefix", "{base_url}" + PROXY_NAME],
        "unix_socket": True,
        "absolute_url": True,
        "timeout": START_TIMEOUT_S,
        "new_browser_tab": True,
        "launcher_entry": {"enabled": True, "title": LAUNCHER_TITLE, "icon_path": str(ICON),
                           "category": "Notebook"},
    }


def _exit_with_parent(parent: int) -> None:
    """End this process when JupyterLab (its parent) is gone, even after a ``kill -9`` of it."""
    while True:
        time.sleep(PARENT_CHECK_S)
        if os.getppid() != parent:
            log.info("JupyterLab (pid %d) is gone; stopping the workbench server", parent)
            os._exit(0)


def main(argv: list[str] | None = None) -> None:
    """Run the workbench server on a Unix socket under a URL prefix (started by JupyterLab).

    Parameters
    ----------
    argv : list of str, optional
        ``--unix-socket PATH --prefix /vignette`` (defaults to ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(prog="python -m vignette_lab.app.jupyter_proxy",
                                     description="The workbench server behind JupyterLab's proxy.")
    parser.add_argument("--unix-socket", required=True, help="socket path chosen by jupyter-server-proxy")
    parser.add_argument("--prefix", required=True, help="URL prefix, e.g. /vignette or /user/kim/vignette")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s vignette-proxy %(levelname)s %(message)s")
    log.setLevel(logging.INFO)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="vl-parent-watch",
                     daemon=True).start()
    from vignette_lab.app.serve import serve  # Panel and the app: heavy, only in this process

    serve(unix_socket=args.unix_socket, prefix=args.prefix)


if __name__ == "__main__":
    main()
