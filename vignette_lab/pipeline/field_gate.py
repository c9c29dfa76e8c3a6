"""Per-field agreement and the three-outcome gate of a round, for any label scheme.

Pure parts: :func:`ratings_frame` turns annotations into the long ratings
:func:`vignette_lab.agreement.field_agreement` takes, and :func:`decide` applies the scheme's
thresholds through :func:`vignette_lab.agreement.gate_fields`. Thin wrappers:
:func:`round_agreement` (numbers only, nothing stored — ``vignette-lab iaa``, the agreement
page) and :func:`run_gate` (stores the decision in ``ds.gate_decision`` —
``vignette-lab gate``). ``inconclusive`` and ``fail`` block the golden set unless an override
reason is recorded.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence, cast

import pandas as pd

from vignette_lab.errors import InputError
from vignette_lab.pipeline.rounds import _held, _new_id, _now, effective_annotations, get_round
from vignette_lab.store import ds_repo
from vignette_lab.agreement import field_agreement, gate_fields
from vignette_lab.pipeline.schemes import dataset_scheme

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["decide", "ratings_frame", "round_agreement", "run_gate"]


def ratings_frame(annotations: Sequence[Mapping[str, Any]], field: str,
                  item_keys: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Long ratings ``item_id, annotator, value`` of one field (pure).

    Annotations that do not carry the field are left out (not rated). ``item_keys`` maps
    item ids to content keys (``"session_id:seq"``) so numbers, bootstrap intervals and the
    left-out list do not depend on the database's random item ids.
    """
    keys = item_keys or {}
    rows = [(keys.get(a["item_id"], a["item_id"]), a["annotator_id"], a["labels"][field])
            for a in annotations
            if field in (a.get("labels") or {}) and a["labels"][field] is not None]
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def _agreement(annotations: Sequence[Mapping[str, Any]], scheme: Any, *, n_boot: int,
               seed: int, item_keys: Mapping[str, str] | None = None) -> list[Any]:

    out = []
    for f in scheme.fields:
        df = ratings_frame(annotations, f.name, item_keys)
        if df.empty:
            continue
        if f.kind == "multi":
            df["value"] = df["value"].map(tuple)
        out.append(field_agreement(df, field=f.name, kind=f.kind,
                                   categories=list(f.codes()) or None,
                                   score_range=f.range, n_boot=n_boot, seed=seed))
    return out


def _round_inputs(db: Database, round_id: str) -> tuple[dict[str, str], Any, list[dict[str, Any]]]:

    rnd = get_round(db, round_id)
    if rnd["kind"] != "human_review":
        raise InputError(f"round {round_id} is {rnd['kind']}; agreement is measured on"
                         " human_review rounds", field="round_id")
    scheme = dataset_scheme(db, rnd["dataset_id"])
    keys = {it["item_id"]: f"{it['session_id']}:{it['seq']}"
            for it in ds_repo.dataset_items(db, rnd["dataset_id"])}
    return keys, scheme, effective_annotations(db, round_id, annotator_kind="human")


def round_agreement(db: Database, round_id: str, *, n_boot: int = 1000, seed: int = 0
                    ) -> tuple[Any, list[Any]]:
    """Scheme and per-field :class:`~vignette_lab.agreement.FieldAgreement` of a human round.

    Only fields the round has ratings for are measured; items are named ``"session_id:seq"``
    (also in ``left_out``). Nothing is stored.
    """
    with _held(db):
        keys, scheme, anns = _round_inputs(db, round_id)
    return scheme, _agreement(anns, scheme, n_boot=n_boot, seed=seed, item_keys=keys)


def decide(results: Sequence[Any], scheme: Any, *, rule: str = "lower-bound",
           thresholds: Mapping[str, tuple[str, float]] | None = None) -> Any:
    """Gate decision (:class:`~vignette_lab.agreement.GateResult`) on the scheme's thresholds."""

    # gate_fields refuses any other rule name with an InputError naming the field
    return gate_fields(results, thresholds=dict(thresholds or scheme.thresholds()),
                       rule=cast(Literal["lower-bound", "point"], rule))


def _clean(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def run_gate(db: Database, round_id: str, *, rule: str = "lower-bound",
             override_reason: str | None = None, decided_by: str = "local",
             thresholds: Mapping[str, tuple[str, float]] | None = None, n_boot: int = 1000,
             seed: int = 0, store: bool = True) -> dict[str, Any]:
    """Measure a human round, decide the gate per field and (by default) store the decision.

    Parameters
    ----------
    db : Database
    round_id : str
    rule : {'lower-bound', 'point'}, default='lower-bound'
    override_reason : str, optional
        Lets an ``inconclusive`` or ``fail`` decision through to the golden set; recorded.
    decided_by : str, default='local'
    thresholds : dict, optional
        ``{field: (coefficient, threshold)}``; default: the scheme's gates.
    n_boot, seed : int
    store : bool, default=True
        ``False`` computes the same dict without writing (the agreement page's preview).

    Returns
    -------
    dict
        ``{"gate_id", "round_id", "decision", "passed", "rule", "override_reason", "fields",
        "notes", "scheme", "agreement"}``; ``fields`` holds one ``{field, outcome,
        coefficient, value, ci_low, ci_high, threshold, reason}`` per gated field.
    """
    if override_reason is not None and not str(override_reason).strip():
        raise InputError("override reason must not be blank", field="override")
    with _held(db):
        keys, scheme, anns = _round_inputs(db, round_id)
        results = _agreement(anns, scheme, n_boot=n_boot, seed=seed, item_keys=keys)
        g = decide(results, scheme, rule=rule, thresholds=thresholds)
        gd = g.to_dict()
        checks = [{"name": f["field"], "value": f["value"], "threshold": f["threshold"],
                   "passed": f["outcome"] == "pass", "outcome": f["outcome"]}
                  for f in gd["fields"] if f["outcome"] != "no_data"]
        out = _clean({"round_id": round_id, "decision": gd["decision"],
                      "passed": gd["decision"] == "pass", "rule": rule,
                      "override_reason": override_reason, "fields": gd["fields"],
                      "notes": gd["notes"], "scheme": scheme.ref,
                      "agreement": [r.to_dict() for r in results], "checks": checks})
        out["gate_id"] = None
        if store:
            gate_id = _new_id()
            ds_repo.insert_gate_decision(
                db, gate_id=gate_id, round_id=round_id,
                thresholds={"rule": rule, "fields": {k: list(v) for k, v in
                                                     (thresholds or scheme.thresholds()).items()}},
                results=out, passed=out["passed"], override_reason=override_reason,
                decided_by=decided_by, created_at=_now())
            out["gate_id"] = gate_id
    return out
