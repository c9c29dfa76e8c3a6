"""Typed seams (issue 15 item 3): every ``db`` and ``engine`` parameter has a real type.

Each function of the package is parsed (no import) and every parameter named ``db`` must be
annotated with the :class:`~vignette_lab.store.base.Database` protocol (or a concrete database
class such as ``DuckDatabase``), optionally ``| None``; every parameter named ``engine`` or
``evaluator_engine`` must be annotated, and not with ``Any``. A missing annotation or ``Any``
(alone or in a union) fails with the file, line and function.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "vignette_lab"

DB_TYPES = {"Database", "DuckDatabase", "PgDatabase"}
ENGINE_NAMES = {"engine", "evaluator_engine"}


def _union_parts(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_parts(node.left) + _union_parts(node.right)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
        return _union_parts(ast.parse(node.value, mode="eval").body)
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in {"Optional", "typing.Optional"}:
        return _union_parts(node.slice)
    return [node]


def _names(annotation: ast.expr) -> list[str]:
    return [ast.unparse(part) for part in _union_parts(annotation)]


def _parameters(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs:
                yield node, arg


def untyped_seams(package: Path = PACKAGE) -> list[str]:
    """``file:line: function(param: annotation)`` for every badly typed ``db``/``engine`` parameter."""
    bad = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = path.relative_to(package.parent)
        for func, arg in _parameters(tree):
            if arg.arg != "db" and arg.arg not in ENGINE_NAMES:
                continue
            shown = f"{rel}:{arg.lineno}: {func.name}({arg.arg}: " \
                    f"{ast.unparse(arg.annotation) if arg.annotation else '<none>'})"
            if arg.annotation is None:
                bad.append(shown)
                continue
            names = _names(arg.annotation)
            if any(n in {"Any", "typing.Any", "object"} for n in names):
                bad.append(shown)
            elif arg.arg == "db" and not all(n in DB_TYPES or n == "None" for n in names):
                bad.append(shown)
    return bad


def test_every_db_and_engine_parameter_is_typed():
    bad = untyped_seams()
    assert bad == [], "parameters without a Database/Engine type:\n" + "\n".join(bad)


def test_checker_catches_any_and_missing(tmp_path):
    pkg = tmp_path / "vignette_lab"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "from typing import Any, Optional\n"
        "def a(db: Any): ...\n"
        "def b(db, *, engine=None): ...\n"
        "def c(db: 'Database | None', *, engine: 'str | Engine | None' = None): ...\n"
        "def d(db: Optional[Any]): ...\n"
        "def e(db: Database, engine: Engine | Any): ...\n"
        "def f(db: dict): ...\n",
        encoding="utf-8")
    bad = untyped_seams(pkg)
    assert [line.split(": ", 1)[1] for line in bad] == [
        "a(db: Any)",
        "b(db: <none>)",
        "b(engine: <none>)",
        "d(db: Optional[Any])",
        "e(engine: Engine | Any)",
        "f(db: dict)",
    ]
