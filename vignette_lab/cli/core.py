"""The ``vignette-lab`` group and the core commands ``init``, ``doctor`` and ``backup``.

The database URL is the group option ``--db`` (or ``VIGNETTE_DB``); commands read it from
``ctx.obj["db_url"]`` through :func:`~vignette_lab.cli._base.open_db`. The area commands are
added to :data:`main` by :mod:`vignette_lab.cli` (explicitly, in one list).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any, Callable

import click

from vignette_lab.cli._base import MappedGroup, one_line, open_db
from vignette_lab.config import Settings, redact_url, resolve_db_url
from vignette_lab.errors import VignetteError

__all__ = ["LONG_LIVED_COMMANDS", "doctor_report", "main"]

# Presidio's e-mail recogniser would otherwise try to download a suffix list, and
# huggingface-hub would reach the network: the machine is offline.
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class RootGroup(MappedGroup):
    """The ``vignette-lab`` group: remembers the command line below its options, for the worker.

    Only a call from the console (``main()`` with ``args=None``, as the entry point and
    ``python -m vignette_lab.cli`` do it) may hand a command to the warm worker; ``CliRunner``
    and other in-process callers pass ``args`` and always run in-process.
    """

    console = False

    def main(self, args: Any = None, *pargs: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        previous, self.console = self.console, args is None
        try:
            return super().main(args, *pargs, **kwargs)
        finally:
            self.console = previous

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        ctx.meta["vignette.argv"] = list(args)  # the sub-command and everything after it
        return super().resolve_command(ctx, args)


@click.group(cls=RootGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
    if isinstance(ctx.command, RootGroup) and ctx.command.console:
        _use_worker(ctx)
    _choose_pii_backend(ctx)


def _use_worker(ctx: click.Context) -> None:
    """Hand the command to the database's warm worker (exit with its code), or run it here and
    start a worker afterwards for the next command (:mod:`vignette_lab.cli.worker`)."""
    from vignette_lab.cli import worker  # stdlib + click only

    argv = ctx.meta.get("vignette.argv") or []
    code = worker.forward(ctx.obj["db_url"], argv, prog_name=ctx.info_name or "vignette-lab")
    if code is not None:
        ctx.exit(code)
    ctx.call_on_close(lambda: worker.ensure_started(ctx.obj["db_url"], argv))


#: commands that run for long and keep Presidio as the PII gate; every other command is one-shot
LONG_LIVED_COMMANDS = frozenset({"serve"})


def _choose_pii_backend(ctx: click.Context) -> None:
    """One-shot commands mask with the regex backend of the same rules (no Presidio import on a
    trainee's ``session send``); long-lived ones keep Presidio. ``VIGNETTE_PII_BACKEND`` overrides
    both. The previous default comes back when the command ends (in-process callers, tests)."""
    # core.pii compiles its recognisers on import (~0.5 s): not for `--help`, which skips this callback
    from vignette_lab.core import pii

    if ctx.invoked_subcommand in LONG_LIVED_COMMANDS:
        return
    previous = pii.set_default_backend(
        "regex", reason=f"one-shot CLI command ({ctx.invoked_subcommand or 'help'}): the regex backend of the same "
                        "recognizers, without Presidio's import (`serve` keeps Presidio)")
    ctx.call_on_close(lambda: pii.set_default_backend(previous[0], reason=previous[1]))  # type: ignore[arg-type]


def _embedding_dim(explicit: int | None) -> tuple[int, str]:
    if explicit is not None:
        return explicit, "--embedding-dim"
    # kb.embedders pulls numpy (and kiwipiepy on use): imported only by the commands that need it.
    from vignette_lab.kb.embedders import embedder_status

    status = embedder_status()
    if status.get("dim"):
        return int(status["dim"]), f"active embedder {status['active']}"
    return 384, f"default ({status.get('reason') or 'the active embedder reports no dimension'})"


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
    # the store (duckdb), the catalog and the kb index are heavy; see open_db
    from vignette_lab.kb.index import sync_sources
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
        if no_kb:
            click.echo("kb: skipped (--no-kb)")
        else:
            with db.pinned():  # DuckDB: one open file for the whole sync, not one per statement
                report = sync_sources(db)
            click.echo(f"kb: {_format_report(report)}")
            if report.held_back_note():
                click.echo(f"kb: {report.held_back_note()}")
    finally:
        db.close()


def _format_report(report: Any) -> str:
    if dataclasses.is_dataclass(report):
        fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)}
        return ", ".join(f"{k} {v}" for k, v in fields.items() if isinstance(v, (int, float, str)) and
                         not isinstance(v, bool))
    return str(report)


# --------------------------------------------------------------------------- doctor
def _status_of(probe: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one status probe; a failure is reported as ``active="error"`` (doctor never crashes)."""
    try:
        return dict(probe())
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure as a line, with its reason
        return {"active": "error", "reason": f"{type(exc).__name__}: {one_line(exc)}"}


def _engine_status(settings: Settings) -> dict[str, Any]:
    from vignette_lab.engines import engine_status  # the engines load the taxonomy and anthropic paths

    return engine_status(settings)


def _embedder_status(settings: Settings) -> dict[str, Any]:
    from vignette_lab.kb.embedders import embedder_status  # numpy

    return embedder_status(settings)


def _pii_status() -> dict[str, Any]:
    from vignette_lab.core.guardrails import pii_backend  # kiwipiepy/presidio on first use

    return pii_backend()


def _evaluator_status(engine: dict[str, Any]) -> dict[str, Any]:
    from vignette_lab.engines.utterance_tagger import evaluator_status

    status = evaluator_status(engine.get("active") if engine.get("active") not in ("error", "not installed")
                              else None)
    return {k: status[k] for k in ("active", "reason", "split", "round", "n", "technique_macro_kappa", "ci",
                                   "appropriateness_kappa", "appropriateness_ci", "date")}


DOCTOR_DB_WAIT_S = 5.0  # doctor waits this long through the DuckDB file hand-over, then says "busy"


def _busy_status() -> dict[str, Any]:
    """Another program (the app, a notebook) kept the DuckDB file past the store's hand-over:
    the file is in use, not broken, so doctor reports it and does not fail for it."""
    return {"active": "busy", "schema_version": None,
            "reason": f"another process is using the DuckDB file (waited {DOCTOR_DB_WAIT_S:g} s); not checked — "
                      "run doctor again when it is free, or use PostgreSQL for concurrent use"}


def _database_status(url: str) -> dict[str, Any]:
    from vignette_lab.store import connect, get_schema_meta, parse_db_url
    from vignette_lab.store.access import DB_ROLES

    info: dict[str, Any] = {"url": redact_url(url)}
    try:
        backend, target = parse_db_url(url)
    except VignetteError as exc:
        return {**info, "active": "error", "reason": one_line(exc)}
    info["backend"] = backend
    if backend == "duckdb" and target != ":memory:" and not Path(target).expanduser().exists():
        # doctor must not create the file as a side effect
        return {**info, "active": backend, "schema_version": None,
                "reason": "file does not exist yet; run `vignette-lab init`"}
    from vignette_lab.errors import StoreBusy

    try:
        db = connect(url, lock_timeout=DOCTOR_DB_WAIT_S, connect_timeout=5)
    except StoreBusy:
        return {**info, **_busy_status()}
    except VignetteError as exc:
        return {**info, "active": "error", "reason": one_line(exc)}
    try:
        meta = get_schema_meta(db)
        info.update(active=backend, schema_version=meta.get("schema_version"),
                    embedding_dim=int(meta["embedding_dim"]) if meta.get("embedding_dim") else None)
        reasons = [] if meta else ["schema not initialised; run `vignette-lab init`"]
        if backend in ("postgres", "pgserver"):  # pgserver:DIR is a local PostgreSQL server
            from vignette_lab.store.pg import PgDatabase  # psycopg: loaded already for a Postgres URL

            assert isinstance(db, PgDatabase)
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
    except StoreBusy:
        info.update(_busy_status())
    except VignetteError as exc:
        info.update(active="error", reason=one_line(exc))
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
        has ``active`` and ``reason`` (``active="error"`` when that probe failed).

    Examples
    --------
    >>> sorted(doctor_report(":memory:"))
    ['database', 'embedder', 'engine', 'evaluator', 'pii']
    """
    settings = settings or Settings.from_env(db_url=db_url)
    report = {
        "database": _database_status(resolve_db_url(db_url or settings.db_url)),
        "engine": _status_of(lambda: _engine_status(settings)),
        "embedder": _status_of(lambda: _embedder_status(settings)),
        "pii": _status_of(_pii_status),
    }
    report["evaluator"] = _status_of(lambda: _evaluator_status(report["engine"]))
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

    Exits with code 1 when a part reports an error. A DuckDB file that another process keeps
    past the store's hand-over is reported as ``busy`` (not an error).

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
    from vignette_lab.store.backup import backup as run_backup  # the store is heavy; see open_db

    db = open_db(ctx)
    try:
        info = run_backup(db, out, overwrite=overwrite)
    finally:
        db.close()
    click.echo(f"backup: {info['backend']} → {info['path']} ({info['format']}, {info['bytes']:,} bytes)")


