"""Hybrid retrieval under the per-role policies of seed 004 §4.3, and episodic recall.

One physical ``kb.chunk`` table, three policies. A policy is the 4-tuple
(pre-filter, recall weights, rerank goal, injection form):

========== ===================================== ================ ==========================
role       pre-filter (inside the SQL)           dense / sparse   injection
========== ===================================== ================ ==========================
client     kinds diagnostic|theory|technique,     0.7 / 0.3        behavioural-cue summary,
           'client' in visible_to, sens ≤ 1                        never the body
counselor  kinds theory|technique|ko_context|     0.5 / 0.5        body + examples
           template, 'counselor' in visible_to,
           sens = 0 (never diagnostic)
evaluator  all kinds, 'evaluator' in visible_to,  0.4 / 0.6        body + label
           sens ≤ 2
========== ===================================== ================ ==========================

The filter is in the WHERE clause of every query on both backends, and every query runs
under ``db.ai_view(role)`` so PostgreSQL row-level security enforces it a second time.
Dense: DuckDB exact ``array_cosine_similarity`` on ``FLOAT[dim]``; Postgres pgvector
``<=>`` through the HNSW index (``SET LOCAL hnsw.ef_search``). Sparse: BM25-style scoring
of the stored term weights over the policy-filtered rows (DuckDB has no FTS offline).
Both lists are fused with reciprocal-rank fusion (weighted by the policy) or a weighted
sum of normalised scores. Every search writes one ``kb.retrieval_log`` row.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Sequence

import numpy as np

from vignette_lab.core.pii import gate_text
from vignette_lab.errors import ConfigError, InputError
from vignette_lab.kb.embedders import Embedder, select_embedder
from vignette_lab.kb.packs import KB_KINDS
from vignette_lab.store import app_repo, kb_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "POLICIES",
    "Hit",
    "RecalledTurn",
    "RetrievalPolicy",
    "client_cue_summary",
    "index_turns",
    "recall_turns",
    "search",
]

Role = Literal["client", "counselor", "evaluator"]
CANDIDATES = 50           # per list, before fusion (seed 004 §4.3: top-50)
RRF_K = 60
HNSW_EF_SEARCH = 100      # ≥ CANDIDATES so the index can return them all


@dataclass(frozen=True)
class RetrievalPolicy:
    """Seed 004 §4.3 retrieval policy for one AI role."""

    role: str
    kinds: tuple[str, ...]
    sensitivity_max: int
    w_dense: float
    w_sparse: float
    injection: str
    rerank_goal: str
    blocked: str


POLICIES: dict[str, RetrievalPolicy] = {
    "client": RetrievalPolicy(
        role="client", kinds=("diagnostic", "theory", "technique"), sensitivity_max=1,
        w_dense=0.7, w_sparse=0.3, injection="cue_summary", rerank_goal="symptom meaning",
        blocked="sensitivity>=2, other personas' CCD"),
    "counselor": RetrievalPolicy(
        role="counselor", kinds=("theory", "technique", "ko_context", "template"), sensitivity_max=0,
        w_dense=0.5, w_sparse=0.5, injection="body_with_examples", rerank_goal="technique names",
        blocked="diagnostic (DSM), evaluator answers"),
    "evaluator": RetrievalPolicy(
        role="evaluator", kinds=KB_KINDS, sensitivity_max=2,
        w_dense=0.4, w_sparse=0.6, injection="body_with_label", rerank_goal="label names and commentary",
        blocked="nothing (responses to learners are filtered downstream)"),
}


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk."""

    chunk_id: str
    source_id: str
    kb_kind: str
    sensitivity: int
    score: float
    text: str
    heading_path: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RecalledTurn:
    """One recalled utterance of the same (persona, learner) case."""

    turn_id: str
    session_id: str
    seq: int
    speaker: str | None
    text: str
    score: float

    @property
    def text_masked(self) -> str:
        """Alias of ``text`` (it is always the masked text)."""
        return self.text


# --------------------------------------------------------------------------- scoring
def sparse_scores(query: Mapping[str, float], docs: Sequence[Mapping[str, float]], *,
                  k1: float = 1.2, b: float = 0.75, n_total: int | None = None) -> np.ndarray:
    """BM25-style scores of ``docs`` (term → log-tf weight) for ``query``.

    IDF is computed over the policy-filtered set (``n_total`` rows, of which ``docs`` are
    the ones sharing a query term; ``len(docs)`` when None), so a term that every visible
    chunk shares carries little weight.
    """
    out = np.zeros(len(docs), dtype=np.float64)
    n = max(int(n_total), len(docs)) if n_total is not None else len(docs)
    if not docs or not query:
        return out
    lengths = np.array([sum(d.values()) if d else 0.0 for d in docs], dtype=np.float64)
    avg = float(lengths.mean()) or 1.0
    for term, qw in query.items():
        idx = [i for i, d in enumerate(docs) if term in d]
        if not idx:
            continue
        df = len(idx)
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        for i in idx:
            tf = float(docs[i][term])
            out[i] += qw * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[i] / avg))
    return out


def fuse(dense: Mapping[str, float], sparse: Mapping[str, float], *, w_dense: float, w_sparse: float,
         fusion: str = "rrf") -> dict[str, float]:
    """Fuse two ``{id: score}`` candidate lists.

    ``rrf``: ``w_d / (60 + rank_d) + w_s / (60 + rank_s)`` (ranks from 1; absent → 0).
    ``weighted``: ``w_d · max(cos, 0) + w_s · s / max(s)``.
    """
    fused: dict[str, float] = {}
    if fusion == "rrf":
        for weight, scores in ((w_dense, dense), (w_sparse, sparse)):
            ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
            for rank, (cid, _) in enumerate(ranked, start=1):
                fused[cid] = fused.get(cid, 0.0) + weight / (RRF_K + rank)
    else:
        top = max(sparse.values(), default=0.0) or 1.0
        for cid, s in dense.items():
            fused[cid] = fused.get(cid, 0.0) + w_dense * max(float(s), 0.0)
        for cid, s in sparse.items():
            fused[cid] = fused.get(cid, 0.0) + w_sparse * float(s) / top
    return fused


def _as_json(value: Any) -> dict[str, float]:
    if value is None:
        return {}
    if isinstance(value, str):
        return json.loads(value)
    return dict(value)


def _validate(query: str, k: int, fusion: str) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InputError("query must be a non-empty string", field="query")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100:
        raise InputError(f"k must be an integer between 1 and 100. Got {k!r} instead.", field="k")
    if fusion not in ("rrf", "weighted"):
        raise InputError(f"fusion must be 'rrf' or 'weighted'. Got {fusion!r} instead.", field="fusion")


# --------------------------------------------------------------------------- KB search
def _check_embedder(db: Database, emb: Embedder) -> None:
    if not kb_repo.has_knowledge_base(db):
        raise ConfigError(f"{db.url.split('@')[-1]} has no knowledge base yet; run `vignette-lab kb sync` first")
    names = kb_repo.active_chunk_embedders(db)
    if names and emb.name not in names:
        raise ConfigError(f"the knowledge base was embedded with {', '.join(sorted(names))} but the query "
                          f"embedder is {emb.name}; run `vignette-lab kb sync --reindex`")


def search(db: Database, query: str, *, role: Role, k: int = 5, fusion: str = "rrf", external_engine: bool = False,
           session_id: str | None = None, embedder: Embedder | None = None,
           cache_query: bool = False) -> list[Hit]:
    """Hybrid dense + sparse search of the knowledge base under ``role``'s policy.

    Parameters
    ----------
    db : Database
    query : str
        Masked text (callers mask learner text before it reaches here).
    role : {'client', 'counselor', 'evaluator'}
        Selects the policy in :data:`POLICIES`.
    k : int, default=5
    fusion : {'rrf', 'weighted'}, default='rrf'
        Reciprocal-rank fusion (robust to score scales) or weighted normalised scores.
    external_engine : bool, default=False
        The hits will be sent to an external LLM: drop license C/D and
        ``external_llm_ok = false`` chunks inside the SQL.
    session_id : str, default=None
        Recorded in ``kb.retrieval_log``.
    embedder : Embedder, default=None
        :func:`select_embedder` when None; must be the one the KB was indexed with.
    cache_query : bool, default=False
        Take the query's vectors from the on-disk query cache
        (:func:`~vignette_lab.kb.index.encode_query_cached`). Only for queries without learner
        text (the client cue query).

    Returns
    -------
    list of Hit
        Best first; ``score`` is the fused score.

    Raises
    ------
    InputError
        Unknown role, empty query, bad ``k`` or ``fusion``.
    ConfigError
        The KB was indexed with another embedder.

    Examples
    --------
    >>> hits = search(db, "잠을 못 자요", role="client")          # doctest: +SKIP
    >>> {h.kb_kind for h in hits} <= {"diagnostic", "theory", "technique"}  # doctest: +SKIP
    True
    """
    if role not in POLICIES:
        raise InputError(f"role must be one of {', '.join(POLICIES)}. Got {role!r} instead.", field="role")
    _validate(query, k, fusion)
    policy = POLICIES[role]
    emb = embedder if embedder is not None else select_embedder()
    with db.pinned():
        return _search(db, query, policy=policy, role=role, k=k, fusion=fusion, external_engine=external_engine,
                       session_id=session_id, emb=emb, cache_query=cache_query)


def _search(db: Database, query: str, *, policy: RetrievalPolicy, role: Role, k: int, fusion: str, external_engine: bool,
            session_id: str | None, emb: Embedder, cache_query: bool = False) -> list[Hit]:
    t0 = time.perf_counter()
    _check_embedder(db, emb)
    if cache_query:
        from vignette_lab.kb.index import encode_query_cached

        q = encode_query_cached(emb, query)
    else:
        q = emb.encode([query], kind="query")
    q_dense, q_sparse = q.dense[0], (q.sparse[0] if q.sparse else {})

    scope: dict[str, Any] = {"kinds": policy.kinds, "sensitivity_max": policy.sensitivity_max, "external_only": external_engine}
    # The policy pre-filter and the view's visibility rule are in every query; on Postgres RLS checks again.
    with db.ai_view(role), db.transaction():
        dense_rows = kb_repo.nearest_chunks(db, q_dense, dim=emb.dim, limit=CANDIDATES, ef_search=HNSW_EF_SEARCH,
                                            **scope)
        sparse_rows = []
        if q_sparse:
            # only rows sharing a query term can score > 0; IDF still sees the whole filtered set size
            n_visible = kb_repo.visible_chunk_count(db, **scope)
            sparse_rows = kb_repo.term_matching_chunks(db, list(q_sparse), **scope)
        dense = {r["chunk_id"]: float(r["s_dense"]) for r in dense_rows}
        s = sparse_scores(q_sparse, [_as_json(r["sparse_vec"]) for r in sparse_rows],
                          n_total=n_visible if q_sparse else None)
        order = np.argsort(-s, kind="stable")[:CANDIDATES]
        sparse = {sparse_rows[i]["chunk_id"]: float(s[i]) for i in order if s[i] > 0}
        fused = fuse(dense, sparse, w_dense=policy.w_dense, w_sparse=policy.w_sparse, fusion=fusion)
        top = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        details = kb_repo.chunk_details(db, [cid for cid, _ in top], **scope)
    hits = [Hit(chunk_id=cid, source_id=details[cid]["source_id"], kb_kind=details[cid]["kb_kind"],
                sensitivity=int(details[cid]["sensitivity"]), score=round(score, 6),
                text=details[cid]["chunk_text"], heading_path=details[cid]["heading_path"])
            for cid, score in top if cid in details]
    latency_ms = (time.perf_counter() - t0) * 1000.0
    _log_retrieval(db, role=role, policy=policy, query=query, hits=hits, latency_ms=latency_ms,
                   fusion=fusion, external_engine=external_engine, session_id=session_id, embedder=emb.name)
    return hits


def _log_retrieval(db: Database, *, role: str, policy: RetrievalPolicy, query: str, hits: list[Hit], latency_ms: float,
                   fusion: str, external_engine: bool, session_id: str | None, embedder: str) -> None:
    # The query itself is not stored (it may quote a learner); its hash links repeated queries.
    kb_repo.insert_retrieval_log(
        db, log_id=str(uuid.uuid4()), role=role, session_id=session_id,
        query_sha256=hashlib.sha256(query.encode("utf-8")).hexdigest(),
        policy={"kinds": list(policy.kinds), "sensitivity_max": policy.sensitivity_max,
                "w_dense": policy.w_dense, "w_sparse": policy.w_sparse, "injection": policy.injection},
        fusion=fusion, external_engine=external_engine, embedder=embedder, hit_ids=[h.chunk_id for h in hits],
        scores=[h.score for h in hits], latency_ms=latency_ms, now=datetime.now(timezone.utc))


# --------------------------------------------------------------------------- client injection
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# Words that would name a diagnosis or the source instead of describing behaviour.
_LABEL_WORDS = re.compile(r"DSM|진단|장애|차원|증상|평가 AI|내담자 AI|수준에서는|정도에 따른")
# Scripted example dialogue and definitions are not behaviour a client shows.
_NOT_A_CUE = re.compile(r":|예시|코드 |기법|기술이다|정의")
_MAX_CUE_CHARS = 90


def client_cue_summary(hits: Iterable[Hit], *, max_lines: int = 4) -> list[str]:
    """Short behavioural-cue lines for the client AI (seed 004 §4.2: never the body).

    Each behavioural-cue hit (kind ``diagnostic``) contributes at most one sentence that
    describes observable behaviour; theory/technique hits contribute nothing (they describe
    counselling, not this client). Sentences that name a diagnosis, a dimension or the
    evaluator, example dialogue and definitions are dropped, and headings/source ids are
    never used (they could name the diagnosis).

    Parameters
    ----------
    hits : iterable of Hit
        Hits from ``search(..., role="client")``.
    max_lines : int, default=4

    Returns
    -------
    list of str
        Lines such as ``"- 말수가 줄고 대답이 짧아진다."``.

    Raises
    ------
    InputError
        A hit outside the client policy (sensitivity > 1 or a kind the client may not see)
        was passed — a caller bug that must not become a leak.
    """
    policy = POLICIES["client"]
    lines: list[str] = []
    seen: set[str] = set()
    hits = list(hits)
    for hit in hits:
        if hit.sensitivity > policy.sensitivity_max or hit.kb_kind not in policy.kinds:
            raise InputError(f"chunk {hit.chunk_id} ({hit.kb_kind}, sensitivity {hit.sensitivity}) is outside the "
                             "client policy and cannot be summarised for the client AI", field="hits")
    # Only the behavioural-cue chunks (kind diagnostic) yield lines: theory/technique text is
    # about counselling, not about how this client behaves, so it is not injected at all.
    for hit in (h for h in hits if h.kb_kind == "diagnostic"):
        for sentence in _SENTENCE.split(hit.text):
            sentence = sentence.strip()
            if len(sentence) < 8 or _LABEL_WORDS.search(sentence) or _NOT_A_CUE.search(sentence):
                continue
            if len(sentence) > _MAX_CUE_CHARS:
                cut = sentence[:_MAX_CUE_CHARS]
                sentence = cut[:cut.rfind(" ")] + "…" if " " in cut else cut + "…"
            if sentence not in seen:
                seen.add(sentence)
                lines.append(f"- {sentence}")
            break
        if len(lines) >= max_lines:
            break
    return lines


# --------------------------------------------------------------------------- episodic memory
def _turn_field(turn: Any, name: str, default: Any = None) -> Any:
    if isinstance(turn, Mapping):
        return turn.get(name, default)
    return getattr(turn, name, default)


def _session_turns(db: Database, session_id: str) -> tuple[list[dict], str, str]:
    """Masked, client-visible client utterances of a stored session plus its case scope."""
    row = app_repo.session_case_scope(db, session_id)
    if row is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    return app_repo.client_visible_client_turns(db, session_id), row["case_id"], row["learner_id"]


def _learner_of_case(db: Database, case_id: str) -> str:
    """A case belongs to exactly one learner (UNIQUE(persona_code, learner_id) in app.case_profile)."""
    learner = app_repo.learner_of_case(db, case_id)
    if not learner:
        raise InputError(f"case {case_id!r} has no case_profile, so its learner is unknown; pass learner_id",
                         field="learner_id")
    return str(learner)


def index_turns(db: Database, turns: Iterable[Any] | None = None, *, case_id: str | None = None,
                learner_id: str | None = None, embedder: Embedder, session_id: str | None = None) -> int:
    """Embed masked turns of one (persona, learner) case into ``app.turn_embedding``.

    Parameters
    ----------
    db : Database
    turns : iterable of mapping or object, default=None
        Each with ``turn_id``, ``session_id``, ``seq``, ``text_masked`` and optionally
        ``speaker``. Only masked text is accepted (seed 001 §9: PII is masked before storage).
    case_id, learner_id : str
        The case scope; recall can only return turns with both.
    embedder : Embedder
    session_id : str, default=None
        Instead of ``turns``: index the stored session's masked, client-visible client
        utterances (seed 001 §2.7, after the session end is saved); the case scope is read
        from ``app.sessions``.

    Returns
    -------
    int
        Turns newly written (already indexed turn ids are skipped: idempotent).

    Raises
    ------
    InputError
        A turn without ``turn_id``/``session_id``/``seq`` or without ``text_masked``.
    """
    if session_id is not None:
        if turns is not None:
            raise InputError("pass either turns or session_id, not both", field="session_id")
        turns, case_id, learner_id = _session_turns(db, session_id)
    if turns is None:
        raise InputError("index_turns needs turns or session_id", field="turns")
    if not case_id or not learner_id:
        raise InputError("case_id and learner_id are required for episodic indexing", field="case_id")
    items = list(turns)
    rows = []
    for i, turn in enumerate(items):
        text = _turn_field(turn, "text_masked")
        for name in ("turn_id", "session_id", "seq"):
            if _turn_field(turn, name) in (None, ""):
                raise InputError(f"turn {i} has no {name}", field=name)
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"turn {i} has no text_masked (raw text is never indexed)", field="text_masked")
        rows.append((str(_turn_field(turn, "turn_id")), str(_turn_field(turn, "session_id")),
                     int(_turn_field(turn, "seq")), _turn_field(turn, "speaker"), gate_text(text)))
    if not rows:
        return 0
    ids = [r[0] for r in rows]
    existing = app_repo.indexed_turn_ids(db, ids)
    rows = [r for r in rows if r[0] not in existing]
    if not rows:
        return 0
    batch = embedder.encode([r[4] for r in rows], kind="passage")
    if batch.dense.shape[1] != embedder.dim:
        raise ConfigError(f"embedder {embedder.name} returned {batch.dense.shape[1]}-d vectors, declared {embedder.dim}")
    now = datetime.now(timezone.utc)
    return app_repo.insert_turn_embeddings(db, [
        {"turn_id": tid, "case_id": case_id, "learner_id": learner_id, "session_id": sid, "seq": seq,
         "speaker": speaker, "text_masked": text, "dense": batch.dense[i],
         "sparse": batch.sparse[i] if i < len(batch.sparse) else {}, "embedder": embedder.name, "created_at": now}
        for i, (tid, sid, seq, speaker, text) in enumerate(rows)])


def recall_turns(db: Database, query: str, *, case_id: str, learner_id: str | None = None, k: int = 5,
                 embedder: Embedder | None = None, speaker: str | None = None) -> list[RecalledTurn]:
    """Recall past utterances of one (persona, learner) case, hybrid dense + sparse (RRF).

    Both ``case_id`` and ``learner_id`` are in the WHERE clause of every query, so another
    learner's turns can never come back, even for the same persona (seed 004 §4.4 T4).

    Parameters
    ----------
    db : Database
    query : str
    case_id : str
    learner_id : str, default=None
        When None it is read from ``app.case_profile`` (a case has exactly one learner);
        either way both are in the WHERE clause.
    k : int, default=5
    embedder : Embedder, default=None
    speaker : {'client', 'counselor'}, default=None
        Restrict to one speaker.

    Returns
    -------
    list of RecalledTurn
        Best first.
    """
    _validate(query, k, "rrf")
    if not case_id:
        raise InputError("case_id is required for recall", field="case_id")
    if learner_id is None:
        learner_id = _learner_of_case(db, case_id)
    if not learner_id:
        raise InputError("learner_id must be a non-empty id", field="learner_id")
    emb = embedder if embedder is not None else select_embedder()
    q = emb.encode([query], kind="query")
    scope: dict[str, Any] = {"case_id": case_id, "learner_id": learner_id, "embedder": emb.name, "speaker": speaker}
    with db.transaction():
        dense_rows = app_repo.nearest_case_turns(db, q.dense[0], dim=emb.dim, limit=CANDIDATES,
                                                 ef_search=HNSW_EF_SEARCH, **scope)
        rows = app_repo.case_turn_embeddings(db, **scope)
    # a case holds at most a few hundred turns: score sparse over all of them
    s = sparse_scores(q.sparse[0] if q.sparse else {}, [_as_json(r["sparse"]) for r in rows])
    sparse = {rows[i]["turn_id"]: float(s[i]) for i in np.argsort(-s, kind="stable")[:CANDIDATES] if s[i] > 0}
    fused = fuse({r["turn_id"]: float(r["s_dense"]) for r in dense_rows}, sparse, w_dense=0.7, w_sparse=0.3)
    by_id = {r["turn_id"]: r for r in rows}
    top = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return [RecalledTurn(turn_id=tid, session_id=by_id[tid]["session_id"], seq=int(by_id[tid]["seq"]),
                         speaker=by_id[tid]["speaker"], text=by_id[tid]["text_masked"], score=round(score, 6))
            for tid, score in top if tid in by_id]
