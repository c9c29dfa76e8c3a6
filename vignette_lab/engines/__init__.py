"""Engines: the scripted offline default, the Anthropic API engine, caching and audit.

:func:`select_engine` picks one from :class:`vignette_lab.config.Settings`;
:func:`engine_status` says which one is active and why (for ``vignette-lab doctor``).
The API key is never printed or put into a status string.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vignette_lab.engines.audit import generate_with_audit
from vignette_lab.engines.base import (
    Engine,
    EngineMessage,
    GenerateRequest,
    GenerateResponse,
    StreamEvent,
    Usage,
)
from vignette_lab.engines.cache import EvaluatorCache
from vignette_lab.errors import ConfigError
from vignette_lab.config import Settings

if TYPE_CHECKING:
    from vignette_lab.engines.scripted import ScriptedEngine

__all__ = [
    "Engine",
    "EngineMessage",
    "EvaluatorCache",
    "GenerateRequest",
    "GenerateResponse",
    "ScriptedEngine",
    "StreamEvent",
    "Usage",
    "engine_status",
    "generate_with_audit",
    "select_engine",
]


def __getattr__(name: str) -> Any:
    """``ScriptedEngine`` on first use: the scripted engine loads the persona scripts, the
    counselor data and the evaluator (0.2-0.5 s), which ``engine_status`` (doctor) never needs."""
    if name == "ScriptedEngine":
        from vignette_lab.engines.scripted import ScriptedEngine

        return ScriptedEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _settings(settings: Any) -> Any:
    if settings is not None:
        return settings

    return Settings.from_env()


def _choice(settings: Any) -> tuple[str, str]:
    requested = str(getattr(settings, "engine", "auto") or "auto").lower()
    has_key = bool(getattr(settings, "anthropic_api_key", None))
    if requested == "scripted":
        return "scripted", "scripted (VIGNETTE_ENGINE=scripted)"
    if requested == "anthropic":
        if not has_key:
            raise ConfigError("VIGNETTE_ENGINE=anthropic but ANTHROPIC_API_KEY is not set; "
                              "set the key or use VIGNETTE_ENGINE=scripted.")
        return "anthropic", "anthropic (VIGNETTE_ENGINE=anthropic, ANTHROPIC_API_KEY set)"
    if requested != "auto":
        raise ConfigError(f"VIGNETTE_ENGINE must be scripted, anthropic or auto. Got {requested!r} instead.")
    if has_key:
        return "anthropic", "anthropic (auto: ANTHROPIC_API_KEY set)"
    return "scripted", "scripted (offline default: ANTHROPIC_API_KEY not set)"


def select_engine(settings: Any = None, *, seed: int = 0) -> Engine:
    """Build the engine the settings ask for.

    Parameters
    ----------
    settings : vignette_lab.config.Settings, default=None
        Read from the environment when None.
    seed : int, default=0
        Seed of the scripted engine.

    Returns
    -------
    Engine
        :class:`ScriptedEngine` unless ``engine == "anthropic"`` or ``engine == "auto"`` with
        an API key, then :class:`~vignette_lab.engines.anthropic_engine.AnthropicEngine`.

    Raises
    ------
    ConfigError
        ``anthropic`` requested without ``ANTHROPIC_API_KEY``.

    Examples
    --------
    >>> from vignette_lab.config import Settings
    >>> select_engine(Settings(engine="scripted")).name
    'scripted'
    """
    settings = _settings(settings)
    active, _ = _choice(settings)
    if active == "anthropic":
        from vignette_lab.engines.anthropic_engine import DEFAULT_MODEL, AnthropicEngine

        return AnthropicEngine(api_key=settings.anthropic_api_key,
                               model=getattr(settings, "model", None) or DEFAULT_MODEL)
    from vignette_lab.engines.scripted import ScriptedEngine  # heavy; see __getattr__

    return ScriptedEngine(seed=seed)


def engine_status(settings: Any = None) -> dict[str, Any]:
    """Which engine is active and why, without building it or printing the key.

    Returns
    -------
    dict
        ``{"active": "scripted"|"anthropic"|"error", "reason": str, "model": str}``; a
        misconfiguration is reported as ``active="error"`` with the reason instead of raising.

    Examples
    --------
    >>> from vignette_lab.config import Settings
    >>> engine_status(Settings(engine="auto"))["reason"]
    'scripted (offline default: ANTHROPIC_API_KEY not set)'
    """
    settings = _settings(settings)
    try:
        active, reason = _choice(settings)
    except ConfigError as exc:
        return {"active": "error", "reason": str(exc), "model": None}
    if active == "anthropic":
        from vignette_lab.engines.anthropic_engine import DEFAULT_MODEL

        model = getattr(settings, "model", None) or DEFAULT_MODEL
    else:
        model = "scripted"
    return {"active": active, "reason": reason, "model": model}
