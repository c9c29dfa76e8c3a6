"""Round 1: AI auto-annotation of a data set (every row ``proposed``).

Each item goes through :func:`vignette_lab.session.evaluator.evaluate_turn` — the same fast
evaluation a live session uses (masking, taxonomy parsing, failures contained) — and its
labels are written as :class:`~vignette_lab.pipeline.rounds.AIProposal` records, whose status
can only ever be ``proposed``.

The run is resumable: items that already have an annotation in the round are skipped, and
each item is written in its own transaction, so an interrupted run loses at most the item
in hand. With the Anthropic engine, ``batch=True`` sends the whole round through the Message
Batches API (half the price, no rate-limit loop) and writes the results when it ends.
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator

from vignette_lab.errors import ConfigError, EngineError, InputError
from vignette_lab.pipeline.datasets import dataset_items
from vignette_lab.pipeline.rounds import AIProposal, _held, get_round, taxonomy_labels, write_annotation
from vignette_lab.store import ds_repo
from vignette_lab.config import Settings
from vignette_lab.engines import select_engine
from vignette_lab.engines.base import Engine, GenerateRequest, StreamEvent
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session.evaluator import evaluate_turn, kb_passages

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

log = logging.getLogger(__name__)

__all__ = ["annotator_id_for", "auto_annotate", "resolve_engine"]


def resolve_engine(engine: str | Engine | None, *, seed: int = 0) -> Engine:
    """Turn an engine spec into an engine object.

    Parameters
    ----------
    engine : str or Engine or None
        ``"scripted"`` (offline rule-based evaluator), ``"anthropic"`` (needs
        ``ANTHROPIC_API_KEY``), ``"classifier:<path>"`` (a saved
        :class:`~vignette_lab.pipeline.classifier.Tagger`), an engine object, or ``None``
        for the configured default (``select_engine``).
    seed : int, default=0
    """
    if engine is None:

        return select_engine(Settings())
    if not isinstance(engine, str):
        if not callable(getattr(engine, "generate", None)):
            raise ConfigError(f"engine object {engine!r} has no generate(request) method")
        return engine
    if engine == "scripted":

        return ScriptedEngine(seed=seed)
    if engine == "anthropic":
        from vignette_lab.engines.anthropic_engine import AnthropicEngine

        return AnthropicEngine()
    if engine.startswith("classifier:"):
        from vignette_lab.pipeline.classifier import Tagger

        return Tagger.load(engine.split(":", 1)[1])
    raise ConfigError(f"engine must be 'scripted', 'anthropic' or 'classifier:<path>'; got {engine!r}")


def annotator_id_for(engine: Engine) -> str:
    """Stable annotator id of an AI engine: ``ai:<name>[:<model>]``."""
    name = str(getattr(engine, "name", type(engine).__name__))
    model = getattr(engine, "model", None)
    return f"ai:{name}:{model}" if isinstance(model, str) and model and model != name else f"ai:{name}"


def _fields(item: dict[str, Any]) -> dict[str, Any]:
    # The evaluator must not see intended_technique: it is the ground truth annotators are
    # scored against.
    fields = {"learner_text_masked": item["counselor_text"], "session_id": item["session_id"],
              "persona_code": item.get("persona_code"),
              "history": [(c["speaker"], c["text"]) for c in item["context"]]}
    if item.get("stage"):
        fields["stage"] = item["stage"]
    return fields


_LOCAL = ("scripted", "local-classifier")


def _kb_fn(db: Database, eng: Any, kb: Any, embedder: Any) -> Callable[[str], tuple[str, ...]] | None:
    """KB passages per item like the live path (evaluator policy), or None.

    ``kb`` may be a callable ``query -> passages`` (tests, custom retrieval), False (off) or
    "auto": the configured embedder for engines that read prompts (not the scripted
    evaluator or the local tagger, which ignore KB text).
    """
    if kb is False or kb is None:
        return None
    if callable(kb):
        return lambda q: tuple(kb(q))
    if str(getattr(eng, "name", "")) in _LOCAL and embedder is None:
        return None
    if embedder is None:
        try:
            from vignette_lab.config import Settings
            from vignette_lab.kb.embedders import select_embedder
            embedder = select_embedder(Settings())
        except Exception as exc:  # noqa: BLE001 — no embedder: no KB context, like the live path
            log.warning("no embedder for the AI round's KB context: %s", exc)
            return None
    return lambda q: kb_passages(db, q, engine=eng, embedder=embedder)


def _pending(db: Database, round_id: str) -> tuple[list[dict[str, Any]], int]:
    rnd = get_round(db, round_id)
    if rnd["kind"] != "ai_auto":
        raise InputError(f"round {round_id} is a {rnd['kind']} round; auto-annotation needs ai_auto",
                         field="round_id")
    if rnd["status"] == "closed":
        raise InputError(f"round {round_id} is closed; open a new round to annotate again",
                         field="round_id")
    items = dataset_items(db, rnd["dataset_id"])
    done = ds_repo.annotated_item_ids(db, round_id)
    return [it for it in items if it["item_id"] not in done], len(items)


def proposal_record(round_id: str, item_id: str, annotator: str, ev: Any) -> AIProposal:
    """The :class:`AIProposal` of one evaluator result (pure; default-scheme labels)."""
    deviation = list(ev.intent_deviation)
    return AIProposal(round_id=round_id, item_id=item_id, annotator_id=annotator,
                      labels=taxonomy_labels(techniques=ev.techniques, client_state=ev.client_state,
                                             appropriateness=ev.appropriateness, scores=ev.scores),
                      rationale=ev.rationale or None,
                      intent_deviation={"items": deviation} if deviation else None)


def _write(db: Database, round_id: str, item_id: str, annotator: str, ev: Any) -> None:
    with db.transaction():
        write_annotation(db, proposal_record(round_id, item_id, annotator, ev))


class _Capture:
    """Engine stand-in that records the request evaluate_turn builds, then stops it."""

    def __init__(self, name: str):
        self.name = name
        self.request = None

    def generate(self, request: Any) -> Any:
        self.request = request
        raise EngineError("captured for batch submission", code="captured")

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        yield StreamEvent("done", response=self.generate(request))


class _Replay:
    """Engine stand-in that hands evaluate_turn a response the batch already produced."""

    def __init__(self, name: str, response: Any):
        self.name = name
        self.response = response

    def generate(self, request: Any) -> Any:
        if isinstance(self.response, Exception):
            raise self.response
        return self.response

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        yield StreamEvent("done", response=self.generate(request))


def auto_annotate(db: Database, round_id: str, *, engine: str | Engine | None = None, batch: bool = False,
                  progress: bool = True, max_items: int | None = None, seed: int = 0,
                  poll_interval_s: float = 10.0,
                  on_item: Callable[[str], None] | None = None,
                  kb: Any = "auto", embedder: Any = None) -> dict[str, Any]:
    """Label every not-yet-annotated item of an ``ai_auto`` round; rows are ``proposed``.

    Parameters
    ----------
    db : Database
    round_id : str
    engine : str or Engine or None, default=None
        See :func:`resolve_engine`; ``None`` uses the round's recorded engine, else the
        configured default.
    batch : bool, default=False
        Use the engine's Message Batches API (``submit_batch``/``poll_batch``/
        ``batch_results``, Anthropic only).
    progress : bool, default=True
        Show a tqdm bar.
    max_items : int, optional
        Stop after this many new annotations (chunked runs; the rest is resumable).
    seed : int, default=0
        Seed of the scripted engine.
    poll_interval_s : float, default=10.0
        Seconds between batch status polls.
    on_item : callable, optional
        Called with each item id after its annotation is committed.
    kb : "auto", callable or False, default="auto"
        KB context per item, as the live fast loop gets it (evaluator retrieval policy; C/D
        material dropped for external engines): "auto" retrieves with ``embedder`` (the
        configured one when None) for engines that read prompts; a callable maps the masked
        utterance to passages; False sends none.
    embedder : Embedder, optional

    Returns
    -------
    dict
        ``{"round_id", "annotator_id", "total", "written", "skipped", "failed", "errors"}``;
        ``errors`` maps item id to the evaluator's error (those items stay pending).
    """
    rnd = get_round(db, round_id)
    eng = resolve_engine(engine if engine is not None else rnd.get("engine"), seed=seed)
    annotator = annotator_id_for(eng)
    pending, total = _pending(db, round_id)
    skipped = total - len(pending)  # already annotated in this round (resume)
    if max_items is not None:
        pending = pending[:max_items]

    errors: dict[str, str] = {}
    written = 0
    kb_of = _kb_fn(db, eng, kb, embedder)

    def passages(item: dict[str, Any]) -> tuple[str, ...]:
        return kb_of(item["counselor_text"]) if kb_of is not None else ()

    if batch:
        responses = _run_batch(eng, pending, poll_interval_s=poll_interval_s, passages=passages)
    with _held(db):
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(pending), desc="auto-annotate", unit="item")
        try:
            for item in pending:
                runner = _Replay(annotator, responses[item["item_id"]]) if batch else eng
                ev = evaluate_turn(_fields(item), item.get("client_reply") or "", runner,
                                   kb_context=passages(item))
                if ev.ok:
                    _write(db, round_id, item["item_id"], annotator, ev)
                    written += 1
                    if on_item is not None:
                        on_item(item["item_id"])
                else:
                    errors[item["item_id"]] = ev.error or "unknown error"
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
    return {"round_id": round_id, "annotator_id": annotator, "total": total, "written": written,
            "skipped": skipped, "failed": len(errors), "errors": errors}


_CUSTOM_ID_BAD = re.compile(r"[^A-Za-z0-9_-]")


def _run_batch(eng: Any, pending: list[dict[str, Any]], *, poll_interval_s: float,
               passages: Callable[[dict[str, Any]], tuple[str, ...]] = lambda item: ()) -> dict[str, Any]:
    for method in ("submit_batch", "poll_batch", "batch_results"):
        if not callable(getattr(eng, method, None)):
            raise ConfigError(f"engine {getattr(eng, 'name', eng)!r} has no {method}(); "
                              "batch=True needs the Anthropic engine")

    requests: dict[str, Any] = {}
    custom_of: dict[str, str] = {}
    for item in pending:
        cap = _Capture(getattr(eng, "name", "engine"))
        evaluate_turn(_fields(item), item.get("client_reply") or "", cap, kb_context=passages(item))
        if cap.request is None:
            raise EngineError(f"could not build the evaluation request for item {item['item_id']}")
        cid = _CUSTOM_ID_BAD.sub("-", item["item_id"])[:64]
        requests[cid] = cap.request
        custom_of[item["item_id"]] = cid
    if not requests:
        return {}
    batch_id = eng.submit_batch(requests)
    while not eng.poll_batch(batch_id)["ended"]:
        time.sleep(poll_interval_s)
    results = eng.batch_results(batch_id)
    return {iid: results.get(cid, EngineError("missing from batch results", code="missing"))
            for iid, cid in custom_of.items()}
