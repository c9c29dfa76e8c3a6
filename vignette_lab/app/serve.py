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
import logging
import math
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import panel as pn

from vignette_lab.app.auth import LOCAL_USER, LoginThrottle, PasswordChecker, SessionStore, User, load_users
from vignette_lab.errors import PermissionDenied

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine
    from vignette_lab.session.service import SessionService
    from vignette_lab.store.base import Database

log = logging.getLogger(__name__)

__all__ = ["AppContext", "INDEX_PAGE", "LOGIN_HTML", "REPORT_SUFFIXES", "SESSION_COOKIE", "build_app",
           "current_user", "load_mathjax_only_for_tex", "make_auth_provider", "make_reports_handler", "page_href",
           "page_renders_tex", "report_file", "requested_page", "serve", "session_user"]

PAGES: dict[str, tuple[str, str]] = {
    "session": ("상담 회기", "페르소나와 상담 회기를 진행하고 리뷰를 봅니다."),
    "selfplay": ("셀프플레이", "AI 상담자와 AI 내담자의 회기를 일괄 실행합니다."),
    "review": ("주석 검토", "AI가 제안한 라벨을 검토하고 확정합니다."),
    "agreement": ("일치도·분석", "κ/α/ICC, 게이트 결정, 불일치 사례를 봅니다."),
}
INDEX_PAGE = "index"
#: Seconds the app keeps an idle DuckDB file open (see :class:`AppContext`).
DB_LINGER_S = 2.0
#: Seconds after a session page is shown before the session service is built in the background.
SERVICE_WARM_UP_DELAY_S = 1.0


def page_href(page: str, **query: str) -> str:
    """A link to ``page`` that works under every prefix the app is served at.

    The app is served standalone (``/``, ``/session`` …), inside JupyterLab behind its proxy at
    ``{base_url}vignette/`` (:mod:`vignette_lab.app.jupyter_proxy`) and by Panel's extension at
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
                 engine: Engine | None = None, evaluator_engine: Engine | None = None, clock: Callable | None = None,
                 token_delay: float = 0.02, reports_dir: str | Path | None = None, db: Database | None = None):
        from vignette_lab.store import connect, init_db
        from vignette_lab.store.catalog import load_catalog

        # Longer than the pages' 1 s refresh: while a page is open the DuckDB file stays open, so
        # neither the refresh nor a turn reopens it (30-150 ms each time on this machine). Another
        # process still gets the file at once: it announces itself and the lingering file is
        # handed over (store.duck).
        self.db = db if db is not None else connect(db_url, settings=settings, linger=DB_LINGER_S)
        if db is None:
            init_db(self.db)
            load_catalog(self.db)
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
        self._service: SessionService | None = None
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
            except Exception as exc:  # noqa: BLE001 - a warm-up never stops the server; the first use will say why
                log.warning("embedder warm-up failed; the first search will report why: %s", exc)

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
    from vignette_lab.app.labels import role_label

    who = f"{user.display_name or user.user_id} ({role_label(user.primary_role)})"
    nav = "".join(f'<li><a class="vl-nav-link" data-page="{p}" href="{page_href(p)}">{html.escape(t)}</a></li>'
                  for p, (t, _) in PAGES.items() if user.can_open(p))
    header, sidebar = tmpl.header, tmpl.sidebar
    assert header is not None and sidebar is not None  # a template always has both areas
    header.append(pn.pane.HTML(f'<span style="color:#fff">{html.escape(who)} · '
                               f'<a class="vl-nav-link" data-page="{INDEX_PAGE}" href="{page_href(INDEX_PAGE)}" '
                               f'style="color:#fff">처음</a></span>'))
    sidebar.append(pn.pane.HTML(f'<nav class="vl-nav"><ul style="list-style:none;padding:0;margin:0;'
                                f'line-height:2">{nav}</ul></nav>'))
    return tmpl


def _denied_in_frame(user: User, title: str) -> pn.viewable.Viewable:
    """A page this user may not open: the reason in the normal frame (header, navigation), with
    the way back and the pages they can open."""
    from vignette_lab.app.labels import role_label

    name = user.display_name or user.user_id
    links = "".join(f'<li><a class="vl-page-link" data-page="{p}" href="{page_href(p)}">{html.escape(t)}</a></li>'
                    for p, (t, _) in PAGES.items() if user.can_open(p))
    back = (f'<p><a class="vl-nav-link vl-denied-back" data-page="{INDEX_PAGE}" href="{page_href(INDEX_PAGE)}">'
            f'← 처음으로 돌아가기</a></p>')
    more = f"<p>열 수 있는 페이지:</p><ul>{links}</ul>" if links else ""
    return pn.Column(
        pn.pane.Markdown(f"## {html.escape(title)}"),
        _denied(f"{name} 님({role_label(user.primary_role)}) 계정으로는 ‘{title}’ 페이지를 열 수 없습니다. "
                f"이 페이지가 필요하면 관리자에게 권한을 요청하세요."),
        pn.pane.HTML(back + more, css_classes=["vl-denied-links"]), sizing_mode="stretch_width")


def _page(ctx: AppContext, page: str, title: str, build: Callable[[User], Any]) -> Callable[[], Any]:
    def factory() -> Any:
        try:
            user = current_user(ctx)
        except PermissionDenied as exc:  # not signed in: there is no frame to show yet
            return _denied(str(exc))
        if not user.can_open(page):
            return _template(title, _denied_in_frame(user, title), user)
        return _template(title, build(user), user)
    return factory


def _index(ctx: AppContext, user: User) -> Any:
    links = "".join(f'<li><a class="vl-page-link" data-page="{p}" href="{page_href(p)}">{html.escape(t)}</a> — '
                    f'{html.escape(d)}</li>' for p, (t, d) in PAGES.items() if user.can_open(p))
    sessions = ctx.service.list_sessions(learner_id=None if user.is_staff else user.user_id, mode="live")
    if not user.roles & {"researcher", "admin"} and "faculty" in user.roles:
        # faculty: own cohort only, the scope RLS gives them on Postgres
        sessions = [s for s in sessions if getattr(s, "cohort", None) == user.cohort or s.learner_id == user.user_id]
    from vignette_lab.app.labels import format_time, status_label

    rows = "".join(
        f'<li><a class="vl-session-link" href="{page_href("session", session=s.session_id)}">'
        f'{html.escape(s.persona_code)} '
        f'{html.escape(s.display_name)} · {format_time(s.started_at)} · {html.escape(status_label(s.status))}</a></li>'
        for s in sessions[:30])
    empty = ("<li class='vl-empty'>아직 회기가 없습니다 — 왼쪽 <b>상담 회기</b>에서 페르소나를 골라 "
             "첫 회기를 시작하세요.</li>") if user.can_open("session") else "<li class='vl-empty'>아직 회기가 없습니다.</li>"
    return pn.pane.HTML(f"<h2>사용할 수 있는 페이지</h2><ul>{links}</ul>"
                        f"<h3>{'회기 목록' if user.is_staff else '내 회기'}</h3>"
                        f"<ul class='vl-sessions'>{rows or empty}</ul>",
                        sizing_mode="stretch_width")


def _session(ctx: AppContext, user: User) -> Any:
    from vignette_lab.app.session_page import SessionPage, make_periodic_refresh

    # The service (engines, evaluator) is built on first use: the persona form needs neither.
    page = SessionPage(lambda: ctx.service, db=ctx.db, user=user, token_delay=ctx.token_delay)
    session_id = pn.state.session_args.get("session") if pn.state.session_args else None
    # A reload reopens ?session=<id> (start() puts it in the address bar) or, without one,
    # the user's latest session in progress.
    page.restore(session_id[0].decode("utf-8") if session_id else None)
    doc = pn.state.curdoc
    # A browser session (standalone or a JupyterLab kernel). Not ``pn.state.served``: that
    # asks whether its *caller* is a ``panel serve`` script, which this module never is.
    if doc is not None and doc.session_context is not None:
        pn.state.add_periodic_callback(make_periodic_refresh(page), period=1000)
        # A second after the page is shown (its first render and sync come first), build the
        # service in the background so the first click (회기 시작) does not pay the engine
        # imports (a fresh kernel inside JupyterLab; the standalone server has it already).
        if ctx._service is None:
            warm = threading.Timer(SERVICE_WARM_UP_DELAY_S, lambda: ctx.service)
            warm.daemon = True
            pn.state.onload(warm.start)
    return page


def page_renders_tex(roots: Any) -> bool:
    """Whether a page needs Bokeh's MathJax bundle for Panel's HTML/Markdown models.

    Only when one of them would typeset TeX in the browser: math enabled (``disable_math`` is
    False) and a pair of TeX delimiters in its text — the rule Bokeh applies to its own ``Div``.
    Panel 1.9 instead sends ``bokeh-mathjax.min.js`` (1.8 MB) to every page with any HTML pane;
    the workbench never renders LaTeX (a ``$$`` typed by a trainee is shown as typed either way:
    trainee text goes through HTML panes, whose math is off).

    Parameters
    ----------
    roots : iterable of bokeh.model.Model
        The document roots of a page.
    """
    from bokeh.embed.util import contains_tex_string
    from panel.models.markup import HTML

    for root in roots:
        for model in root.references():
            if (isinstance(model, HTML) and not model.disable_math and isinstance(model.text, str)
                    and contains_tex_string(model.text)):
                return True
    return False


def load_mathjax_only_for_tex() -> None:
    """Make Panel's server pages load MathJax only where :func:`page_renders_tex` says so.

    Panel has no public switch for server pages (``enable_mathjax`` exists for notebooks only), so
    this replaces its page-level test ``panel.io.resources._panel_use_mathjax``; when a Panel
    version no longer has it, nothing changes and pages keep MathJax (logged once).
    """
    import panel.io.resources as resources

    if getattr(resources, "_panel_use_mathjax", None) is page_renders_tex:
        return
    if not hasattr(resources, "_panel_use_mathjax"):
        log.info("this Panel version has no _panel_use_mathjax; pages keep loading MathJax")
        return
    resources._panel_use_mathjax = page_renders_tex


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
    load_mathjax_only_for_tex()
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
        from vignette_lab.app.stores import SelfPlayStore
        return SelfPlayPage(SelfPlayStore(ctx.db), settings=ctx.settings, engine=ctx.engine)

    def review(user: User) -> Any:
        from vignette_lab.app.review_page import ReviewPage
        from vignette_lab.app.stores import ReviewStore
        return ReviewPage(ReviewStore(ctx.db), reviewer_id=user.user_id, reviewer_name=user.display_name)

    def agreement(user: User) -> Any:
        from vignette_lab.app.agreement_page import AgreementPage
        from vignette_lab.app.stores import AgreementStore
        return AgreementPage(AgreementStore(ctx.db), reports_dir=ctx.reports_dir)

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


SESSION_COOKIE = "vl_session"

# What /reports/ may serve: generated report pages and their assets, nothing else (no logs,
# no databases, no notebooks, no dot-files, no folder listings).
REPORT_SUFFIXES = frozenset({".html", ".htm", ".css", ".js", ".png", ".svg", ".jpg", ".jpeg", ".webp",
                             ".woff2"})
_CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
                  ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                  ".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                  ".webp": "image/webp", ".woff2": "font/woff2"}


def report_file(root: str | Path, rel: str) -> Path | None:
    """The file ``rel`` names inside ``root`` when it is a servable report file, else None.

    Refuses any path that leaves ``root`` (``..``, absolute paths, symlinks pointing out),
    hidden files and folders, and every suffix outside :data:`REPORT_SUFFIXES`.

    Examples
    --------
    >>> report_file("/tmp", "../etc/passwd") is None
    True
    """
    if not rel or "\\" in rel or "\x00" in rel:
        return None
    parts = [p for p in rel.split("/") if p]
    if not parts or any(p.startswith(".") for p in parts):
        return None
    base = Path(root).resolve()
    try:
        target = base.joinpath(*parts).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if base not in target.parents or not target.is_file():
        return None
    if target.suffix.lower() not in REPORT_SUFFIXES:
        return None
    return target


def _cookie_options(handler: Any) -> dict[str, Any]:
    from panel.config import config

    options: dict[str, Any] = {"httponly": True, "samesite": "Lax", "path": config.cookie_path or "/"}
    if handler.request.protocol == "https":
        options["secure"] = True
    return options


def session_user(handler: Any, sessions: Any) -> str | None:
    """The user of a request whose signed ``user`` cookie matches a live server-side session."""
    from panel.config import config

    user = handler.get_secure_cookie("user", max_age_days=config.oauth_expiry)
    token = handler.get_secure_cookie(SESSION_COOKIE, max_age_days=config.oauth_expiry)
    if not user or not token:
        return None
    name = user.decode("utf-8")
    return name if sessions.user_of(token.decode("ascii", "replace")) == name else None


def make_reports_handler(root: str | Path, resolve_user: Callable[[Any], User | None], *,
                         login_endpoint: str = "/login") -> type:
    """A Tornado handler for ``/reports/(.*)``: staff only, report files only.

    Parameters
    ----------
    root : path
        The report folder.
    resolve_user : callable
        ``handler -> User | None`` (None: not signed in → 302 to the login page).
    login_endpoint : str, default="/login"
    """
    import tornado.web
    from tornado.escape import url_escape

    class ReportsHandler(tornado.web.RequestHandler):
        def _refuse(self, status: int, message: str) -> None:
            self.set_status(status)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(message)

        def get(self, rel: str) -> None:
            user = resolve_user(self)
            if user is None:
                self.redirect(f"{login_endpoint}?next={url_escape(self.request.uri)}")
                return
            if not user.is_staff:
                self._refuse(403, "보고서는 연구자·교수·관리자만 볼 수 있습니다.")
                return
            target = report_file(root, rel)
            if target is None:
                self._refuse(404, "보고서를 찾을 수 없습니다.")
                return
            self.set_header("Content-Type", _CONTENT_TYPES[target.suffix.lower()])
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Cache-Control", "no-store")
            self.set_header("Referrer-Policy", "no-referrer")
            self.finish(target.read_bytes())

        def head(self, rel: str) -> None:
            self.get(rel)

    return ReportsHandler


def make_auth_provider(users: Mapping[str, tuple[User, str]], *, login_endpoint: str = "/login",
                       logout_endpoint: str = "/logout", sessions: SessionStore | None = None,
                       throttle: LoginThrottle | None = None, workers: int = 2) -> Any:
    """A Panel ``BasicAuthProvider`` with a hardened bcrypt login and server-side sessions.

    - bcrypt runs in a thread pool of ``workers`` threads, never on the event loop;
    - an unknown user costs the same bcrypt work as a known one (no timing oracle);
    - failed logins are rate limited per IP and per user name with exponential back-off
      (:class:`~vignette_lab.app.auth.LoginThrottle`; refused attempts get 429 and
      ``Retry-After``);
    - the signed ``user`` cookie is valid only together with a live server-side session
      (:class:`~vignette_lab.app.auth.SessionStore`); ``/logout`` ends it, so a copied cookie
      stops working;
    - cookies are ``HttpOnly``, ``SameSite=Lax``, and ``Secure`` when served over TLS.
    """
    from concurrent.futures import ThreadPoolExecutor

    from panel.auth import BasicAuthProvider, BasicLoginHandler, LogoutHandler, _validate_next_url
    from panel.config import config
    from panel.io.resources import _env
    from panel.io.state import state
    from tornado.escape import url_escape
    from tornado.ioloop import IOLoop
    from tornado.websocket import WebSocketHandler

    template = _env.from_string(LOGIN_HTML)
    session_store = sessions if sessions is not None else SessionStore()
    login_throttle = throttle if throttle is not None else LoginThrottle()
    checker = PasswordChecker(users)
    pool = ThreadPoolExecutor(max_workers=max(1, int(workers)), thread_name_prefix="vl-bcrypt")

    class BcryptLoginHandler(BasicLoginHandler):
        _login_template = template

        def get(self) -> None:
            errormessage = self.get_argument("error", "")
            next_url = _validate_next_url(self.get_argument("next", state.base_url))
            if next_url:
                self.set_cookie("next_url", next_url, **_cookie_options(self))
            self.write(self._login_template.render(login_endpoint=self._login_endpoint,
                                                   errormessage=errormessage))

        def _validate(self, username: str, password: str) -> bool:
            return checker.check(username, password)

        async def post(self) -> None:
            username = self.get_argument("username", "")[:256]
            password = self.get_argument("password", "")[:1024]
            ip = self.request.remote_ip or "unknown"
            wait = login_throttle.attempt(ip, username)
            if wait > 0:
                seconds = int(math.ceil(wait))
                self.set_status(429)
                self.set_header("Retry-After", str(seconds))
                self.write(self._login_template.render(
                    login_endpoint=self._login_endpoint,
                    errormessage=f"로그인 시도가 너무 많습니다. {seconds}초 뒤에 다시 시도하세요."))
                return
            ok = await IOLoop.current().run_in_executor(pool, checker.check, username, password)
            if not ok:
                self.redirect(f"{self._login_endpoint}?error="
                              + url_escape("아이디 또는 비밀번호가 올바르지 않습니다."))
                return
            login_throttle.success(ip, username)
            self.set_current_user(username)
            self.redirect(_validate_next_url(self.get_cookie("next_url", state.base_url)))

        def set_current_user(self, user: str | None) -> None:
            options = _cookie_options(self)
            self.clear_cookie("is_guest", path=options["path"])
            if not user:
                self.clear_cookie("user", path=options["path"])
                self.clear_cookie(SESSION_COOKIE, path=options["path"])
                return
            self.set_secure_cookie("user", user, expires_days=config.oauth_expiry, **options)
            self.set_secure_cookie(SESSION_COOKIE, session_store.issue(user), expires_days=config.oauth_expiry,
                                   **options)

    class SessionLogoutHandler(LogoutHandler):
        def get(self) -> None:
            token = self.get_secure_cookie(SESSION_COOKIE, max_age_days=config.oauth_expiry)
            session_store.revoke(token.decode("ascii", "replace") if token else None)
            path = config.cookie_path or "/"
            self.clear_cookie(SESSION_COOKIE, path=path)
            self.clear_cookie("user", path=path)
            super().get()

    class BcryptAuthProvider(BasicAuthProvider):
        sessions: SessionStore
        throttle: LoginThrottle
        checker: PasswordChecker

        @property
        def get_user(self):  # noqa: D401 - Panel API
            def get_user(handler):
                user = session_user(handler, session_store)
                if user and isinstance(handler, WebSocketHandler):
                    state._active_users[user] += 1
                return user
            return get_user

        @property
        def login_handler(self):  # noqa: D401 - Panel API
            BcryptLoginHandler._login_endpoint = self._login_endpoint
            return BcryptLoginHandler

        @property
        def logout_handler(self):  # noqa: D401 - Panel API
            SessionLogoutHandler._login_endpoint = self._login_endpoint
            return SessionLogoutHandler

    provider = BcryptAuthProvider(login_endpoint=login_endpoint, logout_endpoint=logout_endpoint)
    provider.sessions, provider.throttle, provider.checker = session_store, login_throttle, checker
    return provider


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    sys.exit(0)


def serve(db_url: str | None = None, *, port: int = 5006, address: str = "127.0.0.1", show: bool = False,
          users_file: str | Path | None = None, settings: Any = None, threaded: bool = False,
          cookie_secret: str | None = None, warm: bool = True, unix_socket: str | None = None,
          prefix: str = "", **ctx_options: Any) -> Any:
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
    unix_socket : str, optional
        Listen on this Unix socket instead of ``address:port`` (behind JupyterLab's proxy,
        :mod:`vignette_lab.app.jupyter_proxy`). Websocket origins are then not checked here:
        the only way in is the proxy, which checks them (and the login) itself.
    prefix : str, default=""
        URL prefix the pages are served under (``/vignette`` behind JupyterLab's proxy).

    Returns
    -------
    bokeh.server.server.Server or StoppableThread
    """
    ctx = AppContext(db_url, settings=settings, users_file=users_file, **ctx_options)
    routes = build_app(ctx=ctx)
    if warm:  # in the background: start.sh prints its URLs as soon as the server answers
        threading.Thread(target=ctx.warm_up, name="vl-warm-up", daemon=True).start()
    ctx.reports_dir.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {}
    if ctx.users is not None:
        provider = make_auth_provider(ctx.users)
        kwargs["auth_provider"] = provider
        users = ctx.users

        def resolve_user(handler: Any) -> User | None:
            name = session_user(handler, provider.sessions)
            return users[name][0] if name in users else None
    else:
        def resolve_user(handler: Any) -> User | None:
            return LOCAL_USER
    # Reports go through a role-checked handler, never a static folder (static_dirs would
    # publish every file under it, logs included, to anyone who can reach the port).
    reports = make_reports_handler(ctx.reports_dir, resolve_user)
    origins = [f"{host}:{port}" for host in ("localhost", "127.0.0.1", address)] if port and not unix_socket else ["*"]
    if unix_socket:
        kwargs["unix_socket"] = unix_socket
    if prefix:
        kwargs["prefix"] = prefix
    if not threaded and threading.current_thread() is threading.main_thread():
        # SIGTERM (scripts/start.sh's cleanup, systemd) ends the process through the normal
        # shutdown path, so atexit closes and checkpoints the DuckDB file (the file alone is complete)
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    return pn.serve(routes, port=port, address=address, show=show, admin=False,
                    extra_patterns=[(r"/reports/(.*)", reports)],
                    websocket_origin=origins, threaded=threaded, title="Vignette Lab",
                    cookie_secret=cookie_secret or secrets.token_hex(32), **kwargs)
