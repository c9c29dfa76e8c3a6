"""Click commands for the data-set pipeline; :mod:`vignette_lab.cli` registers them.

Commands: ``scheme`` (``list``, ``show``, ``validate``, ``import``), ``dataset`` (``create``,
``import``), ``annotations`` (``import``, ``export``), ``annotate``, ``review`` (``assign``,
``status``), ``iaa``, ``gate``, ``export``, ``import`` (the object is ``import_``) and
``pipeline demo``. Each is a thin layer over a library function a notebook can call too; the
database URL comes from ``ctx.obj["db_url"]`` and the database is closed when the command
ends. User mistakes become one-line errors (:mod:`vignette_lab.cli._base`).

The pipeline modules are imported inside each command: together they pull numpy, pandas,
scikit-learn and the PII recognisers, which ``vignette-lab --help`` must not pay for.
"""

# No ``from __future__ import annotations`` here: the ``annotations`` command group would
# shadow that name (Python 3.11 evaluates the ``X | None`` annotations below natively).
from datetime import datetime

import click

from vignette_lab.cli._base import command, echo_json, group, json_option, open_db

__all__ = ["annotate", "annotations", "dataset", "export", "gate", "iaa", "import_", "pipeline",
           "review", "scheme"]


def _when(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"expected an ISO date/time, got {value!r}") from None


# --------------------------------------------------------------------------- dataset
@group("dataset")
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
@click.option("--scheme", default=None,
              help="Label scheme NAME[@VERSION] the data set pins (default: the Korean taxonomy).")
@click.pass_context
def dataset_create(ctx: click.Context, name: str, personas: tuple[str, ...], learners: tuple[str, ...],
                   modes: tuple[str, ...], since: str | None, until: str | None, context_turns: int,
                   scheme: str | None) -> None:
    """Create a data set from stored sessions and print its id.

    Example: vignette-lab dataset create selfplay-p4 --persona P4 --mode selfplay
    """
    from vignette_lab.pipeline.datasets import create_dataset_from_sessions, dataset_summary

    db = open_db(ctx, init=True)
    did = create_dataset_from_sessions(db, name, personas=personas or None, learners=learners or None,
                                       modes=modes or None, since=_when(since), until=_when(until),
                                       context_turns=context_turns, scheme=scheme)
    click.echo(f"{did}\t{dataset_summary(db, did)['items']} items")


def _pairs(value: str | None, option: str) -> dict[str, str]:
    """``a=b,c=d`` -> ``{"a": "b", "c": "d"}`` (click error naming the option otherwise)."""
    out: dict[str, str] = {}
    if not value:
        return out
    for part in value.split(","):
        if not part.strip():
            continue
        key, sep, val = part.partition("=")
        if not sep or not key.strip() or not val.strip():
            raise click.BadParameter(f"expected KEY=VALUE[,KEY=VALUE…]; got {part!r}",
                                     param_hint=option)
        if key.strip() in out:
            raise click.BadParameter(f"{key.strip()!r} given twice", param_hint=option)
        out[key.strip()] = val.strip()
    return out


@dataset.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--name", default=None, help="Data-set name (default: the file name).")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default=None,
              help="File format (default: from the suffix).")
@click.option("--scheme", default=None,
              help="Label scheme NAME[@VERSION] the data set pins (default: the Korean taxonomy).")
@click.option("--map", "mapping", default=None,
              help="FIELD=COLUMN pairs, e.g. session_id=transcript_id,seq=utterance_id,"
                   "speaker=interlocutor,text=utterance_text.")
@click.option("--speaker-map", default=None,
              help="VALUE=counselor|client pairs, e.g. therapist=counselor,client=client.")
@click.option("--keep-extra", is_flag=True,
              help="Keep unmapped columns as item metadata instead of refusing them.")
@click.option("--context-turns", default=4, show_default=True, type=click.IntRange(min=0),
              help="Preceding turns kept as context.")
@json_option("Print {dataset_id, items, sessions} as JSON.")
@click.pass_context
def dataset_import(ctx: click.Context, path: str, name: str | None, fmt: str | None,
                   scheme: str | None, mapping: str | None, speaker_map: str | None,
                   keep_extra: bool, context_turns: int, as_json: bool) -> None:
    """Import a transcript file (CSV/JSONL, schema in docs/pipeline.md), masking PII.

    Example: vignette-lab dataset import corpus.csv --scheme mi-corpus --map
    session_id=transcript_id,seq=utterance_id,speaker=interlocutor,text=utterance_text
    --speaker-map therapist=counselor,client=client --keep-extra --json
    """
    from vignette_lab.pipeline.datasets import dataset_summary, import_transcripts

    db = open_db(ctx, init=True)
    did = import_transcripts(db, path, name=name, fmt=fmt, scheme=scheme,
                             mapping=_pairs(mapping, "--map"),
                             speaker_map=_pairs(speaker_map, "--speaker-map"),
                             keep_extra=keep_extra, context_turns=context_turns)
    summary = dataset_summary(db, did)
    if as_json:
        echo_json({"dataset_id": did, "items": summary["items"], "sessions": summary["sessions"],
                    "speakers": summary["speakers"], "scheme": summary["scheme"]})
    else:
        click.echo(f"{did}\t{summary['items']} items")


# --------------------------------------------------------------------------- scheme
@group("scheme")
def scheme() -> None:
    """Label schemes (vignette-lab/scheme/v1): list, show, validate, import.

    Example: vignette-lab scheme import my_codes.json --json
    """


@scheme.command("list")
@json_option("Print as JSON.")
@click.pass_context
def scheme_list(ctx: click.Context, as_json: bool) -> None:
    """List built-in and imported schemes.

    Example: vignette-lab scheme list
    """
    from vignette_lab.pipeline.schemes import list_schemes

    rows = list_schemes(open_db(ctx, init=True))
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        click.echo(f"{r['name']}@{r['version']}\t{r['origin']}\t{r['sha256'][:12]}\t"
                   f"{','.join(r['fields'])}\t{'/'.join(r['speakers'])}")


@scheme.command("show")
@click.argument("spec")
@json_option("Print the scheme document as JSON.")
@click.pass_context
def scheme_show(ctx: click.Context, spec: str, as_json: bool) -> None:
    """Show one scheme (NAME[@VERSION] or a file): fields, categories, gates.

    Example: vignette-lab scheme show mi-behaviour
    """
    from vignette_lab.pipeline.schemes import resolve_scheme

    s = resolve_scheme(open_db(ctx, init=True), spec)
    if as_json:
        echo_json({**s.ref, "document": s.raw})
        return
    click.echo(f"{s.name} v{s.version}  sha256 {s.sha256}")
    for f in s.fields:
        gate = f" gate {f.gate[0]} ≥ {f.gate[1]:g}" if f.gate else ""
        rng = f" range {f.range[0]:g}–{f.range[1]:g}" if f.range else ""
        click.echo(f"  {f.name} ({f.kind}, {'/'.join(f.applies_to)}){rng}{gate}")
        for c in f.categories:
            click.echo(f"    {c.code}\t{c.label_ko}\t{c.label_en}")


@scheme.command("validate")
@click.argument("path", type=click.Path(dir_okay=False))
@json_option("Print {name, version, sha256} as JSON.")
def scheme_validate(path: str, as_json: bool) -> None:
    """Validate a scheme file without storing it (errors name file and field).

    Example: vignette-lab scheme validate my_codes.json
    """
    from vignette_lab.core.scheme import load_scheme_file

    s = load_scheme_file(path)
    if as_json:
        echo_json(s.ref)
    else:
        click.echo(f"ok: {s.name} v{s.version} ({len(s.fields)} fields, sha256 {s.sha256[:12]}…)")


@scheme.command("import")
@click.argument("path", type=click.Path(dir_okay=False))
@json_option("Print {name, version, sha256} as JSON.")
@click.pass_context
def scheme_import(ctx: click.Context, path: str, as_json: bool) -> None:
    """Validate a scheme file and store it in the database.

    Example: vignette-lab scheme import datasets/examples/mi_corpus_scheme.json --json
    """
    from vignette_lab.pipeline.schemes import import_scheme

    ref = import_scheme(open_db(ctx, init=True), path)
    if as_json:
        echo_json({"name": ref["name"], "version": ref["version"], "sha256": ref["sha256"]})
    else:
        click.echo(f"{ref['status']}: {ref['name']} v{ref['version']} (sha256 {ref['sha256']})")


# --------------------------------------------------------------------------- annotations
@group("annotations")
def annotations() -> None:
    """Import and export existing annotations in long format (one row per item, annotator, field).

    Example: vignette-lab annotations import labels.csv --dataset 3f2c… --json
    """


@annotations.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--dataset", "dataset_id", required=True, help="Data set whose items are annotated.")
@click.option("--round-name", default=None, help="Name of the new round(s) (default: file name).")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default=None,
              help="File format (default: from the suffix).")
@click.option("--map", "mapping", default=None,
              help="COLUMN=FILE_COLUMN pairs, e.g. session_id=transcript_id,seq=utterance_id,"
                   "annotator=annotator_id.")
@click.option("--fields", default=None,
              help="Wide rows: FIELD=COLUMN pairs, e.g. behaviour=main_therapist_behaviour,"
                   "talk_type=client_talk_type (other columns are ignored).")
@click.option("--ignore-extra", is_flag=True, help="Long rows: ignore unknown columns.")
@json_option("Print the rounds made as JSON.")
@click.pass_context
def annotations_import(ctx: click.Context, path: str, dataset_id: str, round_name: str | None,
                       fmt: str | None, mapping: str | None, fields: str | None,
                       ignore_extra: bool, as_json: bool) -> None:
    """Validate a whole annotation file, then store it as new round(s); AI rows stay 'proposed'.

    Example: vignette-lab annotations import labels.csv --dataset 3f2c… --round-name pilot
    """
    from vignette_lab.pipeline.annotations_io import import_annotations

    res = import_annotations(open_db(ctx, init=True), path, dataset_id=dataset_id, round_name=round_name,
                             fmt=fmt, mapping=_pairs(mapping, "--map"),
                             fields=_pairs(fields, "--fields"), ignore_extra=ignore_extra)
    if as_json:
        echo_json({"rounds": res["rounds"], "rows": res["rows"], "missing": res["missing"]})
        return
    for r in res["rounds"]:
        click.echo(f"round {r['round_id']} ({r['name']}, {r['annotator_kind']}): "
                   f"{r['annotators']} annotators, {r['items']} items, {r['rows']} rows")
    if res["missing"]:
        click.echo(f"{res['missing']} missing values skipped", err=True)


@annotations.command("export")
@click.option("--round", "round_id", required=True, help="Round to export.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="Output file (.csv or .jsonl).")
@json_option("Print {round_id, path, rows} as JSON.")
@click.pass_context
def annotations_export(ctx: click.Context, round_id: str, out: str, as_json: bool) -> None:
    """Write a round's current annotations in the long format `annotations import` reads.

    Example: vignette-lab annotations export --round 9a1d… --out labels.csv
    """
    from vignette_lab.pipeline.annotations_io import export_annotations

    res = export_annotations(open_db(ctx, init=True), round_id, out)
    if as_json:
        echo_json(res)
    else:
        click.echo(f"{res['rows']} rows → {res['path']}")


# --------------------------------------------------------------------------- annotate
@command("annotate")
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
def annotate(ctx: click.Context, round_kind: str, dataset_id: str | None, round_id: str | None,
             engine: str, batch: bool, max_items: int | None) -> None:
    """Run AI auto-annotation (every label is stored as 'proposed').

    Example: vignette-lab annotate --round ai --dataset 3f2c… --engine scripted
    """
    from vignette_lab.pipeline.annotate import auto_annotate
    from vignette_lab.pipeline.rounds import create_round

    if (dataset_id is None) == (round_id is None):
        raise click.UsageError("give exactly one of --dataset (new round) or --resume ROUND_ID")
    db = open_db(ctx, init=True)
    if round_id is None:
        assert dataset_id is not None  # exactly one of the two was given
        round_id = create_round(db, dataset_id, "ai_auto", engine=engine)
    res = auto_annotate(db, round_id, engine=engine, batch=batch, max_items=max_items)
    click.echo(f"round {round_id}: {res['written']} proposed, {res['skipped']} already done, "
               f"{res['failed']} failed (of {res['total']})")


# --------------------------------------------------------------------------- review
@group("review")
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
def review_assign(ctx: click.Context, round_id: str | None, dataset_id: str | None,
                  reviewers: tuple[str, ...], overlap: float, seed: int, blind: bool) -> None:
    """Assign every item to a reviewer (an overlap share to two) and print the round id.

    Example: vignette-lab review assign --dataset 3f2c… --reviewer kim --reviewer lee --overlap 0.3
    """
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round

    if (dataset_id is None) == (round_id is None):
        raise click.UsageError("give exactly one of --round or --dataset")
    db = open_db(ctx, init=True)
    if round_id is None:
        assert dataset_id is not None  # exactly one of the two was given
        round_id = create_round(db, dataset_id, "human_review", blind=blind)
    res = assign_reviewers(db, round_id, reviewers, overlap=overlap, seed=seed)
    click.echo(f"round {round_id}: {res['items']} items, {res['overlap_items']} with two reviewers")
    for r, n in res["per_reviewer"].items():
        click.echo(f"  {r}\t{n}")


@review.command("status")
@click.option("--round", "round_id", required=True, help="A human_review round.")
@click.pass_context
def review_status(ctx: click.Context, round_id: str) -> None:
    """Print assigned and done counts per reviewer.

    Example: vignette-lab review status --round 9a1d…
    """
    from vignette_lab.pipeline.review import review_status as status

    for row in status(open_db(ctx, init=True), round_id):
        click.echo(f"{row['reviewer_id']}\t{row['done']}/{row['assigned']}")


# --------------------------------------------------------------------------- iaa / gate
@command("iaa")
@click.option("--round", "round_id", required=True, help="A human_review round.")
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=50),
              help="Bootstrap resamples for the intervals that need them.")
@click.option("--seed", default=0, show_default=True, type=int, help="Bootstrap seed.")
@json_option("Print one JSON object per field (a list).")
@click.pass_context
def iaa(ctx: click.Context, round_id: str, resamples: int, seed: int, as_json: bool) -> None:
    """Agreement of every field of the round's scheme (nothing is stored).

    Example: vignette-lab iaa --round 9a1d… --json
    """
    from vignette_lab.pipeline.field_gate import round_agreement

    _, results = round_agreement(open_db(ctx, init=True), round_id, n_boot=resamples, seed=seed)
    if as_json:
        echo_json([r.to_dict() for r in results])
        return
    if not results:
        click.echo("no field of the scheme has ratings in this round")
    for r in results:
        d = r.to_dict()
        rpi = d["raters_per_item"]
        click.echo(f"{d['field']} ({d['kind']}, {d['design']}): {d['n_items']} items, "
                   f"{rpi.get('min')}–{rpi.get('max')} raters per item")
        for c in d["coefficients"]:
            v = "n/a" if c["value"] is None else f"{c['value']:.3f}"
            ci = "" if c.get("ci_low") is None else f" [{c['ci_low']:.3f}, {c['ci_high']:.3f}]"
            click.echo(f"  {c['name']}: {v}{ci}")
        for w in d["warnings"]:
            click.echo(f"  note: {w}", err=True)


@command("gate")
@click.option("--round", "round_id", required=True, help="A human_review round.")
@click.option("--rule", type=click.Choice(["lower-bound", "point"]), default="lower-bound",
              show_default=True,
              help="lower-bound: pass when the CI lower bound reaches the threshold; point: the old"
                   " point-estimate rule.")
@click.option("--override", "override_reason", default=None,
              help="Reason to let an inconclusive or failing gate through to the golden set (recorded).")
@click.option("--threshold", "threshold_pairs", default=None,
              help="FIELD=VALUE pairs replacing the scheme's thresholds (same coefficient).")
@click.option("--decided-by", default="local", show_default=True, help="Who decides.")
@click.option("--resamples", default=1000, show_default=True, type=click.IntRange(min=50),
              help="Bootstrap resamples for the intervals that need them.")
@json_option("Print the decision as JSON.")
@click.option("--golden/--no-golden", default=False, show_default=True,
              help="Build the golden set when the gate passes (or is overridden).")
@click.pass_context
def gate(ctx: click.Context, round_id: str, rule: str, override_reason: str | None,
         threshold_pairs: str | None, decided_by: str, resamples: int, as_json: bool,
         golden: bool) -> None:
    """Decide the agreement gate per field (pass / fail / inconclusive) and store the decision.

    Example: vignette-lab gate --round 9a1d… --rule lower-bound --json
    """
    from vignette_lab.pipeline.field_gate import run_gate
    from vignette_lab.pipeline.rounds import get_round
    from vignette_lab.pipeline.schemes import dataset_scheme

    db = open_db(ctx, init=True)
    thresholds = None
    pairs = _pairs(threshold_pairs, "--threshold")
    if pairs:
        sch = dataset_scheme(db, get_round(db, round_id)["dataset_id"])
        thresholds = dict(sch.thresholds())
        for k, v in pairs.items():
            if k not in thresholds:
                raise click.BadParameter(f"field {k!r} has no gate in scheme {sch.name}",
                                         param_hint="--threshold")
            try:
                thresholds[k] = (thresholds[k][0], float(v))
            except ValueError:
                raise click.BadParameter(f"{v!r} is not a number", param_hint="--threshold") from None
    res = run_gate(db, round_id, rule=rule, override_reason=override_reason,
                   decided_by=decided_by, thresholds=thresholds, n_boot=resamples)
    if as_json:
        echo_json({k: res[k] for k in ("gate_id", "round_id", "decision", "rule",
                                        "override_reason", "fields", "notes", "scheme")})
    else:
        click.echo(f"gate {res['gate_id']}: {res['decision'].upper()} (rule {rule})"
                   + (f" (override: {override_reason})" if override_reason else ""))
        for f in res["fields"]:
            v = "n/a" if f["value"] is None else f"{f['value']:.3f}"
            ci = "" if f["ci_low"] is None else f" [{f['ci_low']:.3f}, {f['ci_high']:.3f}]"
            click.echo(f"  {f['outcome']:<12} {f['field']}: {f['coefficient']} {v}{ci}"
                       f" (threshold {f['threshold']:g})")
        for n in res["notes"]:
            click.echo(f"  note: {n}")
    if golden:
        from vignette_lab.pipeline.golden import build_golden_set

        g = build_golden_set(db, get_round(db, round_id)["dataset_id"], gate_id=res["gate_id"])
        click.echo(f"golden {g['golden_id']} v{g['version']}: {g['item_count']} items",
                   err=as_json)


# --------------------------------------------------------------------------- export / import
@command("export")
@click.option("--golden", "golden_id", required=True, help="Golden-set id.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for items.jsonl, items.parquet, README.md and manifest.json.")
@click.option("--license", "license_id", default=None, metavar="SPDX",
              help="Licence of the data for the data card (e.g. cc-by-nc-4.0; default: unknown).")
@click.pass_context
def export(ctx: click.Context, golden_id: str, out_dir: str, license_id: str | None) -> None:
    """Export a golden set: JSONL + Parquet (same rows), a README.md data card and a manifest
    (counts, sha256, κ/α/ICC, thresholds). pandas, DuckDB and `datasets.load_dataset(OUT)` read it.

    Example: vignette-lab export --golden 51be… --out exports/golden-v1 --license cc-by-nc-4.0
    """
    from vignette_lab.pipeline.export import export_golden

    m = export_golden(open_db(ctx, init=True), golden_id, out_dir, license_id=license_id)
    click.echo(f"{m['counts']['items']} items → {m['path']}/items.jsonl "
               f"(sha256 {m['files']['items.jsonl']['sha256'][:12]}…)"
               + (f", items.parquet" if "items.parquet" in m["files"] else "") + ", README.md (data card)")


@command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.pass_context
def import_(ctx: click.Context, directory: str) -> None:
    """Re-import an exported golden set after checking every sha256 in its manifest.

    Example: vignette-lab import exports/golden-v1
    """
    from vignette_lab.pipeline.export import import_export

    res = import_export(open_db(ctx, init=True), directory)
    click.echo(f"golden {res['golden_id']} v{res['version']}: {res['item_count']} items "
               f"(dataset {res['dataset_id']})")
    if res.get("masked_texts"):
        click.echo(f"개인정보 마스킹: 가져온 텍스트 {res['masked_texts']}개에서 개인정보를 가렸습니다.")


# --------------------------------------------------------------------------- pipeline demo
@group("pipeline")
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
def pipeline_demo(ctx: click.Context, out_dir: str, sessions: int, turns: int, seed: int) -> None:
    """Run self-play → AI round → SIMULATED human review → gate → golden → export → tagger.

    Example: vignette-lab pipeline demo --out demo-out --sessions 4 --seed 0
    """
    from vignette_lab.pipeline.demo import run_demo

    run_demo(open_db(ctx, init=True), out_dir, sessions=sessions, turns=turns, seed=seed, echo=click.echo)
