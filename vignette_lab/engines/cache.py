"""In-memory evaluator cache keyed by the canonical request hash (seed 001 §2.6).

Only ``key -> response`` is kept: no prompt text, so a cache dump reveals nothing a trainee
wrote. Failures (``EngineError`` or a response that fails ``validate``) are never stored.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Callable

from vignette_lab.engines.base import Engine, GenerateRequest, GenerateResponse
from vignette_lab.errors import ConfigError

__all__ = ["EvaluatorCache", "structured_ok"]


def structured_ok(response: GenerateResponse) -> bool:
    """Default validator: a structured request must have come back parsed."""
    return response.structured is not None and "structured_error" not in response.metadata


class EvaluatorCache:
    """LRU cache of evaluator responses with optional TTL.

    Parameters
    ----------
    max_entries : int, default=1024
        Least-recently-used entries are evicted beyond this size.
    ttl_seconds : float, default=None
        Entries older than this are treated as misses (and dropped). ``None`` keeps them.
    clock : callable, default=time.monotonic

    Examples
    --------
    >>> from vignette_lab.engines.scripted import ScriptedEngine
    >>> from vignette_lab.engines.base import EngineMessage, GenerateRequest
    >>> cache = EvaluatorCache(max_entries=8)
    >>> req = GenerateRequest("evaluator", (EngineMessage("user", "요즘 어떠세요?"),),
    ...                       structured_schema={"title": "turn_evaluation", "type": "object"})
    >>> first = cache.get_or_generate(ScriptedEngine(), req)
    >>> second = cache.get_or_generate(ScriptedEngine(), req)
    >>> cache.stats()["hits"], cache.stats()["misses"]
    (1, 1)
    """

    def __init__(self, max_entries: int = 1024, ttl_seconds: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        if not isinstance(max_entries, int) or max_entries < 1:
            raise ConfigError(f"max_entries must be a positive int. Got {max_entries!r} instead.")
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ConfigError(f"ttl_seconds must be positive or None. Got {ttl_seconds!r} instead.")
        self.max_entries = max_entries
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, GenerateResponse]] = OrderedDict()
        self.hits = self.misses = self.stores = self.evictions = self.expired = self.rejected = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, request: GenerateRequest) -> bool:
        return self.get(request) is not None

    def get(self, request: GenerateRequest) -> GenerateResponse | None:
        """Cached response for ``request`` or ``None`` (does not count a hit or miss)."""
        key = request.cache_key()
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored_at, response = entry
        if self.ttl_seconds is not None and self._clock() - stored_at > self.ttl_seconds:
            del self._entries[key]
            self.expired += 1
            return None
        self._entries.move_to_end(key)
        return response

    def put(self, request: GenerateRequest, response: GenerateResponse) -> None:
        key = request.cache_key()
        self._entries[key] = (self._clock(), response)
        self._entries.move_to_end(key)
        self.stores += 1
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
            self.evictions += 1

    def get_or_generate(self, engine: Engine, request: GenerateRequest, *,
                        validate: Callable[[GenerateResponse], bool] | None = None,
                        ) -> GenerateResponse:
        """Return the cached response or call ``engine.generate`` and store a good result.

        Parameters
        ----------
        engine : Engine
        request : GenerateRequest
        validate : callable, default=None
            Decides whether a fresh response may be stored. Default: :func:`structured_ok`
            for requests with a ``structured_schema``, accept-all otherwise.

        Returns
        -------
        GenerateResponse
            A cache hit carries ``metadata["cache_hit"] = True``.

        Raises
        ------
        EngineError
            Propagated from the engine; nothing is stored.
        """
        cached = self.get(request)
        if cached is not None:
            self.hits += 1
            return GenerateResponse(**{**cached.__dict__, "metadata": {**cached.metadata, "cache_hit": True}})
        self.misses += 1
        response = engine.generate(request)
        check = validate or (structured_ok if request.structured_schema is not None else None)
        if check is not None and not check(response):
            self.rejected += 1
            return response
        self.put(request, response)
        return response

    def clear(self) -> None:
        self._entries.clear()

    def stats(self) -> dict[str, Any]:
        """Counters for ``doctor`` and admin views (no keys, prompts or completions)."""
        requests = self.hits + self.misses
        return {
            "entries": len(self._entries),
            "max_entries": self.max_entries,
            "ttl_seconds": self.ttl_seconds,
            "hits": self.hits,
            "misses": self.misses,
            "stores": self.stores,
            "evictions": self.evictions,
            "expired": self.expired,
            "rejected": self.rejected,
            "requests": requests,
            "hit_rate": (self.hits / requests) if requests else 0.0,
        }
