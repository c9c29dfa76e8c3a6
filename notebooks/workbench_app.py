"""Vignette Lab workbench as a Panel script: Panel's JupyterLab extension or ``panel serve``.

Inside JupyterLab, use  http://127.0.0.1:8888/vignette/  (the launcher's "Vignette Lab 워크벤치"
tile; one server behind JupyterLab's proxy, see ``vignette_lab.app.jupyter_proxy``). This file is
the older route,  http://127.0.0.1:8888/panel-preview/render/notebooks/workbench_app.py  (path
relative to the JupyterLab root; a new kernel per page load, 3-5 s a page), and also runs
standalone with ``panel serve notebooks/workbench_app.py``.
The database comes from ``VIGNETTE_DB`` (default ./vignette.duckdb). Single-user local mode:
every page is open to the local user.

Pages are chosen with ``?page=session|selfplay|review|agreement`` (no parameter: the start page
with links to every page). The standalone server's links are the same query-only links, so
one set of links works under both prefixes (see ``vignette_lab.app.serve.page_href``).
"""

import panel as pn

from vignette_lab.app.serve import AppContext, build_app

pn.extension("tabulator")

# Panel's JupyterLab extension runs every page load in its own kernel, so this cache only
# saves work within one kernel; the database file is shared through VIGNETTE_DB.
_ctx = pn.state.as_cached("vignette-lab-context", AppContext)
build_app(ctx=_ctx)["/"]().servable(title="Vignette Lab")
