"""Which card fact a counselor question asks for, learned from a topic-tagged question bank.

The regular expressions of :mod:`vignette_lab.engines.client_reading` were fitted to the phrasing
of the probes they were tuned on and missed a third of an independent author's questions. This
reader generalises instead: a counselor turn is compared with every question of
``datasets/client_questions/bank.jsonl`` (each tagged with a ``script.facts`` key, or ``none``
for talk that asks for no fact) through

* kiwipiepy morphemes (content words and the question's predicate, endings dropped, so
  "살아여" / "사세요" / "살아?" meet in "살"), and
* character n-grams of the text with its spaces removed (so "몇학년" meets "몇 학년" and a
  one-letter typo keeps most of its grams),

both read from the text as :func:`~vignette_lab.engines.client_reading.standardise` spells it (chat
shorthand, 급식체 and dialect endings made standard, laughter marks dropped),

weighted by TF-IDF (sublinear tf, smooth idf); the key of the nearest bank question
by cosine similarity is the reading. The index of the default bank is built from the bank once
(760 kiwipiepy analyses, 0.4–1.3 CPU s here) and kept on disk (:func:`index_cache_dir`, an ``.npz``
named by a hash of the bank rows, this module's and :mod:`vignette_lab.core.morph`'s source, the
kiwipiepy version and :data:`CACHE_FORMAT`), so later processes — every one-shot ``session send`` —
load it in milliseconds; a reading costs about a tenth of a millisecond.

:func:`predict_fact` returns ``(key, similarity)``; :mod:`client_reading` decides how to use it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["CACHE_FORMAT", "CACHE_KEEP", "FactReader", "bank_path", "default_reader", "index_cache_dir", "load_bank",
           "predict_fact", "predict_support", "use_reader"]

log = logging.getLogger(__name__)

#: version of the on-disk index layout (:meth:`FactReader.cached`); bump it when the arrays change
CACHE_FORMAT = 1
#: cached indexes kept in the folder; older ones (other code or bank versions) are removed
CACHE_KEEP = 8

# k nearest bank questions vote, each with similarity ** KNN_POWER (a high power keeps a near
# paraphrase decisive; chosen on dev_r1 + dev_r2 with each left out of the bank in turn).
KNN_K = 5
KNN_POWER = 3.0

_MORPH_TAGS = ("NNG", "NNP", "NNB", "NR", "NP", "VV", "VA", "VX", "MM", "MAG", "XR", "XSN", "VCP", "VCN")


def bank_path() -> Path:
    """The default bank, ``datasets/client_questions/bank.jsonl``."""
    from vignette_lab.core.taxonomy import datasets_dir

    return datasets_dir() / "client_questions" / "bank.jsonl"


def load_bank(path: Path | None = None, *, exclude_sources: Iterable[str] = ()) -> list[tuple[str, str]]:
    """``(text, key)`` rows of the bank; rows whose ``src`` is in ``exclude_sources`` are left out.

    A malformed row stops with ``file:line: field`` (an :class:`InputError`), never a traceback.
    """
    from vignette_lab.errors import InputError

    path = Path(path) if path is not None else bank_path()
    skip = set(exclude_sources)
    out: list[tuple[str, str]] = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{no}: not JSON ({exc.msg})", field="line") from None
        for key in ("key", "text"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise InputError(f"{path}:{no}: field {key!r} missing or empty", field=key)
        if row.get("src") in skip:
            continue
        out.append((row["text"], row["key"]))
    return out


def _morph_tokens(text: str) -> list[str]:
    from vignette_lab.engines.client_reading import _morphs, standardise

    # bank rows and turns meet in standard spelling ("몇학년임ㅋㅋ" = "몇 학년이야")
    toks = [form for form, tag in _morphs(standardise(text)) if tag.startswith(_MORPH_TAGS)]
    return toks + [f"{a}_{b}" for a, b in zip(toks, toks[1:])]


def _char_grams(text: str) -> list[str]:
    """Character 1–3-grams of the standardised, lower-cased text with its spaces removed ("몇학년" = "몇 학년")."""
    from vignette_lab.engines.client_reading import standardise

    t = "".join(standardise(text or "").lower().split())
    return [t[i:i + n] for n in (1, 2, 3) for i in range(len(t) - n + 1)]


class FactReader:
    """Nearest bank question by TF-IDF cosine over morphemes and character n-grams.

    Parameters
    ----------
    rows : sequence of (text, key)
        Bank questions with their fact key (``none`` for talk).

    Notes
    -----
    A nearest-neighbour reader needs no training beyond the TF-IDF weights, and a new paraphrase
    is fixed by adding a line to the bank, not a regex. The weights are scikit-learn's
    ``TfidfVectorizer(sublinear_tf=True)`` formula computed with numpy alone (importing
    scikit-learn would add seconds to every CLI start); the bank is a dense float32
    feature × question matrix, so a reading is a few look-ups and one small product.
    """

    def __init__(self, rows: Sequence[tuple[str, str]]):
        import numpy as np

        if not rows:
            from vignette_lab.errors import InputError

            raise InputError("the question bank is empty", field="key")
        self._np = np
        self.texts = [t for t, _ in rows]
        self.keys = [k for _, k in rows]
        self._vocab: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self._build()

    @classmethod
    def cached(cls, rows: Sequence[tuple[str, str]], *, cache_dir: Path | None = None) -> "FactReader":
        """The reader of ``rows``, its index loaded from the disk cache when it is there.

        The first process builds the index (:meth:`__init__`) and writes it atomically to
        ``cache_dir`` (default :func:`index_cache_dir`); later ones load the same arrays, so every
        reading is identical to a fresh build's. A missing, unreadable or mismatching file means a
        rebuild; a cache folder that cannot be written is logged and ignored.

        Parameters
        ----------
        rows : sequence of (text, key)
            Bank questions with their fact key.
        cache_dir : Path, default=None
            Folder of the cached index; :func:`index_cache_dir` when None.

        Returns
        -------
        FactReader
        """
        import numpy as np

        rows = [(str(t), str(k)) for t, k in rows]
        path = Path(cache_dir or index_cache_dir()) / f"fact-reader-{_cache_key(rows)}.npz"
        try:
            with np.load(path, allow_pickle=False) as data:
                reader = cls.__new__(cls)
                reader._np = np
                reader.texts = [t for t, _ in rows]
                reader.keys = [k for _, k in rows]
                reader._from_arrays({name: data[name] for name in data.files})
                return reader
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError) as exc:  # a damaged or foreign file: rebuild it
            log.warning("fact reader cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
        reader = cls(rows)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                np.savez(fh, **reader._to_arrays())
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
            _prune(path.parent, keep=CACHE_KEEP)
        except OSError as exc:
            log.warning("fact reader cache not written to %s: %s", path, exc)
            with contextlib.suppress(OSError, UnboundLocalError):
                tmp.unlink()
        return reader

    def _to_arrays(self) -> dict:
        np = self._np
        feat, col = np.nonzero(self.matrix)
        morph, grams = (sorted(v, key=v.__getitem__) for v in self._vocab)
        return {"format": np.asarray([CACHE_FORMAT]), "shape": np.asarray(self.matrix.shape, dtype=np.int64),
                "feat": feat.astype(np.int32), "col": col.astype(np.int32), "val": self.matrix[feat, col],
                "idf": self._idf, "morph": np.asarray(morph, dtype=str), "grams": np.asarray(grams, dtype=str),
                "morph_index": np.asarray([self._vocab[0][t] for t in morph], dtype=np.int64),
                "grams_index": np.asarray([self._vocab[1][t] for t in grams], dtype=np.int64)}

    def _from_arrays(self, arrays: dict) -> None:
        np = self._np
        shape = tuple(int(x) for x in arrays["shape"])
        if int(arrays["format"][0]) != CACHE_FORMAT or shape[1] != len(self.keys):
            raise ValueError("cached index does not match this bank")
        matrix = np.zeros(shape, dtype=np.float32)
        matrix[arrays["feat"], arrays["col"]] = arrays["val"]
        self.matrix = matrix
        self._idf = np.asarray(arrays["idf"], dtype=np.float64)
        self._vocab = (dict(zip(arrays["morph"].tolist(), arrays["morph_index"].tolist())),
                       dict(zip(arrays["grams"].tolist(), arrays["grams_index"].tolist())))

    def _build(self) -> None:
        np = self._np
        docs = [(_morph_tokens(t), _char_grams(t)) for t in self.texts]
        self._vocab = ({}, {})
        df: list[int] = []
        for doc in docs:
            for half, toks in enumerate(doc):
                for tok in set(toks):
                    j = self._vocab[half].setdefault(tok, len(df))
                    if j == len(df):
                        df.append(0)
                    df[j] += 1
        n = len(docs)
        # Smooth idf as scikit-learn's TfidfVectorizer computes it: ln((1 + n) / (1 + df)) + 1.
        self._idf = np.log((1.0 + n) / (1.0 + np.asarray(df, dtype=np.float64))) + 1.0
        matrix = np.zeros((len(df), n), dtype=np.float32)  # features × bank questions
        for col, doc in enumerate(docs):
            vec = self._weights(doc)
            if vec is not None:
                matrix[vec[0], col] = vec[1]
        self.matrix = matrix

    def _weights(self, doc: tuple[list[str], list[str]]):
        """Feature indices and weights: sublinear tf × idf, each half L2-normalised, then both."""
        np = self._np
        cols_all, vals_all = [], []
        for half, toks in enumerate(doc):
            counts: dict[int, int] = {}
            for tok in toks:
                j = self._vocab[half].get(tok)
                if j is not None:
                    counts[j] = counts.get(j, 0) + 1
            if not counts:
                continue
            cols = np.fromiter(counts, dtype=np.int64, count=len(counts))
            vals = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)))) * self._idf[cols]
            cols_all.append(cols)
            vals_all.append(vals / np.linalg.norm(vals))
        if not cols_all:
            return None
        cols, vals = np.concatenate(cols_all), np.concatenate(vals_all)
        return cols, (vals / np.linalg.norm(vals)).astype(np.float32)

    def similarities(self, text: str):
        """Cosine similarity of ``text`` to every bank question (None when no feature is known)."""
        vec = self._weights((_morph_tokens(text), _char_grams(text)))
        if vec is None:
            return None
        return vec[1] @ self.matrix[vec[0]]

    def nearest(self, text: str) -> tuple[str, float, str]:
        """``(key, cosine, bank question)`` of the bank question nearest to ``text``."""
        sims = self.similarities(text)
        if sims is None:
            return "none", 0.0, ""
        i = int(sims.argmax())
        return self.keys[i], float(sims[i]), self.texts[i]

    def vote(self, text: str, *, k: int = KNN_K) -> tuple[str, float]:
        """:meth:`support` without the share."""
        key, sim, _ = self.support(text, k=k)
        return key, sim

    def support(self, text: str, *, k: int = KNN_K) -> tuple[str, float, float]:
        """The key the ``k`` nearest bank questions vote for, each weighted by its similarity.

        One near paraphrase still wins (its weight dominates), but when the nearest question is
        only a little closer than several of another key — a question that shares words with a
        bank line of the wrong fact — the majority of the neighbourhood decides. Returns the key,
        the similarity of its nearest question (so thresholds keep their meaning) and the key's
        share of the neighbourhood's votes (1.0: every neighbour agrees).
        """
        sims = self.similarities(text)
        if sims is None:
            return "none", 0.0, 0.0
        np = self._np
        k = min(k, len(self.keys))
        top = np.argpartition(-sims, k - 1)[:k] if k < len(self.keys) else np.arange(len(self.keys))
        score: dict[str, float] = {}
        best: dict[str, float] = {}
        for i in top:
            s = float(sims[i])
            if s <= 0.0:
                continue
            key = self.keys[int(i)]
            score[key] = score.get(key, 0.0) + s ** KNN_POWER
            best[key] = max(best.get(key, 0.0), s)
        if not score:
            return "none", 0.0, 0.0
        key = max(score, key=lambda x: (score[x], best[x]))
        return key, best[key], score[key] / sum(score.values())

    def predict(self, text: str) -> tuple[str, float]:
        """The key the nearest bank questions vote for (``none`` for talk) and the cosine similarity
        of that key's nearest question (:meth:`vote`)."""
        return self.vote(text)


_OVERRIDE: list[FactReader] = []


def _prune(folder: Path, *, keep: int) -> None:
    """Keep the ``keep`` most recently written indexes (every code or bank change writes a new one)."""
    files = sorted(folder.glob("fact-reader-*.npz"), key=lambda f: f.stat().st_mtime, reverse=True)
    for old in files[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()


def index_cache_dir() -> Path:
    """Where the default bank's index is cached (``$VIGNETTE_CACHE_DIR/engines``, default
    ``~/.cache/vignette-lab/engines``; the same root as the KB's embedding cache)."""
    return Path(os.environ.get("VIGNETTE_CACHE_DIR") or Path.home() / ".cache" / "vignette-lab") / "engines"


def _cache_key(rows: Sequence[tuple[str, str]]) -> str:
    """What the index depends on: the rows, the tokenising code and kiwipiepy's version and options."""
    from importlib.metadata import PackageNotFoundError, version

    from vignette_lab.core import morph

    try:
        kiwi_version = version("kiwipiepy")
    except PackageNotFoundError:
        kiwi_version = "none"
    h = hashlib.sha256(json.dumps([CACHE_FORMAT, rows, kiwi_version, repr(sorted(morph.KIWI_OPTIONS.items())),
                                   _MORPH_TAGS], ensure_ascii=False).encode())
    from vignette_lab.engines import client_reading  # its _morphs is the tokeniser

    for source in (__file__, morph.__file__, client_reading.__file__):
        h.update(Path(source).read_bytes())
    return h.hexdigest()[:24]


@functools.lru_cache(maxsize=1)
def _bank_reader() -> FactReader | None:
    path = bank_path()
    return FactReader.cached(load_bank(path)) if path.exists() else None


def default_reader() -> FactReader | None:
    """The reader in use: one set by :func:`use_reader`, else the one built from the default bank
    (None when the bank file is missing)."""
    return _OVERRIDE[-1] if _OVERRIDE else _bank_reader()


def use_reader(reader: FactReader | None) -> None:
    """Read with ``reader`` from now on (None: back to the default bank). For benches that leave a
    split out of the bank, and for tests."""
    _OVERRIDE.clear()
    if reader is not None:
        _OVERRIDE.append(reader)
    predict_support.cache_clear()


def predict_fact(text: str) -> tuple[str, float]:
    """``(key, cosine similarity)`` from the default reader; ``("none", 0.0)`` without a bank."""
    key, sim, _ = predict_support(text)
    return key, sim


@functools.lru_cache(maxsize=4096)
def predict_support(text: str) -> tuple[str, float, float]:
    """``(key, cosine similarity, share of the neighbours' votes)`` from the default reader
    (:meth:`FactReader.support`); ``("none", 0.0, 0.0)`` without a bank."""
    reader = default_reader()
    return ("none", 0.0, 0.0) if reader is None else reader.support(text)
