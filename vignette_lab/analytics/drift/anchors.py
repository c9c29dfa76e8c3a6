"""Embedding voice anchors of the persona cards, with an on-disk cache, and the similarity profile.

Each card's anchor is the centroid of its script lines and surface statements (never CCD
text). Anchor vectors are cached under ``$VIGNETTE_CACHE_DIR/anchors`` (default
``~/.cache/vignette-lab/anchors``) by embedder, dimension and exact lines.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from vignette_lab.analytics.drift.checks import (_SESSION_MIN, _STAGE, _sentence_lengths, persona_anchor_lines)
from vignette_lab.core.personas import load_personas
from vignette_lab.errors import InputError
from vignette_lab.kb.embedders import select_embedder

__all__ = ["Anchors", "anchors_for", "cache_dir", "profile"]

class _Anchors:
    """Embedded voice anchors of all personas (one encode per persona per scan run)."""

    def __init__(self, embedder: Any, cards: Mapping[str, Any]):
        self.embedder = embedder
        self.cards = dict(cards)
        self.raw: dict[str, np.ndarray] = {}
        vecs = {}
        for code, card in sorted(self.cards.items()):
            lines = persona_anchor_lines(card)
            if not lines:
                continue
            vecs[code] = _cached_encode(embedder, lines)
            self.raw[code] = _unit(vecs[code].mean(axis=0))
        if not vecs:
            raise InputError("no persona card has script lines to build a voice anchor", field="script")
        self.background = np.vstack(list(vecs.values())).mean(axis=0)
        self.centred = {c: _unit((m - self.background).mean(axis=0)) for c, m in vecs.items()}
        self.line_stats = {c: _line_stats(self.cards[c]) for c in vecs}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1))
        return np.asarray(self.embedder.encode(list(texts)).dense, dtype=np.float64)

    def centre(self, mat: np.ndarray) -> np.ndarray:
        c = mat - self.background
        n = np.linalg.norm(c, axis=-1, keepdims=True)
        return c / np.where(n == 0, 1, n)


def _cache_dir() -> Path:
    return Path(os.environ.get("VIGNETTE_CACHE_DIR") or Path.home() / ".cache" / "vignette-lab") / "anchors"


def _cached_encode(embedder: Any, lines: Sequence[str]) -> np.ndarray:
    """Anchor embeddings, cached on disk by (embedder, dimension, exact lines): they never change."""
    key = hashlib.sha256("\n".join([str(getattr(embedder, "name", type(embedder).__name__)),
                                     str(getattr(embedder, "dim", "")), *lines]).encode("utf-8")).hexdigest()
    path = _cache_dir() / f"{key}.npy"
    if path.exists():
        try:
            return np.load(path)
        except (OSError, ValueError):
            pass  # a torn write: recompute below
    mat = np.asarray(embedder.encode(list(lines)).dense, dtype=np.float64)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{uuid.uuid4().hex}.tmp.npy")
        np.save(tmp, mat)
        tmp.replace(path)
    except OSError:
        pass  # read-only home: caching is an optimisation only
    return mat


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


def _line_stats(card: Any) -> dict[str, float]:
    lengths = [x for line in persona_anchor_lines(card) for x in _sentence_lengths(line)]
    sd = float(np.std(lengths, ddof=1)) if len(lengths) > 2 else 5.0
    return {"script_mean_len": float(np.mean(lengths)) if lengths else float("nan"), "sd_len": max(sd, 1.0)}


def _cards() -> dict[str, Any]:
    return load_personas()


def _embedder(embedder: Any) -> Any:
    if embedder is not None:
        return embedder
    return select_embedder()


_ANCHOR_CACHE: dict[tuple[int, tuple[tuple[str, str], ...]], _Anchors] = {}


def _anchors(embedder: Any, cards: Mapping[str, Any]) -> _Anchors:
    key = (id(embedder), tuple(sorted((str(c), str(getattr(v, "content_hash", ""))) for c, v in cards.items())))
    if key not in _ANCHOR_CACHE:
        _ANCHOR_CACHE[key] = _Anchors(embedder, cards)
    return _ANCHOR_CACHE[key]



def _profile(anchors: _Anchors, code: str, turns: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    cols = ["seq", "turn_id", "anchor_sim", "anchor_centred", "best_other", "other_centred", "contrast",
            "session_sim"]
    if not turns or code not in anchors.raw:
        return pd.DataFrame(columns=cols)
    texts = [_STAGE.sub(" ", t["text_masked"]).strip() for t in turns]
    raw = anchors.encode(texts)
    raw = raw / np.where(np.linalg.norm(raw, axis=1, keepdims=True) == 0, 1,
                         np.linalg.norm(raw, axis=1, keepdims=True))
    cen = anchors.centre(raw)
    others = [c for c in anchors.centred if c != code]
    rows = []
    for i, t in enumerate(turns):
        own = float(cen[i] @ anchors.centred[code])
        if others:
            sims = {c: float(cen[i] @ anchors.centred[c]) for c in others}
            best = max(sims, key=lambda c: sims[c])
            other = sims[best]
        else:
            best, other = None, float("nan")
        session_sim = float("nan")
        if i >= _SESSION_MIN:
            session_sim = float(cen[i] @ _unit(cen[:i].mean(axis=0)))
        rows.append({"seq": int(t["seq"]), "turn_id": t["turn_id"], "anchor_sim": float(raw[i] @ anchors.raw[code]),
                     "anchor_centred": own, "best_other": best, "other_centred": other,
                     "contrast": other - own, "session_sim": session_sim})
    return pd.DataFrame(rows, columns=cols)



Anchors = _Anchors
anchors_for = _anchors
cache_dir = _cache_dir
profile = _profile
