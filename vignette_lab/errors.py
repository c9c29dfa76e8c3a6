"""Error types shared by every layer.

Every user-facing mistake is a :class:`VignetteError` whose message is one line that
names what is wrong and where (file, line, field). The CLI turns these into
``click.ClickException`` so users never see a traceback for their own mistakes.
"""

from __future__ import annotations


class VignetteError(Exception):
    """Base class for every error vignette-lab raises on purpose."""


class InputError(VignetteError, ValueError):
    """Malformed input: names the source (file), the line and the field when known."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None):
        self.source = source
        self.line = line
        self.field = field
        where = []
        if source:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field '{field}'")
        prefix = ": ".join([", ".join(where)]) + ": " if where else ""
        super().__init__(f"{prefix}{message}")
        self.bare_message = message


class ConfigError(VignetteError):
    """A setting (database URL, engine name, embedder path …) is unusable."""


class StoreError(VignetteError):
    """The database refused an operation (constraint, connection, permission)."""


class WriteConflict(StoreError):
    """Another transaction wrote the same key first (unique key or write-write conflict).

    Raised by both backends when a commit or insert loses a race; callers that can redo the
    work in a fresh transaction retry (``retryable``), others refuse with the message.
    """

    def __init__(self, message: str, *, retryable: bool = True):
        super().__init__(message)
        self.retryable = retryable


class StoreBusy(StoreError):
    """Another process kept the embedded (DuckDB) database file past the wait for it.

    Raised when the file hand-over (:mod:`vignette_lab.store.duck`) could not get the file
    within ``lock_timeout`` seconds, e.g. a program that opened it without the store.
    """


class PermissionDenied(StoreError):
    """A principal tried to read or write a row it may not (RLS / ownership)."""


class EngineError(VignetteError):
    """An engine (scripted, Anthropic, local) failed to produce a response."""

    def __init__(self, message: str, *, code: str = "engine_error", retryable: bool = False):
        super().__init__(message)
        self.code = code
        self.retryable = retryable


class SessionError(VignetteError):
    """A session operation is not allowed in the session's current state."""

    def __init__(self, message: str, *, code: str = "session_error"):
        super().__init__(message)
        self.code = code


class SessionTimeOver(SessionError):
    """The session's time limit plus grace has passed; new turns are refused."""

    def __init__(self, message: str = "회기 시간이 끝났습니다(제한 시간 + 유예 초과). 새 발화를 보낼 수 없습니다."):
        super().__init__(message, code="session_time_over")


class CoachCreditExhausted(SessionError):
    def __init__(self, message: str = "남은 코칭 기회가 없습니다. 6턴마다 1회 충전되거나 좋은 발화로 충전됩니다."):
        super().__init__(message, code="coach_no_credit")
