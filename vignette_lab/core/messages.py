"""Canonical chat message model (seed 000).

A message is the pair ``(role, body)``. Everything a screen shows about authorship — the
label, the CSS classes, the alignment — is *derived* from the role and never stored, so a
role can never be inferred back from a style. Blank input creates nothing.

Examples
--------
>>> conv = Conversation().submit("  안녕하세요 ", lambda text: "네, 안녕하세요.")
>>> [(m.role, m.body) for m in conv]
[('user', '안녕하세요'), ('agent', '네, 안녕하세요.')]
>>> conv.submit("   ", lambda text: "never called") is conv
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "MAX_MESSAGE_CHARS",
    "ROLES",
    "ROLE_LABELS",
    "Conversation",
    "Message",
    "align_for",
    "css_class_for",
    "label_for",
    "normalize_input",
    "role_class_for",
]

ROLES: tuple[str, ...] = ("user", "agent")

# Display labels per context. "default" is seed 000; "session" is the counseling page where
# the trainee (user) is the counselor and the agent plays the client.
ROLE_LABELS: MappingProxyType = MappingProxyType({
    "default": MappingProxyType({"user": "사용자", "agent": "에이전트"}),
    "session": MappingProxyType({"user": "상담자", "agent": "내담자"}),
})

# Longest chat message a trainee may send (characters, after stripping). Longer messages are
# refused with a one-line Korean error, never silently truncated (SessionService.send).
MAX_MESSAGE_CHARS = 4000

_CSS_CLASS = {"user": "user-message", "agent": "response-message"}
_ROLE_CLASS = {"user": "user-role", "agent": "agent-role"}
_ALIGN = {"user": "right", "agent": "left"}


def _check_role(role: object) -> str:
    if role not in ROLES:
        raise ValueError(f"message role must be 'user' or 'agent', got {role!r}")
    return role  # type: ignore[return-value]


def label_for(role: str, *, context: str = "default") -> str:
    """Return the display label of a role.

    Parameters
    ----------
    role : {"user", "agent"}
        Canonical role.
    context : {"default", "session"}, default="default"
        ``"default"`` gives 사용자/에이전트 (seed 000); ``"session"`` gives 상담자/내담자.

    Returns
    -------
    str
        Korean label.

    Examples
    --------
    >>> label_for("agent", context="session")
    '내담자'
    """
    _check_role(role)
    if context not in ROLE_LABELS:
        raise ValueError(
            f"label context must be one of {sorted(ROLE_LABELS)}, got {context!r}")
    return ROLE_LABELS[context][role]


def css_class_for(role: str) -> str:
    """Return the message CSS class (``user-message`` / ``response-message``)."""
    return _CSS_CLASS[_check_role(role)]


def role_class_for(role: str) -> str:
    """Return the role CSS class (``user-role`` / ``agent-role``)."""
    return _ROLE_CLASS[_check_role(role)]


def align_for(role: str) -> str:
    """Return the alignment (``right`` for the user, ``left`` for the agent)."""
    return _ALIGN[_check_role(role)]


def normalize_input(text: str | None) -> str | None:
    """Trim user input; return ``None`` when nothing but whitespace is left.

    Parameters
    ----------
    text : str or None
        Raw input from a text box.

    Returns
    -------
    str or None
        The trimmed text, or ``None`` for empty / whitespace-only input.

    Examples
    --------
    >>> normalize_input("  요즘 어때요?\\n")
    '요즘 어때요?'
    >>> normalize_input(" \\t ") is None
    True
    """
    if text is None:
        return None
    if not isinstance(text, str):
        raise TypeError(f"input text must be a str, got {type(text).__name__}")
    trimmed = text.strip()
    return trimmed or None


@dataclass(frozen=True, slots=True)
class Message:
    """One immutable chat message: its author role and its body.

    Parameters
    ----------
    role : {"user", "agent"}
        Author role; anything else raises ``ValueError``.
    body : str
        Message text, stored as given (user input is trimmed by :func:`normalize_input`
        before it gets here).
    """

    role: str
    body: str

    def __post_init__(self) -> None:
        _check_role(self.role)
        if not isinstance(self.body, str):
            raise TypeError(f"message body must be a str, got {type(self.body).__name__}")

    @property
    def label(self) -> str:
        """Default display label (사용자 / 에이전트)."""
        return label_for(self.role)

    def label_in(self, context: str) -> str:
        """Display label in a given context (see :func:`label_for`)."""
        return label_for(self.role, context=context)

    @property
    def css_class(self) -> str:
        return css_class_for(self.role)

    @property
    def role_class(self) -> str:
        return role_class_for(self.role)

    @property
    def align(self) -> str:
        return align_for(self.role)


@dataclass(frozen=True, slots=True)
class Conversation:
    """Immutable, ordered list of messages: user, agent, user, agent …

    :meth:`submit` returns a *new* conversation for valid input and the very same object
    for blank input (and then never calls ``respond``).
    """

    messages: tuple[Message, ...] = ()

    def __post_init__(self) -> None:
        for index, message in enumerate(self.messages):
            if not isinstance(message, Message):
                raise TypeError(f"messages[{index}] must be a Message, got "
                                f"{type(message).__name__}")
            expected = ROLES[index % 2]
            if message.role != expected:
                raise ValueError(f"messages[{index}] must have role {expected!r} (user and "
                                 f"agent alternate, user first), got {message.role!r}")

    def submit(self, text: str | None, respond: Callable[[str], str]) -> "Conversation":
        """Add a user message and the agent reply chosen by ``respond``.

        Parameters
        ----------
        text : str or None
            Raw user input; trimmed. Blank input returns ``self`` unchanged.
        respond : callable
            ``respond(trimmed_text) -> str`` picks the agent reply; called once per valid
            submission and never for blank input.

        Returns
        -------
        Conversation
            A new conversation with two more messages, or ``self``.
        """
        body = normalize_input(text)
        if body is None:
            return self
        reply = respond(body)
        if not isinstance(reply, str):
            raise TypeError(f"respond() must return a str, got {type(reply).__name__}")
        return Conversation(self.messages + (Message("user", body), Message("agent", reply)))

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    def __getitem__(self, index: int) -> Message:
        return self.messages[index]
