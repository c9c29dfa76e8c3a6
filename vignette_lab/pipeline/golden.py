"""Golden set: the frozen, versioned labels that passed the gate.

An item enters the golden set when its human reviewers agree (``source='agreed'``; an item
with one reviewer counts as agreed — a human confirmed it) or when an adjudicator decided it
(``source='adjudicated'``, which wins over agreement). Disagreeing items without an
adjudication stay out. A failing gate blocks the build unless the gate decision carries an
override reason. Each build is a new version (v1, v2, …) of the data set's golden set.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

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

__all__ = ["agreed_labels", "build_golden_set", "golden_items"]


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
def build_golden_set(db: Any, dataset_id: str, *, gate_id: str) -> dict[str, Any]:
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
        raise PermissionDenied(f"gate {gate_id} failed ({_failed(g)}); a golden set needs a passed"
                               " gate or an override reason (gate(..., override_reason=...))")
    rnd = get_round(db, g["round_id"])
    if rnd["dataset_id"] != dataset_id:
        raise InputError(f"gate {gate_id} belongs to dataset {rnd['dataset_id']}, not {dataset_id}",
                         field="gate_id")
    groups = group_by_item(effective_annotations(db, g["round_id"], annotator_kind="human"))
    decided = adjudications(db, g["round_id"])
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
    if not rows:
        raise InputError(f"gate {gate_id}'s round has no agreed or adjudicated items", field="gate_id")
    golden_id = _new_id()
    with db.transaction():
        version = ds_repo.next_golden_version(db, dataset_id)
        ds_repo.insert_golden_set(db, golden_id=golden_id, dataset_id=dataset_id, version=version,
                                  frozen_at=_now(), gate_id=gate_id,
                                  taxonomy_version=rnd["taxonomy_version"], items=rows)
    return {"golden_id": golden_id, "version": version, "item_count": len(rows),
            "agreed": agreed, "adjudicated": adjudicated, "excluded": excluded}


def _failed(g: Mapping[str, Any]) -> str:
    checks = (g["results"] or {}).get("checks", [])
    return ", ".join(f"{c['name']}={c['value']}" for c in checks if not c["passed"]) or "failed"


def golden_items(db: Any, golden_id: str) -> list[dict[str, Any]]:
    """Golden items joined with their data-set item, ordered by (session_id, seq, item_id)."""
    return ds_repo.golden_item_rows(db, golden_id)
