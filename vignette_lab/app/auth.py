"""Users, roles and the login that guards the Panel app.

The app uses Panel's own authentication machinery (a Tornado login handler plus the
signed ``user`` cookie that ``pn.state.user`` reads). Panel's stock basic auth compares
plain-text passwords, so this module plugs in a handler that checks **bcrypt** hashes from a
users file::

    {"users": {"kim": {"password_hash": "$2b$12$…", "roles": ["trainee"],
                       "cohort": "2026-1", "display_name": "김수련"}}}

Create the file with :func:`add_user` (or ``vignette-lab serve --users FILE`` after
``python -c "from vignette_lab.app.auth import add_user; add_user('users.json', 'kim', 'pw',
roles=['trainee'])"``). Without a users file the app runs in single-user local mode on
127.0.0.1: everyone is :data:`LOCAL_USER` with every role.

OAuth (GitHub, Google, Azure, generic OIDC …) is Panel's standard ``--oauth-provider`` set of
options; see docs/app.md. It is configured, not built, here.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bcrypt

from vignette_lab.errors import InputError, PermissionDenied

__all__ = [
    "LOCAL_USER",
    "LoginThrottle",
    "PasswordChecker",
    "SessionStore",
    "PAGE_ROLES",
    "ROLES",
    "User",
    "add_user",
    "check_password",
    "hash_password",
    "load_users",
    "require_page",
    "require_session_access",
]

ROLES: tuple[str, ...] = ("trainee", "researcher", "faculty", "admin")

# Which roles may open which page. Researchers/admins may also open any trainee's session,
# faculty those of their own cohort, a trainee only their own (require_session_access).
PAGE_ROLES: dict[str, frozenset[str]] = {
    "session": frozenset(ROLES),
    "selfplay": frozenset({"researcher", "faculty", "admin"}),
    "review": frozenset({"researcher", "faculty", "admin"}),
    "agreement": frozenset({"researcher", "faculty", "admin"}),
}

_STAFF = frozenset({"researcher", "faculty", "admin"})


@dataclass(frozen=True)
class User:
    """An authenticated person and what they may do."""

    user_id: str
    roles: frozenset[str] = field(default_factory=lambda: frozenset({"trainee"}))
    cohort: str | None = None
    display_name: str | None = None

    @property
    def is_staff(self) -> bool:
        return bool(self.roles & _STAFF)

    def can_open(self, page: str) -> bool:
        """Whether this user may open ``page`` (a key of :data:`PAGE_ROLES`)."""
        if page not in PAGE_ROLES:
            raise ValueError(f"unknown page {page!r}; expected one of {sorted(PAGE_ROLES)}")
        return bool(self.roles & PAGE_ROLES[page])

    @property
    def primary_role(self) -> str:
        for role in ("admin", "faculty", "researcher", "trainee"):
            if role in self.roles:
                return role
        return "trainee"


LOCAL_USER = User("local", frozenset(ROLES), None, "로컬 사용자")


def hash_password(password: str, *, rounds: int = 12) -> str:
    """Return a bcrypt hash (``$2b$…``) of ``password``.

    Parameters
    ----------
    password : str
        Clear-text password (UTF-8, at most 72 bytes are significant to bcrypt).
    rounds : int, default=12
        bcrypt cost factor; tests use 4 to stay fast.

    Returns
    -------
    str

    Examples
    --------
    >>> check_password("비밀", hash_password("비밀", rounds=4))
    True
    """
    if not isinstance(password, str) or not password:
        raise ValueError("password must be a non-empty str")
    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds)).decode("ascii")


def check_password(password: str, password_hash: str) -> bool:
    """True when ``password`` matches the bcrypt ``password_hash`` (constant time)."""
    try:
        return bcrypt.checkpw(password.encode("utf-8"), password_hash.encode("ascii"))
    except (ValueError, AttributeError):
        return False


def _user_from(name: str, entry: Any, source: str) -> tuple[User, str]:
    if not isinstance(entry, dict):
        raise InputError("expected an object with password_hash and roles", source=source,
                         field=f"users.{name}")
    pw_hash = entry.get("password_hash")
    if not isinstance(pw_hash, str) or not pw_hash.startswith("$2"):
        raise InputError("expected a bcrypt hash ($2b$…); make it with hash_password()",
                         source=source, field=f"users.{name}.password_hash")
    roles = entry.get("roles", ["trainee"])
    if (not isinstance(roles, list) or not roles
            or any(r not in ROLES for r in roles)):
        raise InputError(f"expected a non-empty list drawn from {list(ROLES)}, got {roles!r}",
                         source=source, field=f"users.{name}.roles")
    return (User(name, frozenset(roles), entry.get("cohort"), entry.get("display_name")),
            pw_hash)


def load_users(path: str | Path) -> dict[str, tuple[User, str]]:
    """Read a users file.

    Parameters
    ----------
    path : str or Path
        JSON file ``{"users": {name: {"password_hash", "roles", "cohort"?, "display_name"?}}}``.

    Returns
    -------
    dict
        ``{user_id: (User, password_hash)}``.

    Raises
    ------
    InputError
        Missing file, invalid JSON, or a malformed entry (names the file and field).
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("users file not found", source=source) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", source=source, line=exc.lineno) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("users"), dict):
        raise InputError('expected an object {"users": {...}}', source=source, field="users")
    return {name: _user_from(name, entry, source) for name, entry in raw["users"].items()}


def add_user(path: str | Path, user_id: str, password: str, *, roles: list[str] | tuple[str, ...] = ("trainee",),
             cohort: str | None = None, display_name: str | None = None, rounds: int = 12) -> User:
    """Add or replace one user in a users file (created if missing), written atomically.

    Parameters
    ----------
    path : str or Path
        Users file.
    user_id : str
        Login name; also the ``learner_id`` of the user's sessions.
    password : str
        Clear-text password; only its bcrypt hash is stored.
    roles : sequence of str, default=("trainee",)
        Drawn from :data:`ROLES`.
    cohort, display_name : str, optional
    rounds : int, default=12
        bcrypt cost.

    Returns
    -------
    User
    """
    if not user_id or not isinstance(user_id, str):
        raise ValueError("user_id must be a non-empty str")
    bad = [r for r in roles if r not in ROLES]
    if bad or not roles:
        raise ValueError(f"roles must be drawn from {list(ROLES)}, got {list(roles)!r}")
    path = Path(path)
    data: dict[str, Any] = {"users": {}}
    if path.exists():
        load_users(path)  # validate before touching it
        data = json.loads(path.read_text(encoding="utf-8"))
    entry = {"password_hash": hash_password(password, rounds=rounds), "roles": list(roles)}
    if cohort:
        entry["cohort"] = cohort
    if display_name:
        entry["display_name"] = display_name
    data["users"][user_id] = entry
    fd, tmp = tempfile.mkstemp(dir=str(path.parent or "."), suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
    os.replace(tmp, path)
    return User(user_id, frozenset(roles), cohort, display_name)


def require_page(user: User, page: str) -> None:
    """Raise :class:`PermissionDenied` unless ``user`` may open ``page``."""
    if not user.can_open(page):
        raise PermissionDenied(
            f"'{user.user_id}' ({', '.join(sorted(user.roles))}) may not open the {page} page")


def require_session_access(user: User, session_learner_id: str | None, session_id: str, *,
                           session_cohort: str | None = None) -> None:
    """Who may open a session: the same scope as the database's row-level security.

    A trainee opens only their own sessions; faculty only sessions of their own cohort;
    researchers and admins any.

    Parameters
    ----------
    user : User
    session_learner_id : str or None
    session_id : str
    session_cohort : str, optional
        The session's cohort (``app.sessions.cohort``).

    Raises
    ------
    PermissionDenied
        When the session is outside the user's scope.
    """
    if user.roles & {"researcher", "admin"}:
        return
    if "faculty" in user.roles and session_cohort is not None and session_cohort == user.cohort:
        return
    if session_learner_id == user.user_id:
        return
    if "faculty" in user.roles:
        raise PermissionDenied(f"session {session_id} belongs to another cohort")
    raise PermissionDenied(f"session {session_id} belongs to another learner")


# --------------------------------------------------------------------------- login hardening
class PasswordChecker:
    """Check a login with the same bcrypt work whether or not the user exists.

    An unknown user name is checked against a dummy hash of the same cost as the real ones,
    so the response time does not tell which names exist (no timing oracle).

    Parameters
    ----------
    users : mapping
        ``{user_id: (User, password_hash)}`` from :func:`load_users`.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "u.json")
    >>> _ = add_user(path, "kim", "pw", rounds=4)
    >>> checker = PasswordChecker(load_users(path))
    >>> checker.check("kim", "pw"), checker.check("nobody", "pw")
    (True, False)
    """

    def __init__(self, users):
        self.users = users
        costs = [_cost(entry[1]) for entry in users.values()]
        rounds = max(costs) if costs else 12
        self._dummy = bcrypt.hashpw(secrets.token_bytes(16), bcrypt.gensalt(rounds))

    def check(self, username: str, password: str) -> bool:
        """True when ``username`` exists and ``password`` matches its hash."""
        entry = self.users.get(username) if isinstance(username, str) else None
        if entry is None:
            check_password(password if isinstance(password, str) else "", self._dummy.decode("ascii"))
            return False
        return check_password(password if isinstance(password, str) else "", entry[1])


def _cost(password_hash: str) -> int:
    try:
        return max(4, min(31, int(password_hash.split("$")[2])))
    except (IndexError, ValueError):
        return 12


class LoginThrottle:
    """Per-IP and per-user login attempt counters with exponential back-off.

    Every attempt is counted *before* its password is checked (so a burst of parallel
    guesses cannot all slip through while the first ones are still hashing); a successful
    login clears the user's counter and takes its own attempt off the IP's. After
    ``free_user`` counted attempts for a user name (known or not: unknown names are treated
    the same) or ``free_ip`` for an IP address, the next attempt waits
    ``base * 2**(n - free)`` seconds (at most ``cap``) after the last one. Counters older
    than ``window`` seconds are forgotten.

    Parameters
    ----------
    free_user : int, default=5
    free_ip : int, default=20
        Higher than per user: a lab behind one NAT address shares it.
    base : float, default=1.0
    cap : float, default=300.0
    window : float, default=900.0
    clock : callable, default=time.monotonic

    Examples
    --------
    >>> now = [0.0]
    >>> t = LoginThrottle(free_user=2, clock=lambda: now[0])
    >>> [t.attempt("1.2.3.4", "kim") for _ in range(3)]
    [0.0, 0.0, 1.0]
    >>> now[0] = 10.0
    >>> t.attempt("1.2.3.4", "kim")
    0.0
    """

    def __init__(self, *, free_user: int = 5, free_ip: int = 20, base: float = 1.0, cap: float = 300.0,
                 window: float = 900.0, clock=time.monotonic):
        self.free = {"user": int(free_user), "ip": int(free_ip)}
        self.base, self.cap, self.window = float(base), float(cap), float(window)
        self.clock = clock
        self._counts: dict[tuple[str, str], tuple[int, float]] = {}
        self._lock = threading.Lock()

    def _delay(self, key: tuple[str, str], now: float) -> float:
        count, last = self._counts.get(key, (0, 0.0))
        if count and now - last > self.window:
            self._counts.pop(key, None)
            return 0.0
        free = self.free[key[0]]
        if count < free:
            return 0.0
        wait = min(self.cap, self.base * 2 ** (count - free))
        return max(0.0, last + wait - now)

    def retry_after(self, ip: str, username: str) -> float:
        """Seconds until ``ip``/``username`` may try again (0 when allowed now)."""
        with self._lock:
            now = self.clock()
            return max(self._delay(("ip", ip), now), self._delay(("user", username), now))

    def attempt(self, ip: str, username: str) -> float:
        """Count one attempt and return 0, or refuse it and return the seconds to wait."""
        with self._lock:
            now = self.clock()
            wait = max(self._delay(("ip", ip), now), self._delay(("user", username), now))
            if wait > 0:
                return wait
            for key in (("ip", ip), ("user", username)):
                count, _ = self._counts.get(key, (0, now))
                self._counts[key] = (count + 1, now)
            if len(self._counts) > 100_000:  # bound memory under a spray of names
                cutoff = now - self.window
                self._counts = {k: v for k, v in self._counts.items() if v[1] >= cutoff}
            return 0.0

    def success(self, ip: str, username: str) -> None:
        """A counted attempt succeeded: clear the user, take it off the IP."""
        with self._lock:
            self._counts.pop(("user", username), None)
            count, last = self._counts.get(("ip", ip), (0, 0.0))
            if count > 1:
                self._counts[("ip", ip)] = (count - 1, last)
            else:
                self._counts.pop(("ip", ip), None)


class SessionStore:
    """Server-side login sessions: a cookie is valid only while its token is here.

    Logging out (:meth:`revoke`) makes every copy of the session cookie useless; sessions
    also end after ``max_age`` seconds.

    Parameters
    ----------
    max_age : float, default=12 * 3600
    clock : callable, default=time.monotonic

    Examples
    --------
    >>> store = SessionStore()
    >>> token = store.issue("kim")
    >>> store.user_of(token)
    'kim'
    >>> store.revoke(token); store.user_of(token) is None
    True
    """

    def __init__(self, *, max_age: float = 12 * 3600, clock=time.monotonic):
        self.max_age = float(max_age)
        self.clock = clock
        self._tokens: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def issue(self, user_id: str) -> str:
        """A new random token for ``user_id``."""
        token = secrets.token_urlsafe(32)
        with self._lock:
            now = self.clock()
            self._tokens = {t: v for t, v in self._tokens.items() if now - v[1] < self.max_age}
            self._tokens[token] = (user_id, now)
        return token

    def user_of(self, token: str | None) -> str | None:
        """The user of a live token, else None."""
        if not token:
            return None
        with self._lock:
            entry = self._tokens.get(token)
            if entry is None:
                return None
            if self.clock() - entry[1] >= self.max_age:
                self._tokens.pop(token, None)
                return None
            return entry[0]

    def revoke(self, token: str | None) -> None:
        """End the session of ``token`` (no-op when unknown)."""
        if token:
            with self._lock:
                self._tokens.pop(token, None)
