"""A learned reading of crisis cues in client lines, beside the morpheme rules of :mod:`crisis_cues`.

The rule classes of :mod:`vignette_lab.engines.crisis_cues` were written on the older author
splits and recognised 77 of 142 crisis-context client lines of the round-5 authors: each new
author words the wish to die, self-harm and its objects in ways no earlier author did. This
module learns the cue from every client line of the evaluator dev splits (a line is positive
when an item carrying it has ``crisis_context``), over the features the technique tagger uses:
character n-grams (typos, missing spaces) and kiwipiepy morphemes (lemmas, endings, particles).

One logistic regression; its decision threshold is tuned *inside the training lines* on
out-of-fold probabilities, as the lowest threshold whose out-of-fold false-alarm rate stays at or
below :data:`MAX_FALSE_ALARM` (the bar is false alarms ≤ 1 % of plain client lines; half of it is
the budget here, since the rules add their own). :func:`vignette_lab.engines.utterance_tagger.crisis_cue`
is the rules *or* this model.

It is trained offline by ``bench/build_evaluator_models.py`` and shipped as
``crisis_cue_model.json`` (scored at runtime by :mod:`linear_runtime`, no scikit-learn); without
the file, or with another version, only the rules read the cue (with a warning), since a crisis
reading must not wait for a training run inside a live turn.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

log = logging.getLogger(__name__)

__all__ = ["CRISIS_EXPORT", "CRISIS_MODEL_VERSION", "MAX_FALSE_ALARM", "default_crisis_model", "fingerprint", "fit",
           "in_domain", "learned_crisis_cue", "oof_threshold", "runtime", "training_lines", "use_model"]

CRISIS_MODEL_VERSION = "i11.7"  # the gate (in_domain) is applied at read time, not learned
CRISIS_EXPORT = Path(__file__).with_name("crisis_cue_model.json")
#: Out-of-fold false-alarm budget (share of plain training lines) that picks the threshold.
MAX_FALSE_ALARM = 0.005
_THRESHOLDS = tuple(round(0.5 + 0.025 * i, 3) for i in range(20))  # 0.5 … 0.975
_LABEL = "crisis"


def training_lines(*, splits: Sequence[str] | None = None, exclude_norm: Iterable[str] = ()) -> list[tuple[str, bool]]:
    """(client line, crisis) pairs from the evaluator dev splits, one per normalised line.

    A line is a crisis line when any item carrying it has ``crisis_context`` (the same client line
    is often reused with several counselor replies). ``exclude_norm`` drops lines (normalised) —
    the bench holds a split's lines out this way. Test splits are never read.
    """
    from vignette_lab.engines import utterance_tagger as ut

    skip = set(exclude_norm)
    out: dict[str, list[Any]] = {}
    for name in splits or ut.DEV_SPLITS:
        for it in ut.dev_items(split=name):
            line = str(it.get("client_prev") or "")
            key = ut.normalise_text(line)
            if not key or key in skip:
                continue
            row = out.setdefault(key, [line, False])
            row[1] = row[1] or bool(it.get("crisis_context"))
    return [(line, bool(flag)) for line, flag in out.values()]


def _matrix(cv: Any, mv: Any, texts: Sequence[str]) -> Any:
    import numpy as np
    from scipy import sparse

    from vignette_lab.engines import technique_stack as ts
    from vignette_lab.engines import utterance_tagger as ut

    return sparse.hstack([cv.transform([ut._char_text(t) for t in texts]),
                          mv.transform([ts.morph_features(t) for t in texts])]).tocsr().astype(np.float64)


def _vectorisers(texts: Sequence[str]) -> tuple[Any, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    from vignette_lab.engines import technique_stack as ts
    from vignette_lab.engines import utterance_tagger as ut

    cv = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), min_df=2, sublinear_tf=True)
    cv.fit([ut._char_text(t) for t in texts])
    mv = TfidfVectorizer(analyzer=ts._identity, min_df=2, sublinear_tf=True)
    mv.fit([ts.morph_features(t) for t in texts])
    return cv, mv


def fit(lines: Sequence[tuple[str, bool]], *, C: float = 4.0, folds: int = 5,
        max_false_alarm: float = MAX_FALSE_ALARM) -> Any:
    """Train the crisis-cue model on (client line, crisis) pairs (deterministic).

    Parameters
    ----------
    lines : sequence of (str, bool)
        Training lines (:func:`training_lines`), one per normalised text.
    C : float, default=4.0
        Inverse L2 strength of the logistic regression.
    folds : int, default=5
        K-fold over the lines for the out-of-fold probabilities that pick the threshold.
    max_false_alarm : float, default=MAX_FALSE_ALARM
        Largest out-of-fold share of plain lines the model may flag at the chosen threshold.

    Returns
    -------
    StackedTechniqueModel
        With the single label ``"crisis"`` and its threshold (the shape the runtime exports).
    """
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    from vignette_lab.engines.technique_stack import StackedTechniqueModel

    y = np.asarray([bool(flag) for _, flag in lines], dtype=int)
    if len(lines) < 20 or y.sum() < folds or (1 - y).sum() < folds:
        raise ValueError(f"crisis_model.fit needs at least 20 lines with {folds} of each class; "
                         f"got {len(lines)} lines, {int(y.sum())} crisis")
    if not 0 <= max_false_alarm < 1:
        raise ValueError(f"max_false_alarm must be in [0, 1); got {max_false_alarm!r}")
    texts = [str(t) for t, _ in lines]

    def train(x: Any, yy: Any) -> Any:
        return LogisticRegression(C=C, max_iter=3000, solver="liblinear", class_weight="balanced").fit(x, yy)

    oof = np.zeros(len(texts))
    for tr, te in StratifiedKFold(n_splits=folds, shuffle=True, random_state=7).split(texts, y):
        cv, mv = _vectorisers([texts[i] for i in tr])
        clf = train(_matrix(cv, mv, [texts[i] for i in tr]), y[tr])
        oof[te] = clf.predict_proba(_matrix(cv, mv, [texts[i] for i in te]))[:, 1]
    threshold = oof_threshold(oof[y == 0], _THRESHOLDS, budget=max_false_alarm)
    cv, mv = _vectorisers(texts)
    clf = train(_matrix(cv, mv, texts), y)
    return StackedTechniqueModel(char_vectoriser=cv, morph_vectoriser=mv, classifiers={_LABEL: clf},
                                 thresholds={_LABEL: threshold}, use_rules=False, C=C)


def oof_threshold(negatives: Sequence[float], thresholds: Sequence[float], *, budget: float) -> float:
    """The lowest threshold whose share of ``negatives`` at or above it stays within ``budget``.

    The threshold search both learned crisis parts share: ``negatives`` are the out-of-fold probabilities
    of the training items the model must not flag (plain client lines here; engaged turns in
    :mod:`crisis_engagement`), ``thresholds`` the ascending grid. The last threshold when none fits.

    Parameters
    ----------
    negatives : sequence of float
        Out-of-fold probabilities of the negative training items.
    thresholds : sequence of float
        Candidate thresholds, ascending.
    budget : float
        Largest share of negatives the threshold may flag, in [0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> oof_threshold([0.1, 0.2, 0.9], (0.5, 0.75, 0.95), budget=0.0)
    0.95
    >>> oof_threshold([0.1, 0.2, 0.9], (0.5, 0.75, 0.95), budget=0.34)
    0.5
    """
    import numpy as np

    if not thresholds:
        raise ValueError("oof_threshold needs at least one threshold; got none")
    neg = np.asarray(negatives, dtype=np.float64)
    for t in thresholds:
        if float((neg >= t).mean()) <= budget:
            return t
    return thresholds[-1]


def fingerprint(lines: Sequence[tuple[str, bool]]) -> str:
    """Hash of the training lines, the model version, scikit-learn and the feature code."""
    import sklearn

    from vignette_lab.engines import technique_stack as ts

    h = hashlib.sha256(f"{CRISIS_MODEL_VERSION}|{sklearn.__version__}|{MAX_FALSE_ALARM}|".encode())
    h.update(Path(__file__).read_bytes())
    h.update(Path(ts.__file__).read_bytes())
    for text, flag in lines:
        h.update(json.dumps([text, flag], ensure_ascii=False).encode())
    return h.hexdigest()[:16]


_ACTIVE: list[Any] = []  # a model set by use_model (the bench's leave-one-split-out), else the shipped one


@lru_cache(maxsize=1)
def default_crisis_model() -> Any:
    """The shipped crisis-cue model (:class:`linear_runtime.ExportedTechniqueModel`), or None.

    None when ``crisis_cue_model.json`` is missing or carries another version: the rules alone
    then read the cue.
    """
    from vignette_lab.engines import linear_runtime

    doc = linear_runtime.read_export(CRISIS_EXPORT, model="technique")
    if doc is not None and doc.get("version") == CRISIS_MODEL_VERSION and doc.get("techniques") == [_LABEL]:
        return linear_runtime.load_technique(doc)
    log.warning("shipped crisis-cue model %s missing or not version %s; crisis cues read by the rules alone "
                "(run bench/build_evaluator_models.py)", CRISIS_EXPORT.name, CRISIS_MODEL_VERSION)
    return None


def use_model(model: Any) -> None:
    """Read cues with ``model`` (a fitted or exported model; None = the shipped one) from now on.

    Clears the memos that hold cue readings (the tagger's ``crisis_cue`` and the judge memo), so a
    bench can score a split with a model trained without it.
    """
    from vignette_lab.engines import utterance_tagger as ut

    _ACTIVE[:] = [] if model is None else [model]
    ut.crisis_cue.cache_clear()
    with ut._JUDGE_LOCK:
        ut._JUDGE_CACHE.clear()


def runtime(model: Any, *, meta: dict[str, Any] | None = None) -> Any:
    """The pure numpy/python runtime of a fitted model (what the shipped file loads as)."""
    from vignette_lab.engines import linear_runtime

    doc = linear_runtime.export_technique(model, techniques=(_LABEL,), meta=meta or {"version": CRISIS_MODEL_VERSION})
    return linear_runtime.load_technique(json.loads(json.dumps(doc, ensure_ascii=False)))


# The learned reader speaks only on lines inside the ideation's domain: a thought or urge, dying, living,
# vanishing, ending, plans and attempts, means and injuries. Alone it also fires on places it met in crisis
# talk ("옥상 정원에 꽃 심었어요"); with this gate a line about the roof garden stays an everyday line.
_DOMAIN = frozenset({"생각", "마음", "맘", "충동", "상상", "죽", "뒤지", "살", "사", "사라지", "없어지", "끝", "끝나", "끝내",
                     "방법", "계획", "시도", "약", "수면제", "칼", "피", "상처", "그만", "포기", "의미", "도망", "하려",
                     "버티", "견디", "놓", "편하", "낫"})


@lru_cache(maxsize=1)
def _domain() -> frozenset[str]:
    """:data:`_DOMAIN` plus the rule classes' means, tools and injuring verbs (:mod:`crisis_cues`): a line
    about a pill box or hitting a wall until the skin breaks is inside the domain; the learned model and its
    false-alarm budget decide whether it is a cue. Heights stay out: alone the model fires on a roof garden."""
    from vignette_lab.engines import crisis_cues as cc
    return _DOMAIN | cc._MEANS | cc._TOOL | cc._INJURE | frozenset({"위험", "위험하", "떨어지", "약통", "치"})


def in_domain(text: str) -> bool:
    """True when a line carries a stem of the ideation's domain (kiwipiepy; False without it).

    "아무 생각 없어요" (nothing on one's mind) and "생각해 올게요" (to think it over) are idioms, not the thought.
    """
    from vignette_lab.engines import crisis_cues

    m = crisis_cues._morphs(crisis_cues._surface(text))
    if not m:
        return False
    forms = {f for f, t in m if t.startswith(("NN", "VV", "VA", "XR", "MAG"))}
    if "아무" in {f for f, _ in m} and "생각" in forms and "없" in forms:
        return False
    hits = forms & _domain()
    # "밑줄 그었어요", "형광펜으로 그었어요", "걔랑 선 그었어요": 긋다 whose object is a drawn line or whose tool is
    # a pen draws, it does not cut — unless a body part is named ("팔에 줄 그었어요"); a blade is a domain stem
    if hits == {"긋"} and crisis_cues.draws_a_line(forms):
        return False
    # "담주에 생각해 올게요": thinking it over and coming back (생각 + 하 + 어 + 오) is a plan, not the thought
    if hits == {"생각"} and any(f == "생각" and [x for x, _ in m[k + 1:k + 4]] == ["하", "어", "오"]
                                for k, (f, _t) in enumerate(m)):
        return False
    return bool(hits)


def learned_crisis_cue(text: str) -> bool:
    """True when the learned model reads a crisis cue in a client line inside the ideation's domain.

    False without a model and outside :func:`in_domain`.
    """
    model = _ACTIVE[0] if _ACTIVE else default_crisis_model()
    if model is None or not (text or "").strip() or not in_domain(text):
        return False
    p = model.predict_proba([text])[0][_LABEL]
    return p >= model.thresholds.get(_LABEL, 0.5)
