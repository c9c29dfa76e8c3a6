"""Golden set: the frozen, versioned labels that passed the gate.

An item enters the golden set when its human reviewers agree (``source='agreed'``; an item
with one reviewer counts as agreed — a human confirmed it) or when an adjudicator decided it
(``source='adjudicated'``, which wins over agreement). Disagreeing items without an
adjudication stay out. A failing gate blocks the build unless the gate decision carries an
override reason. Each build is a new version (v1, v2, …) of the data set's golden set.

Data sets on another label scheme (imported corpora, :mod:`vignette_lab.pipeline.schemes`)
freeze the scheme's own fields: an item is agreed when every reviewer gave the same value on
every non-score field that applies to its speaker (score fields are averaged), and its golden
labels are ``{field: value, …, "rationale": …}`` keyed by the scheme's field names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.pipeline.adjudicate import DISAGREEMENT_FIELDS, _key, adjudications, group_by_item
from vignette_lab.pipeline.gate import get_gate
from vignette_lab.pipeline.rounds import (
    _new_id,
    _now,
    _pinned,
    effective_annotations,
    get_round,
)
from vignette_lab.store import ds_repo
from vignette_lab.core.scheme import default_scheme
from vignette_lab.pipeline.schemes import dataset_scheme

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["agreed_labels", "agreed_scheme_labels", "build_golden_set", "golden_items"]


def _norm(v: Any) -> Any:
    return tuple(sorted(v)) if isinstance(v, (list, tuple)) else v


def agreed_scheme_labels(group: Sequence[Mapping[str, Any]], fields: Sequence[Any]) -> dict[str, Any] | None:
    """Golden labels of one item on a non-default scheme, or ``None`` when reviewers disagree.

    ``fields`` are the scheme fields that apply to the item's speaker. Reviewers agree when
    their values of every non-score field are equal (multi fields as sets; a field nobody
    rated is ``None``); score fields are the mean of the given values.
    """
    out: dict[str, Any] = {}
    for f in fields:
        vals = [(a.get("labels") or {}).get(f.name) for a in group]
        if f.kind == "score":
            given = [float(v) for v in vals if v is not None]
            out[f.name] = round(float(np.mean(given)), 3) if given else None
            continue
        if len({_norm(v) for v in vals}) != 1:
            return None
        v = vals[0]
        out[f.name] = [c for c in f.codes() if c in v] if f.kind == "multi" and v is not None else v
    out["rationale"] = " / ".join(a["rationale"] for a in group if a.get("rationale")) or None
    return out


def agreed_labels(group: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Labels of agreeing annotations: shared techniques/appropriateness, client states chosen
    by at least half, mean scores, the first intent deviation, rationales joined."""
    n = len(group)
    counts: dict[str, int] = {}
    for a in group:
        for st in a["client_state"]:
            counts[st] = counts.get(st, 0) + 1  # insertion order = first-seen order
    dims = sorted({d for a in group for d in (a["scores"] or {})})
    scores = {d: round(float(np.mean([a["scores"][d] for a in group if d in a["scores"]])), 3)
              for d in dims}
    rationale = " / ".join(a["rationale"] for a in group if a.get("rationale")) or None
    return {"techniques": list(group[0]["techniques"]),
            "client_state": [st for st, c in counts.items() if c * 2 >= n],
            "appropriateness": group[0]["appropriateness"],
            "intent_deviation": next((a["intent_deviation"] for a in group
                                      if a.get("intent_deviation")), None),
            "scores": scores, "rationale": rationale}


@_pinned
def build_golden_set(db: Database, dataset_id: str, *, gate_id: str) -> dict[str, Any]:
    """Freeze agreed and adjudicated items of the gate's round into a new golden-set version.

    Parameters
    ----------
    db : Database
    dataset_id : str
    gate_id : str
        A stored gate decision on a human round of this data set; it must have passed or
        carry an override reason.

    Returns
    -------
    dict
        ``{"golden_id", "version", "item_count", "agreed", "adjudicated", "excluded"}``.

    Raises
    ------
    PermissionDenied
        The gate failed and was not overridden.
    """
    g = get_gate(db, gate_id)
    if not g["passed"] and not g["override_reason"]:
        raise PermissionDenied(f"gate {gate_id} did not pass ({_failed(g)}); a golden set needs a"
                               " passed gate or an override reason (gate(..., override_reason=...))")
    rnd = get_round(db, g["round_id"])
    if rnd["dataset_id"] != dataset_id:
        raise InputError(f"gate {gate_id} belongs to dataset {rnd['dataset_id']}, not {dataset_id}",
                         field="gate_id")
    groups = group_by_item(effective_annotations(db, g["round_id"], annotator_kind="human"))
    decided = adjudications(db, g["round_id"])

    scheme = dataset_scheme(db, dataset_id)
    if scheme.name != default_scheme().name:
        rows, agreed, adjudicated, excluded = _scheme_rows(db, dataset_id, scheme, groups, decided)
    else:
        rows, agreed, adjudicated, excluded = _taxonomy_rows(groups, decided)
    if not rows:
        raise InputError(f"gate {gate_id}'s round has no agreed or adjudicated items", field="gate_id")
    golden_id = _new_id()
    with db.transaction():
        version = ds_repo.next_golden_version(db, dataset_id)
        ds_repo.insert_golden_set(db, golden_id=golden_id, dataset_id=dataset_id, version=version,
                                  frozen_at=_now(), gate_id=gate_id,
                                  taxonomy_version=rnd["taxonomy_version"], items=rows)
    return {"golden_id": golden_id, "version": version, "item_count": len(rows),
            "agreed": agreed, "adjudicated": adjudicated, "excluded": excluded,
            "scheme": scheme.ref}


def _scheme_rows(db: Database, dataset_id: str, scheme: Any, groups: Mapping[str, Sequence[Mapping[str, Any]]],
                 decided: Mapping[str, Mapping[str, Any]]) -> tuple[list, int, int, int]:
    speaker = {it["item_id"]: it.get("speaker") or "counselor" for it in ds_repo.dataset_items(db, dataset_id)}
    rows, agreed, adjudicated, excluded = [], 0, 0, 0
    labels: dict[str, Any] | None
    for item_id in sorted(groups):
        fields = scheme.fields_for(speaker.get(item_id, "counselor"))
        d = decided.get(item_id)
        given = (d or {}).get("decision") or {}
        given = given.get("labels", given) if isinstance(given.get("labels"), dict) else given
        if d is not None and any(f.name in given for f in fields):
            labels = {f.name: given.get(f.name) for f in fields}
            labels["rationale"] = given.get("rationale")
            rows.append((item_id, labels, "adjudicated", d["resolves"]))
            adjudicated += 1
            continue
        labels = agreed_scheme_labels(groups[item_id], fields)
        if labels is None:
            excluded += 1
        else:
            rows.append((item_id, labels, "agreed", [a["annotation_id"] for a in groups[item_id]]))
            agreed += 1
    return rows, agreed, adjudicated, excluded


def _taxonomy_rows(groups: Mapping[str, Sequence[Mapping[str, Any]]],
                   decided: Mapping[str, Mapping[str, Any]]) -> tuple[list, int, int, int]:
    rows, agreed, adjudicated, excluded = [], 0, 0, 0
    for item_id in sorted(groups):
        group = groups[item_id]
        if item_id in decided:
            d = decided[item_id]
            labels = {k: d["decision"].get(k) for k in ("techniques", "client_state",
                                                        "appropriateness", "intent_deviation",
                                                        "scores", "rationale")}
            rows.append((item_id, labels, "adjudicated", d["resolves"]))
            adjudicated += 1
        elif len({_key(a, DISAGREEMENT_FIELDS) for a in group}) == 1:
            rows.append((item_id, agreed_labels(group), "agreed",
                         [a["annotation_id"] for a in group]))
            agreed += 1
        else:
            excluded += 1
    return rows, agreed, adjudicated, excluded


def _failed(g: Mapping[str, Any]) -> str:
    res = g["results"] or {}
    if "fields" in res and "techniques" not in res:
        return ", ".join(f"{f['field']} {f['outcome']}" for f in res["fields"]
                         if f["outcome"] not in ("pass", "no_data")) or str(res.get("decision", "failed"))
    checks = res.get("checks", [])
    return ", ".join(f"{c['name']}={c['value']}" + (f" {c['outcome']}" if c.get("outcome") else "")
                     for c in checks if not c["passed"]) or str(res.get("decision", "failed"))


def golden_items(db: Database, golden_id: str) -> list[dict[str, Any]]:
    """Golden items joined with their data-set item, ordered by (session_id, seq, item_id)."""
    return ds_repo.golden_item_rows(db, golden_id)
