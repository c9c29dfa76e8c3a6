"""Golden-set export (``items.jsonl``, ``items.parquet``, a ``README.md`` data card and
``manifest.json``) and lossless re-import.

Formats are versioned and documented in ``docs/pipeline.md``: every line of ``items.jsonl``
is one item (schema ``vignette-lab/golden/v1``), written with sorted keys so the same golden
set always gives the same bytes; ``manifest.json`` (``vignette-lab/golden-manifest/v1``)
holds counts, the sha256 of every file, the agreement numbers and thresholds, the taxonomy
version, the source rounds, the creation time and the tool version. :func:`import_export`
checks every hash before reading anything, so a tampered file is refused by name.

A golden set on another label scheme than the default taxonomy writes each item's ``labels``
keyed by the scheme's own fields (those that apply to the item's speaker, plus
``rationale``) and adds the item's ``speaker``; the manifest's ``scheme`` names the scheme
(name, version, sha256), and the re-import checks the labels against that scheme, which the
target database must hold (``vignette-lab scheme import``).
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.core.pii import gate_text
from vignette_lab.errors import InputError
from vignette_lab.pipeline.gate import get_gate, icc_form
from vignette_lab.store import ds_repo
from vignette_lab.pipeline.readers import INT32_MAX, Limits, read_table
from vignette_lab.pipeline.golden import golden_items
from vignette_lab.pipeline.rounds import (
    APPROPRIATENESS,
    _new_id,
    _now,
    _pinned,
    taxonomy_info,
)

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["GOLDEN_SCHEMA", "MANIFEST_SCHEMA", "export_golden", "find_export_dir", "import_export",
           "read_golden_jsonl", "read_manifest"]

GOLDEN_SCHEMA = "vignette-lab/golden/v1"
MANIFEST_SCHEMA = "vignette-lab/golden-manifest/v1"
_ITEM_KEYS = ("schema", "item_id", "session_id", "seq", "persona_code", "learner_id", "context",
              "counselor_text", "client_reply", "intended_technique", "labels", "source",
              "source_annotations")
_LABEL_KEYS = ("techniques", "client_state", "appropriateness", "intent_deviation", "scores",
               "rationale")


def _tool_version() -> str:
    try:
        return metadata.version("vignette-lab")
    except metadata.PackageNotFoundError:
        return "0.1.0+src"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def _record(r: Mapping[str, Any], scheme: Any = None) -> dict[str, Any]:
    """One ``items.jsonl`` line; ``scheme`` (a non-default scheme) keys labels by its fields."""
    labels = r["labels"] or {}
    rec = {"schema": GOLDEN_SCHEMA, "item_id": r["item_id"], "session_id": r["session_id"],
           "seq": int(r["seq"]), "persona_code": r["persona_code"], "learner_id": r["learner_id"],
           "context": r["context"], "counselor_text": r["counselor_text"],
           "client_reply": r["client_reply"], "intended_technique": r["intended_technique"],
           "labels": {k: labels.get(k) for k in _LABEL_KEYS}, "source": r["source"],
           "source_annotations": list(r["source_annotations"])}
    if scheme is not None:
        speaker = r.get("speaker") or "counselor"
        rec["speaker"] = speaker
        rec["labels"] = {**{f.name: labels.get(f.name) for f in scheme.fields_for(speaker)},
                         "rationale": labels.get("rationale")}
    return rec


def _generic(scheme: Any) -> bool:
    from vignette_lab.core.scheme import default_scheme

    return scheme.name != default_scheme().name


_GATE_KEYS = ("field", "coefficient", "value", "ci_low", "ci_high", "threshold", "outcome", "category")


def _gate_fields(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decided fields of a stored gate: the coefficient each was gated on, its CI, threshold, outcome."""
    fields = results.get("fields") or []
    return [{k: f.get(k) for k in _GATE_KEYS if k in f} for f in fields if isinstance(f, Mapping)]


def _agreement_summary(results: Mapping[str, Any], thresholds: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if "fields" in results and "techniques" not in results:
        # per-field gate (vignette_lab.pipeline.field_gate)
        return {"rule": results.get("rule"), "decision": results.get("decision"),
                "fields": results.get("fields"), "gate_fields": _gate_fields(results)}
    return {"rule": results.get("rule"), "decision": results.get("decision"),
            "gate_fields": _gate_fields(results),
            "method": results.get("method"), "n_overlap_items": results.get("n_overlap_items"),
            "techniques_macro_kappa": results["techniques"]["macro_kappa"],
            "techniques_macro_alpha": results["techniques"]["macro_alpha"],
            "client_state_macro_kappa": results["client_state"]["macro_kappa"],
            "appropriateness_kappa": results["appropriateness"]["kappa"],
            "appropriateness_alpha": results["appropriateness"]["alpha"],
            "icc_type": icc_form(results, thresholds),
            "icc": {s["dimension"]: s["icc"] for s in results["scores"]},
            "score_alpha": {s["dimension"]: s["alpha"] for s in results["scores"]}}


@_pinned
def export_golden(db: Database, golden_id: str, out_dir: str | os.PathLike[str], *,
                  notes: Sequence[str] = (), license_id: str | None = None) -> dict[str, Any]:
    """Write a golden set as ``items.jsonl``, ``items.parquet``, ``README.md`` + ``manifest.json``.

    ``items.parquet`` holds the same rows as ``items.jsonl`` (written through DuckDB, nested
    fields as structs/lists); ``README.md`` is the data card (:mod:`~vignette_lab.pipeline.datacard`)
    whose YAML front matter lets ``datasets.load_dataset(out_dir)`` read the Parquet. The
    manifest lists all three with their sha256, so :func:`import_export` checks them too.

    Parameters
    ----------
    db : Database
    golden_id : str
    out_dir : path-like
        Created if missing; existing ``items.jsonl``/``manifest.json`` are replaced.
    notes : sequence of str, default=()
        Free notes kept in the manifest (e.g. "reviewers were simulated").
    license_id : str, default=None
        Licence of the data for the card's ``license`` field (e.g. ``cc-by-nc-4.0``); None
        writes ``unknown`` and the card says none was chosen.

    Returns
    -------
    dict
        The manifest (also written to ``manifest.json``), with ``path`` added.
    """
    gs = ds_repo.golden_set_row(db, golden_id)
    if gs is None:
        raise InputError(f"unknown golden set {golden_id!r}", field="golden_id")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from vignette_lab.pipeline.schemes import dataset_scheme

    scheme = dataset_scheme(db, gs["dataset_id"])
    records = [_record(r, scheme if _generic(scheme) else None) for r in golden_items(db, golden_id)]
    items_path = out / "items.jsonl"
    with open(items_path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(_line(rec))
    dataset = ds_repo.dataset_row(db, gs["dataset_id"])
    assert dataset is not None  # a golden set is frozen from a stored data set
    gate = get_gate(db, gs["gate_id"]) if gs["gate_id"] else None
    rounds = []
    if gate is not None:
        rounds = ds_repo.source_round_ids(db, gs["dataset_id"], gate["round_id"])
    created = _now()
    manifest = {
        "schema": MANIFEST_SCHEMA, "golden_id": golden_id, "version": int(gs["version"]),
        "dataset": {"dataset_id": dataset["dataset_id"], "name": dataset["name"]},
        "taxonomy_version": gs["taxonomy_version"], "frozen_at": gs["frozen_at"].isoformat(),
        "scheme": scheme.ref,
        "counts": {"items": len(records),
                   "agreed": sum(r["source"] == "agreed" for r in records),
                   "adjudicated": sum(r["source"] == "adjudicated" for r in records)},
        "files": {"items.jsonl": {"sha256": _sha256(items_path), "bytes": items_path.stat().st_size,
                                  "lines": len(records), "schema": GOLDEN_SCHEMA}},
        "gate": None if gate is None else {
            "gate_id": gate["gate_id"], "round_id": gate["round_id"],
            "thresholds": gate["thresholds"], "passed": bool(gate["passed"]),
            "override_reason": gate["override_reason"], "decided_by": gate["decided_by"]},
        "agreement": None if gate is None else _agreement_summary(gate["results"], gate["thresholds"]),
        "source_rounds": rounds, "created_at": created.isoformat(),
        "tool": {"name": "vignette-lab", "version": _tool_version()},
        "notes": [gate_text(n) for n in notes],
    }
    _write_parquet_and_card(db, out, manifest, items_path, scheme=scheme, license_id=license_id)
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2,
                                                  sort_keys=True) + "\n", encoding="utf-8")
    ds_repo.insert_export_manifest(db, export_id=_new_id(), golden_id=golden_id, path=str(out.resolve()),
                                   manifest=manifest, created_at=created)
    return {**manifest, "path": str(out)}


def _write_parquet_and_card(db: Database, out: Path, manifest: dict[str, Any], items_path: Path, *, scheme: Any,
                            license_id: str | None) -> None:
    """``items.parquet`` (same rows) and the ``README.md`` data card, both added to the manifest's files."""
    from vignette_lab.pipeline.datacard import render_card
    from vignette_lab.store import ds_repo
    from vignette_lab.store.files import jsonl_to_parquet

    files = manifest["files"]
    if manifest["counts"]["items"]:
        parquet = out / "items.parquet"
        rows = jsonl_to_parquet(items_path, parquet)
        files["items.parquet"] = {"sha256": _sha256(parquet), "bytes": parquet.stat().st_size, "rows": rows,
                                  "format": "parquet"}
    from vignette_lab.pipeline.rounds import is_simulated_round

    simulated = any(is_simulated_round(db, rid) for rid in manifest["source_rounds"]) \
        or any("SIMULATED" in n for n in manifest["notes"])
    manifest["simulated_reviewers"] = simulated
    manifest["license"] = license_id
    card = out / "README.md"
    card.write_text(render_card(manifest, scheme=scheme, license_id=license_id, simulated=simulated,
                                files=[f for f in ("items.jsonl", "items.parquet") if f in files]),
                    encoding="utf-8")
    files["README.md"] = {"sha256": _sha256(card), "bytes": card.stat().st_size, "format": "data card"}


def find_export_dir(directory: str | os.PathLike[str]) -> Path:
    """The export folder ``directory`` names: itself when it holds ``manifest.json``, else the one
    export folder below it (e.g. ``pipeline demo --out DIR`` writes ``DIR/export``).

    Raises
    ------
    InputError
        No ``manifest.json`` here; the message names the export folder(s) found below, if any.
    """
    d = Path(directory)
    if not d.is_dir():
        raise InputError("export directory not found", source=str(d))
    if (d / "manifest.json").exists():
        return d
    below = sorted(p.parent for p in d.glob("*/manifest.json")) or sorted(p.parent for p in d.glob("*/*/manifest.json"))
    if len(below) == 1:
        raise InputError(f"no manifest.json here; the export is in {below[0]} — import that folder",
                         source=str(d / "manifest.json"))
    if below:
        raise InputError("no manifest.json here; exports below: " + ", ".join(str(p) for p in below[:5]),
                         source=str(d / "manifest.json"))
    raise InputError("manifest.json not found (not an export folder: expected items.jsonl + manifest.json)",
                     source=str(d / "manifest.json"))


def _bad(src: str, n: int | None, field: str | None, msg: str) -> InputError:
    return InputError(msg, source=src, line=n, field=field)


def _str_or_none(src: str, n: int, rec: Mapping[str, Any], k: str) -> None:
    if rec[k] is not None and not isinstance(rec[k], str):
        raise _bad(src, n, k, f"must be a string or null; got {type(rec[k]).__name__}")


def _str_list(src: str, n: int, value: Any, field: str, allowed: Sequence[str] | None = None) -> None:
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(src, n, field, "must be a list of strings")
    if allowed is not None:
        bad = [v for v in value if v not in allowed]
        if bad:
            raise _bad(src, n, field, f"unknown code {bad[0]!r}")


def _check_record(src: str, n: int, rec: Any, techniques: Sequence[str],
                  client_states: Sequence[str] = ()) -> dict[str, Any]:
    """Type-check one golden item against ``vignette-lab/golden/v1`` (pure)."""
    if not isinstance(rec, dict):
        raise InputError("each line must be a JSON object", source=src, line=n)
    for k in _ITEM_KEYS:
        if k not in rec:
            raise InputError("missing field", source=src, line=n, field=k)
    if rec["schema"] != GOLDEN_SCHEMA:
        raise InputError(f"schema must be {GOLDEN_SCHEMA!r}; got {rec['schema']!r}"[:200],
                         source=src, line=n, field="schema")
    for k in ("item_id", "session_id", "counselor_text"):
        if not isinstance(rec[k], str) or not rec[k]:
            raise InputError("must be a non-empty string", source=src, line=n, field=k)
    for k in ("persona_code", "learner_id", "client_reply", "intended_technique"):
        _str_or_none(src, n, rec, k)
    if isinstance(rec["seq"], bool) or not isinstance(rec["seq"], int) or not 0 <= rec["seq"] <= INT32_MAX:
        raise InputError(f"must be an integer between 0 and {INT32_MAX}", source=src, line=n,
                         field="seq")
    if not isinstance(rec["context"], list):
        raise InputError("must be a list", source=src, line=n, field="context")
    for i, c in enumerate(rec["context"]):
        if not isinstance(c, dict) or not isinstance(c.get("text"), str) or \
                c.get("speaker") not in ("counselor", "client") or \
                isinstance(c.get("seq"), bool) or not isinstance(c.get("seq"), int):
            raise _bad(src, n, f"context[{i}]", "must be {seq: int, speaker: counselor|client, text: str}")
    if rec["source"] not in ("agreed", "adjudicated"):
        raise InputError("must be 'agreed' or 'adjudicated'", source=src, line=n, field="source")
    _str_list(src, n, rec["source_annotations"], "source_annotations")
    if rec["source_annotations"] is None:
        raise _bad(src, n, "source_annotations", "must be a list of strings")
    labels = rec["labels"]
    if not isinstance(labels, dict):
        raise InputError("must be an object", source=src, line=n, field="labels")
    for k in _LABEL_KEYS:
        if k not in labels:
            raise InputError("missing field", source=src, line=n, field=f"labels.{k}")
    _str_list(src, n, labels["techniques"], "labels.techniques", techniques or None)
    _str_list(src, n, labels["client_state"], "labels.client_state", client_states or None)
    if labels["appropriateness"] is not None and labels["appropriateness"] not in APPROPRIATENESS:
        raise InputError("must be pos, warn or neutral", source=src, line=n,
                         field="labels.appropriateness")
    scores = labels["scores"]
    if scores is not None:
        if not isinstance(scores, dict):
            raise _bad(src, n, "labels.scores", "must be an object {dimension: number}")
        for k, v in scores.items():
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or not 0 <= v <= 5):
                raise _bad(src, n, f"labels.scores.{k}", "must be a number within 0–5 or null")
    if labels["rationale"] is not None and not isinstance(labels["rationale"], str):
        raise _bad(src, n, "labels.rationale", "must be a string or null")
    if labels["intent_deviation"] is not None and not isinstance(labels["intent_deviation"], (dict, list)):
        raise _bad(src, n, "labels.intent_deviation", "must be an object, a list or null")
    return rec


def _check_scheme_labels(src: str, n: int, rec: Mapping[str, Any], scheme: Any) -> None:
    """Labels of one item of a non-default scheme: the fields of its speaker, valid values."""
    speaker = rec.get("speaker")
    if speaker not in scheme.speakers():
        raise _bad(src, n, "speaker", f"must be one of {', '.join(scheme.speakers())} (scheme {scheme.name})")
    labels = rec["labels"]
    if not isinstance(labels, dict):
        raise _bad(src, n, "labels", "must be an object")
    fields = {f.name: f for f in scheme.fields_for(speaker)}
    for k, v in labels.items():
        if k == "rationale":
            if v is not None and not isinstance(v, str):
                raise _bad(src, n, "labels.rationale", "must be a string or null")
            continue
        f = fields.get(k)
        if f is None:
            raise _bad(src, n, f"labels.{k}", f"not a field of scheme {scheme.name} for {speaker} items")
        if v is None:
            continue
        if f.kind == "score":
            lo, hi = f.range
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise _bad(src, n, f"labels.{k}", f"must be a number within {lo:g}–{hi:g} or null")
        elif f.kind == "multi":
            _str_list(src, n, v, f"labels.{k}", list(f.codes()))
        elif v not in f.codes():
            raise _bad(src, n, f"labels.{k}", f"unknown code {v!r}"[:200])


def read_golden_jsonl(path: str | os.PathLike[str], *, scheme: Any = None) -> list[dict[str, Any]]:
    """Read and validate an ``items.jsonl`` (strict reader; errors name file, line and field).

    ``scheme`` (a non-default label scheme) checks labels against its fields instead of the
    taxonomy's.
    """
    tax = taxonomy_info()
    table = read_table(Path(path), fmt="jsonl", limits=Limits(max_depth=6))
    out = []
    for n, rec in table.records:
        if scheme is None:
            out.append(_check_record(table.source, n, rec, tax.techniques, tax.client_states))
            continue
        if isinstance(rec, dict) and isinstance(rec.get("labels"), dict):
            _check_scheme_labels(table.source, n, rec, scheme)
            labels = rec["labels"]
            # the common checks, with the taxonomy label keys filled in as absent
            _check_record(table.source, n, {**rec, "labels": {k: None for k in _LABEL_KEYS}}, (), ())
            out.append({**rec, "labels": labels})
        else:
            out.append(_check_record(table.source, n, rec, (), ()))
    ids = [r["item_id"] for r in out]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"item_id {dup!r} appears twice", source=table.source, field="item_id")
    return out


def _inside(base: Path, name: Any, src: str) -> Path:
    """``base / name`` when it is a plain relative path that stays inside ``base``."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise InputError(f"file name must be a non-empty string; got {name!r}"[:200], source=src,
                         field="files")
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or name.startswith(("/", "\\")) or ":" in name:
        raise InputError(f"file {name!r} is outside the export directory; refused"[:200],
                         source=src, field=f"files.{name}"[:120])
    root = base.resolve()
    target = (base / rel).resolve()
    if target != root and root not in target.parents:
        raise InputError(f"file {name!r} resolves outside the export directory; refused"[:200],
                         source=src, field=f"files.{name}"[:120])
    return target


def _int_field(m: Mapping[str, Any], key: str, src: str, field: str, *, minimum: int = 0) -> int:
    v = m.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not minimum <= v <= INT32_MAX:
        raise InputError(f"must be an integer ≥ {minimum}; got {v!r}"[:200], source=src, field=field)
    return v


def read_manifest(directory: str | os.PathLike[str]) -> tuple[Path, dict[str, Any]]:
    """Read and type-check ``manifest.json`` of an export directory (pure; no database).

    Every file the manifest lists must be a plain relative name inside the directory (no
    ``..``, no absolute path, no symlink out) and match its sha256 and byte count.

    Returns
    -------
    (Path, dict)
        The manifest path and the manifest.
    """
    d = Path(directory)
    mpath = d / "manifest.json"
    src = str(mpath)
    if not d.is_dir():
        raise InputError("export directory not found", source=str(d))
    if mpath.is_symlink() or (mpath.exists() and not mpath.is_file()):
        raise InputError("manifest.json must be a regular file", source=src)
    try:
        raw = mpath.read_bytes()
    except FileNotFoundError:
        raise InputError("manifest.json not found", source=src) from None
    except OSError as exc:
        raise InputError(f"cannot read manifest: {exc.strerror or exc}", source=src) from None
    if len(raw) > 16 * 1024 * 1024:
        raise InputError("manifest.json is larger than 16 MiB", source=src)
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("manifest is not UTF-8", source=src) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"manifest is not valid JSON ({exc.msg})", source=src, line=exc.lineno) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"manifest is not valid JSON ({exc})"[:200], source=src) from None
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        raise InputError(f"schema must be {MANIFEST_SCHEMA!r}", source=src, field="schema")
    _int_field(manifest, "version", src, "version", minimum=1)
    files = manifest.get("files")
    if not isinstance(files, dict) or "items.jsonl" not in files:
        raise InputError("manifest lists no items.jsonl", source=src, field="files")
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        raise InputError("must be an object {items, agreed, adjudicated}", source=src, field="counts")
    for k in ("items", "agreed", "adjudicated"):
        _int_field(counts, k, src, f"counts.{k}")
    ds = manifest.get("dataset")
    if ds is not None and (not isinstance(ds, dict) or not isinstance(ds.get("name", ""), (str, type(None)))):
        raise InputError("must be an object with a string name", source=src, field="dataset")
    for k in ("taxonomy_version", "golden_id"):
        if manifest.get(k) is not None and not isinstance(manifest[k], str):
            raise InputError("must be a string", source=src, field=k)
    for name, info in files.items():
        fpath = _inside(d, name, src)
        if not isinstance(info, dict) or not isinstance(info.get("sha256"), str):
            raise InputError("must be an object with a sha256 string", source=src,
                             field=f"files.{name}")
        if not fpath.is_file():
            raise InputError("file listed in the manifest is missing", source=str(d / name))
        if "bytes" in info and (isinstance(info["bytes"], bool) or not isinstance(info["bytes"], int)):
            raise InputError("must be an integer", source=src, field=f"files.{name}.bytes")
        if _sha256(fpath) != info["sha256"]:
            raise InputError("sha256 does not match the manifest (file changed after export)",
                             source=str(d / name), field="sha256")
        if "bytes" in info and fpath.stat().st_size != info["bytes"]:
            raise InputError("size does not match the manifest (file changed after export)",
                             source=str(d / name), field="bytes")
    return mpath, manifest


@_pinned
def import_export(db: Database, directory: str | os.PathLike[str], *, created_by: str = "local"
                  ) -> dict[str, Any]:
    """Re-import an exported golden set (verifying every hash first) into ``db``.

    Creates a data set (``source='import'``) with the original item ids and a golden set of
    the same version, so exporting it again gives byte-identical ``items.jsonl``.

    Returns
    -------
    dict
        ``{"dataset_id", "golden_id", "version", "item_count"}``.

    Raises
    ------
    InputError
        Missing or malformed manifest, a file whose sha256 differs (the file is named), a
        bad item line, or items already present in this database.
    """
    d = find_export_dir(directory)
    mpath, manifest = read_manifest(d)
    scheme = _manifest_scheme(db, manifest, str(mpath))
    records = read_golden_jsonl(_inside(d, "items.jsonl", str(mpath)), scheme=scheme)
    records, masked_texts = _gate_records(records)
    counts = manifest["counts"]
    got = {"items": len(records), "agreed": sum(r["source"] == "agreed" for r in records),
           "adjudicated": sum(r["source"] == "adjudicated" for r in records)}
    for k, v in got.items():
        if counts[k] != v:
            raise InputError(f"manifest says {counts[k]} but items.jsonl holds {v}",
                             source=str(mpath), field=f"counts.{k}")
    ids = [r["item_id"] for r in records]
    clash = ds_repo.first_existing_item(db, ids)
    if clash is not None:
        raise InputError(f"item {clash} already exists in this database"
                         " (import into a fresh database)", source=str(d / "items.jsonl"),
                         field="item_id")
    dataset_id, golden_id, now = _new_id(), _new_id(), _now()
    ds_name = (manifest.get("dataset") or {}).get("name") or d.name
    version = int(manifest.get("version") or 1)
    with db.transaction():
        ds_repo.insert_dataset(
            db, dataset_id=dataset_id, name=ds_name, source="import",
            filters={"imported_golden_id": manifest.get("golden_id"), "manifest_sha256": _sha256(mpath)},
            context_turns=max((len(r["context"]) for r in records), default=0),
            items=[{"item_id": r["item_id"], "session_id": r["session_id"], "seq": r["seq"],
                    "speaker": r.get("speaker") or "counselor", "context": r["context"],
                    "counselor_text": r["counselor_text"], "client_reply": r["client_reply"],
                    "persona_code": r["persona_code"], "learner_id": r["learner_id"],
                    "intended_technique": r["intended_technique"]} for r in records],
            created_by=created_by, created_at=now, scheme=scheme.ref if scheme is not None else None)
        ds_repo.insert_golden_set(
            db, golden_id=golden_id, dataset_id=dataset_id, version=version, frozen_at=now, gate_id=None,
            taxonomy_version=manifest.get("taxonomy_version"),
            items=[(r["item_id"], r["labels"], r["source"], r["source_annotations"]) for r in records])
    return {"dataset_id": dataset_id, "golden_id": golden_id,
            "version": int(manifest.get("version") or 1), "item_count": len(records),
            "masked_texts": masked_texts}


def _manifest_scheme(db: Database, manifest: Mapping[str, Any], src: str) -> Any:
    """The non-default scheme a manifest names (``None`` for the default taxonomy).

    The target database must hold it with the same sha256.
    """
    from vignette_lab.core.scheme import builtin_schemes, default_scheme
    from vignette_lab.pipeline.schemes import _stored

    ref = manifest.get("scheme")
    if ref is None:
        return None
    if not isinstance(ref, dict) or not all(isinstance(ref.get(k), str) for k in ("name", "version")):
        raise InputError("must be an object {name, version, sha256}", source=src, field="scheme")
    if ref["name"] == default_scheme().name:
        return None
    scheme = _stored(db, ref["name"], ref["version"]) or builtin_schemes().get((ref["name"], ref["version"]))
    if scheme is None:
        raise InputError(f"scheme {ref['name']} v{ref['version']} is not in this database"
                         " (import the scheme file first: vignette-lab scheme import FILE)",
                         source=src, field="scheme")
    if ref.get("sha256") and scheme.sha256 != ref["sha256"]:
        raise InputError(f"scheme {ref['name']} v{ref['version']} here differs from the export's"
                         f" (sha256 {scheme.sha256[:12]}… vs {str(ref['sha256'])[:12]}…)",
                         source=src, field="scheme.sha256")
    return scheme


def _gate_records(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Mask every free text of imported items (an export may have been edited and re-hashed).

    Returns the gated records and how many texts masking changed.
    """
    from vignette_lab.core.pii import gate_json, gate_text

    changed = 0
    out = []
    for r in records:
        r = dict(r)
        for key in ("counselor_text", "client_reply"):
            g = gate_text(r.get(key))
            changed += int(g != r.get(key))
            r[key] = g
        ctx = []
        for c in r.get("context") or []:
            if isinstance(c, dict) and isinstance(c.get("text"), str):
                g = gate_text(c["text"])
                changed += int(g != c["text"])
                c = {**c, "text": g}
            ctx.append(c)
        r["context"] = ctx
        labels = gate_json(r.get("labels"))
        changed += int(labels != r.get("labels"))
        r["labels"] = labels
        out.append(r)
    return out, changed
