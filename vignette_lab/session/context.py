"""What a session's prompts are built from: the pinned persona card, its client view and KB context.

* :func:`persona_card` / :func:`persona_for_row` — the approved catalog card (the version
  pinned at start for an existing session), else the bundled file;
* :func:`kb_context` — KB passages for the counselor and evaluator prompts (L2);
* :func:`kb_cues` — behavioural cue lines for the client prompt (never chunk bodies).

The knowledge base enriches a prompt and never breaks one: every retrieval failure yields no
context. SQL lives in :mod:`vignette_lab.store`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Sequence, cast

from vignette_lab.core.guardrails import mask_pii
from vignette_lab.errors import InputError, VignetteError
from vignette_lab.store import app_repo, catalog
from vignette_lab.core.personas import CLIENT_HIDDEN_FIELDS, load_personas
from vignette_lab.core.taxonomy import load_taxonomy
from vignette_lab.session.evaluator import technique_distribution

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine
    from vignette_lab.store.base import Database

__all__ = ["client_names", "client_view", "deep_query", "is_external", "kb_context", "kb_cues", "persona_card",
           "resolve_embedder",
           "persona_for_row"]

log = logging.getLogger("vignette_lab.session.service")

# Engines that run on this machine; any other name (unknown ones too) counts as external,
# so license C/D and external_llm_ok=false chunks are dropped from its prompts.
_LOCAL_ENGINES = frozenset({"scripted", "local-classifier"})
KB_CONTEXT_K = 3


def resolve_embedder(value: Any, settings: Any) -> Any:
    """The embedder a service uses: ``"auto"`` → ``select_embedder(settings)`` (None when none can
    load, logged); an embedder object or None as given.

    Raises
    ------
    ValueError
        Any other string.
    """
    if not isinstance(value, str):
        return value
    if value != "auto":
        raise ValueError(f"SessionService: 'embedder' must be an Embedder, 'auto' or None. Got {value!r}.")
    # kb.embedders pulls numpy (and the model on first use): imported only when resolved
    from vignette_lab.kb.embedders import select_embedder

    try:
        return select_embedder(settings)
    except VignetteError as exc:
        log.warning("no embedder for KB cues and recall: %s", exc)
        return None


def persona_card(db: Database, code: str) -> tuple[dict[str, Any], str | None, int | None]:
    """(full card dict, persona_id, version) of the approved catalog card, else the bundled file.

    Raises
    ------
    InputError
        Unknown persona code.
    """
    row = catalog.get_persona_row(db, code)
    if row is not None:
        return dict(row["card"]), row["persona_id"], int(row["version"])
    cards = load_personas()
    if code not in cards:
        raise InputError(f"unknown persona code {code!r} (known: {', '.join(sorted(cards))})", field="persona_code")
    card = cards[code]
    return card.to_dict(), None, int(card.version)


def persona_for_row(db: Database, row: dict[str, Any]) -> tuple[dict[str, Any], str | None, int | None]:
    """The card version pinned at start (later approvals never change an old session)."""

    if row.get("persona_id"):
        prow = app_repo.get_persona_card_by_id(db, row["persona_id"])
        if prow is not None:
            return dict(prow["card"]), prow["persona_id"], int(prow["version"])
    return persona_card(db, row["persona_code"])


def client_view(card: dict[str, Any]) -> dict[str, Any]:
    """The card without the fields a client prompt must never see (CCD, DSM)."""
    return {k: v for k, v in card.items() if k not in CLIENT_HIDDEN_FIELDS}


def client_names(card: dict[str, Any]) -> tuple[str, ...]:
    """The persona's display name and its bare form ("서연(고2)" → "서연") for role normalisation."""
    name = str(card.get("display_name") or "")
    base = name.split("(")[0].strip()
    return tuple(n for n in dict.fromkeys([name, base]) if n)


def is_external(engine: Engine) -> bool:
    """True unless ``engine`` runs locally (unknown engines count as external: the safe side)."""
    return str(getattr(engine, "name", "")) not in _LOCAL_ENGINES


def kb_context(db: Database, embedder: Any, role: str, query: str, *, engine: Engine,
               session_id: str | None = None) -> tuple[str, ...]:
    """Top KB passages for ``role`` as ``[source_id · kind · heading] body`` lines (one search).

    For the counselor and evaluator prompts (L2). ``query`` is masked text; ``kb.retrieval_log``
    keeps only its hash. Empty without an embedder, for a blank query, or when retrieval fails.
    ``engine`` is the one that will receive the prompt; unless it is local, the search drops
    license C/D and ``external_llm_ok = false`` chunks in SQL.
    """
    if role not in ("counselor", "evaluator"):
        raise ValueError(f"_kb_context serves the counselor and evaluator prompts, not {role!r}")
    if embedder is None or not (query or "").strip():
        return ()
    from vignette_lab.kb.retrieval import POLICIES, Role, search  # numpy + embedders: ~0.3 s, only with an embedder

    policy = POLICIES[role]
    try:
        # role was checked against POLICIES above
        hits = search(db, query, role=cast(Role, role), k=KB_CONTEXT_K, external_engine=is_external(engine),
                      session_id=session_id, embedder=embedder)
    except VignetteError as exc:  # e.g. the knowledge base is not indexed yet
        log.info("no KB context for the %s prompt: %s", role, exc)
        return ()
    except Exception as exc:  # noqa: BLE001 — retrieval is an enrichment and never breaks a turn
        log.warning("KB retrieval for the %s prompt failed: %s: %s", role, type(exc).__name__, exc)
        return ()
    lines = []
    for h in hits:
        # the SQL already applies the policy; re-checked so a regression cannot leak
        if h.sensitivity > policy.sensitivity_max or h.kb_kind not in policy.kinds:
            continue
        label = " · ".join(x for x in (h.source_id, h.kb_kind, h.heading_path) if x)
        lines.append(f"[{label}] {' '.join(h.text.split())}")
    return tuple(lines)


def kb_cues(db: Database, embedder: Any, card: dict[str, Any], stage: str, *, engine: Engine) -> list[str]:
    """Behavioural cue lines for L2 from the client KB policy (never chunk bodies).

    The query holds only what the client may know (stage + presenting complaint). Needs an
    embedder; without one (or without the kb module) the client simply gets no cues.
    """
    if embedder is None:
        return []
    from vignette_lab.kb.retrieval import client_cue_summary, search  # numpy: only with an embedder

    presenting = card.get("presenting") or {}
    query = mask_pii(f"{stage} {presenting.get('chief_complaint', '')}".strip()).text
    try:
        lines = client_cue_summary(search(db, query, role="client", k=5, embedder=embedder,
                                          external_engine=is_external(engine), cache_query=True))
        # layers.build_client_messages adds its own "- " bullet
        return [line.removeprefix("- ") for line in lines]
    except VignetteError:  # e.g. the knowledge base is not indexed yet: cues are an enrichment
        return []


def deep_query(evaluations: Sequence[Any], goal_stages: Sequence[str]) -> str:
    """Deep-loop KB query: the session's most used techniques (Korean labels) + improvement words."""

    counts = technique_distribution(evaluations)["counts"]
    top = sorted(counts, key=lambda c: (-counts[c], c))[:3]
    taxonomy = load_taxonomy()
    labels = []
    for code in top:
        try:
            labels.append(taxonomy.technique(code).label)
        except KeyError:
            labels.append(code)
    return " ".join([*labels, "기법 사용의 흔한 실수와 개선점, 더 나은 대안 발화", *goal_stages])
