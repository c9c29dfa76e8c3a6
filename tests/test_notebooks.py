"""Execute the numbered notebooks headless (nbclient, python3 kernel) in order, on ONE DuckDB file.

That is how a researcher runs them: 00, 01, … 07 against the same database, each one finding what
the previous ones left (e.g. 05 finds the gate that 04 decided). Selecting a single notebook
still works, because every notebook creates what it needs when it is missing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))


def test_notebooks_are_clean_and_built():
    sys.path.insert(0, str(NB_DIR))
    try:
        import _build
    finally:
        sys.path.remove(str(NB_DIR))
    assert [p.stem for p in NOTEBOOKS] == list(_build.NOTEBOOKS)
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{path.name} has outputs"


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory):
    """One database and work folder for all notebooks of this module (run in file order)."""
    return tmp_path_factory.mktemp("notebooks")


@pytest.mark.notebook
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, shared_dir, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("VIGNETTE_DB", str(shared_dir / "nb.duckdb"))
    monkeypatch.setenv("VIGNETTE_WORK_DIR", str(shared_dir / "work"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(path, as_version=4)
    # Any cell error raises CellExecutionError and fails the test.
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(NB_DIR)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
