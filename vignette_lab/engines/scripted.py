"""Scripted engine: the offline, deterministic default (DESIGN "Engines").

One engine plays three roles, dispatched on ``request.ai_role``:

* ``client`` — speaks Korean in the persona's voice, only from the card's ``script`` data
  (:mod:`vignette_lab.engines.scripted_client`);
* ``counselor`` — self-play counselor that picks a technique from a profile's stage weights
  and records the technique it *intended* (:mod:`vignette_lab.engines.scripted_counselor`);
* ``evaluator`` — rule-based fast loop, deep loop and coach cards
  (:mod:`vignette_lab.engines.scripted_evaluator`).

Determinism: every choice uses a ``random.Random`` seeded from
``sha256(seed, session_id, turn_seq, ai_role)``; no global random state, no clock.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from typing import Any, Iterator, Mapping

from vignette_lab.engines.base import GenerateRequest, GenerateResponse, StreamEvent, Usage
from vignette_lab.errors import EngineError
from vignette_lab.core.personas import load_personas
from vignette_lab.core.taxonomy import load_taxonomy
from vignette_lab.engines.scripted_client import client_reply, line_index
from vignette_lab.engines.scripted_counselor import counselor_utterance, load_contingent, load_counselor_data
from vignette_lab.engines.scripted_evaluator import evaluate

__all__ = ["ScriptedEngine", "chunk_text", "request_rng"]


def request_rng(seed: int, request: GenerateRequest, *, salt: str = "") -> random.Random:
    """A private RNG for one request: same seed + same session/turn/role → same draws.

    ``metadata["seed"]`` (a session's seed) overrides the engine seed when present.

    ``turn_seq`` comes from the request metadata; without it the number of user messages
    stands in, so a replayed conversation still reproduces.
    """
    turn = request.metadata.get("turn_seq")
    if turn is None:
        turn = sum(1 for m in request.messages if m.role == "user")
    # A session's own seed (self-play, replays) wins over the engine's default seed.
    session_seed = request.metadata.get("seed", seed)
    material = json.dumps([str(session_seed), request.session_id or "", str(turn), request.ai_role, salt],
                          ensure_ascii=False)
    digest = hashlib.sha256(material.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def chunk_text(text: str, rng: random.Random) -> list[str]:
    """Split ``text`` into 1–3 character pieces (a space starts a new piece), like tokens."""
    pieces: list[str] = []
    i = 0
    while i < len(text):
        size = rng.randint(1, 3)
        piece = text[i:i + size]
        # Keep a space at the start of a piece so words are not cut after the space.
        if " " in piece[1:]:
            piece = piece[:piece.index(" ", 1)]
        pieces.append(piece)
        i += len(piece)
    return pieces


class ScriptedEngine:
    """Deterministic offline engine for the client, counselor and evaluator roles.

    Parameters
    ----------
    seed : int, default=0
        Same seed + same request → same output.
    personas : dict, default=None
        ``{code: PersonaCard}``; loaded from ``datasets/personas`` on first use when None.
        Only the client-visible part of each card (no CCD, no DSM) is kept.
    taxonomy : Taxonomy, default=None
        Technique cues for classifying counselor moves; the bundled taxonomy when None.
    counselor_banks, counselor_profiles : dict, default=None
        Self-play data; ``datasets/counselor_banks.json`` and ``counselor_profiles.json`` when None.

    Examples
    --------
    >>> from vignette_lab.engines.base import EngineMessage, GenerateRequest
    >>> engine = ScriptedEngine(seed=7)
    >>> req = GenerateRequest("client", (EngineMessage("user", "요즘 많이 힘드셨겠어요."),),
    ...                       session_id="s1", metadata={"persona_code": "P1", "turn_seq": 2,
    ...                                                  "stage": "라포", "effective_openness": 0.4})
    >>> engine.generate(req).text == ScriptedEngine(seed=7).generate(req).text
    True
    """

    name = "scripted"
    model = "scripted"

    def __init__(self, seed: int = 0, personas: Mapping[str, Any] | None = None, taxonomy: Any = None, *,
                 counselor_banks: Mapping[str, Any] | None = None,
                 counselor_profiles: Mapping[str, Any] | None = None):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise EngineError(f"ScriptedEngine seed must be an int. Got {seed!r} instead.", code="bad_request")
        self.seed = seed
        # Keep only client-visible views: the full cards (with CCD) are never stored here.
        self._views: dict[str, dict[str, Any]] | None = (
            None if personas is None else {str(k): _client_view(v) for k, v in personas.items()})
        self._taxonomy = taxonomy
        self._banks = counselor_banks
        self._profiles = counselor_profiles
        self._line_indexes: dict[str, dict[str, str]] = {}
        # The bundled contingent/crisis/closing templates go with the bundled banks only.
        self._bundled_counselor_data = counselor_banks is None

    # ------------------------------------------------------------------ lazy data
    @property
    def taxonomy(self) -> Any:
        if self._taxonomy is None:

            self._taxonomy = load_taxonomy()
        return self._taxonomy

    def persona_view(self, code: str) -> dict[str, Any]:
        """Client-visible card data for ``code`` (raises ``EngineError`` when unknown)."""
        if self._views is None:

            self._views = {str(k): _client_view(v) for k, v in load_personas().items()}
        if code not in self._views:
            raise EngineError(f"unknown persona_code {code!r} (known: {', '.join(sorted(self._views))})",
                              code="bad_request")
        return self._views[code]

    def line_index(self, code: str) -> dict[str, str]:
        """``{line_id: line}`` of a persona's script, built once per persona."""
        index = self._line_indexes.get(code)
        if index is None:

            index = self._line_indexes[code] = line_index(self.persona_view(code)["script"])
        return index

    def counselor_extra(self) -> Mapping[str, Any]:
        """``contingent``/``crisis``/``closing`` templates (empty when custom banks were given)."""
        if not self._bundled_counselor_data:
            return {"contingent": {}, "crisis": {}, "closing": []}

        return load_contingent()

    def counselor_data(self) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
        if self._banks is None or self._profiles is None:

            banks, profiles = load_counselor_data()
            self._banks = self._banks if self._banks is not None else banks
            self._profiles = self._profiles if self._profiles is not None else profiles
        return self._banks, self._profiles

    # ------------------------------------------------------------------ Engine protocol
    def generate(self, request: GenerateRequest) -> GenerateResponse:
        """Answer one request in the role it names; unknown role → ``EngineError``."""
        started = time.perf_counter()
        rng = request_rng(self.seed, request)
        if request.ai_role == "client":

            text, structured, meta = client_reply(self, request, rng)
        elif request.ai_role == "counselor":

            text, structured, meta = counselor_utterance(self, request, rng)
        elif request.ai_role == "evaluator":

            text, structured, meta = evaluate(self, request)
        else:
            raise EngineError(f"ScriptedEngine cannot play ai_role {request.ai_role!r} "
                              "(expected client, counselor or evaluator)", code="bad_request")
        return GenerateResponse(
            text=text, structured=structured, provider="scripted", model="scripted",
            usage=Usage(), latency_ms=(time.perf_counter() - started) * 1000.0,
            cost_usd=0.0, metadata={"seed": self.seed, **meta})

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        """The reply as 1–3 character ``token`` events, then ``done`` (or one ``error``)."""
        try:
            response = self.generate(request)
        except EngineError as exc:
            yield StreamEvent("error", reason=exc.code)
            return
        for piece in chunk_text(response.text, request_rng(self.seed, request, salt="stream")):
            yield StreamEvent("token", text=piece)
        yield StreamEvent("done", text=response.text, response=response)


def _client_view(card: Any) -> dict[str, Any]:
    """The parts of a card a client AI may use: never CCD or DSM (DESIGN rule 3)."""
    if hasattr(card, "client_visible_dict"):
        data = card.client_visible_dict()
    elif isinstance(card, Mapping):
        data = json.loads(json.dumps(dict(card), ensure_ascii=False, default=_thaw))
    else:
        raise EngineError(f"persona card of type {type(card).__name__} is not supported", code="bad_request")
    for hidden in ("ccd", "dsm5_dimensional"):
        data.pop(hidden, None)
    if not isinstance(data.get("script"), Mapping):
        raise EngineError(f"persona {data.get('code')!r} has no script section", code="bad_request")
    return data


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(type(value).__name__)
