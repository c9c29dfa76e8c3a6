"""A small learned meta-disclosure scorer: logistic regression over character n-grams.

:func:`vignette_lab.core.guardrails.detect_ccd_meta_disclosure` combines its hand-written
rules with this model (rules OR model). The model is trained offline by
``bench/build_meta_model.py`` (scikit-learn) on the drift eval dev splits, the old meta probes
and hard negatives (every string of the persona cards and banks); the builder writes the
weights to ``meta_model.json`` beside this module, with the training set's hash, and
``tests/test_meta_model.py`` checks the shipped file is what the builder produces from the
repository's data. Inference here is pure Python (a dictionary lookup per n-gram): no
scikit-learn import, no numpy, no kiwipiepy, so the guard on every client reply stays cheap.

Features (:func:`features`) are binary, each scaled by 1/sqrt(number of n-grams of the text):
character 1–4-grams of the NFC, lower-cased text with whitespace collapsed to one space
(word edges marked by the space), and character 2–4-grams of the same text with all spaces
removed (prefix ``~``) so unspaced chat ("시뮬레이션이라서요") and spaced text ("시뮬레이션 이라서요")
share evidence. Digits are folded to ``0`` ("0.4" and "0.8" are the same parameter shape).

Examples
--------
>>> from vignette_lab.core.meta_model import meta_score
>>> meta_score("저는 그냥 프롬프트대로 말하는 거예요") > meta_score("요즘 잠을 못 자요")  # doctest: +SKIP
True
"""

from __future__ import annotations

import json
import math
import re
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from vignette_lab.core import _compiled_patterns as _patterns

__all__ = ["MODEL_PATH", "FORMAT_VERSION", "MetaModel", "features", "load_model", "meta_score", "normalise"]

#: where the builder writes the weights and the runtime reads them
MODEL_PATH = Path(__file__).with_name("meta_model.json")
#: bumped when :func:`features` or the file layout changes (the loader refuses other versions)
FORMAT_VERSION = 1

_SPACE = _patterns.compile(r"\s+")
_DIGIT = _patterns.compile(r"\d")


def normalise(text: str) -> str:
    """NFC, lower case, digits folded to ``0``, whitespace collapsed, stripped."""
    text = unicodedata.normalize("NFC", text or "").lower()
    return _SPACE.sub(" ", _DIGIT.sub("0", text)).strip()


def features(text: str) -> set[str]:
    """The binary features of one text (see the module docstring)."""
    norm = normalise(text)
    out: set[str] = set()
    if not norm:
        return out
    spaced = f" {norm} "
    for n in (1, 2, 3, 4):
        for i in range(len(spaced) - n + 1):
            gram = spaced[i:i + n]
            if gram != " ":
                out.add(gram)
    glued = norm.replace(" ", "")
    for n in (2, 3, 4):
        for i in range(len(glued) - n + 1):
            out.add("~" + glued[i:i + n])
    return out


@dataclass(frozen=True)
class MetaModel:
    """Weights of the linear model; ``score`` is the logistic probability of meta talk."""

    weights: Mapping[str, float]
    bias: float
    threshold: float
    version: int
    training_hash: str

    def margin(self, text: str) -> float:
        """Linear score (log-odds) of ``text``."""
        feats = features(text)
        if not feats:
            return self.bias
        return self.bias + sum(self.weights.get(f, 0.0) for f in feats) / math.sqrt(len(feats))

    def score(self, text: str) -> float:
        """Probability in [0, 1] that ``text`` is simulation talk."""
        z = self.margin(text)
        return 1.0 / (1.0 + math.exp(-z)) if z > -500 else 0.0

    def fires(self, text: str) -> bool:
        """True when :meth:`score` reaches the shipped threshold."""
        return self.score(text) >= self.threshold

    def evidence(self, text: str, *, k: int = 3) -> tuple[str, ...]:
        """Up to ``k`` n-grams of three or more characters that pushed ``text`` most towards meta
        (by weight; space-free ones unprefixed, overlapping ones skipped)."""
        grams: dict[str, float] = {}
        for f in features(text):
            w = self.weights.get(f, 0.0)
            g = f.lstrip("~").strip()
            if w > 0 and len(g) >= 3:
                grams[g] = max(w, grams.get(g, 0.0))
        out: list[str] = []
        for g in sorted(grams, key=lambda x: (-grams[x], x)):
            bare = g.replace(" ", "")
            if not any(bare in o.replace(" ", "") or o.replace(" ", "") in bare for o in out):
                out.append(g)
            if len(out) == k:
                break
        return tuple(out)


def _from_dict(data: Mapping[str, Any], *, source: str) -> MetaModel:
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{source}: field 'format_version' is {data.get('format_version')!r}, "
                         f"this code reads {FORMAT_VERSION} (rebuild with bench/build_meta_model.py)")
    weights = data.get("weights")
    if not isinstance(weights, dict):
        raise ValueError(f"{source}: field 'weights' must be an object of n-gram -> weight")
    for key in ("bias", "threshold", "model_version", "training_hash"):
        if key not in data:
            raise ValueError(f"{source}: field {key!r} is missing (rebuild with bench/build_meta_model.py)")
    return MetaModel({str(k): float(v) for k, v in weights.items()}, float(data["bias"]),
                     float(data["threshold"]), int(data["model_version"]), str(data["training_hash"]))


_LOCK = threading.Lock()
_CACHE: dict[Path, MetaModel] = {}


def load_model(path: Path | None = None) -> MetaModel:
    """The shipped model (read once per process), or the one at ``path``."""
    p = Path(path) if path is not None else MODEL_PATH
    with _LOCK:
        if p not in _CACHE:
            _CACHE[p] = _from_dict(json.loads(p.read_text(encoding="utf-8")), source=str(p))
        return _CACHE[p]


def meta_score(text: str) -> float:
    """Probability that ``text`` is simulation talk, by the shipped model."""
    return load_model().score(text)
