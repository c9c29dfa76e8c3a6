"""Learned technique tagger over characters, morphemes and the rule cues (stacking).

The rule cues of :mod:`vignette_lab.engines.utterance_tagger` were written while reading the
dev authors' phrasing and reached κ 0.64 on one new author and 0.55 on the next. This module
learns one logistic regression per technique from

* character n-grams (1–4, ``char_wb``) of the cleaned utterance — typos and missing spaces
  keep most of their n-grams;
* kiwipiepy morphemes (the process-wide analyser of :mod:`vignette_lab.core.morph`): every
  ending, particle and auxiliary as ``form/tag``, content stems, tag bigrams and the final
  ending of each sentence with its punctuation (``구나/EF``, ``어/EF?``) — the grammar that
  separates a reflection from a question from advice, whatever the vocabulary;
* optionally (``use_rules=True``, the *stack*) the rule tagger's own outputs as features, so
  the model can keep a rule where it carries and overrule it where it does not.

Each technique's decision threshold is tuned on out-of-fold probabilities *inside the training
data* (group k-fold by normalised text), never on the data it is scored on. The bench
(``bench/bench_evaluator.py --technique-loso``) picks rules vs model vs stack by
leave-one-split-out over the four author splits.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping, Sequence

log = logging.getLogger(__name__)

__all__ = ["STACK_VERSION", "StackedTechniqueModel", "morph_features"]

STACK_VERSION = "i11.4"
_THRESHOLDS = tuple(round(0.15 + 0.05 * i, 2) for i in range(13))  # 0.15 … 0.75


def _identity(tokens: Any) -> Any:
    return tokens


@lru_cache(maxsize=8192)
def morph_features(text: str) -> tuple[str, ...]:
    """Morpheme feature tokens of one utterance (empty without kiwipiepy).

    Examples
    --------
    >>> "구나/EF" in morph_features("많이 힘들었구나")  # doctest: +SKIP
    True
    """
    from vignette_lab.core.morph import kiwi
    from vignette_lab.engines import utterance_tagger as ut

    k = kiwi()
    s = ut._clean(text)
    if k is None or not s:
        return ()
    try:
        toks = [(t.form, t.tag.split("-")[0]) for t in k.tokenize(s)]
    except Exception as exc:  # noqa: BLE001 — an odd string keeps its character features
        log.debug("kiwipiepy could not tokenise an utterance: %s", exc)
        return ()
    out: list[str] = []
    prev_tag = "BOS"
    last_end: str | None = None
    for i, (form, tag) in enumerate(toks):
        if tag[0] in "EJX" or tag in ("VX", "VCP", "VCN", "MAG", "MAJ", "IC", "NP", "NNB", "SF", "MM"):
            out.append(f"{form}/{tag}")
        elif tag[0] in "NV":
            out.append(f"{form}/{tag[:2]}")
        out.append(f"{prev_tag}>{tag}")
        if tag in ("EF", "EC") and (i + 1 == len(toks) or toks[i + 1][1] in ("SF", "SE", "SS")):
            last_end = form
        if tag == "SF" or i + 1 == len(toks):
            if last_end is not None:
                out.append(f"END={last_end}{'?' if form == '?' else ''}")
            elif form == "?":
                out.append("END=?")
            last_end = None
        prev_tag = tag
    if toks:
        out.append(f"FIRST={toks[0][0]}/{toks[0][1]}")
    return tuple(out)


def _kappa(y: Any, p: Any) -> float:
    from sklearn.metrics import cohen_kappa_score
    if len(set(y.tolist()) | set(p.tolist())) < 2:
        return 1.0 if (y == p).all() else 0.0
    return float(cohen_kappa_score(y, p))


@dataclass
class StackedTechniqueModel:
    """One logistic regression per technique with a threshold tuned inside the training data."""

    char_vectoriser: Any
    morph_vectoriser: Any
    classifiers: dict[str, Any]
    thresholds: dict[str, float]
    use_rules: bool
    rule_weight: float = 1.0
    C: float = 2.0
    version: str = field(default=STACK_VERSION)

    @classmethod
    def fit(cls, items: Sequence[Mapping[str, Any]], *, use_rules: bool = True, C: float = 2.0,
            rule_weight: float = 1.0, inner_folds: int = 3) -> "StackedTechniqueModel":
        """Train on items with ``counselor`` and ``techniques`` (deterministic).

        Parameters
        ----------
        items : sequence of mapping
            Training items (dev splits + banks; :func:`utterance_tagger.training_items`).
        use_rules : bool, default=True
            Add the rule tagger's outputs as features (the stack); False is the plain model.
        C : float, default=2.0
            Inverse L2 strength of each logistic regression.
        rule_weight : float, default=1.0
            Scale of the rule indicator columns.
        inner_folds : int, default=3
            Group k-fold (by normalised text) used to tune each threshold on out-of-fold
            probabilities of the training data.
        """
        import numpy as np
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.model_selection import GroupKFold

        from vignette_lab.engines import utterance_tagger as ut

        if len(items) < 10:
            raise ValueError(f"StackedTechniqueModel.fit needs at least 10 labelled items; got {len(items)}")
        texts = [str(it["counselor"]) for it in items]
        groups = [ut.normalise_text(t) for t in texts]
        y_all = {c: np.asarray([c in it["techniques"] for it in items], dtype=int) for c in ut.TECHNIQUES}

        def vectorisers(idx: Sequence[int]) -> tuple[Any, Any]:
            cv = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), min_df=2, sublinear_tf=True)
            cv.fit([ut._char_text(texts[i]) for i in idx])
            mv = TfidfVectorizer(analyzer=_identity, min_df=2, sublinear_tf=True)
            mv.fit([morph_features(texts[i]) for i in idx])
            return cv, mv

        def matrix(cv: Any, mv: Any, idx: Sequence[int]) -> Any:
            return cls._matrix(cv, mv, [texts[i] for i in idx], use_rules, rule_weight)

        def train(x: Any, y: Any) -> Any:
            from sklearn.linear_model import LogisticRegression
            if y.sum() < 3 or y.sum() > len(y) - 3:
                return float(y.mean())
            return LogisticRegression(C=C, max_iter=3000, solver="liblinear", class_weight="balanced").fit(x, y)

        # Out-of-fold probabilities inside the training data -> one threshold per technique.
        oof = {c: np.zeros(len(items)) for c in ut.TECHNIQUES}
        for tr, te in GroupKFold(n_splits=inner_folds).split(texts, groups=groups):
            cv, mv = vectorisers(tr)
            xtr, xte = matrix(cv, mv, tr), matrix(cv, mv, te)
            for c in ut.TECHNIQUES:
                clf = train(xtr, y_all[c][tr])
                oof[c][te] = clf if isinstance(clf, float) else clf.predict_proba(xte)[:, 1]
        thresholds = {}
        for c in ut.TECHNIQUES:
            scores = [(_kappa(y_all[c], (oof[c] >= t).astype(int)), -abs(t - 0.5), t) for t in _THRESHOLDS]
            thresholds[c] = max(scores)[2]
        all_idx = list(range(len(items)))
        cv, mv = vectorisers(all_idx)
        x = matrix(cv, mv, all_idx)
        classifiers = {c: train(x, y_all[c]) for c in ut.TECHNIQUES}
        return cls(char_vectoriser=cv, morph_vectoriser=mv, classifiers=classifiers, thresholds=thresholds,
                   use_rules=use_rules, rule_weight=rule_weight, C=C)

    @staticmethod
    def _matrix(cv: Any, mv: Any, texts: Sequence[str], use_rules: bool, rule_weight: float) -> Any:
        import numpy as np
        from scipy import sparse

        from vignette_lab.engines import utterance_tagger as ut

        blocks = [cv.transform([ut._char_text(t) for t in texts]), mv.transform([morph_features(t) for t in texts])]
        if use_rules:
            blocks.append(sparse.csr_matrix(ut._rule_matrix(texts) * rule_weight))
        return sparse.hstack(blocks).tocsr().astype(np.float64)

    def predict_proba(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Probability per technique for each text."""
        from vignette_lab.engines import utterance_tagger as ut

        if not texts:
            return []
        x = self._matrix(self.char_vectoriser, self.morph_vectoriser, texts, self.use_rules, self.rule_weight)
        cols = {c: ([clf] * len(texts) if isinstance(clf, float) else [float(p) for p in clf.predict_proba(x)[:, 1]])
                for c, clf in self.classifiers.items()}
        return [{c: round(cols[c][i], 4) for c in ut.TECHNIQUES} for i in range(len(texts))]

    def predict(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """Technique sets: every code at or above its threshold, else the most probable one."""
        from vignette_lab.engines import utterance_tagger as ut

        out = []
        for probs in self.predict_proba(texts):
            chosen = [c for c in ut.TECHNIQUES if probs[c] >= self.thresholds.get(c, 0.5)]
            if not chosen:
                chosen = [max(ut.TECHNIQUES, key=lambda c: probs[c] / max(self.thresholds.get(c, 0.5), 1e-6))]
            if len(chosen) > 1 and "other" in chosen:
                chosen.remove("other")
            out.append(tuple(chosen))
        return out
