"""Import and export of existing annotations in long format (CSV or JSONL).

One row per (item, annotator, field): ``session_id, seq, annotator, field, value`` plus the
optional ``annotator_kind`` (``human`` default, or ``ai`` — stored as ``proposed`` only),
``round``, ``rationale``, ``created_at``. Rows find their item by ``(session_id, seq)`` with
``7`` and ``"7"`` the same session. A ``multi`` field takes one row per category or
``a|b|c``; empty, ``n/a``, ``NA`` (and ``nan``, ``none``, ``null``) are missing. Published
corpora that keep one column per field (``main_therapist_behaviour``, ``client_talk_type``)
are read with ``fields={field: column}`` ("wide" rows become long rows).

Everything is validated first (file, physical line and column in every error; an unknown
field or category code fails the whole file); then rounds and annotations are written in one
transaction. A refused file writes nothing but an audit entry. :func:`parse_annotations` is
the pure part (no database); :func:`import_annotations` and :func:`export_annotations` are
the thin ``run(db, …)`` wrappers.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.errors import InputError
from vignette_lab.pipeline.readers import Table, read_table, to_int
from vignette_lab.pipeline.rounds import (
    AIProposal,
    HumanReview,
    _held,
    _new_id,
    _now,
    annotation_rows,
    check_required,
    effective_annotations,
    get_round,
)
from vignette_lab.store import ds_repo
from vignette_lab.pipeline.datasets import _mask, _refused
from vignette_lab.pipeline.schemes import dataset_scheme

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["LONG_COLUMNS", "MISSING", "OPTIONAL_COLUMNS", "LongRow", "export_annotations",
           "import_annotations", "parse_annotations"]

LONG_COLUMNS = ("session_id", "seq", "annotator", "field", "value")
OPTIONAL_COLUMNS = ("annotator_kind", "round", "rationale", "created_at")
MISSING = frozenset({"", "n/a", "na", "nan", "none", "null"})
_ALL = LONG_COLUMNS + OPTIONAL_COLUMNS


@dataclass
class LongRow:
    """One accepted (item, annotator, field) value after validation."""

    line: int
    item_id: str
    session_id: str
    seq: int
    annotator: str
    annotator_kind: str
    round: str | None
    field: str
    value: Any
    rationale: str | None
    created_at: datetime | None


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, str) and v.strip().lower() in MISSING)


def _str(v: Any, src: str, n: int, col: str, *, what: str) -> str:
    if isinstance(v, bool) or isinstance(v, float):
        raise InputError(f"{what} must be a string or an integer; got {v!r}", source=src, line=n,
                         field=col)
    if isinstance(v, int):
        return str(v)
    if not isinstance(v, str):
        raise InputError(f"{what} must be a string; got {type(v).__name__}", source=src, line=n,
                         field=col)
    return v.strip()


def _when(v: Any, src: str, n: int, col: str) -> datetime | None:
    if _is_missing(v):
        return None
    if not isinstance(v, str):
        raise InputError(f"created_at must be an ISO 8601 string; got {type(v).__name__}",
                         source=src, line=n, field=col)
    try:
        t = datetime.fromisoformat(v.strip())
    except ValueError:
        raise InputError(f"created_at must be ISO 8601; got {v!r}"[:200], source=src, line=n,
                         field=col) from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _values(f: Any, raw: Any, src: str, n: int, col: str) -> list[Any]:
    """Scheme-checked values of one cell (several for ``a|b|c`` in a multi field)."""
    if f.kind == "score":
        v = raw
        if isinstance(v, str):
            try:
                v = float(v.strip())
            except ValueError:
                raise InputError(f"{f.name} is a score; got {raw!r}"[:200], source=src, line=n,
                                 field=col) from None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (
                float("inf"), float("-inf")):
            raise InputError(f"{f.name} is a score; got {raw!r}"[:200], source=src, line=n, field=col)
        lo, hi = f.range
        if not lo <= v <= hi:
            raise InputError(f"{f.name} must be within {lo:g}–{hi:g}; got {v:g}", source=src,
                             line=n, field=col)
        return [float(v)]
    if isinstance(raw, list):
        parts = raw
    elif isinstance(raw, str):
        parts = [p.strip() for p in raw.split("|")] if f.kind == "multi" else [raw.strip()]
    else:
        raise InputError(f"{f.name} takes category codes; got {type(raw).__name__}", source=src,
                         line=n, field=col)
    codes = f.codes()
    out = []
    for p in parts:
        if not isinstance(p, str):
            raise InputError(f"{f.name} takes category codes; got {p!r}"[:200], source=src,
                             line=n, field=col)
        if p == "":
            continue
        if p not in codes:
            raise InputError(f"unknown category {p!r} for field {f.name!r} (allowed:"
                             f" {', '.join(codes)})"[:400], source=src, line=n, field=col)
        out.append(p)
    if len(out) > 1 and f.kind != "multi":
        raise InputError(f"{f.name} is a {f.kind} field and takes one code; got {raw!r}"[:200],
                         source=src, line=n, field=col)
    return out


def parse_annotations(table: Table, *, scheme: Any, items: Mapping[tuple[str, int], tuple[str, str]],
                      mapping: Mapping[str, str] | None = None,
                      fields: Mapping[str, str] | None = None,
                      ignore_extra: bool = False) -> tuple[list[LongRow], int]:
    """Validate an annotation table against a scheme and a data set's items (pure).

    Parameters
    ----------
    table : Table
        From :func:`~vignette_lab.pipeline.readers.read_table`.
    scheme : Scheme
    items : dict
        ``(session_id, seq) -> (item_id, speaker)`` of the data set.
    mapping : dict, optional
        ``{column name used here: column in the file}`` (``session_id``, ``seq``,
        ``annotator``, ``field``, ``value``, ``annotator_kind``, ``round``, ``rationale``,
        ``created_at``).
    fields : dict, optional
        Wide rows: ``{scheme field: column}``; the ``field``/``value`` columns are then not
        used. Columns no option names are ignored in this mode.
    ignore_extra : bool, default=False
        Long rows: ignore unknown columns instead of refusing them.

    Returns
    -------
    (list of LongRow, int)
        Accepted rows and the number of missing values skipped.
    """
    src = table.source
    cols = {c: c for c in _ALL}
    for k, v in (mapping or {}).items():
        if k not in _ALL:
            raise InputError(f"--map names unknown column {k!r} (columns: {', '.join(_ALL)})",
                             field="map")
        cols[k] = v
    wide = dict(fields or {})
    for fname, col in wide.items():
        try:
            scheme.field(fname)
        except KeyError:
            raise InputError(f"--fields names {fname!r}, which scheme {scheme.name} v{scheme.version}"
                             f" does not declare (fields: {', '.join(scheme.field_names())})",
                             field="fields") from None
    required = ("session_id", "seq", "annotator") + (() if wide else ("field", "value"))
    header = table.columns
    if table.fmt == "csv":
        for c in required:
            if cols[c] not in header:
                raise InputError("header lacks a required column", source=src, line=1, field=cols[c])
        for fname, col in wide.items():
            if col not in header:
                raise InputError(f"column for field {fname!r} is not in the header", source=src,
                                 line=1, field=col)
    if not wide and not ignore_extra:
        known = set(cols.values())
        unknown = [c for c in header if c not in known]
        if unknown:
            first = 1 if table.fmt == "csv" else next(
                (n for n, r in table.records if any(c in r for c in unknown)), 1)
            raise InputError(f"unknown column{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}"
                             " (allowed: " + ", ".join(_ALL) + ")", source=src, line=first,
                             field=unknown[0])
    out: list[LongRow] = []
    missing = 0
    seen: dict[tuple[Any, ...], int] = {}
    for n, rec in table.records:
        for c in required:
            if c in ("field", "value"):
                continue
            if _is_missing(rec.get(cols[c])):
                raise InputError("required value is missing or empty", source=src, line=n,
                                 field=cols[c])
        sid = _str(rec[cols["session_id"]], src, n, cols["session_id"], what="session id")
        seq = to_int(rec[cols["seq"]], src=src, line=n, field=cols["seq"])
        hit = items.get((sid, seq))
        if hit is None:
            raise InputError(f"no item ({sid!r}, {seq}) in the data set (session_id, seq must"
                             " match an imported utterance of a speaker the scheme applies to)"[:300],
                             source=src, line=n, field=cols["seq"])
        item_id, speaker = hit
        annotator = _str(rec[cols["annotator"]], src, n, cols["annotator"], what="annotator")
        if len(annotator) > 200:
            raise InputError("annotator id is longer than 200 characters", source=src, line=n,
                             field=cols["annotator"])
        kind_raw = rec.get(cols["annotator_kind"])
        kind = "human" if _is_missing(kind_raw) else kind_raw
        if kind not in ("human", "ai"):
            raise InputError(f"annotator_kind must be 'human' or 'ai'; got {kind_raw!r}"[:200],
                             source=src, line=n, field=cols["annotator_kind"])
        rnd_raw = rec.get(cols["round"])
        rnd = None if _is_missing(rnd_raw) else _str(rnd_raw, src, n, cols["round"], what="round")
        rationale = rec.get(cols["rationale"])
        if _is_missing(rationale):
            rationale = None
        elif not isinstance(rationale, str):
            raise InputError("rationale must be a string", source=src, line=n, field=cols["rationale"])
        created = _when(rec.get(cols["created_at"]), src, n, cols["created_at"])
        if wide:
            pairs = [(fname, rec.get(col), col) for fname, col in wide.items()]
        else:
            given = rec.get(cols["field"])
            if _is_missing(given) or not isinstance(given, str):
                raise InputError("field name is missing", source=src, line=n, field=cols["field"])
            pairs = [(given.strip(), rec.get(cols["value"]), cols["value"])]
        for fname, raw, vcol in pairs:
            try:
                f = scheme.field(fname)
            except KeyError:
                raise InputError(f"unknown field {fname!r} (scheme {scheme.name} v{scheme.version}"
                                 f" has {', '.join(scheme.field_names())})"[:400], source=src,
                                 line=n, field=cols["field"]) from None
            if _is_missing(raw) or (isinstance(raw, list) and not raw):
                missing += 1
                continue
            if speaker not in f.applies_to:
                raise InputError(f"field {fname!r} applies to {'/'.join(f.applies_to)} utterances;"
                                 f" ({sid!r}, {seq}) is a {speaker} utterance"[:300], source=src,
                                 line=n, field=vcol)
            for v in _values(f, raw, src, n, vcol):
                key = (rnd, kind, item_id, annotator, fname) + ((v,) if f.kind == "multi" else ())
                if key in seen and f.kind != "multi":
                    raise InputError(f"duplicate value for ({sid!r}, {seq}), annotator"
                                     f" {annotator!r}, field {fname!r}; first on line {seen[key]}"[:300],
                                     source=src, line=n, field=vcol)
                if key in seen:
                    continue
                seen[key] = n
                out.append(LongRow(n, item_id, sid, seq, annotator, kind, rnd, fname, v,
                                   rationale, created))
    if not out:
        raise InputError("file holds no annotation values (all missing?)", source=src)
    return out, missing


def _group(rows: Sequence[LongRow], scheme: Any) -> dict[tuple[str | None, str], dict[tuple[str, str], dict[str, Any]]]:
    """``{(round, kind): {(item_id, annotator): {labels, rationales, created_at}}}``."""
    out: dict[tuple[str | None, str], dict[tuple[str, str], dict[str, Any]]] = {}
    for r in rows:
        ann = out.setdefault((r.round, r.annotator_kind), {}).setdefault(
            (r.item_id, r.annotator), {"labels": {}, "rationales": [], "created_at": None})
        f = scheme.field(r.field)
        if f.kind == "multi":
            ann["labels"].setdefault(r.field, []).append(r.value)
        else:
            ann["labels"][r.field] = r.value
        if r.rationale and r.rationale not in ann["rationales"]:
            ann["rationales"].append(r.rationale)
        if r.created_at and (ann["created_at"] is None or r.created_at < ann["created_at"]):
            ann["created_at"] = r.created_at
    return out


def import_annotations(db: Database, path: str | os.PathLike[str], *, dataset_id: str,
                       round_name: str | None = None, fmt: str | None = None,
                       mapping: Mapping[str, str] | None = None,
                       fields: Mapping[str, str] | None = None, ignore_extra: bool = False,
                       created_by: str = "local") -> dict[str, Any]:
    """Import a long-format annotation file into new rounds of a data set.

    Rows are grouped into rounds by the ``round`` column (else ``round_name``, else the file
    name) and annotator kind: human rows make a ``human_review`` round, AI rows an
    ``ai_auto`` round whose rows are ``proposed``. A data set that already has rounds gets new
    ones. Free text (rationales) is PII-masked before it is stored.

    Returns
    -------
    dict
        ``{"dataset_id", "rounds": [{"round_id", "name", "annotator_kind", "annotators",
        "items", "rows"}], "rows", "missing"}``; ``rows`` counts accepted long rows.

    Raises
    ------
    InputError
        File, line and column of the first problem; nothing is written then (except an
        audit entry of the refusal).
    """

    p = Path(path)
    # The database is held only for the reads here and the final write: parsing and masking a
    # large file must not keep another process's save waiting (DuckDB, issue 14 item 4).
    try:
        with _held(db):
            scheme = dataset_scheme(db, dataset_id)
            items = {(it["session_id"], int(it["seq"])): (it["item_id"], it["speaker"])
                     for it in ds_repo.dataset_items(db, dataset_id)}
        table = read_table(p, fmt=fmt)
        rows, missing = parse_annotations(table, scheme=scheme, items=items, mapping=mapping,
                                          fields=fields, ignore_extra=ignore_extra)
    except InputError as exc:
        _refused(db, "annotations.import.refused", p, exc, created_by)
        raise
    grouped = _group(rows, scheme)
    default_name = round_name or p.stem
    summary = []
    records: list[AIProposal | HumanReview] = []
    round_rows = []
    kinds: dict[str, str] = {}
    memo: dict[str, str] = {}
    for (rname, kind), anns in grouped.items():
        rid = _new_id()
        name = rname or default_name
        kinds[rid] = kind
        round_rows.append((rid, kind, name))
        n_rows = sum(1 for r in rows if r.round == rname and r.annotator_kind == kind)
        summary.append({"round_id": rid, "name": name, "annotator_kind": kind,
                        "annotators": len({a for _, a in anns}), "items": len({i for i, _ in anns}),
                        "rows": n_rows})
        for (item_id, annotator), ann in anns.items():
            rationale = "\n".join(ann["rationales"]) or None
            if rationale is not None:
                if rationale not in memo:
                    memo[rationale] = _mask(rationale)
                rationale = memo[rationale]
            cls = AIProposal if kind == "ai" else HumanReview
            records.append(cls(round_id=rid, item_id=item_id, annotator_id=annotator,
                               labels=ann["labels"], rationale=rationale,
                               created_at=ann["created_at"]))
    ann_rows = annotation_rows(records, scheme=scheme, round_kind=kinds)
    speakers = {item_id: speaker for item_id, speaker in items.values()}
    try:
        for r in ann_rows:
            if r["annotator_kind"] == "human":
                check_required(scheme, r["labels"], speaker=speakers[r["item_id"]], source=p.name)
    except InputError as exc:
        _refused(db, "annotations.import.refused", p, exc, created_by)
        raise
    now = _now()
    with db.transaction():
        for rid, kind, name in round_rows:
            ds_repo.insert_round(db, round_id=rid, dataset_id=dataset_id,
                                 kind="ai_auto" if kind == "ai" else "human_review",
                                 annotator_kind=kind, engine="import" if kind == "ai" else None,
                                 model=None, taxonomy_version=None,
                                 config={"name": name, "source_file": p.name,
                                         "imported_by": created_by, "scheme": scheme.ref},
                                 created_at=now)
        ds_repo.insert_annotations(db, ann_rows)
    return {"dataset_id": dataset_id, "rounds": summary, "rows": len(rows), "missing": missing}


_EXPORT_COLUMNS = ("session_id", "seq", "annotator", "annotator_kind", "field", "value", "round",
                   "rationale", "created_at")


def export_rows(db: Database, round_id: str) -> list[dict[str, Any]]:
    """Long rows of a round's current annotations (what :func:`export_annotations` writes)."""

    rnd = get_round(db, round_id)
    scheme = dataset_scheme(db, rnd["dataset_id"])
    items = {it["item_id"]: it for it in ds_repo.dataset_items(db, rnd["dataset_id"])}
    name = rnd["config"].get("name") or round_id
    out = []
    for a in effective_annotations(db, round_id):
        it = items.get(a["item_id"])
        if it is None:
            continue
        created = a.get("created_at")
        if isinstance(created, datetime):
            created = created.astimezone(timezone.utc).isoformat()
        for f in scheme.fields:
            if f.name not in a["labels"]:
                continue
            v = a["labels"][f.name]
            if f.kind == "multi":
                if not v:
                    continue
                v = "|".join(v)
            elif f.kind == "score":
                v = float(v)
            out.append({"session_id": it["session_id"], "seq": int(it["seq"]),
                        "annotator": a["annotator_id"], "annotator_kind": a["annotator_kind"],
                        "field": f.name, "value": v, "round": name,
                        "rationale": a.get("rationale"), "created_at": created})
    out.sort(key=lambda r: (r["session_id"], r["seq"], r["annotator"], r["field"]))
    return out


def export_annotations(db: Database, round_id: str, out: str | os.PathLike[str], *,
                       fmt: str | None = None) -> dict[str, Any]:
    """Write a round's current annotations in long format (CSV or JSONL, by suffix).

    The file imports back with :func:`import_annotations` to the same records.

    Returns
    -------
    dict
        ``{"round_id", "path", "rows", "format"}``.
    """
    p = Path(out)
    fmt = (fmt or p.suffix.lstrip(".")).lower()
    if fmt not in ("csv", "jsonl"):
        raise InputError(f"format must be 'csv' or 'jsonl'; got {fmt!r}", source=str(p),
                         field="format")
    with _held(db):
        rows = export_rows(db, round_id)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".part")
    if fmt == "csv":
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=_EXPORT_COLUMNS)
            w.writeheader()
            for r in rows:
                w.writerow({k: ("" if r[k] is None else r[k]) for k in _EXPORT_COLUMNS})
    else:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, p)
    return {"round_id": round_id, "path": str(p), "rows": len(rows), "format": fmt}
