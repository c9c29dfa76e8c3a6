"""``vignette-lab report drift|growth|gate`` and ``vignette-lab drift scan``.

A thin click layer over :mod:`vignette_lab.analytics.reports` and
:mod:`vignette_lab.analytics.drift`; the notebooks call the same functions. Those modules
(matplotlib, the embedders) are imported inside each command, for ``--help``'s start-up time.
"""

from __future__ import annotations

import json
from datetime import datetime

import click

from vignette_lab.cli._base import group, open_db

__all__ = ["drift", "report"]


@group("report")
def report() -> None:
    """Write self-contained HTML reports (drift, growth, gate).

    Example: vignette-lab report drift --out reports
    """


@report.command("drift")
@click.option("--out", "out_dir", default="reports", show_default=True, type=click.Path(file_okay=False),
              help="Directory that receives drift-<stamp>.html.")
@click.option("--by", default="persona,engine,model", show_default=True,
              help="Comma-separated grouping: persona, engine, model, mode, counselor_profile.")
@click.option("--scan/--no-scan", default=False, show_default=True,
              help="Scan all sessions for drift (and log findings) before writing.")
@click.option("--bound", default=0.10, show_default=True, type=float,
              help="Label-rate change between model versions that is flagged.")
@click.pass_context
def report_drift(ctx: click.Context, out_dir: str, by: str, scan: bool, bound: float) -> None:
    """Persona and label/model drift report.

    Example: vignette-lab report drift --scan --by persona,model
    """
    from vignette_lab.analytics.reports import write_drift_report

    path = write_drift_report(open_db(ctx, init=True), out_dir,
                              by=tuple(b.strip() for b in by.split(",") if b.strip()), scan=scan, rate_bound=bound)
    click.echo(str(path))


@report.command("growth")
@click.option("--out", "out_dir", default="reports", show_default=True, type=click.Path(file_okay=False),
              help="Directory that receives growth-<scope>.html.")
@click.option("--cohort", default=None, help="Only this cohort (faculty view).")
@click.option("--learner", default=None, help="Only this learner.")
@click.pass_context
def report_growth(ctx: click.Context, out_dir: str, cohort: str | None, learner: str | None) -> None:
    """Learner growth report (EWMA levels, slopes, persistent gaps).

    Example: vignette-lab report growth --cohort 2026-fall
    """
    from vignette_lab.analytics.reports import write_growth_report

    click.echo(str(write_growth_report(open_db(ctx, init=True), out_dir, cohort=cohort, learner=learner)))


@report.command("gate")
@click.option("--gate", "gate_id", default=None, help="Gate decision id.")
@click.option("--round", "round_id", default=None, help="Human-review round id (its latest gate decision).")
@click.option("--out", "out_dir", default="reports", show_default=True, type=click.Path(file_okay=False),
              help="Directory that receives gate-<id>.html.")
@click.pass_context
def report_gate(ctx: click.Context, gate_id: str | None, round_id: str | None, out_dir: str) -> None:
    """IAA gate report (delegates to the pipeline's gate report).

    Example: vignette-lab report gate --round 3f2a…
    """
    from vignette_lab.analytics.reports import write_gate_report

    if (gate_id is None) == (round_id is None):
        raise click.UsageError("give exactly one of --gate or --round")
    click.echo(str(write_gate_report(open_db(ctx, init=True), out_dir, gate_id=gate_id, round_id=round_id)))


@group("drift")
def drift() -> None:
    """Persona drift checks over stored sessions.

    Example: vignette-lab drift scan --since 2026-11-01
    """


@drift.command("scan")
@click.option("--since", default=None, help="Only sessions started at or after this ISO date/time.")
@click.option("--threshold", default=0.79, show_default=True, type=float,
              help="Raw-cosine floor of the anchor similarity (unvalidated working value, seed 004 M14).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
@click.pass_context
def drift_scan(ctx: click.Context, since: str | None, threshold: float, progress: bool) -> None:
    """Scan sessions and append findings to audit.persona_drift_log (idempotent).

    Example: vignette-lab drift scan --no-progress
    """
    from vignette_lab.analytics.drift import scan_all

    when = None
    if since is not None:
        try:
            when = datetime.fromisoformat(since)
        except ValueError:
            raise click.BadParameter(f"expected an ISO date/time, got {since!r}", param_hint="--since") from None
    found = scan_all(open_db(ctx, init=True), since=when, progress=progress, threshold=threshold)
    click.echo(json.dumps(found, ensure_ascii=False, indent=2))
