"""A local technique tagger trained on a golden export — the next round-1 annotator.

Character n-gram TF-IDF (``analyzer="char_wb"``, 1–3-grams: robust to Korean spacing and
endings without a tokenizer) feeding one-vs-rest logistic regression. Training is
deterministic (``liblinear`` solver, fixed ``random_state``). A :class:`Tagger` is also an
:class:`~vignette_lab.engines.base.Engine` for the evaluator role, so
``auto_annotate(db, round_id, engine="classifier:<path>")`` uses it like any engine; it only
labels techniques (client state, appropriateness and scores stay empty, never invented).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import numpy as np

from vignette_lab.engines.base import GenerateRequest, GenerateResponse, StreamEvent
from vignette_lab.errors import EngineError, InputError
from vignette_lab.pipeline.rounds import _pinned, effective_annotations, get_round
from vignette_lab.store import ds_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["CIRCULAR_NOTE", "Tagger", "dedupe_by_text", "evaluate_tagger", "group_kfold_evaluate", "intended_agreement",
           "text_overlap", "train_technique_tagger"]

CIRCULAR_NOTE = ("circular: the scripted annotator and the self-play counselor share the counselor bank, "
                 "so this agreement measures the bank, not the annotator")


def _load_items(source: Any) -> list[dict[str, Any]]:
    if isinstance(source, (str, os.PathLike)):
        from vignette_lab.pipeline.export import read_golden_jsonl

        p = Path(source)
        return read_golden_jsonl(p / "items.jsonl" if p.is_dir() else p)
    return [dict(r) for r in source]


def _gold(item: Mapping[str, Any]) -> list[str]:
    labels = item.get("labels")
    if isinstance(labels, Mapping):
        return list(labels.get("techniques") or [])
    return list(item.get("techniques") or [])


@dataclass
class Tagger:
    """A trained multi-label technique tagger (also an evaluator-role engine).

    Attributes
    ----------
    labels : list of str
        Technique codes, in the model's column order.
    pipeline : sklearn Pipeline
        TF-IDF → one-vs-rest logistic regression.
    threshold : float
        Probability above which a label is predicted; the top label is always kept.
    meta : dict
        Training metadata (n_items, label counts, trained_at, source).
    """

    labels: list[str]
    pipeline: Any
    threshold: float = 0.5
    meta: dict[str, Any] = field(default_factory=dict)
    name: str = "local-classifier"

    @property
    def model(self) -> str:
        return f"tagger-{self.meta.get('fingerprint', 'unsaved')}"

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """Label probabilities, shape ``(len(texts), len(labels))``."""
        proba = self.pipeline.predict_proba(list(texts))
        return np.asarray(proba, dtype=float)

    def predict(self, texts: Sequence[str]) -> list[list[str]]:
        """Predicted technique codes per text (at least one: the most probable)."""
        out = []
        for row in self.predict_proba(texts):
            chosen = [self.labels[j] for j in np.argsort(-row) if row[j] >= self.threshold]
            out.append(chosen or [self.labels[int(np.argmax(row))]])
        return out

    # -- Engine protocol (evaluator role only)
    def generate(self, request: GenerateRequest) -> GenerateResponse:
        if request.ai_role != "evaluator":
            raise EngineError(f"the technique tagger only plays the evaluator role; got "
                              f"{request.ai_role!r}", code="bad_request")
        text = request.metadata.get("counselor_text")
        if not isinstance(text, str) or not text.strip():
            raise EngineError("request metadata has no counselor_text", code="bad_request")
        start = time.perf_counter()
        techniques = self.predict([text])[0]
        data: dict[str, Any] = {"techniques": techniques, "client_state": [], "appropriateness": None,
                "intent_deviation": [], "rapport_signal": None, "scores": {},
                "rationale": f"{self.model}: char n-gram TF-IDF + logistic regression"}
        return GenerateResponse(text=json.dumps(data, ensure_ascii=False), structured=data,
                                provider="local", model=self.model,
                                latency_ms=(time.perf_counter() - start) * 1000)

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        response = self.generate(request)
        yield StreamEvent("token", text=response.text)
        yield StreamEvent("done", response=response)

    # -- persistence
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Save with joblib (one file). Only load files you made: joblib runs pickle."""
        import joblib

        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        joblib.dump({"format": "vignette-lab/tagger/v1", "labels": self.labels,
                     "pipeline": self.pipeline, "threshold": self.threshold, "meta": self.meta}, p)
        return p

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Tagger":
        """Load a tagger saved by :meth:`save`."""
        import joblib

        p = Path(path)
        if not p.is_file():
            raise InputError("tagger file not found", source=str(p))
        try:
            obj = joblib.load(p)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is the same user mistake
            raise InputError(f"not a readable tagger file ({type(exc).__name__})",
                             source=str(p)) from None
        if not isinstance(obj, dict) or obj.get("format") != "vignette-lab/tagger/v1":
            raise InputError("not a vignette-lab tagger file", source=str(p), field="format")
        return cls(labels=list(obj["labels"]), pipeline=obj["pipeline"],
                   threshold=float(obj["threshold"]), meta=dict(obj["meta"]))


def train_technique_tagger(golden: Any, *, ngram_range: tuple[int, int] = (1, 3),
                           C: float = 4.0, threshold: float = 0.5) -> Tagger:
    """Train a technique tagger on golden items.

    Parameters
    ----------
    golden : path-like or iterable of dict
        An ``items.jsonl`` (or its export directory), or records with ``counselor_text`` and
        ``labels.techniques``.
    ngram_range : tuple of int, default=(1, 3)
        Character n-gram sizes (``char_wb``).
    C : float, default=4.0
        Inverse regularisation of the logistic regressions.
    threshold : float, default=0.5

    Returns
    -------
    Tagger
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MultiLabelBinarizer

    items = _load_items(golden)
    texts = [it["counselor_text"] for it in items]
    gold = [_gold(it) for it in items]
    if len(items) < 2 or not any(gold):
        raise InputError(f"training needs at least 2 labelled items; got {len(items)}",
                         field="golden")
    mlb = MultiLabelBinarizer()
    y = mlb.fit_transform(gold)
    labels = list(mlb.classes_)
    if len(labels) < 2:
        raise InputError(f"training needs at least 2 distinct techniques; got {labels}",
                         field="golden")
    pipeline = make_pipeline(
        TfidfVectorizer(analyzer="char_wb", ngram_range=ngram_range, sublinear_tf=True),
        OneVsRestClassifier(LogisticRegression(C=C, solver="liblinear", random_state=0)))
    pipeline.fit(texts, y)
    import hashlib

    fingerprint = hashlib.sha256(json.dumps([texts, gold], ensure_ascii=False).encode()).hexdigest()[:12]
    meta = {"n_items": len(items), "label_counts": {l: int(c) for l, c in zip(labels, y.sum(0))},
            "ngram_range": list(ngram_range), "C": C, "fingerprint": fingerprint}
    return Tagger(labels=labels, pipeline=pipeline, threshold=threshold, meta=meta)


def _norm(text: str) -> str:
    from vignette_lab.engines.utterance_tagger import normalise_text
    return normalise_text(text)


def dedupe_by_text(items: Any) -> list[dict[str, Any]]:
    """One item per normalised ``counselor_text`` (the first one seen), order kept."""
    seen: set[str] = set()
    out = []
    for it in _load_items(items):
        key = _norm(it["counselor_text"])
        if key not in seen:
            seen.add(key)
            out.append(it)
    return out


def text_overlap(train: Any, test: Any) -> int:
    """How many distinct normalised test texts also occur in the training items."""
    a = {_norm(it["counselor_text"]) for it in _load_items(train)}
    return len({_norm(it["counselor_text"]) for it in _load_items(test)} & a)


def _macro(gold: list[list[str]], pred: list[list[str]], labels: list[str]) -> tuple[float | None, float]:
    from sklearn.metrics import cohen_kappa_score, f1_score
    yg = np.array([[l in g for l in labels] for g in gold], dtype=int)
    yp = np.array([[l in p for l in labels] for p in pred], dtype=int)
    ks = []
    for j in range(len(labels)):
        if yg[:, j].sum() == 0:
            continue
        if len(set(yg[:, j]) | set(yp[:, j])) < 2:
            ks.append(1.0 if (yg[:, j] == yp[:, j]).all() else 0.0)
        else:
            ks.append(float(cohen_kappa_score(yg[:, j], yp[:, j])))
    f1 = float(f1_score(yg, yp, average="macro", zero_division=0))
    return (float(np.mean(ks)) if ks else None), f1


def group_kfold_evaluate(items: Any, *, folds: int = 5, n_boot: int = 500, seed: int = 0,
                         **train_options: Any) -> dict[str, Any]:
    """Honest tagger estimate: de-duplicate, then group k-fold by normalised text, with bootstrap CIs.

    Parameters
    ----------
    items : path-like or iterable of dict
        Golden items (``counselor_text`` + ``labels.techniques``).
    folds : int, default=5
        Fewer when there are fewer distinct texts (at least 2 needed).
    n_boot : int, default=500
        Bootstrap resamples (over distinct texts) for the 95 % CIs.

    Returns
    -------
    dict
        ``n_items`` (before de-duplication), ``n_distinct``, ``folds``, ``macro_kappa`` and
        ``macro_f1`` with ``*_ci``, ``held_out: True`` (no fold's text is in its training
        split, by construction).

    Raises
    ------
    InputError
        With fewer than 2 distinct labelled texts.
    """
    raw = _load_items(items)
    distinct = dedupe_by_text(raw)
    if len(distinct) < 4:
        raise InputError(f"group k-fold needs at least 4 distinct texts; got {len(distinct)}", field="items")
    k = max(2, min(folds, len(distinct) // 2))
    keys = sorted({_norm(it["counselor_text"]) for it in distinct})
    fold_of = {key: i % k for i, key in enumerate(keys)}
    gold, pred = [], []
    for f in range(k):
        train = [it for it in distinct if fold_of[_norm(it["counselor_text"])] != f]
        test = [it for it in distinct if fold_of[_norm(it["counselor_text"])] == f]
        if len({t for it in train for t in _gold(it)}) < 2 or not test:
            continue
        tagger = train_technique_tagger(train, **train_options)
        gold += [_gold(it) for it in test]
        pred += tagger.predict([it["counselor_text"] for it in test])
    labels = sorted({l for g in gold for l in g})
    mk, mf = _macro(gold, pred, labels)
    rng = np.random.default_rng(seed)
    boots_k, boots_f = [], []
    for _ in range(n_boot):
        idx = rng.integers(0, len(gold), len(gold))
        bk, bf = _macro([gold[i] for i in idx], [pred[i] for i in idx], labels)
        if bk is not None:
            boots_k.append(bk)
        boots_f.append(bf)
    ci = (lambda xs: [float(np.percentile(xs, 2.5)), float(np.percentile(xs, 97.5))] if xs else [None, None])
    return {"n_items": len(raw), "n_distinct": len(distinct), "n_scored": len(gold), "folds": k,
            "macro_kappa": mk, "macro_kappa_ci": ci(boots_k), "macro_f1": mf, "macro_f1_ci": ci(boots_f),
            "held_out": True, "split": "group k-fold by normalised text"}


def evaluate_tagger(tagger: Tagger, items: Any, *, train_items: Any = None) -> dict[str, Any]:
    """Score a tagger against gold technique labels.

    Parameters
    ----------
    tagger : Tagger
    items : path-like or iterable of dict
        As for :func:`train_technique_tagger` (use held-out items for an honest estimate;
        :func:`group_kfold_evaluate` does the split for you).
    train_items : path-like or iterable of dict, optional
        The tagger's training items. When given, ``overlap`` counts test texts that also occur
        in training (normalised) and ``held_out`` is True only when that count is 0.

    Returns
    -------
    dict
        ``{"n_items", "n_distinct", "micro_f1", "macro_f1", "macro_kappa", "per_label": [...],
        "overlap", "held_out"}`` — κ is binary Cohen's κ per label between gold and predicted
        presence (NaN becomes ``None``); ``held_out`` is None when ``train_items`` is unknown
        (never call such a figure held-out).
    """
    from sklearn.metrics import f1_score, precision_recall_fscore_support

    from vignette_lab.agreement import per_label_kappa

    items = _load_items(items)
    if not items:
        raise InputError("no items to evaluate", field="items")
    gold = [_gold(it) for it in items]
    pred = tagger.predict([it["counselor_text"] for it in items])
    labels = sorted(set(tagger.labels) | {l for g in gold for l in g})
    yg = np.array([[l in g for l in labels] for g in gold], dtype=int)
    yp = np.array([[l in p for l in labels] for p in pred], dtype=int)
    prec, rec, f1, support = precision_recall_fscore_support(yg, yp, average=None, zero_division=0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappas = per_label_kappa(gold, pred, label_set=labels).set_index("label")["kappa"]

    def num(x: float) -> float | None:
        return None if x is None or np.isnan(x) else float(x)

    per_label = [{"label": l, "kappa": num(kappas[l]), "f1": float(f1[j]), "precision": float(prec[j]),
                  "recall": float(rec[j]), "support": int(support[j])} for j, l in enumerate(labels)]
    defined = [float(r["kappa"]) for r in per_label if r["kappa"] is not None]
    overlap = text_overlap(train_items, items) if train_items is not None else None
    return {"n_items": len(items), "n_distinct": len({_norm(it["counselor_text"]) for it in items}),
            "overlap": overlap, "held_out": None if overlap is None else overlap == 0,
            "micro_f1": float(f1_score(yg, yp, average="micro", zero_division=0)),
            "macro_f1": float(f1_score(yg, yp, average="macro", zero_division=0)),
            "macro_kappa": float(np.mean(defined)) if defined else None,
            "per_label": per_label}


@_pinned
def intended_agreement(db: Database, round_id: str) -> list[dict[str, Any]]:
    """How often each annotator of a round agrees with the self-play counselor's intent.

    Only items with an ``intended_technique`` (self-play) count.

    Returns
    -------
    list of dict
        One row per annotator: ``annotator_id``, ``annotator_kind``, ``n_items``,
        ``hit_rate`` (share of items whose label set contains the intended technique) and
        ``kappa_primary`` (Cohen's κ between the intended technique and the annotator's first
        label; ``None`` when undefined) and ``circular`` — True for the scripted annotator
        (``ai:scripted…``), whose cues were written against the same counselor bank the
        self-play counselor speaks from; its agreement measures the bank (:data:`CIRCULAR_NOTE`).
    """
    import warnings

    from vignette_lab.agreement import cohen_kappa

    get_round(db, round_id)
    intended = ds_repo.intended_techniques(db, round_id)
    by_annotator: dict[str, list[dict[str, Any]]] = {}
    for a in effective_annotations(db, round_id):
        if a["item_id"] in intended:
            by_annotator.setdefault(a["annotator_id"], []).append(a)
    out = []
    for annotator, rows in sorted(by_annotator.items()):
        truth = [intended[r["item_id"]] for r in rows]
        primary = [(r["techniques"] or ["(none)"])[0] for r in rows]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            k = cohen_kappa(truth, primary)
        out.append({"annotator_id": annotator, "annotator_kind": rows[0]["annotator_kind"],
                    "n_items": len(rows),
                    "hit_rate": float(np.mean([t in r["techniques"] for t, r in zip(truth, rows)])),
                    "kappa_primary": None if np.isnan(k) else float(k),
                    "circular": annotator.startswith("ai:scripted")})
    return out
