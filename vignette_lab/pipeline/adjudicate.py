"""Adjudication: find where overlapping reviewers disagree and record a human gold decision.

An adjudication row links the decision to the annotation ids it resolves, so the golden set
can say where each label came from. Only a human writes gold: an ``ai:`` adjudicator id is
refused (DESIGN rule 5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.core.pii import gate_json, gate_text
from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.pipeline.rounds import (
    APPROPRIATENESS,
    _clean_labels,
    _clean_scores,
    _new_id,
    _now,
    _pinned,
    effective_annotations,
    get_round,
    taxonomy_info,
)
from vignette_lab.store import ds_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["DISAGREEMENT_FIELDS", "adjudicate", "adjudications", "disagreements", "group_by_item"]

#: Fields compared to call an item a disagreement (client state and scores are summarised
#: by majority/mean in the golden set instead, and measured by the gate).
DISAGREEMENT_FIELDS = ("techniques", "appropriateness")


def group_by_item(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Annotations grouped by item id, each group sorted by annotator id (stable rater slots)."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["item_id"], []).append(r)
    for group in out.values():
        group.sort(key=lambda r: r["annotator_id"])
    return out


def _key(ann: Mapping[str, Any], fields: Sequence[str]) -> tuple:
    return tuple(tuple(sorted(ann[f])) if f in ("techniques", "client_state") else ann[f]
                 for f in fields)


@_pinned
def disagreements(db: Database, round_id: str, *, fields: Sequence[str] = DISAGREEMENT_FIELDS,
                  include_resolved: bool = False) -> list[dict[str, Any]]:
    """Items of a human round whose overlapping reviewers disagree.

    Parameters
    ----------
    db : Database
    round_id : str
        A ``human_review`` round.
    fields : sequence of str, default=('techniques', 'appropriateness')
        Which labels must match for reviewers to agree.
    include_resolved : bool, default=False
        Also list items that already have an adjudication in this round.

    Returns
    -------
    list of dict
        ``{"item_id", "counselor_text", "client_reply", "context", "annotations": [...],
        "differs": [field, ...], "resolved": bool}`` in item order.
    """
    get_round(db, round_id)
    resolved = ds_repo.adjudicated_item_ids(db, round_id)
    out = []
    for item_id, group in group_by_item(effective_annotations(db, round_id,
                                                              annotator_kind="human")).items():
        if len(group) < 2:
            continue
        differs = [f for f in fields if len({_key(a, [f]) for a in group}) > 1]
        if not differs or (item_id in resolved and not include_resolved):
            continue
        item = ds_repo.item_row(db, item_id)
        assert item is not None  # annotated items exist (foreign key / same transaction)
        out.append({"item_id": item_id, "counselor_text": item["counselor_text"],
                    "client_reply": item["client_reply"], "context": item["context"],
                    "annotations": [dict(a) for a in group], "differs": differs,
                    "resolved": item_id in resolved})
    return out


@_pinned
def adjudicate(db: Database, item_id: str, round_id: str, adjudicator_id: str,
               decision: Mapping[str, Any]) -> str:
    """Record the gold decision for one item of a human round.

    Parameters
    ----------
    db : Database
    item_id, round_id : str
    adjudicator_id : str
        A human id; ids starting with ``ai:`` are refused.
    decision : dict
        ``techniques`` (required, ≥ 1), optional ``client_state``, ``appropriateness``,
        ``scores`` (0–5), ``intent_deviation``, ``rationale``.

    Returns
    -------
    str
        ``adjudication_id``. ``resolves`` holds the item's current human annotation ids.
    """
    if adjudicator_id.startswith("ai:"):
        raise PermissionDenied("an AI may not adjudicate: gold labels are written by humans only")
    rnd = get_round(db, round_id)
    if rnd["kind"] != "human_review":
        raise InputError(f"round {round_id} is {rnd['kind']}; adjudicate a human_review round",
                         field="round_id")
    tax = taxonomy_info()
    techniques = _clean_labels(decision.get("techniques"), tax.techniques, "decision.techniques")
    if not techniques:
        raise InputError("a decision needs at least one technique", field="decision.techniques")
    appr = decision.get("appropriateness")
    if appr is not None and appr not in APPROPRIATENESS:
        raise InputError(f"appropriateness must be pos, warn or neutral; got {appr!r}",
                         field="decision.appropriateness")
    clean = {"techniques": techniques,
             "client_state": _clean_labels(decision.get("client_state"), tax.client_states,
                                           "decision.client_state"),
             "appropriateness": appr, "scores": _clean_scores(decision.get("scores")),
             "intent_deviation": decision.get("intent_deviation"),
             "rationale": gate_text(decision.get("rationale"))}
    clean.update({k: gate_json(v) for k, v in decision.items() if k not in clean})  # notes and other free text
    resolves = [a["annotation_id"] for a in effective_annotations(
        db, round_id, annotator_kind="human", item_id=item_id)]
    if not resolves:
        raise InputError(f"item {item_id} has no human annotation in round {round_id}",
                         field="item_id")
    adjudication_id = _new_id()
    ds_repo.insert_adjudication(db, adjudication_id=adjudication_id, item_id=item_id,
                                round_id=round_id, adjudicator_id=adjudicator_id, decision=clean,
                                resolves=resolves, created_at=_now())
    return adjudication_id


def adjudications(db: Database, round_id: str) -> dict[str, dict[str, Any]]:
    """The latest adjudication per item of a round (``decision`` decoded)."""
    out: dict[str, dict[str, Any]] = {}
    for r in ds_repo.adjudications(db, round_id):
        r["resolves"] = list(r["resolves"] or [])
        out[r["item_id"]] = r
    return out
