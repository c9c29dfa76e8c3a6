"""Click commands for the data-set pipeline; the lead's ``vignette_lab.cli`` registers them.

Commands: ``dataset`` (``create``, ``import``), ``annotate``, ``review`` (``assign``,
``status``), ``iaa``, ``gate``, ``export``, ``import`` (the object is ``import_``) and
``pipeline demo``. Each is a thin layer over a library function a notebook can call too; the
database URL comes from ``ctx.obj["db_url"]``. User mistakes become one-line
``click.ClickException`` messages.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Any, Callable

import click

from vignette_lab.errors import VignetteError

__all__ = ["annotate", "dataset", "export", "gate", "iaa", "import_", "pipeline", "review"]


def _db(ctx: click.Context) -> Any:
    """The --db database with its schema ensured (shared helper in vignette_lab.cli)."""
    from vignette_lab.cli import open_db

    return open_db(ctx, init=True)


def _friendly(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn our own errors into one-line click errors (no traceback for user mistakes)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except VignetteError as exc:
            raise click.ClickException(str(exc)) from None
    return wrapper


def _echo_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def _when(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"expected an ISO date/time, got {value!r}") from None


# --------------------------------------------------------------------------- dataset
@click.group("dataset")
def dataset() -> None:
    """Build data sets (one item per counselor utterance) from sessions or transcript files.

    Example: vignette-lab dataset create selfplay-p4 --persona P4 --mode selfplay
    """


@dataset.command("create")
@click.argument("name")
@click.option("--persona", "personas", multiple=True, help="Persona code to keep (repeatable).")
@click.option("--learner", "learners", multiple=True, help="Learner id to keep (repeatable).")
@click.option("--mode", "modes", multiple=True, type=click.Choice(["live", "selfplay"]),
              help="Session mode to keep (repeatable).")
@click.option("--since", default=None, help="Sessions started at or after (ISO 8601).")
@click.option("--until", default=None, help="Sessions started before (ISO 8601).")
@click.option("--context-turns", default=4, show_default=True, type=click.IntRange(min=0),
              help="Preceding turns kept as context.")
@click.pass_context
@_friendly
def dataset_create(ctx: click.Context, name: str, personas: tuple[str, ...], learners: tuple[str, ...],
                   modes: tuple[str, ...], since: str | None, until: str | None, context_turns: int) -> None:
    """Create a data set from stored sessions and print its id.

    Example: vignette-lab dataset create selfplay-p4 --persona P4 --mode selfplay
    """
    from vignette_lab.pipeline.datasets import create_dataset_from_sessions

    db = _db(ctx)
    did = create_dataset_from_sessions(db, name, personas=personas or None, learners=learners or None,
                                       modes=modes or None, since=_when(since), until=_when(until),
                                       context_turns=context_turns)
    n = db.scalar("SELECT item_count FROM ds.dataset WHERE dataset_id = ?", [did])
    click.echo(f"{did}\t{n} items")


@dataset.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--name", default=None, help="Data-set name (default: the file name).")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default=None,
              help="File format (default: from the suffix).")
@click.pass_context
@_friendly
def dataset_import(ctx: click.Context, path: str, name: str | None, fmt: str | None) -> None:
    """Import a transcript file (schema in docs/pipeline.md), masking PII, and print the id.

    Example: vignette-lab dataset import transcripts.jsonl --name pilot-2026
    """
    from vignette_lab.pipeline.datasets import import_transcripts

    db = _db(ctx)
    did = import_transcripts(db, path, name=name, fmt=fmt)
    n = db.scalar("SELECT item_count FROM ds.dataset WHERE dataset_id = ?", [did])
    click.echo(f"{did}\t{n} items")


# --------------------------------------------------------------------------- annotate
@click.command("annotate")
@click.option("--round", "round_kind", type=click.Choice(["ai"]), required=True,
              help="Which round to run (round 1 = AI auto-annotation).")
@click.option("--dataset", "dataset_id", default=None, help="Data set to annotate (opens a new round).")
@click.option("--resume", "round_id", default=None, help="Continue an existing ai_auto round.")
@click.option("--engine", default="scripted", show_default=True,
              help="scripted | anthropic | classifier:PATH")
@click.option("--batch", is_flag=True, help="Use the Anthropic Message Batches API.")
@click.option("--max-items", default=None, type=click.IntRange(min=1),
              help="Stop after this many items (resume later with --resume).")
@click.pass_context
@_friendly
def annotate(ctx: click.Context, round_kind: str, dataset_id: str | None, round_id: str | None,
             engine: str, batch: bool, max_items: int | None) -> None:
    """Run AI auto-annotation (every label is stored as 'proposed').

    Example: vignette-lab annotate --round ai --dataset 3f2c… --engine scripted
    """
    from vignette_lab.pipeline.annotate import auto_annotate
    from vignette_lab.pipeline.rounds import create_round

    if (dataset_id is None) == (round_id is None):
        raise click.UsageError("give exactly one of --dataset (new round) or --resume ROUND_ID")
    db = _db(ctx)
    if round_id is None:
        round_id = create_round(db, dataset_id, "ai_auto", engine=engine)
    res = auto_annotate(db, round_id, engine=engine, batch=batch, max_items=max_items)
    click.echo(f"round {round_id}: {res['written']} proposed, {res['skipped']} already done, "
               f"{res['failed']} failed (of {res['total']})")


# --------------------------------------------------------------------------- review
@click.group("review")
def review() -> None:
    """Human review rounds: assign reviewers, follow progress.

    Example: vignette-lab review status --round 9a1d…
    """


@review.command("assign")
@click.option("--round", "round_id", default=None, help="An existing human_review round.")
@click.option("--dataset", "dataset_id", default=None, help="Open a new human_review round on this data set.")
@click.option("--reviewer", "reviewers", multiple=True, required=True, help="Reviewer id (repeatable).")
@click.option("--overlap", default=0.3, show_default=True, type=click.FloatRange(0, 1),
              help="Share of items reviewed by two reviewers.")
@click.option("--seed", default=0, show_default=True, type=int, help="Assignment shuffle seed.")
@click.option("--blind", is_flag=True, help="Record that reviewers must not see the AI proposal.")
@click.pass_context
@_friendly
def review_assign(ctx: click.Context, round_id: str | None, dataset_id: str | None,
                  reviewers: tuple[str, ...], overlap: float, seed: int, blind: bool) -> None:
    """Assign every item to a reviewer (an overlap share to two) and print the round id.

    Example: vignette-lab review assign --dataset 3f2c… --reviewer kim --reviewer lee --overlap 0.3
    """
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round

    if (dataset_id is None) == (round_id is None):
        raise click.UsageError("give exactly one of --round or --dataset")
    db = _db(ctx)
    if round_id is None:
        round_id = create_round(db, dataset_id, "human_review", blind=blind)
    res = assign_reviewers(db, round_id, reviewers, overlap=overlap, seed=seed)
    click.echo(f"round {round_id}: {res['items']} items, {res['overlap_items']} with two reviewers")
    for r, n in res["per_reviewer"].items():
        click.echo(f"  {r}\t{n}")


@review.command("status")
@click.option("--round", "round_id", required=True, help="A human_review round.")
@click.pass_context
@_friendly
def review_status(ctx: click.Context, round_id: str) -> None:
    """Print assigned and done counts per reviewer.

    Example: vignette-lab review status --round 9a1d…
    """
    from vignette_lab.pipeline.review import review_status as status

    for row in status(_db(ctx), round_id):
        click.echo(f"{row['reviewer_id']}\t{row['done']}/{row['assigned']}")


# --------------------------------------------------------------------------- iaa / gate
@click.command("iaa")
@click.option("--round", "round_id", required=True, help="A human_review round.")
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=50),
              help="Bootstrap resamples for the CIs.")
@click.pass_context
@_friendly
def iaa(ctx: click.Context, round_id: str, resamples: int) -> None:
    """Print every agreement number of a round as JSON (no decision is stored).

    Example: vignette-lab iaa --round 9a1d…
    """
    from vignette_lab.pipeline.gate import agreement_results

    _echo_json(agreement_results(_db(ctx), round_id, n_resamples=resamples))


@click.command("gate")
@click.option("--round", "round_id", required=True, help="A human_review round.")
@click.option("--kappa-min", default=0.6, show_default=True, type=float, help="Minimum κ.")
@click.option("--icc-min", default=0.75, show_default=True, type=float, help="Minimum ICC2 per score.")
@click.option("--override", "override_reason", default=None,
              help="Reason to let a failing gate through to the golden set (recorded).")
@click.option("--decided-by", default="local", show_default=True, help="Who decides.")
@click.option("--report", "report_dir", default=None, type=click.Path(file_okay=False),
              help="Also write the HTML gate report into this directory.")
@click.option("--golden/--no-golden", default=False, show_default=True,
              help="Build the golden set when the gate passes (or is overridden).")
@click.pass_context
@_friendly
def gate(ctx: click.Context, round_id: str, kappa_min: float, icc_min: float,
         override_reason: str | None, decided_by: str, report_dir: str | None, golden: bool) -> None:
    """Decide the agreement gate of a human round and store the decision.

    Example: vignette-lab gate --round 9a1d… --kappa-min 0.6 --icc-min 0.75 --report reports --golden
    """
    from vignette_lab.pipeline.gate import gate as decide
    from vignette_lab.pipeline.golden import build_golden_set
    from vignette_lab.pipeline.report import write_gate_report
    from vignette_lab.pipeline.rounds import get_round

    db = _db(ctx)
    res = decide(db, round_id, kappa_min=kappa_min, icc_min=icc_min,
                 override_reason=override_reason, decided_by=decided_by)
    click.echo(f"gate {res['gate_id']}: {'PASSED' if res['passed'] else 'FAILED'}"
               + (f" (override: {override_reason})" if override_reason else ""))
    for c in res["checks"]:
        v = "n/a" if c["value"] is None else f"{c['value']:.3f}"
        click.echo(f"  {'ok ' if c['passed'] else 'LOW'} {c['name']}: {v} (min {c['threshold']})")
    if report_dir:
        click.echo(f"report: {write_gate_report(db, res['gate_id'], report_dir)}")
    if golden:
        g = build_golden_set(db, get_round(db, round_id)["dataset_id"], gate_id=res["gate_id"])
        click.echo(f"golden {g['golden_id']} v{g['version']}: {g['item_count']} items "
                   f"({g['agreed']} agreed, {g['adjudicated']} adjudicated, {g['excluded']} excluded)")


# --------------------------------------------------------------------------- export / import
@click.command("export")
@click.option("--golden", "golden_id", required=True, help="Golden-set id.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for items.jsonl and manifest.json.")
@click.pass_context
@_friendly
def export(ctx: click.Context, golden_id: str, out_dir: str) -> None:
    """Export a golden set as JSONL with a manifest (counts, sha256, κ/α/ICC, thresholds).

    Example: vignette-lab export --golden 51be… --out exports/golden-v1
    """
    from vignette_lab.pipeline.export import export_golden

    m = export_golden(_db(ctx), golden_id, out_dir)
    click.echo(f"{m['counts']['items']} items → {m['path']}/items.jsonl "
               f"(sha256 {m['files']['items.jsonl']['sha256'][:12]}…)")


@click.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.pass_context
@_friendly
def import_(ctx: click.Context, directory: str) -> None:
    """Re-import an exported golden set after checking every sha256 in its manifest.

    Example: vignette-lab import exports/golden-v1
    """
    from vignette_lab.pipeline.export import import_export

    res = import_export(_db(ctx), directory)
    click.echo(f"golden {res['golden_id']} v{res['version']}: {res['item_count']} items "
               f"(dataset {res['dataset_id']})")
    if res.get("masked_texts"):
        click.echo(f"개인정보 마스킹: 가져온 텍스트 {res['masked_texts']}개에서 개인정보를 가렸습니다.")


# --------------------------------------------------------------------------- pipeline demo
@click.group("pipeline")
def pipeline() -> None:
    """The whole research loop in one go.

    Example: vignette-lab pipeline demo --out demo-out --sessions 4
    """


@pipeline.command("demo")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for the export, the gate report and the tagger.")
@click.option("--sessions", default=4, show_default=True, type=click.IntRange(min=1),
              help="Self-play sessions in total.")
@click.option("--turns", default=8, show_default=True, type=click.IntRange(min=1),
              help="Counselor turns per session.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of everything.")
@click.pass_context
@_friendly
def pipeline_demo(ctx: click.Context, out_dir: str, sessions: int, turns: int, seed: int) -> None:
    """Run self-play → AI round → SIMULATED human review → gate → golden → export → tagger.

    Example: vignette-lab pipeline demo --out demo-out --sessions 4 --seed 0
    """
    from vignette_lab.pipeline.demo import run_demo

    run_demo(_db(ctx), out_dir, sessions=sessions, turns=turns, seed=seed, echo=click.echo)
