"""SQL lives only in ``vignette_lab/store/`` (architecture rule; issue 15).

Every string literal of the package outside ``store/`` (f-string parts included, docstrings
excluded) is checked for SQL statements, and every call of a database method
(``execute``, ``executemany``, ``fetchall``, ``fetchone``, ``scalar``) outside ``store/``
is refused. Nothing is allow-listed: a feature that needs data asks a repository function.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vignette_lab"

# Upper-case statement shapes (the house style writes SQL keywords in capitals) plus any
# statement word followed by one of our schema-qualified tables, in any case.
SQL = re.compile(
    r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+(\.\w+)?\s+SET\b|\bDELETE\s+FROM\b"
    r"|\b(CREATE|DROP|ALTER)\s+(TABLE|INDEX|SCHEMA|ROLE|POLICY|EXTENSION|VIEW)\b|\bSET\s+LOCAL\b"
    r"|(?i:\b(from|into|join|update)\s+(app|kb|audit|ds)\.[a-z_]+\b)"
    # WHERE/AND fragments on columns, e.g. "WHERE s.status <> 'aborted'", " AND t.seq = ?"
    r"|\b(WHERE|AND|OR)\s+([a-z_]+\.)?[a-z_]+\s*(=|<>|!=|>=|<=|<|>|\bIN\b|\bIS\b|\bLIKE\b)")
DB_METHODS = {"execute", "executemany", "fetchall", "fetchone", "scalar"}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def sql_outside_store(package: Path = PACKAGE) -> list[str]:
    """``file:line: what`` for every SQL string or database call outside ``store/``."""
    found = []
    store = package / "store"
    for path in sorted(package.rglob("*.py")):
        if store in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        docs = _docstrings(tree)
        rel = path.relative_to(package.parent)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and SQL.search(node.value)):
                found.append(f"{rel}:{node.lineno}: SQL text {node.value[:60]!r}")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in DB_METHODS):
                found.append(f"{rel}:{node.lineno}: database call .{node.func.attr}(...)")
    return found


def test_no_sql_outside_store():
    found = sql_outside_store()
    assert found == [], "SQL belongs in vignette_lab/store/ repositories:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'def f(db):\n    return db.fetchall("SELECT 1")\n',
    'def f(db, t):\n    x = f"SELECT a FROM {t}"\n',
    'Q = "insert into app.turns VALUES (1)"\n',
    'def f(db):\n    db.execute(q)\n',
    'W = "WHERE s.status <> \'aborted\'"\n',
])
def test_the_check_sees_sql(tmp_path, source):
    pkg = tmp_path / "vignette_lab"
    (pkg / "store").mkdir(parents=True)
    (pkg / "feature.py").write_text(source, encoding="utf-8")
    (pkg / "store" / "repo.py").write_text(source, encoding="utf-8")   # allowed there
    found = sql_outside_store(pkg)
    assert found and all(f.startswith("vignette_lab/feature.py:") for f in found)


def test_docstrings_and_prose_are_not_sql(tmp_path):
    pkg = tmp_path / "vignette_lab"
    pkg.mkdir()
    (pkg / "feature.py").write_text(
        '"""Reads rows. Example: ``db.fetchall("SELECT * FROM app.turns")``."""\n'
        'MSG = "select a persona from the list"\n', encoding="utf-8")
    assert sql_outside_store(pkg) == []
