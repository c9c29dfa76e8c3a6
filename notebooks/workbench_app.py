"""Vignette Lab workbench, served out of JupyterLab by Panel's server extension.

Open  http://127.0.0.1:8888/panel-preview/render/notebooks/workbench_app.py  (path relative to
the JupyterLab root), or run it standalone with ``panel serve notebooks/workbench_app.py``.
The database comes from ``VIGNETTE_DB`` (default ./vignette.duckdb). Single-user local mode:
every page is open to the local user.
"""

import panel as pn

from vignette_lab.app.serve import AppContext, build_app

pn.extension("tabulator")

_ctx = pn.state.as_cached("vignette-lab-context", AppContext)
_routes = build_app(ctx=_ctx)
_page = (pn.state.session_args.get("page", [b"session"])[0].decode("utf-8")
         if pn.state.session_args else "session")
_factory = _routes.get(_page) or _routes["session"]
_factory().servable(title="Vignette Lab")
