"""Pure numpy/python inference for the offline evaluator's learned models (no scikit-learn at runtime).

The technique tagger (:class:`vignette_lab.engines.technique_stack.StackedTechniqueModel`) and the
appropriateness model (:class:`vignette_lab.engines.appropriateness.AppropriatenessModel`) are trained
with scikit-learn **offline** by ``bench/build_evaluator_models.py``, which exports every fitted number
(TF-IDF vocabularies and idf, logistic-regression weights and intercepts, thresholds) into a versioned
JSON file shipped in the package (``technique_model.json``, ``appropriateness_model.json``) together
with the hash of its training data. At runtime this module reproduces the scikit-learn arithmetic
step by step, in the same order, so probabilities are bit-identical:

* ``char_wb`` n-grams exactly as ``sklearn.feature_extraction.text`` builds them (lower-cased,
  runs of whitespace collapsed, each word padded with one space);
* term counts in column order, ``log(tf) + 1`` with numpy's ``log`` (sublinear tf), times idf, then
  the L2 row norm summed sequentially like scikit-learn's Cython loop;
* the sparse row times the weights summed non-zero by non-zero in column order (as scipy's CSR
  product does), plus the intercept; ``1 / (1 + exp(-z))`` for a binary model (scipy's ``expit``),
  the arg-max class for a multinomial one.

``tests/test_evaluator_export.py`` checks the shipped files equal a rebuild and that every dev
item gets the same probabilities, tags and verdicts as the scikit-learn models.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

__all__ = ["EXPORT_FORMAT", "ExportedAppropriatenessModel", "ExportedTechniqueModel", "TfidfTable",
           "export_appropriateness", "export_technique", "load_appropriateness", "load_technique",
           "read_export", "write_export"]

EXPORT_FORMAT = "vignette-lab/linear-export/v1"
_WS = re.compile(r"\s\s+")


def _b64(a: Any, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(np.asarray(a, dtype=dtype)).tobytes()).decode("ascii")


def _unb64(s: str, dtype: str, shape: Sequence[int] | None = None) -> Any:
    a = np.frombuffer(base64.b64decode(s), dtype=dtype)
    return a.reshape(shape) if shape is not None else a


# ----------------------------------------------------------------------------- TF-IDF
@dataclass
class TfidfTable:
    """A fitted ``TfidfVectorizer`` (``char_wb`` or a callable identity analyser), l2 norm, sublinear tf."""

    kind: str  # "char_wb" or "tokens"
    vocabulary: dict[str, int]
    idf: Any
    ngram_range: tuple[int, int] = (1, 1)
    lowercase: bool = True

    def _char_wb(self, text: str) -> list[str]:
        doc = text.lower() if self.lowercase else text
        doc = _WS.sub(" ", doc)
        lo, hi = self.ngram_range
        grams: list[str] = []
        for w in doc.split():
            w = " " + w + " "
            w_len = len(w)
            for n in range(lo, hi + 1):
                offset = 0
                grams.append(w[offset:offset + n])
                while offset + n < w_len:
                    offset += 1
                    grams.append(w[offset:offset + n])
                if offset == 0:
                    break
        return grams

    def row(self, doc: Any) -> tuple[list[int], Any]:
        """Sorted column indices and TF-IDF values of one document (a string, or tokens for ``tokens``)."""
        grams = self._char_wb(doc) if self.kind == "char_wb" else list(doc)
        vocab = self.vocabulary
        counts = Counter(vocab[g] for g in grams if g in vocab)
        idx = sorted(counts)
        data = np.asarray([counts[j] for j in idx], dtype=np.float64)
        if not idx:
            return idx, data
        np.log(data, data)
        data += 1.0
        data *= self.idf[np.asarray(idx, dtype=np.intp)]
        sum_ = 0.0
        for v in data.tolist():
            sum_ += v * v
        if sum_ != 0.0:
            data /= math.sqrt(sum_)
        return idx, data

    def to_json(self) -> dict[str, Any]:
        terms = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        return {"kind": self.kind, "ngram_range": list(self.ngram_range), "lowercase": self.lowercase,
                "terms": terms, "idf": _b64(self.idf, "<f8")}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TfidfTable":
        terms = d["terms"]
        return cls(kind=d["kind"], vocabulary=dict(zip(terms, range(len(terms)))),
                   idf=_unb64(d["idf"], "<f8"), ngram_range=tuple(d["ngram_range"]), lowercase=bool(d["lowercase"]))

    @classmethod
    def from_sklearn(cls, vec: Any) -> "TfidfTable":
        """Read a fitted ``TfidfVectorizer``'s numbers (attributes only; scikit-learn is not imported)."""
        kind = "char_wb" if vec.analyzer == "char_wb" else "tokens"
        if not (vec.sublinear_tf and vec.norm == "l2" and vec.use_idf and not vec.binary):
            raise ValueError("only sublinear-tf, idf, l2-normalised TF-IDF vectorisers can be exported")
        if kind == "tokens" and not callable(vec.analyzer):
            raise ValueError(f"unsupported analyser {vec.analyzer!r}")
        return cls(kind=kind, vocabulary={str(k): int(v) for k, v in vec.vocabulary_.items()},
                   idf=np.asarray(vec.idf_, dtype=np.float64), ngram_range=tuple(vec.ngram_range),
                   lowercase=bool(vec.lowercase))


def _dot(cols: Sequence[tuple[int, float]], weights: Any) -> Any:
    """Sequential sparse-row × (features × outputs) product, as scipy's CSR kernel sums it."""
    out = np.zeros(weights.shape[1], dtype=np.float64)
    for j, v in cols:
        out += v * weights[j]
    return out


def _row(blocks: Sequence[tuple[list[int], Any]], widths: Sequence[int]) -> list[tuple[int, float]]:
    cols: list[tuple[int, float]] = []
    offset = 0
    for (idx, data), width in zip(blocks, widths):
        cols += [(offset + j, v) for j, v in zip(idx, data.tolist()) if v != 0.0]
        offset += width
    return cols


# ----------------------------------------------------------------------------- technique tagger
@dataclass
class ExportedTechniqueModel:
    """The technique tagger's exported numbers; same ``predict_proba``/``predict`` as the trained model."""

    char: TfidfTable
    morph: TfidfTable
    techniques: tuple[str, ...]
    weights: Any  # (features, techniques) float64; a constant model has a zero column
    intercepts: Any  # (techniques,)
    constants: dict[str, float]  # technique -> constant probability (too few positives to train)
    thresholds: dict[str, float]
    use_rules: bool
    rule_weight: float
    meta: dict[str, Any]

    def _features(self, text: str) -> list[tuple[int, float]]:
        from vignette_lab.engines import technique_stack
        from vignette_lab.engines import utterance_tagger as ut

        blocks = [self.char.row(ut._char_text(text)), self.morph.row(technique_stack.morph_features(text))]
        widths = [len(self.char.vocabulary), len(self.morph.vocabulary)]
        if self.use_rules:
            r = (ut._rule_matrix([text]) * self.rule_weight)[0].astype(np.float64)
            blocks.append((list(range(len(r))), r))
            widths.append(len(r))
        return _row(blocks, widths)

    def predict_proba(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Probability per technique for each text (rounded to 4 decimals, like the trained model)."""
        out = []
        for text in texts:
            z = (_dot(self._features(text), self.weights) + self.intercepts).tolist()
            probs = {}
            for k, c in enumerate(self.techniques):
                p = self.constants[c] if c in self.constants else 1.0 / (1.0 + math.exp(-z[k]))
                probs[c] = round(float(p), 4)
            out.append(probs)
        return out

    def predict(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """Technique sets: every code at or above its threshold, else the most probable one."""
        out = []
        for probs in self.predict_proba(texts):
            chosen = [c for c in self.techniques if probs[c] >= self.thresholds.get(c, 0.5)]
            if not chosen:
                chosen = [max(self.techniques, key=lambda c: probs[c] / max(self.thresholds.get(c, 0.5), 1e-6))]
            if len(chosen) > 1 and "other" in chosen:
                chosen.remove("other")
            out.append(tuple(chosen))
        return out


def export_technique(model: Any, *, techniques: Sequence[str], meta: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON document of a fitted ``StackedTechniqueModel`` (reads attributes only)."""
    char = TfidfTable.from_sklearn(model.char_vectoriser)
    morph = TfidfTable.from_sklearn(model.morph_vectoriser)
    n_feat = len(char.vocabulary) + len(morph.vocabulary) + (len(techniques) + 3 if model.use_rules else 0)
    w = np.zeros((n_feat, len(techniques)), dtype=np.float64)
    b = np.zeros(len(techniques), dtype=np.float64)
    constants = {}
    for k, c in enumerate(techniques):
        clf = model.classifiers[c]
        if isinstance(clf, float):
            constants[c] = float(clf)
            continue
        if list(clf.classes_) != [0, 1] or clf.coef_.shape != (1, n_feat):
            raise ValueError(f"technique {c}: unexpected classifier shape {clf.coef_.shape}")
        w[:, k] = clf.coef_[0]
        b[k] = clf.intercept_[0]
    return {"format": EXPORT_FORMAT, "model": "technique", **dict(meta), "techniques": list(techniques),
            "use_rules": bool(model.use_rules), "rule_weight": float(model.rule_weight),
            "thresholds": {c: float(model.thresholds[c]) for c in techniques}, "constants": constants,
            "char": char.to_json(), "morph": morph.to_json(), "n_features": n_feat,
            "weights": _b64(w, "<f8"), "intercepts": _b64(b, "<f8")}


def load_technique(doc: Mapping[str, Any]) -> ExportedTechniqueModel:
    """An :class:`ExportedTechniqueModel` from its JSON document."""
    techniques = tuple(doc["techniques"])
    return ExportedTechniqueModel(
        char=TfidfTable.from_json(doc["char"]), morph=TfidfTable.from_json(doc["morph"]), techniques=techniques,
        weights=_unb64(doc["weights"], "<f8", (int(doc["n_features"]), len(techniques))),
        intercepts=_unb64(doc["intercepts"], "<f8"), constants={k: float(v) for k, v in doc["constants"].items()},
        thresholds={k: float(v) for k, v in doc["thresholds"].items()}, use_rules=bool(doc["use_rules"]),
        rule_weight=float(doc["rule_weight"]),
        meta={k: doc[k] for k in ("version", "training_hash", "n_train", "sklearn") if k in doc})


# ----------------------------------------------------------------------------- appropriateness
@dataclass
class _Multinomial:
    classes: tuple[str, ...]
    weights: Any  # (features, classes)
    intercepts: Any

    def predict(self, cols: Sequence[tuple[int, float]]) -> str:
        z = _dot(cols, self.weights) + self.intercepts
        return self.classes[int(np.argmax(z))]

    def to_json(self) -> dict[str, Any]:
        return {"classes": list(self.classes), "weights": _b64(self.weights, "<f8"),
                "intercepts": _b64(self.intercepts, "<f8"), "n_features": int(self.weights.shape[0])}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "_Multinomial":
        classes = tuple(d["classes"])
        return cls(classes=classes, weights=_unb64(d["weights"], "<f8", (int(d["n_features"]), len(classes))),
                   intercepts=_unb64(d["intercepts"], "<f8"))

    @classmethod
    def from_sklearn(cls, clf: Any) -> "_Multinomial":
        coef = np.asarray(clf.coef_, dtype=np.float64)
        if coef.shape[0] != len(clf.classes_) or len(clf.classes_) < 3:
            raise ValueError("only multinomial logistic regressions (3+ classes) can be exported")
        return cls(classes=tuple(str(c) for c in clf.classes_), weights=np.ascontiguousarray(coef.T),
                   intercepts=np.asarray(clf.intercept_, dtype=np.float64))


@dataclass
class ExportedAppropriatenessModel:
    """The appropriateness model's exported numbers; same ``predict(rows)`` as the trained model."""

    char: TfidfTable
    classifier: _Multinomial
    deviation_head: _Multinomial | str | None
    n_dense: int
    meta: dict[str, Any]

    def predict(self, rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, str | None]]:
        """(appropriateness, deviation dimension or None) per row (``text`` + ``features``)."""
        from vignette_lab.engines.appropriateness import _char_text

        out = []
        for r in rows:
            dense = np.asarray(r["features"], dtype=np.float64)
            if len(dense) != self.n_dense:
                raise ValueError(f"expected {self.n_dense} context features, got {len(dense)}")
            cols = _row([(list(range(len(dense))), dense), self.char.row(_char_text(r["text"]))],
                        [self.n_dense, len(self.char.vocabulary)])
            label = self.classifier.predict(cols)
            head = self.deviation_head
            dim = head.predict(cols) if isinstance(head, _Multinomial) else (head or "focus")
            out.append((label, dim if label == "warn" else None))
        return out


def export_appropriateness(model: Any, *, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON document of a fitted ``AppropriatenessModel`` (reads attributes only)."""
    char = TfidfTable.from_sklearn(model.vectoriser)
    clf = _Multinomial.from_sklearn(model.classifier)
    n_dense = clf.weights.shape[0] - len(char.vocabulary)
    head = model.deviation_head
    if head is not None and not isinstance(head, str):
        if len(head.classes_) < 3:
            raise ValueError("the deviation head must have 3+ classes to be exported")
        head_doc: Any = _Multinomial.from_sklearn(head).to_json()
    else:
        head_doc = head
    return {"format": EXPORT_FORMAT, "model": "appropriateness", **dict(meta), "n_dense": int(n_dense),
            "char": char.to_json(), "classifier": clf.to_json(), "deviation_head": head_doc}


def load_appropriateness(doc: Mapping[str, Any]) -> ExportedAppropriatenessModel:
    """An :class:`ExportedAppropriatenessModel` from its JSON document."""
    head = doc["deviation_head"]
    return ExportedAppropriatenessModel(
        char=TfidfTable.from_json(doc["char"]), classifier=_Multinomial.from_json(doc["classifier"]),
        deviation_head=_Multinomial.from_json(head) if isinstance(head, Mapping) else head,
        n_dense=int(doc["n_dense"]),
        meta={k: doc[k] for k in ("version", "training_hash", "n_train", "sklearn") if k in doc})


# ----------------------------------------------------------------------------- files
def write_export(doc: Mapping[str, Any], path: str | Path) -> None:
    """Write an export document (sorted keys, one line per top-level key, so diffs stay readable)."""
    p = Path(path)
    lines = [json.dumps(k) + ": " + json.dumps(doc[k], ensure_ascii=False, sort_keys=True) for k in sorted(doc)]
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    tmp.replace(p)


def read_export(path: str | Path, *, model: str) -> dict[str, Any] | None:
    """The export document at ``path`` for ``model`` (``technique``/``appropriateness``), or None if absent/other."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT or doc.get("model") != model:
        return None
    return doc
