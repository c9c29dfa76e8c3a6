"""Serve the workbench: route → page factory, login, static reports.

``build_app(db_url)`` returns ``{"/": index, "/session": …, "/selfplay": …, "/review": …,
"/agreement": …}``; each value is a *factory* so every browser session gets fresh page state
(``pn.serve`` calls it per session). One database handle and one :class:`SessionService` are
shared by all sessions of the server (the service serialises turns with its own lock).

Authentication
--------------
``users_file=None`` → single-user local mode: everyone is ``local`` with every role; only
sensible on 127.0.0.1 (the default address). With a users file (see
:mod:`vignette_lab.app.auth`) the server installs a login page whose handler checks bcrypt
hashes; Panel's signed ``user`` cookie then identifies the user (``pn.state.user``).
"""

from __future__ import annotations

import html
import secrets
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import panel as pn

from vignette_lab.app.auth import LOCAL_USER, User, load_users
from vignette_lab.errors import PermissionDenied

__all__ = ["AppContext", "INDEX_PAGE", "LOGIN_HTML", "build_app", "current_user", "make_auth_provider",
           "page_href", "requested_page", "serve"]

PAGES: dict[str, tuple[str, str]] = {
    "session": ("상담 회기", "페르소나와 상담 회기를 진행하고 리뷰를 봅니다."),
    "selfplay": ("셀프플레이", "AI 상담자와 AI 내담자의 회기를 일괄 실행합니다."),
    "review": ("주석 검토", "AI가 제안한 라벨을 검토하고 확정합니다."),
    "agreement": ("일치도·분석", "κ/α/ICC, 게이트 결정, 불일치 사례를 봅니다."),
}
INDEX_PAGE = "index"


def page_href(page: str, **query: str) -> str:
    """A link to ``page`` that works under every prefix the app is served at.

    The app is served standalone (``/``, ``/session`` …) and inside JupyterLab at
    ``/panel-preview/render/notebooks/workbench_app.py``. A path link such as ``./selfplay``
    only exists in the first, so every link is query-only (``?page=selfplay``): the browser
    keeps the current path, and every route dispatches on ``page`` (:func:`requested_page`).
    """
    from urllib.parse import urlencode

    return "?" + html.escape(urlencode({"page": page, **query}), quote=True)


def requested_page(default: str) -> str:
    """The ``?page=`` of this browser session when it names a page, else ``default``."""
    args = pn.state.session_args or {}
    value = (args.get("page") or [b""])[0]
    name = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return name if name in PAGES or name == INDEX_PAGE else default

LOGIN_HTML = """<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>Vignette Lab 로그인</title>
<style>body{font-family:'Noto Sans CJK KR',sans-serif;background:#f5f6f8;display:flex;justify-content:center;
padding-top:10vh}form{background:#fff;padding:28px 32px;border-radius:10px;box-shadow:0 2px 10px #0001;width:300px}
input{width:100%;padding:8px;margin:6px 0 14px;box-sizing:border-box}button{width:100%;padding:9px;
background:#3b6fd8;color:#fff;border:0;border-radius:6px}.err{color:#b3261e}</style></head>
<body><form action="{{ login_endpoint }}" method="post"><h2>Vignette Lab</h2>
<p class="err">{{ errormessage }}</p>
<label for="username">아이디</label><input id="username" name="username" autocomplete="username" required>
<label for="password">비밀번호</label><input id="password" name="password" type="password"
 autocomplete="current-password" required><button id="login-submit" type="submit">로그인</button></form></body></html>
"""


class AppContext:
    """What every page of one server shares: database, service, users."""

    def __init__(self, db_url: str | None = None, *, settings: Any = None, users_file: str | Path | None = None,
                 engine: Any = None, evaluator_engine: Any = None, clock: Callable | None = None,
                 token_delay: float = 0.02, reports_dir: str | Path | None = None, db: Any = None):
        from vignette_lab.store import connect, init_db

        self.db = db if db is not None else connect(db_url, settings=settings)
        if db is None:
            init_db(self.db)
            try:
                from vignette_lab.store.catalog import load_catalog
                load_catalog(self.db)
            except ModuleNotFoundError:
                pass
        self.settings = settings
        self.users = load_users(users_file) if users_file else None
        self.engine = engine
        self.evaluator_engine = evaluator_engine
        self.clock = clock
        self.token_delay = token_delay
        if reports_dir is None:
            from vignette_lab.config import REPORTS_DIR
            reports_dir = REPORTS_DIR
        self.reports_dir = Path(reports_dir)
        self._service = None
        self._lock = threading.Lock()

    @property
    def service(self) -> Any:
        with self._lock:
            if self._service is None:
                from vignette_lab.session.service import SessionService
                # "auto": the active embedder feeds the client's KB cues and episodic recall
                kwargs: dict[str, Any] = {"settings": self.settings, "embedder": "auto"}
                if self.engine is not None:
                    kwargs["engine"] = self.engine
                if self.evaluator_engine is not None:
                    kwargs["evaluator_engine"] = self.evaluator_engine
                if self.clock is not None:
                    kwargs["clock"] = self.clock
                self._service = SessionService(self.db, **kwargs)
            return self._service

    def warm_up(self) -> None:
        """Load the PII masker (Presidio's import is slow) and the embedder so the first turn and
        the first end of a session do not pay for them."""
        from vignette_lab.core.guardrails import mask_pii
        mask_pii("준비 중입니다.")
        embedder = self.service.embedder
        if embedder is not None:
            try:
                embedder.encode(["준비 중입니다."], kind="query")
            except Exception:  # noqa: BLE001 - a warm-up never stops the server; the first use will say why
                pass

    def user(self, name: str | None) -> User:
        """Resolve the signed-in name to a :class:`User` (local mode → LOCAL_USER)."""
        if self.users is None:
            return LOCAL_USER
        if not name or name not in self.users:
            raise PermissionDenied("로그인이 필요합니다.")
        return self.users[name][0]


def current_user(ctx: AppContext) -> User:
    """The user of the current browser session."""
    return ctx.user(pn.state.user if ctx.users is not None else None)


def _denied(message: str) -> pn.viewable.Viewable:
    return pn.pane.HTML(f'<div class="vl-refused" style="padding:10px;border:1px solid #b3261e;'
                        f'background:#fde7e7;border-radius:6px">{html.escape(message)}</div>',
                        css_classes=["vl-denied"])


def _template(title: str, main: Any, user: User) -> pn.template.BaseTemplate:
    # Bootstrap, not Fast: the Fast templates pull a Google font, and every asset must be local.
    tmpl = pn.template.BootstrapTemplate(
        title=f"Vignette Lab · {title}", main=[main], header_background="#3b6fd8",
        sidebar_width=220)
    who = f"{user.display_name or user.user_id} ({user.primary_role})"
    nav = "".join(f'<a class="vl-nav-link" data-page="{p}" href="{page_href(p)}" style="margin-right:10px">'
                  f'{html.escape(t)}</a>' for p, (t, _) in PAGES.items() if user.can_open(p))
    tmpl.header.append(pn.pane.HTML(f'<span style="color:#fff">{html.escape(who)} · '
                                    f'<a class="vl-nav-link" data-page="{INDEX_PAGE}" href="{page_href(INDEX_PAGE)}" '
                                    f'style="color:#fff">처음</a></span>'))
    tmpl.sidebar.append(pn.pane.HTML(f'<nav class="vl-nav">{nav}</nav>'))
    return tmpl


def _page(ctx: AppContext, page: str, title: str, build: Callable[[User], Any]) -> Callable[[], Any]:
    def factory() -> Any:
        try:
            user = current_user(ctx)
            if not user.can_open(page):
                raise PermissionDenied(f"'{user.user_id}' 계정은 이 페이지를 열 수 없습니다.")
        except PermissionDenied as exc:
            return _denied(str(exc))
        return _template(title, build(user), user)
    return factory


def _index(ctx: AppContext, user: User) -> Any:
    links = "".join(f'<li><a class="vl-page-link" data-page="{p}" href="{page_href(p)}">{html.escape(t)}</a> — '
                    f'{html.escape(d)}</li>' for p, (t, d) in PAGES.items() if user.can_open(p))
    sessions = ctx.service.list_sessions(learner_id=None if user.is_staff else user.user_id, mode="live")
    rows = "".join(
        f'<li><a class="vl-session-link" href="{page_href("session", session=s.session_id)}">'
        f'{html.escape(s.persona_code)} '
        f'{html.escape(s.display_name)} · {s.started_at:%Y-%m-%d %H:%M} · {html.escape(s.status)}</a></li>'
        for s in sessions[:30])
    return pn.pane.HTML(f"<h2>사용할 수 있는 페이지</h2><ul>{links}</ul>"
                        f"<h3>{'회기 목록' if user.is_staff else '내 회기'}</h3>"
                        f"<ul class='vl-sessions'>{rows or '<li>아직 회기가 없습니다.</li>'}</ul>",
                        sizing_mode="stretch_width")


def _session(ctx: AppContext, user: User) -> Any:
    from vignette_lab.app.session_page import SessionPage, make_periodic_refresh

    page = SessionPage(ctx.service, user=user, token_delay=ctx.token_delay)
    session_id = pn.state.session_args.get("session") if pn.state.session_args else None
    # A reload reopens ?session=<id> (start() puts it in the address bar) or, without one,
    # the user's latest session in progress.
    page.restore(session_id[0].decode("utf-8") if session_id else None)
    if pn.state.curdoc is not None and pn.state.served:
        pn.state.add_periodic_callback(make_periodic_refresh(page), period=1000)
    return page


def build_app(db_url: str | None = None, *, settings: Any = None, users_file: str | Path | None = None,
              ctx: AppContext | None = None, **ctx_options: Any) -> dict[str, Callable[[], Any]]:
    """Route → page factory for ``pn.serve``.

    Parameters
    ----------
    db_url : str, optional
        Database URL (``VIGNETTE_DB`` / ``./vignette.duckdb`` when None).
    settings : Settings, optional
    users_file : path, optional
        bcrypt users file; None → single-user local mode.
    ctx : AppContext, optional
        Reuse an existing context (tests, notebooks).
    **ctx_options
        Passed to :class:`AppContext` (``engine``, ``clock``, ``token_delay`` …).

    Returns
    -------
    dict
        ``{"/": …, "session": …, "selfplay": …, "review": …, "agreement": …}``.
    """
    if ctx is None:
        ctx = AppContext(db_url, settings=settings, users_file=users_file, **ctx_options)

    def index() -> Any:
        try:
            user = current_user(ctx)
        except PermissionDenied as exc:
            return _denied(str(exc))
        return _template("처음", _index(ctx, user), user)

    def selfplay(user: User) -> Any:
        from vignette_lab.app.selfplay_page import SelfPlayPage
        return SelfPlayPage(ctx.db, settings=ctx.settings, engine=ctx.engine)

    def review(user: User) -> Any:
        from vignette_lab.app.review_page import ReviewPage
        return ReviewPage(ctx.db, reviewer_id=user.user_id)

    def agreement(user: User) -> Any:
        from vignette_lab.app.agreement_page import AgreementPage
        return AgreementPage(ctx.db, reports_dir=ctx.reports_dir)

    factories = {
        INDEX_PAGE: index,
        "session": _page(ctx, "session", "상담 회기", lambda u: _session(ctx, u)),
        "selfplay": _page(ctx, "selfplay", "셀프플레이", selfplay),
        "review": _page(ctx, "review", "주석 검토", review),
        "agreement": _page(ctx, "agreement", "일치도·분석", agreement),
    }

    def route(default: str) -> Callable[[], Any]:
        # Links are ?page=… (see page_href), so every path honours it; the path only sets the default.
        def dispatch() -> Any:
            return factories[requested_page(default)]()
        return dispatch

    return {"/": route(INDEX_PAGE), **{p: route(p) for p in PAGES}}


def make_auth_provider(users: Mapping[str, tuple[User, str]], *, login_endpoint: str = "/login",
                       logout_endpoint: str = "/logout") -> Any:
    """A Panel ``BasicAuthProvider`` whose login checks bcrypt hashes and serves a local page."""
    from panel.auth import BasicAuthProvider, BasicLoginHandler
    from panel.io.resources import _env

    from vignette_lab.app.auth import check_password

    template = _env.from_string(LOGIN_HTML)

    class BcryptLoginHandler(BasicLoginHandler):
        _login_template = template

        def _validate(self, username: str, password: str) -> bool:
            entry = users.get(username)
            return entry is not None and check_password(password, entry[1])

    class BcryptAuthProvider(BasicAuthProvider):
        @property
        def login_handler(self):  # noqa: D401 - Panel API
            BcryptLoginHandler._login_endpoint = self._login_endpoint
            return BcryptLoginHandler

    return BcryptAuthProvider(login_endpoint=login_endpoint, logout_endpoint=logout_endpoint)


def serve(db_url: str | None = None, *, port: int = 5006, address: str = "127.0.0.1", show: bool = False,
          users_file: str | Path | None = None, settings: Any = None, threaded: bool = False,
          cookie_secret: str | None = None, warm: bool = True, **ctx_options: Any) -> Any:
    """Start the Panel server.

    Parameters
    ----------
    db_url : str, optional
    port : int, default=5006
        0 picks a free port (read it from ``server.port``).
    address : str, default="127.0.0.1"
    show : bool, default=False
        Open a browser.
    users_file : path, optional
        bcrypt users file; None → single-user local mode.
    threaded : bool, default=False
        Run in a background thread and return the server (tests, notebooks).
    cookie_secret : str, optional
        Signs the login cookie; random per start when None (logins end with the server).
    warm : bool, default=True
        Load the PII masker in a background thread while the server starts, so the server
        answers at once and the first turn does not pay the load.

    Returns
    -------
    bokeh.server.server.Server or StoppableThread
    """
    ctx = AppContext(db_url, settings=settings, users_file=users_file, **ctx_options)
    routes = build_app(ctx=ctx)
    if warm:  # in the background: start.sh prints its URLs as soon as the server answers
        threading.Thread(target=ctx.warm_up, name="vl-warm-up", daemon=True).start()
    static = {}
    ctx.reports_dir.mkdir(parents=True, exist_ok=True)
    static["reports"] = str(ctx.reports_dir)
    kwargs: dict[str, Any] = {}
    if ctx.users is not None:
        kwargs["auth_provider"] = make_auth_provider(ctx.users)
    origins = [f"{host}:{port}" for host in ("localhost", "127.0.0.1", address)] if port else ["*"]
    return pn.serve(routes, port=port, address=address, show=show, admin=False, static_dirs=static,
                    websocket_origin=origins, threaded=threaded, title="Vignette Lab",
                    cookie_secret=cookie_secret or secrets.token_hex(32), **kwargs)
