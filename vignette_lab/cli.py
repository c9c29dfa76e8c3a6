"""``vignette-lab`` command line: a thin click layer over library functions.

This module defines the group and the core commands ``init`` and ``doctor``. Feature
teams add their own commands in ``vignette_lab/<area>/cli.py``; they are registered
lazily from :data:`COMMANDS` (imported only when used or listed), and skipped only when
their module does not exist yet — any other import error is shown, never hidden.

The database URL is the group option ``--db`` (or ``VIGNETTE_DB``); commands read it
from ``ctx.obj["db_url"]`` (see :func:`open_db`). Any :class:`VignetteError` becomes a
one-line ``click.ClickException`` (exit code 1, no traceback).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
from pathlib import Path
from typing import Any

import click

from vignette_lab.config import Settings, redact_url, resolve_db_url
from vignette_lab.errors import VignetteError

__all__ = ["COMMANDS", "doctor_report", "main", "open_db"]

# (module, attribute) of commands other teams provide.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("vignette_lab.kb.cli", "kb"),
    ("vignette_lab.session.cli", "selfplay"),
    ("vignette_lab.session.cli", "session"),
    ("vignette_lab.pipeline.cli", "scheme"),
    ("vignette_lab.pipeline.cli", "dataset"),
    ("vignette_lab.pipeline.cli", "annotations"),
    ("vignette_lab.pipeline.cli", "annotate"),
    ("vignette_lab.pipeline.cli", "iaa"),
    ("vignette_lab.pipeline.cli", "gate"),
    ("vignette_lab.pipeline.cli", "export"),
    ("vignette_lab.pipeline.cli", "import_"),
    ("vignette_lab.pipeline.cli", "pipeline"),
    ("vignette_lab.pipeline.cli", "review"),
    ("vignette_lab.analytics.cli", "report"),
    ("vignette_lab.analytics.cli", "drift"),
    ("vignette_lab.app.cli", "serve"),
    ("vignette_lab.app.cli", "users"),
)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _import_optional(module: str):
    """Import ``module``; None when it (or its package) does not exist. Other errors propagate."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            return None
        raise


class VignetteGroup(click.Group):
    """Click group that adds the lazily registered feature commands and maps errors."""

    def _lazy_specs(self) -> dict[str, tuple[str, str]]:
        return {attr.rstrip("_"): (module, attr) for module, attr in COMMANDS}

    def _load_lazy(self, name: str) -> click.Command | None:
        spec = self._lazy_specs().get(name)
        if spec is None:
            return None
        module = _import_optional(spec[0])
        command = getattr(module, spec[1], None) if module is not None else None
        return command if isinstance(command, click.Command) else None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        return self._load_lazy(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        names.update(n for n in self._lazy_specs() if n not in names and self._load_lazy(n) is not None)
        return sorted(names)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except VignetteError as exc:
            raise click.ClickException(_one_line(exc)) from None


@click.group(cls=VignetteGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", "db_url", envvar="VIGNETTE_DB", default=None, metavar="URL",
              help="Database: a DuckDB file path, duckdb:///path, :memory:, pgserver:DIR, or postgresql://… "
                   "(default: $VIGNETTE_DB, else ./vignette.duckdb).")
@click.pass_context
def main(ctx: click.Context, db_url: str | None) -> None:
    """Vignette research workbench: sessions, data sets, annotation, agreement, drift.

    Example: vignette-lab --db vignette.duckdb init && vignette-lab doctor
    """
    ctx.ensure_object(dict)
    ctx.obj["db_url"] = resolve_db_url(db_url)
    _choose_pii_backend(ctx)


#: commands that run for long and keep Presidio as the PII gate; every other command is one-shot
LONG_LIVED_COMMANDS = frozenset({"serve"})


def _choose_pii_backend(ctx: click.Context) -> None:
    """One-shot commands mask with the regex backend of the same rules (no Presidio import on a
    trainee's ``session send``); long-lived ones keep Presidio. ``VIGNETTE_PII_BACKEND`` overrides
    both. The previous default comes back when the command ends (in-process callers, tests)."""
    from vignette_lab.core import pii

    if ctx.invoked_subcommand in LONG_LIVED_COMMANDS:
        return
    previous = pii.set_default_backend(
        "regex", reason=f"one-shot CLI command ({ctx.invoked_subcommand or 'help'}): the regex backend of the same "
                        "recognizers, without Presidio's import (`serve` keeps Presidio)")
    ctx.call_on_close(lambda: pii.set_default_backend(previous[0], reason=previous[1]))  # type: ignore[arg-type]


def open_db(ctx: click.Context | None = None, *, init: bool = False):
    """Open the database named by the group's ``--db`` option (for feature commands).

    ``init=True`` also makes sure the schema exists (``init_db`` keeps the database's own
    embedding dimension), which every command that writes rows needs.
    """
    from vignette_lab.store import connect, init_db

    ctx = ctx or click.get_current_context()
    obj = ctx.find_object(dict) or {}
    db = connect(obj.get("db_url") or resolve_db_url())
    if init:
        init_db(db)
    return db


def _embedding_dim(explicit: int | None) -> tuple[int, str]:
    if explicit is not None:
        return explicit, "--embedding-dim"
    embedders = _import_optional("vignette_lab.kb.embedders")
    if embedders is not None:
        status = embedders.embedder_status()
        if status.get("dim"):
            return int(status["dim"]), f"active embedder {status['active']}"
    return 384, "default (kb.embedders not installed)"


@main.command()
@click.option("--embedding-dim", type=click.IntRange(1, 16000), default=None,
              help="Dense vector dimension for the kb tables (default: the active embedder's).")
@click.option("--no-kb", is_flag=True, help="Do not index kb_sources/ after creating the schema.")
@click.pass_context
def init(ctx: click.Context, embedding_dim: int | None, no_kb: bool) -> None:
    """Create the schema, load personas, taxonomy and local users, then index the KB.

    Safe to run again: nothing is duplicated.

    Example: vignette-lab --db vignette.duckdb init
    """
    from vignette_lab.store import init_db
    from vignette_lab.store.catalog import load_catalog

    dim, why = _embedding_dim(embedding_dim)
    db = open_db(ctx)
    try:
        meta = init_db(db, embedding_dim=dim)
        click.echo(f"schema: version {meta['schema_version']} on {db.backend} "
                   f"{redact_url(db.url)} (embedding_dim {dim}, {why})")
        counts = load_catalog(db)
        click.echo(f"catalog: {counts['personas_inserted']} persona card(s) added, "
                   f"{counts['personas_unchanged']} unchanged; taxonomy "
                   f"{'added' if counts['taxonomy_inserted'] else 'unchanged'}; {counts['users']} local user(s)")
        index = None if no_kb else _import_optional("vignette_lab.kb.index")
        if no_kb:
            click.echo("kb: skipped (--no-kb)")
        elif index is None or not hasattr(index, "sync_sources"):
            click.echo("kb: not installed (vignette_lab.kb.index missing)")
        else:
            with db.pinned():  # DuckDB: one open file for the whole sync, not one per statement
                report = index.sync_sources(db)
            click.echo(f"kb: {_format_report(report)}")
            note = getattr(report, "held_back_note", None)
            if callable(note) and note():
                click.echo(f"kb: {note()}")
    finally:
        db.close()


def _format_report(report: Any) -> str:
    if dataclasses.is_dataclass(report):
        fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)}
        return ", ".join(f"{k} {v}" for k, v in fields.items() if isinstance(v, (int, float, str)) and
                         not isinstance(v, bool))
    return str(report)


# --------------------------------------------------------------------------- doctor
def _status_of(module: str, function: str, *args: Any) -> dict[str, Any]:
    try:
        mod = _import_optional(module)
    except Exception as exc:  # noqa: BLE001 - doctor reports, it does not crash
        return {"active": "error", "reason": f"import failed: {_one_line(exc)}"}
    if mod is None or not hasattr(mod, function):
        return {"active": "not installed", "reason": f"{module}.{function} is not available yet"}
    try:
        return dict(getattr(mod, function)(*args))
    except Exception as exc:  # noqa: BLE001
        return {"active": "error", "reason": _one_line(exc)}


def _database_status(url: str) -> dict[str, Any]:
    from vignette_lab.store import connect, get_schema_meta, parse_db_url

    info: dict[str, Any] = {"url": redact_url(url)}
    try:
        backend, target = parse_db_url(url)
    except VignetteError as exc:
        return {**info, "active": "error", "reason": _one_line(exc)}
    info["backend"] = backend
    if backend == "duckdb" and target != ":memory:" and not Path(target).expanduser().exists():
        # doctor must not create the file as a side effect
        return {**info, "active": backend, "schema_version": None,
                "reason": "file does not exist yet; run `vignette-lab init`"}
    try:
        db = connect(url, lock_timeout=5, connect_timeout=5)
    except VignetteError as exc:
        return {**info, "active": "error", "reason": _one_line(exc)}
    try:
        meta = get_schema_meta(db)
        info.update(active=backend, schema_version=meta.get("schema_version"),
                    embedding_dim=int(meta["embedding_dim"]) if meta.get("embedding_dim") else None)
        reasons = [] if meta else ["schema not initialised; run `vignette-lab init`"]
        if backend == "postgres":
            info["pgvector"] = db.pgvector_version()
            has_role = db.has_view_roles()
            info["rls_role"] = bool(has_role)
            reasons.append(f"user {db.user}"
                           f"{' (superuser; data access switches to the per-view roles vignette_*)' if db.is_superuser else ''}")
            if not has_role and meta:
                reasons.append("roles vignette_* missing: RLS cannot be enforced; re-run init")
        else:
            reasons.append("embedded file; one process holds it per statement (use PostgreSQL for many users)"
                           if target != ":memory:" else "in-memory database (nothing persists)")
        info["reason"] = "; ".join(reasons)
    except VignetteError as exc:
        info.update(active="error", reason=_one_line(exc))
    finally:
        db.close()
    return info


def doctor_report(db_url: str | None = None, *, settings: Settings | None = None) -> dict[str, dict[str, Any]]:
    """What is active on this machine and why: database, engine, embedder, PII recogniser.

    Parameters
    ----------
    db_url : str, default=None
        Database URL; resolved like :func:`vignette_lab.config.resolve_db_url`.
    settings : Settings, default=None
        Read from the environment when None.

    Returns
    -------
    dict
        ``{"database": {...}, "engine": {...}, "embedder": {...}, "pii": {...}, "evaluator": {...}}``
        (``evaluator``: the active judge and its measured test-split κ, from
        ``datasets/eval/evaluator/metrics.json``, "not measured yet" when absent); each value
        has ``active`` and ``reason`` (``active="not installed"`` when that module is missing,
        ``"error"`` when it failed).
    """
    settings = settings or Settings.from_env(db_url=db_url)
    report = {
        "database": _database_status(resolve_db_url(db_url or settings.db_url)),
        "engine": _status_of("vignette_lab.engines", "engine_status", settings),
        "embedder": _status_of("vignette_lab.kb.embedders", "embedder_status", settings),
        "pii": _status_of("vignette_lab.core.guardrails", "pii_backend"),
    }
    try:
        from vignette_lab.engines.utterance_tagger import evaluator_status
        status = evaluator_status(report["engine"].get("active") if report["engine"].get("active") not in (
            "error", "not installed") else None)
        report["evaluator"] = {k: status[k] for k in ("active", "reason", "split", "n", "technique_macro_kappa",
                                                       "ci", "appropriateness_kappa", "date")}
    except Exception as exc:  # noqa: BLE001 — doctor reports, never crashes
        report["evaluator"] = {"active": "error", "reason": f"{type(exc).__name__}: {exc}"}
    stored = report["database"].get("embedding_dim")
    dim = report["embedder"].get("dim")
    if stored and dim and int(stored) != int(dim):
        report["embedder"]["reason"] = (f"{report['embedder'].get('reason', '')}; WARNING: database vectors are "
                                        f"{stored}-dimensional, run `vignette-lab kb sync --reindex`").lstrip("; ")
    return report


def _doctor_line(name: str, status: dict[str, Any]) -> str:
    extras = []
    for key in ("url", "schema_version", "pgvector", "model", "dim"):
        if status.get(key) is not None:
            extras.append(f"{key.replace('_', ' ')} {status[key]}")
    head = f"{name:<9} {status.get('active')}"
    if extras:
        head += f" ({', '.join(extras)})"
    return f"{head}: {status.get('reason', '')}".rstrip(": ")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Show which database, engine, embedder, PII recogniser and evaluator are active, and why.

    Exits with code 1 when a part reports an error.

    Example: vignette-lab doctor --json
    """
    report = doctor_report(ctx.obj["db_url"])
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2, default=str))
    else:
        for name, status in report.items():
            click.echo(_doctor_line(name, status))
    if any(s.get("active") == "error" for s in report.values()):
        ctx.exit(1)


def _register_missing_env_defaults() -> None:
    # Presidio's e-mail recogniser would otherwise try to download a suffix list.
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


_register_missing_env_defaults()


@main.command()
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--overwrite", is_flag=True, help="Replace OUT when it exists.")
@click.pass_context
def backup(ctx: click.Context, out: str, overwrite: bool) -> None:
    """Write a complete copy of the database to OUT.

    DuckDB: checkpoint, then copy the file (OUT alone is the whole database). PostgreSQL
    (and pgserver:DIR): a pg_dump custom-format archive (restore with pg_restore).

    Example: vignette-lab backup backups/vignette-2026-12-01.duckdb
    """
    from vignette_lab.store.backup import backup as run_backup

    db = open_db(ctx)
    try:
        info = run_backup(db, out, overwrite=overwrite)
    finally:
        db.close()
    click.echo(f"backup: {info['backend']} → {info['path']} ({info['format']}, {info['bytes']:,} bytes)")


if __name__ == "__main__":  # python -m vignette_lab.cli
    main()
