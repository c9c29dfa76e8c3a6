"""Learned appropriateness judgement over the rule judgement, in context, with safety fixed by rule.

The rule judgement (:func:`vignette_lab.engines.utterance_tagger.rule_judge`) reached κ 0.72–0.80
on the splits its rules were written on and 0.41 on the next independent split: its thresholds
(when is a fact question ``neutral``, when is advice pushy) were fitted to one author's calls.
:class:`AppropriatenessModel` is a multinomial logistic regression over

* the rule verdict and its deviation dimensions, the rule technique tags,
* the context — stage, teen or adult persona, crisis context, risk screening, the client line
  (a feeling word in it, a question), the number of questions, length,
* character n-grams (1–3, ``char_wb``) of the counselor utterance,

trained offline with scikit-learn on every evaluator dev split (``bench/build_evaluator_models.py``
exports it to ``appropriateness_model.json``; the runtime is pure numpy/python,
:mod:`vignette_lab.engines.linear_runtime`) and scored by leave-one-split-out and group k-fold by
normalised text in ``bench/bench_evaluator.py``. The model only moves ``pos``/``neutral``/
non-safety ``warn``: **safety stays structural** — after a crisis cue a risk-screening or
safety-check utterance is always ``pos`` and a rule ``safety`` warning always stays ``warn``.
When the model turns a rule ``pos``/``neutral`` into ``warn`` it names the deviation dimension
its second head (same features, trained on the gold ``warn`` items) finds most probable.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from vignette_lab.errors import InputError

log = logging.getLogger(__name__)

__all__ = ["APPROPRIATENESS_VERSION", "AppropriatenessModel", "DEFAULT_APPROPRIATENESS", "appropriateness_system",
           "context_features", "default_appropriateness_model", "refine"]

APPROPRIATENESS_VERSION = "i11.7"
LABELS = ("pos", "warn", "neutral")
DIMS = ("focus", "stage_fit", "pacing", "theory_fit")
STAGES = ("rapport", "exploration", "intervention", "closing")
# Chosen by leave-one-split-out over dev, dev_r1, dev_r2 (bench/RESULTS.md, "Issue 11 round 3").
DEFAULT_APPROPRIATENESS = "model"

_DEV_TEXTS = {
    "focus": ("내담자의 감정과 경험을 먼저 이해", "내담자의 이야기에서 벗어나거나 평가로 들리는 말"),
    "stage_fit": ("단계에 맞는 개입(관계·탐색 먼저)", "단계에 이른 조언·정보"),
    "pacing": ("내담자의 속도에 맞추기", "서두르거나 한꺼번에 몰아붙이는 말"),
    "theory_fit": ("내담자와 함께 정하는 협력적 개입", "지시·당위로 들리는 개입"),
}
_REASONS = {
    "focus": "내담자의 이야기보다 상담자의 평가나 다른 주제로 옮겨 간 말로 읽힙니다",
    "stage_fit": "이 단계에서는 조금 이른 말로 읽힙니다",
    "pacing": "내담자의 속도보다 앞서 가는 말로 읽힙니다",
    "theory_fit": "함께 정하기보다 지시하는 말로 읽힙니다",
}


def appropriateness_system() -> str:
    """``model`` or ``rules``: ``VIGNETTE_APPROPRIATENESS`` when set, else :data:`DEFAULT_APPROPRIATENESS`."""
    env = os.environ.get("VIGNETTE_APPROPRIATENESS", "").strip().lower()
    return env if env in ("rules", "model") else DEFAULT_APPROPRIATENESS


def context_features(utterance: str, techniques: Sequence[str], verdict: Mapping[str, Any], *, stage: str,
                     client_prev: str = "", persona_code: str | None = None) -> list[float]:
    """Numeric features of one utterance in context (rule verdict, tags, stage, persona, client line)."""
    from vignette_lab.engines import utterance_tagger as ut

    stage = ut.STAGE_CODES.get(stage, stage)
    t = set(techniques)
    dims = {d.get("dimension") for d in verdict.get("deviations") or ()}
    text = ut._clean(utterance)
    prev = ut._clean(client_prev)
    v = [float(verdict.get("appropriateness") == a) for a in LABELS]
    v += [float(d in dims) for d in ("safety",) + DIMS]
    v += [float(c in t) for c in ut.TECHNIQUES]
    v += [float(stage == s) for s in STAGES]
    v += [float(ut.is_teen(persona_code)), float(bool(verdict.get("crisis"))), float(bool(verdict.get("screen"))),
          float(ut.minimising(text)), min(text.count("?"), 3) / 3, min(len(text), 120) / 120,
          float(bool(ut._FEEL_RX.search(prev))), float("?" in prev), len(t) / 3]
    return v


def _char_text(text: str) -> str:
    from vignette_lab.engines import utterance_tagger as ut
    return ut.normalise_text(ut._clean(text))


@dataclass
class AppropriatenessModel:
    """Multinomial logistic regression (appropriateness) + a deviation-dimension head."""

    vectoriser: Any
    classifier: Any
    deviation_head: Any
    C: float

    @classmethod
    def fit(cls, rows: Sequence[Mapping[str, Any]], *, C: float = 3.0) -> "AppropriatenessModel":
        """Train on rows with ``text``, ``features`` (:func:`context_features`), ``appropriateness``, ``deviation``."""
        import numpy as np
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        if not rows:
            raise ValueError("AppropriatenessModel.fit needs at least one labelled row")
        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), min_df=3, sublinear_tf=True)
        vec.fit([_char_text(r["text"]) for r in rows])
        x = cls._matrix(vec, rows)
        y = [r["appropriateness"] for r in rows]
        clf = LogisticRegression(C=C, max_iter=4000).fit(x, y)
        warn = [i for i, r in enumerate(rows) if r["appropriateness"] == "warn"
                and any(d in DIMS for d in r.get("deviation") or ())]
        head = None
        if warn:
            yd = [next(d for d in rows[i]["deviation"] if d in DIMS) for i in warn]
            if len(set(yd)) > 1:
                head = LogisticRegression(C=1.0, max_iter=4000).fit(x[np.asarray(warn)], yd)
            else:
                head = yd[0]
        return cls(vectoriser=vec, classifier=clf, deviation_head=head, C=C)

    @staticmethod
    def _matrix(vec: Any, rows: Sequence[Mapping[str, Any]]) -> Any:
        import numpy as np
        from scipy import sparse
        dense = sparse.csr_matrix(np.asarray([r["features"] for r in rows], dtype=np.float64))
        return sparse.hstack([dense, vec.transform([_char_text(r["text"]) for r in rows])]).tocsr()

    def predict(self, rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, str | None]]:
        """(appropriateness, deviation dimension or None) per row."""
        if not rows:
            return []
        x = self._matrix(self.vectoriser, rows)
        labels = self.classifier.predict(x)
        if isinstance(self.deviation_head, str) or self.deviation_head is None:
            dims = [self.deviation_head or "focus"] * len(rows)
        else:
            dims = list(self.deviation_head.predict(x))
        return [(str(a), str(d) if a == "warn" else None) for a, d in zip(labels, dims)]


def training_rows(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows for :meth:`AppropriatenessModel.fit` from eval-set items (rule verdict computed here)."""
    from vignette_lab.engines import utterance_tagger as ut

    rows = []
    for it in items:
        text = str(it["counselor"])
        tags = ut.in_context(ut.rule_tags(text), text, client_prev=it.get("client_prev", ""))
        verdict = ut.rule_judge(text, tags, client_prev=it.get("client_prev", ""), stage=it["stage"],
                                crisis_context=bool(it.get("crisis_context")))
        rows.append({"text": text, "appropriateness": it["appropriateness"], "deviation": list(it.get("deviation") or ()),
                     "features": context_features(text, tags, verdict, stage=it["stage"],
                                                  client_prev=it.get("client_prev", ""),
                                                  persona_code=it.get("persona"))})
    return rows


def _all_dev_items() -> list[dict[str, Any]]:
    from vignette_lab.engines import utterance_tagger as ut
    seen: set[str] = set()
    out = []
    for split in ut.DEV_SPLITS:
        for it in ut.dev_items(split=split):
            key = ut.normalise_text(it["counselor"])
            if key not in seen:
                seen.add(key)
                out.append(it)
    return out


def _fingerprint(items: Sequence[Mapping[str, Any]]) -> str:
    import sklearn
    from vignette_lab.engines import utterance_tagger as ut
    h = hashlib.sha256(f"{APPROPRIATENESS_VERSION}|{sklearn.__version__}|".encode())
    from vignette_lab.engines import crisis_engagement
    for mod in (ut.__file__, __file__, ut.crisis_cues.__file__, crisis_engagement.__file__):
        h.update(Path(mod).read_bytes())
    for it in items:
        h.update(json.dumps([it["counselor"], it.get("client_prev", ""), it["stage"], it.get("persona"),
                             it["appropriateness"], it.get("deviation"), it.get("crisis_context")],
                            ensure_ascii=False).encode())
    return h.hexdigest()[:16]


#: The exported appropriateness model (``bench/build_evaluator_models.py``).
APPROPRIATENESS_EXPORT = Path(__file__).with_name("appropriateness_model.json")


@lru_cache(maxsize=1)
def default_appropriateness_model() -> Any:
    """The shipped model (all dev splits), or None for the rule judgement alone.

    Trained offline with scikit-learn by ``bench/build_evaluator_models.py`` and shipped as
    ``appropriateness_model.json``; this returns its pure numpy/python runtime
    (:class:`vignette_lab.engines.linear_runtime.ExportedAppropriatenessModel`: no scikit-learn
    import, no hashing of the training data, identical verdicts). A missing file or another
    version falls back to training here (scikit-learn, cached on disk) with a warning.
    """
    if appropriateness_system() == "rules":
        return None
    from vignette_lab.engines import linear_runtime

    doc = linear_runtime.read_export(APPROPRIATENESS_EXPORT, model="appropriateness")
    if doc is not None and doc.get("version") == APPROPRIATENESS_VERSION:
        return linear_runtime.load_appropriateness(doc)
    log.warning("shipped appropriateness model %s missing or not version %s; training it with scikit-learn "
                "(run bench/build_evaluator_models.py)", APPROPRIATENESS_EXPORT.name, APPROPRIATENESS_VERSION)
    return _trained_model()


def _trained_model() -> AppropriatenessModel | None:
    """The model trained here with scikit-learn, cached on disk (fallback of :func:`default_appropriateness_model`)."""
    import joblib  # scikit-learn's loader: heavy, only on the fallback path

    from vignette_lab.engines import utterance_tagger as ut
    items = _all_dev_items()
    if not items:
        return None
    path = ut._cache_dir() / f"evaluator-appropriateness-{_fingerprint(items)}.joblib"
    if path.exists():
        try:
            model = joblib.load(path)
            if isinstance(model, AppropriatenessModel):
                return model
        except Exception as exc:  # noqa: BLE001 — a stale or torn cache file is rebuilt
            log.warning("cached appropriateness model unreadable, rebuilding it: %s", exc)
    model = AppropriatenessModel.fit(training_rows(items))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        joblib.dump(model, tmp)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home still gets the in-process model
    return model


def refine(verdict: dict[str, Any], utterance: str, techniques: Sequence[str], *, stage: str, client_prev: str = "",
           persona_code: str | None = None, model: Any = "default") -> dict[str, Any]:
    """The rule verdict with appropriateness decided by the learned model; safety untouched.

    After a crisis cue the rule verdict stands as it is (screening ``pos``, ``safety`` ``warn``).
    """
    m = default_appropriateness_model() if model == "default" else model
    if isinstance(m, str):
        raise InputError(f"model must be 'default', None or an appropriateness model; got {m!r}", field="model")
    if m is None or verdict.get("crisis"):
        return verdict
    row = {"text": utterance, "features": context_features(utterance, techniques, verdict, stage=stage,
                                                           client_prev=client_prev, persona_code=persona_code)}
    label, dim = m.predict([row])[0]
    if label == verdict["appropriateness"]:
        return verdict
    out = dict(verdict)
    if label == "warn":
        dim = dim if dim in _DEV_TEXTS else "focus"
        expected, actual = _DEV_TEXTS[dim]
        out["deviations"] = [{"dimension": dim, "expected": expected, "actual": actual, "severity": "low"}]
        out["reasons"] = [_REASONS[dim]] + [r for r in verdict.get("reasons") or () if r not in _REASONS.values()]
    else:
        out["deviations"] = []
        out["reasons"] = (["내담자의 이야기를 따라간 말로 읽힙니다"] if label == "pos"
                          else ["관계를 크게 움직이지 않는 중립적 발화입니다"])
    out["appropriateness"] = label
    out["model"] = APPROPRIATENESS_VERSION
    return out

