"""Golden-set export (``items.jsonl`` + ``manifest.json``) and lossless re-import.

Formats are versioned and documented in ``docs/pipeline.md``: every line of ``items.jsonl``
is one item (schema ``vignette-lab/golden/v1``), written with sorted keys so the same golden
set always gives the same bytes; ``manifest.json`` (``vignette-lab/golden-manifest/v1``)
holds counts, the sha256 of every file, the agreement numbers and thresholds, the taxonomy
version, the source rounds, the creation time and the tool version. :func:`import_export`
checks every hash before reading anything, so a tampered file is refused by name.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping, Sequence

from vignette_lab.core.pii import gate_text
from vignette_lab.errors import InputError
from vignette_lab.pipeline.gate import get_gate
from vignette_lab.pipeline.golden import golden_items
from vignette_lab.pipeline.rounds import (
    APPROPRIATENESS,
    _dumps,
    _new_id,
    _now,
    _pinned,
    taxonomy_info,
)

__all__ = ["GOLDEN_SCHEMA", "MANIFEST_SCHEMA", "export_golden", "import_export", "read_golden_jsonl"]

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


def _record(r: Mapping[str, Any]) -> dict[str, Any]:
    labels = r["labels"] or {}
    return {"schema": GOLDEN_SCHEMA, "item_id": r["item_id"], "session_id": r["session_id"],
            "seq": int(r["seq"]), "persona_code": r["persona_code"], "learner_id": r["learner_id"],
            "context": r["context"], "counselor_text": r["counselor_text"],
            "client_reply": r["client_reply"], "intended_technique": r["intended_technique"],
            "labels": {k: labels.get(k) for k in _LABEL_KEYS}, "source": r["source"],
            "source_annotations": list(r["source_annotations"])}


def _agreement_summary(results: Mapping[str, Any]) -> dict[str, Any]:
    return {"method": results.get("method"), "n_overlap_items": results.get("n_overlap_items"),
            "techniques_macro_kappa": results["techniques"]["macro_kappa"],
            "techniques_macro_alpha": results["techniques"]["macro_alpha"],
            "client_state_macro_kappa": results["client_state"]["macro_kappa"],
            "appropriateness_kappa": results["appropriateness"]["kappa"],
            "appropriateness_alpha": results["appropriateness"]["alpha"],
            "icc_type": results.get("icc_type"),
            "icc": {s["dimension"]: s["icc"] for s in results["scores"]},
            "score_alpha": {s["dimension"]: s["alpha"] for s in results["scores"]}}


@_pinned
def export_golden(db: Any, golden_id: str, out_dir: str | os.PathLike[str], *,
                  notes: Sequence[str] = ()) -> dict[str, Any]:
    """Write a golden set as ``items.jsonl`` + ``manifest.json`` and record the export.

    Parameters
    ----------
    db : Database
    golden_id : str
    out_dir : path-like
        Created if missing; existing ``items.jsonl``/``manifest.json`` are replaced.
    notes : sequence of str, default=()
        Free notes kept in the manifest (e.g. "reviewers were simulated").

    Returns
    -------
    dict
        The manifest (also written to ``manifest.json``), with ``path`` added.
    """
    gs = db.fetchone("SELECT * FROM ds.golden_set WHERE golden_id = ?", [golden_id])
    if gs is None:
        raise InputError(f"unknown golden set {golden_id!r}", field="golden_id")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records = [_record(r) for r in golden_items(db, golden_id)]
    items_path = out / "items.jsonl"
    with open(items_path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(_line(rec))
    dataset = db.fetchone("SELECT dataset_id, name FROM ds.dataset WHERE dataset_id = ?",
                          [gs["dataset_id"]])
    gate = get_gate(db, gs["gate_id"]) if gs["gate_id"] else None
    rounds = []
    if gate is not None:
        rounds = [r["round_id"] for r in db.fetchall(
            "SELECT round_id FROM ds.annotation_round WHERE dataset_id = ? AND"
            " (kind = 'ai_auto' OR round_id = ?) ORDER BY created_at",
            [gs["dataset_id"], gate["round_id"]])]
    created = _now()
    manifest = {
        "schema": MANIFEST_SCHEMA, "golden_id": golden_id, "version": int(gs["version"]),
        "dataset": {"dataset_id": dataset["dataset_id"], "name": dataset["name"]},
        "taxonomy_version": gs["taxonomy_version"], "frozen_at": gs["frozen_at"].isoformat(),
        "counts": {"items": len(records),
                   "agreed": sum(r["source"] == "agreed" for r in records),
                   "adjudicated": sum(r["source"] == "adjudicated" for r in records)},
        "files": {"items.jsonl": {"sha256": _sha256(items_path), "bytes": items_path.stat().st_size,
                                  "lines": len(records), "schema": GOLDEN_SCHEMA}},
        "gate": None if gate is None else {
            "gate_id": gate["gate_id"], "round_id": gate["round_id"],
            "thresholds": gate["thresholds"], "passed": bool(gate["passed"]),
            "override_reason": gate["override_reason"], "decided_by": gate["decided_by"]},
        "agreement": None if gate is None else _agreement_summary(gate["results"]),
        "source_rounds": rounds, "created_at": created.isoformat(),
        "tool": {"name": "vignette-lab", "version": _tool_version()},
        "notes": [gate_text(n) for n in notes],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2,
                                                  sort_keys=True) + "\n", encoding="utf-8")
    db.execute("INSERT INTO ds.export_manifest (export_id, golden_id, path, manifest, created_at)"
               f" VALUES (?, ?, ?, {db.dialect.json_param()}, ?)",
               [_new_id(), golden_id, str(out.resolve()), _dumps(manifest), created])
    return {**manifest, "path": str(out)}


def _check_record(src: str, n: int, rec: Any, techniques: Sequence[str]) -> dict[str, Any]:
    if not isinstance(rec, dict):
        raise InputError("each line must be a JSON object", source=src, line=n)
    for k in _ITEM_KEYS:
        if k not in rec:
            raise InputError("missing field", source=src, line=n, field=k)
    if rec["schema"] != GOLDEN_SCHEMA:
        raise InputError(f"schema must be {GOLDEN_SCHEMA!r}; got {rec['schema']!r}", source=src,
                         line=n, field="schema")
    for k in ("item_id", "session_id", "counselor_text"):
        if not isinstance(rec[k], str) or not rec[k]:
            raise InputError("must be a non-empty string", source=src, line=n, field=k)
    if isinstance(rec["seq"], bool) or not isinstance(rec["seq"], int):
        raise InputError("must be an integer", source=src, line=n, field="seq")
    if not isinstance(rec["context"], list):
        raise InputError("must be a list", source=src, line=n, field="context")
    if rec["source"] not in ("agreed", "adjudicated"):
        raise InputError("must be 'agreed' or 'adjudicated'", source=src, line=n, field="source")
    labels = rec["labels"]
    if not isinstance(labels, dict):
        raise InputError("must be an object", source=src, line=n, field="labels")
    for k in _LABEL_KEYS:
        if k not in labels:
            raise InputError("missing field", source=src, line=n, field=f"labels.{k}")
    bad = [t for t in labels["techniques"] or [] if t not in techniques]
    if bad:
        raise InputError(f"unknown technique {bad[0]!r}", source=src, line=n, field="labels.techniques")
    if labels["appropriateness"] is not None and labels["appropriateness"] not in APPROPRIATENESS:
        raise InputError("must be pos, warn or neutral", source=src, line=n,
                         field="labels.appropriateness")
    return rec


def read_golden_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read and validate an ``items.jsonl`` (errors name file, line and field)."""
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", source=str(p)) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8", source=str(p)) from None
    techniques = taxonomy_info().techniques
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", source=str(p), line=n) from None
        out.append(_check_record(str(p), n, rec, techniques))
    if not out:
        raise InputError("file holds no items", source=str(p))
    return out


@_pinned
def import_export(db: Any, directory: str | os.PathLike[str], *, created_by: str = "local"
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
    d = Path(directory)
    mpath = d / "manifest.json"
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("manifest.json not found", source=str(mpath)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"manifest is not valid JSON: {exc}", source=str(mpath)) from None
    if not isinstance(manifest, dict) or manifest.get("schema") != MANIFEST_SCHEMA:
        raise InputError(f"schema must be {MANIFEST_SCHEMA!r}", source=str(mpath), field="schema")
    files = manifest.get("files")
    if not isinstance(files, dict) or "items.jsonl" not in files:
        raise InputError("manifest lists no items.jsonl", source=str(mpath), field="files")
    for name, info in files.items():
        fpath = d / name
        if not fpath.is_file():
            raise InputError("file listed in the manifest is missing", source=str(fpath))
        if _sha256(fpath) != info.get("sha256"):
            raise InputError("sha256 does not match the manifest (file changed after export)",
                             source=str(fpath), field="sha256")
    records = read_golden_jsonl(d / "items.jsonl")
    records, masked_texts = _gate_records(records)
    ids = [r["item_id"] for r in records]
    clash = db.fetchall(f"SELECT item_id FROM ds.dataset_item WHERE item_id IN"
                        f" ({', '.join('?' for _ in ids)}) LIMIT 1", ids)
    if clash:
        raise InputError(f"item {clash[0]['item_id']} already exists in this database"
                         " (import into a fresh database)", source=str(d / "items.jsonl"),
                         field="item_id")
    dataset_id, golden_id, now = _new_id(), _new_id(), _now()
    ds_name = (manifest.get("dataset") or {}).get("name") or d.name
    jp = db.dialect.json_param()
    with db.transaction():
        db.execute("INSERT INTO ds.dataset (dataset_id, name, source, filters, context_turns,"
                   f" item_count, created_by, created_at) VALUES (?, ?, 'import', {jp}, ?, ?, ?, ?)",
                   [dataset_id, ds_name,
                    _dumps({"imported_golden_id": manifest.get("golden_id"),
                            "manifest_sha256": _sha256(mpath)}),
                    max((len(r["context"]) for r in records), default=0), len(records),
                    created_by, now])
        db.executemany("INSERT INTO ds.dataset_item (item_id, dataset_id, session_id, seq, context,"
                       " counselor_text, client_reply, persona_code, learner_id, intended_technique,"
                       f" created_at) VALUES (?, ?, ?, ?, {jp}, ?, ?, ?, ?, ?, ?)",
                       [[r["item_id"], dataset_id, r["session_id"], r["seq"], _dumps(r["context"]),
                         r["counselor_text"], r["client_reply"], r["persona_code"], r["learner_id"],
                         r["intended_technique"], now] for r in records])
        db.execute("INSERT INTO ds.golden_set (golden_id, dataset_id, version, frozen_at, gate_id,"
                   " taxonomy_version, item_count) VALUES (?, ?, ?, ?, NULL, ?, ?)",
                   [golden_id, dataset_id, int(manifest.get("version") or 1), now,
                    manifest.get("taxonomy_version"), len(records)])
        db.executemany("INSERT INTO ds.golden_item (golden_id, item_id, labels, source,"
                       f" source_annotations) VALUES (?, ?, {jp}, ?, ?)",
                       [[golden_id, r["item_id"], _dumps(r["labels"]), r["source"],
                         list(r["source_annotations"])] for r in records])
    return {"dataset_id": dataset_id, "golden_id": golden_id,
            "version": int(manifest.get("version") or 1), "item_count": len(records),
            "masked_texts": masked_texts}


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
