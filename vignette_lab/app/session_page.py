"""Trainee session page: persona pick → timed counseling chat with streaming, live coach → review.

One :class:`SessionPage` (a ``pn.viewable.Viewer``) per browser session. All work goes through
``vignette_lab.session.service.SessionService``; the page holds only display state. The same
turn logic runs synchronously (:meth:`SessionPage.send`, used by tests and notebooks) and
asynchronously in the server (:meth:`SessionPage.send_async`, which pulls each stream event in
a worker thread so the server stays responsive and every token reaches the browser).

The state line (생각 중… / 응답 중… / 오류) is a separate pane updated in place; it is never
added to :attr:`SessionPage.history`.
"""

from __future__ import annotations

import asyncio
import html
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import panel as pn
import param

from vignette_lab.app.auth import LOCAL_USER, User, require_session_access
from vignette_lab.app.render import (
    CHAT_CSS,
    HEADING_CSS,
    coach_card_markdown,
    credits_html,
    heading_html,
    message_html,
    progress_html,
    state_line_html,
)
from vignette_lab.core.messages import normalize_input
from vignette_lab.errors import (
    CoachCreditExhausted,
    PermissionDenied,
    SessionError,
    SessionTimeOver,
    VignetteError,
)

if TYPE_CHECKING:  # the read models pull the state machine and the guardrails (PII patterns)
    from vignette_lab.session.views import SessionInfo, TurnOutcome
    from vignette_lab.store.base import Database

__all__ = ["STAGES", "THEORY_MODES", "SessionPage"]

STAGES: tuple[str, ...] = ("라포", "탐색", "개입", "정리")
THEORY_MODES: dict[str, str] = {"humanistic": "인간중심", "cbt": "인지행동(CBT)", "integrative": "통합"}

_END = object()
#: How long the stream worker waits, after the first token, for the page to show it (seconds).
_FIRST_TOKEN_HEAD_START_S = 0.25




def _heading(text: str, *, level: int = 3) -> pn.pane.HTML:
    """A heading of fixed size (Markdown ``##`` changed size after a reload)."""
    return pn.pane.HTML(heading_html(text, level=level), stylesheets=[HEADING_CSS],
                        sizing_mode="stretch_width")


def _persona_label(view: dict[str, Any]) -> str:
    from vignette_lab.app.labels import difficulty_label

    theory = ", ".join(THEORY_MODES.get(t, t) for t in view.get("theory_target") or [])
    difficulty = difficulty_label(view.get("difficulty"))
    return (f"{view['code']} · {view.get('display_name', '')} "
            f"({view.get('age_band', '')} {view.get('grade', '')}, 난이도 {difficulty}"
            f"{', ' + theory if theory else ''})")


#: Shown when the trainee's own words carry a first-person crisis cue (guardrails.classify_crisis).
CRISIS_SUPPORT_NOTICE = (
    "혹시 지금 연습이 아니라 실제로 힘든 마음이라면 혼자 견디지 마세요. "
    "자살예방상담전화 109(24시간), 정신건강위기상담전화 1577-0199, 위급할 때는 119·112로 연락할 수 있어요. "
    "담당 교수자나 믿을 수 있는 사람에게 알려도 괜찮습니다."
)


class SessionPage(pn.viewable.Viewer):
    """The trainee's counseling session page.

    Parameters
    ----------
    service : SessionService or callable returning one
        The session API (``start``, ``send_stream``, ``progress``, ``coach``, ``end``, ``review``…).
        A zero-argument callable is called on first use, so a page that only shows the persona
        form never imports the engines (every page load inside JupyterLab is a new kernel).
    user : User, default=LOCAL_USER
        The signed-in user; sessions are started with ``learner_id=user.user_id``.
    personas : dict, optional
        ``{code: PersonaCard}``; loaded with ``load_personas()`` when omitted. Only
        ``public_view()`` is ever shown.
    token_delay : float, default=0.02
        Pause between streamed chunks in the served page so text appears progressively
        (the scripted engine produces a whole reply in microseconds). 0 in tests.
    db : Database, optional
        For the one query a fresh page makes before it needs the service (the user's session in
        progress); the service's own database when omitted.
    """

    persona = param.Selector(default=None, objects=[])  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
    theory_mode = param.Selector(default="humanistic", objects=list(THEORY_MODES))  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
    goal_stages = param.ListSelector(default=["라포", "탐색"], objects=list(STAGES))
    session_id = param.String(default=None, allow_None=True)
    view = param.Selector(default="setup", objects=["setup", "chat", "review", "denied"])  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
    state = param.Selector(default="idle", objects=["idle", "thinking", "responding", "error"])  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
    state_detail = param.String(default="")
    notice = param.String(default="", doc="one-line Korean notice (refusals, errors)")
    notice_level = param.Selector(default="error", objects=["error", "info"],  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
                                  doc="how the next notice looks: a refusal/error (red) or information")
    busy = param.Boolean(default=False)
    coach_credits = param.Integer(default=3)

    def __init__(self, service: Any, *, user: User = LOCAL_USER, personas: dict | None = None,
                 token_delay: float = 0.02, db: Database | None = None, **params: Any):
        if personas is None:
            from vignette_lab.core.personas import load_personas
            personas = load_personas()
        self._service_source = service
        self._db = db
        self._user = user
        self._views = {code: card.public_view() for code, card in sorted(personas.items())}
        self._token_delay = float(token_delay)
        # Trainees are bound to their own sessions by the service (PermissionDenied);
        # staff may open anyone's session for supervision.
        self._lid = None if user.is_staff else user.user_id
        super().__init__(**params)
        self.param.persona.objects = list(self._views)
        if self.persona is None and self._views:
            with param.parameterized.discard_events(self):  # widgets are not built yet
                self.persona = next(iter(self._views))
        #: Conversation history: dicts {role, body, kind}. The state line is never in here.
        self.history: list[dict[str, str]] = []
        self.coach_cards: list[dict[str, Any]] = []
        self.review_data: Any = None
        self._progress: dict[str, Any] = {}
        #: empty message panes at the end of the transcript, ready for the next turn
        self._spare: list[pn.pane.HTML] = []
        self._build()

    @property
    def _service(self) -> Any:
        """The session service, built on first use when the page was given a factory."""
        if callable(self._service_source):
            self._service_source = self._service_source()
        return self._service_source

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        css = [CHAT_CSS]
        self._persona_select = pn.widgets.Select.from_param(
            self.param.persona, name="페르소나",
            options={_persona_label(v): c for c, v in self._views.items()},
            sizing_mode="stretch_width", max_width=640)
        self._persona_info = pn.pane.HTML(self._persona_card_html(), stylesheets=css,
                                          sizing_mode="stretch_width", max_width=640)
        self._theory = pn.widgets.RadioButtonGroup.from_param(
            self.param.theory_mode, name="이론 모드", options={v: k for k, v in THEORY_MODES.items()})
        self._goals = pn.widgets.CheckButtonGroup.from_param(self.param.goal_stages, name="목표 단계")
        self._start_btn = pn.widgets.Button(label="회기 시작", color="primary",
                                            css_classes=["vl-start"])
        self._start_btn.on_click(lambda e: self.start())  # type: ignore[arg-type, return-value]  # Panel ignores a click callback's return value
        # The transcript takes the window's height (minus header, input and notice), not a fixed 460 px.
        self._messages = pn.Column(sizing_mode="stretch_width", css_classes=["vl-messages"],
                                   scroll=True, auto_scroll_limit=200, min_height=320,
                                   # a reopened session starts at its newest message: auto-scroll
                                   # only follows new messages from within 200 px of the bottom
                                   view_latest=True,
                                   styles={"height": "calc(100vh - 290px)"})
        self._chat_header = pn.pane.HTML("", css_classes=["vl-chat-header"], sizing_mode="stretch_width")
        self._state_pane = pn.pane.HTML(state_line_html("idle"), stylesheets=css,
                                        css_classes=["vl-state-line"], sizing_mode="stretch_width")
        self._input = pn.widgets.TextInput(placeholder="상담자로서 하고 싶은 말을 입력하세요",
                                           sizing_mode="stretch_width", css_classes=["vl-input"])
        self._input.param.watch(self._on_enter, "enter_pressed")
        self._send_btn = pn.widgets.Button(label="보내기", color="primary", css_classes=["vl-send"])
        self._send_btn.on_click(self._on_send_click)
        self._coach_btn = pn.widgets.Button(label="코칭 요청", css_classes=["vl-coach"])
        self._coach_btn.on_click(lambda e: self.request_coach())
        self._end_btn = pn.widgets.Button(label="회기 종료", color="danger", css_classes=["vl-end"])
        self._end_btn.on_click(lambda e: self.end())
        self._credits_pane = pn.pane.HTML(credits_html(self.coach_credits), css_classes=["vl-credits-pane"])
        self._progress_pane = pn.pane.HTML(progress_html({}), stylesheets=css, width=330,
                                           css_classes=["vl-progress-pane"])
        self._notice_pane = pn.pane.HTML("", stylesheets=css, sizing_mode="stretch_width",
                                         css_classes=["vl-notice"])
        self._coach_history = pn.pane.HTML("", stylesheets=css, width=330, css_classes=["vl-coach-history"])
        self._review_pane = pn.pane.HTML("", stylesheets=css, sizing_mode="stretch_width",
                                         css_classes=["vl-review"])
        self._body = pn.Column(sizing_mode="stretch_width")
        self._render_view()

    def _persona_card_html(self) -> str:
        view = self._views.get(self.persona)
        if not view:
            return ""
        return (f'<div class="vl-persona"><b>{html.escape(view.get("display_name", ""))}</b> '
                f'— {html.escape(str(view.get("presenting_summary", "")))}</div>')

    @param.depends("persona", watch=True)
    def _on_persona(self) -> None:
        self._persona_info.object = self._persona_card_html()

    @param.depends("state", "state_detail", watch=True)
    def _on_state(self) -> None:
        self._state_pane.object = state_line_html(self.state, self.state_detail)

    @param.depends("notice", watch=True)
    def _on_notice(self) -> None:
        css = "vl-info" if self.notice_level == "info" else "vl-refused"
        self._notice_pane.object = (f'<div class="{css}">{html.escape(self.notice)}</div>'
                                    if self.notice else "")
        self.notice_level = "error"  # information is opted into per notice

    def _inform(self, text: str) -> None:
        """Show ``text`` as information (not as a refusal)."""
        self.notice_level = "info"
        self.notice = text

    @param.depends("coach_credits", watch=True)
    def _on_credits(self) -> None:
        self._credits_pane.object = credits_html(self.coach_credits)
        self._coach_btn.disabled = self.coach_credits <= 0

    @param.depends("busy", watch=True)
    def _on_busy(self) -> None:
        self._send_btn.disabled = self.busy

    @param.depends("view", watch=True)
    def _render_view(self) -> None:
        if self.view == "setup":
            objs = [_heading("상담 회기 시작", level=2), self._persona_select, self._persona_info,
                    pn.pane.Markdown("**이론 모드**"), self._theory,
                    pn.pane.Markdown("**목표 단계** (1–4단계)"), self._goals, self._start_btn,
                    self._notice_pane]
        elif self.view == "chat":
            chat = pn.Column(self._chat_header, self._messages, self._state_pane, pn.Row(self._input, self._send_btn),
                             self._notice_pane, sizing_mode="stretch_width")
            side = pn.Column(_heading("진행 상황"), self._progress_pane,
                             _heading("라이브 코치"), pn.Row(self._coach_btn, self._credits_pane),
                             self._coach_history, self._end_btn, width=350)
            objs = [pn.Row(chat, side, sizing_mode="stretch_width")]
        elif self.view == "review":
            # The transcript stays beside the review, also when an ended session is reopened.
            transcript = pn.Column(_heading("축어록"), self._messages,
                                   css_classes=["vl-review-transcript"], sizing_mode="stretch_width")
            review = pn.Column(_heading("리뷰"), self._review_pane, sizing_mode="stretch_width")
            objs = [_heading("회기 리뷰", level=2), self._chat_header, self._notice_pane,
                    pn.Row(transcript, review, sizing_mode="stretch_width")]
        else:
            objs = [self._notice_pane]
        self._body.objects = objs

    def __panel__(self) -> pn.viewable.Viewable:
        return self._body

    # ------------------------------------------------------------------ actions
    def start(self) -> str | None:
        """Start a session with the chosen persona, theory mode and goal stages."""
        if not self.goal_stages:
            self.notice = "목표 단계를 하나 이상 고르세요."
            return None
        goals = [s for s in STAGES if s in self.goal_stages]
        try:
            info = self._service.start(self.persona, learner_id=self._user.user_id,
                                       goal_stages=tuple(goals), theory_mode=self.theory_mode,
                                       mode="live", cohort=self._user.cohort)
        except VignetteError as exc:
            self.notice = f"회기를 시작할 수 없습니다: {exc}"
            return None
        self.history = []
        self.coach_cards = []
        self._clear_messages()
        self.session_id = info.session_id
        self.notice = ""
        self._show_header(info)
        self.view = "chat"
        self._prepare_next_turn()
        self.refresh_progress()
        self._refresh_credits()
        self._remember_in_url()
        return self.session_id

    def _remember_in_url(self) -> None:
        """Put ``?page=session&session=<id>`` in the address bar (no reload), so a reload reopens it."""
        if pn.state.curdoc is None or not self.session_id:
            return
        session_id = self.session_id

        def update() -> None:
            location = pn.state.location
            if location is not None:
                # Panel annotates update_query's keyword values as mappings; they are query values
                location.update_query(page="session", session=session_id)  # type: ignore[arg-type]

        # While the page is being built the browser's own address would overwrite ours when it
        # connects, so the update waits for the page to load (onload runs it at once afterwards).
        pn.state.onload(update)

    def restore(self, session_id: str | None = None) -> bool:
        """Reopen ``session_id``, or else this user's latest session in progress.

        Called when the page is built, so a reload loses nothing: the transcript, timer,
        coach credits and cards come back from the database. Returns True when a session
        was opened.
        """
        if session_id:
            self.open_session(session_id)
            return self.view != "denied"
        from vignette_lab.store import app_repo

        row = app_repo.latest_active_session(self._db if self._db is not None else self._service.db,
                                             learner_id=self._user.user_id)
        if row is None:
            return False
        self.open_session(row["session_id"])
        if self.view == "chat":
            self._inform("진행 중이던 회기를 이어서 엽니다. 새 회기는 '회기 종료' 후에 시작할 수 있습니다.")
        return self.view != "denied"

    def open_session(self, session_id: str) -> None:
        """Open an existing session (resume or its review); trainees only their own."""
        try:
            info = self._service.get(session_id, learner_id=self._lid)
            require_session_access(self._user, info.learner_id, session_id,
                                   session_cohort=info.cohort)
        except PermissionDenied:
            self.view = "denied"
            self.notice = "이 회기를 볼 권한이 없습니다. 본인의 회기만 열 수 있습니다."
            return
        except VignetteError as exc:
            self.view = "denied"
            self.notice = f"회기를 열 수 없습니다: {exc}"
            return
        self.session_id = session_id
        self._show_header(info)
        transcript = self._service.transcript(session_id, viewer="learner", learner_id=self._lid)
        cards = [e for e in self._service.coach_history(session_id, learner_id=self._lid)
                 if e.get("event_type") == "use" and e.get("card")]
        self.history = []
        self.coach_cards = []
        self._clear_messages()
        # A coach card was asked for after the reply to counselor turn ``turn_seq``: it goes
        # after transcript row turn_seq + 1, as it did in the live page.
        items = [(int(r["seq"]), 0, r) for r in transcript]
        items += [(int(e.get("turn_seq") or 0) + 1, 1, e) for e in cards]
        for _, is_card, item in sorted(items, key=lambda x: (x[0], x[1])):
            if is_card:
                self._add_coach_card(item["card"], item.get("turn_seq"))
            else:
                role = "user" if item["speaker"] == "counselor" else "agent"
                self._append(role, item["text"] or "")
        self._remember_in_url()
        # a session in progress opens at its newest message; an ended one's review from the top
        self._messages.view_latest = info.status != "ended"
        if info.status == "ended":
            self._show_review(self._service.review(session_id, learner_id=self._lid))
        else:
            self.view = "chat"
            self._prepare_next_turn()
            # Progress and credits rebuild the live session (masker, embedder): in a fresh
            # process — every page load inside JupyterLab is a new kernel — that takes seconds,
            # so the transcript is shown first and they follow once the page has loaded.
            pn.state.onload(self._refresh_live)

    def _show_header(self, info: SessionInfo) -> None:
        """Which persona this session is with, when it started and its status, in Korean."""
        from vignette_lab.app.labels import format_time, status_label

        code = info.persona_code or self.persona
        view = self._views.get(code)
        who = _persona_label(view) if view else str(code or "")
        started = format_time(info.started_at)
        status = status_label(info.status or "active")
        self._chat_header.object = (f'<div class="vl-chat-title"><b>{html.escape(who)}</b>'
                                    f'<span style="color:#667"> · {html.escape(started)} 시작 · '
                                    f'{html.escape(status)}</span></div>' if who else "")

    def _refresh_live(self) -> None:
        self.refresh_progress()
        self._refresh_credits()

    def _append(self, role: str, body: str, kind: str = "chat", *, streaming: bool = False) -> pn.pane.HTML:
        if not streaming:
            self.history.append({"role": role, "body": body, "kind": kind})
        pane = pn.pane.HTML(message_html(role, body, kind=kind, streaming=streaming),
                            stylesheets=[CHAT_CSS], sizing_mode="stretch_width")
        objects = list(self._messages.objects)
        objects.insert(len(objects) - len(self._spare), pane)  # before the empty slots of the next turn
        self._messages.objects = objects
        return pane

    def _clear_messages(self) -> None:
        self._spare = []
        self._messages.objects = []

    @staticmethod
    def _empty_pane() -> pn.pane.HTML:
        return pn.pane.HTML("", stylesheets=[CHAT_CSS], sizing_mode="stretch_width", css_classes=["vl-msg-slot"])

    def _prepare_next_turn(self) -> None:
        """Put two empty message panes at the end of the transcript for the next turn (served pages).

        Adding a pane is the costly part of drawing a message (new models on the server, a new
        view with its own style sheet in the browser); done while the trainee is typing, the
        next turn only sets the text of panes that are already there.
        """
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None or len(self._spare) >= 2:
            return
        new = [self._empty_pane() for _ in range(2 - len(self._spare))]
        self._spare += new
        self._messages.objects = [*self._messages.objects, *new]

    def _take_slot(self) -> pn.pane.HTML:
        if self._spare:
            return self._spare.pop(0)
        pane = self._empty_pane()
        self._messages.objects = [*self._messages.objects, pane]
        return pane

    def _begin_turn(self, raw: str | None) -> str | None:
        text = normalize_input(raw)
        self._input.value = ""
        if text is None or self.busy or not self.session_id:
            return None  # blank input: no message, no reply, no state change
        self.notice = ""
        self.busy = True
        self.state, self.state_detail = "thinking", ""
        return text

    def _open_stream(self, text: str) -> Iterator[Any] | None:
        """The service's event stream for ``text`` (nothing runs until it is pulled), or None."""
        try:
            return iter(self._service.send_stream(self.session_id, text, learner_id=self._lid))
        except SessionTimeOver:
            self._refuse_time_over()
            return None
        except VignetteError as exc:
            self._fail(str(exc))
            return None

    def _show_turn(self, text: str) -> list[Any]:
        """Show the trainee's message and leave an empty slot after it for the reply.

        Both go into panes prepared after the previous turn when there are any
        (:meth:`_prepare_next_turn`), so drawing the message and then the first token only
        set the text of existing panes. Returns the turn's box ``[reply slot, message pane]``.
        """
        self.history.append({"role": "user", "body": text, "kind": "chat"})
        if not self._spare:  # a page that is not served (tests, notebooks): add both at once
            self._spare = [self._empty_pane(), self._empty_pane()]
            self._messages.objects = [*self._messages.objects, *self._spare]
        user = self._take_slot()
        user.object = message_html("user", text)
        return [self._take_slot(), user]

    def _drop_empty_slot(self, box: list[Any]) -> None:
        slot = box[0]
        if slot is not None and not slot.object:
            self._messages.objects = [o for o in self._messages.objects if o is not slot]
            box[0] = None

    def _retract_user_message(self, box: list[Any]) -> None:
        # A refused turn (time over) is not part of the conversation.
        if self.history and self.history[-1]["role"] == "user":
            self.history.pop()
            self._messages.objects = [o for o in self._messages.objects if o is not box[1]]

    def _refuse_time_over(self) -> None:
        self.busy = False
        self.state, self.state_detail = "idle", ""
        self.notice = "회기 시간이 끝나 더 이상 발화를 보낼 수 없습니다. '회기 종료'를 눌러 리뷰를 확인하세요."
        self._input.disabled = True
        self.refresh_progress()

    def _fail(self, detail: str) -> None:
        self.busy = False
        self.state, self.state_detail = "error", detail[:120]

    def _apply(self, event: Any, buf: list[str], pane_box: list[Any]) -> None:
        kind = event.type
        if kind == "token":
            buf.append(event.text)
            if pane_box[0] is None:
                pane_box[0] = self._append("agent", "".join(buf), streaming=True)
            else:
                pane_box[0].object = message_html("agent", "".join(buf), streaming=True)
            if self.state != "responding":  # after the text: the text is what the trainee waits for
                self.state = "responding"
        elif kind == "safety":
            replacement = event.text
            if replacement:
                buf[:] = [replacement]
        elif kind == "done":
            response = event.response
            final = (response.text if response is not None else "") or "".join(buf)
            buf[:] = [final]
            outcome: TurnOutcome | None = (response.metadata or {}).get("outcome") if response is not None else None
            if outcome is None:
                return
            self.coach_credits = outcome.coach_credits
            if outcome.coach_recharged:
                from vignette_lab.session.coach import recharge_message, trainee_turn_number

                turn = trainee_turn_number(outcome.counselor_seq)
                self._inform(" ".join(recharge_message(str(r), trainee_turn=turn)
                                      for r in outcome.coach_recharged))
            if outcome.crisis_escalated:
                # The trainee's own first-person crisis cue (not the persona's role-play):
                # say where real help is, right away, without ending the session for them.
                self.notice = CRISIS_SUPPORT_NOTICE
        elif kind == "error":
            raise SessionError(event.reason or "응답 생성 실패")

    def _finish(self, buf: list[str], pane_box: list[Any]) -> None:
        body = "".join(buf)
        if body:
            if pane_box[0] is None:
                pane_box[0] = self._append("agent", body)
            else:
                pane_box[0].object = message_html("agent", body)
                self.history.append({"role": "agent", "body": body, "kind": "chat"})
        else:
            self._drop_empty_slot(pane_box)
        self.busy = False
        self.state, self.state_detail = "idle", ""
        self.refresh_progress()
        self._refresh_credits()

    def _abandon(self, box: list[Any], exc: BaseException) -> bool:
        """End a turn whose stream raised ``exc``; always False (the turn did not complete)."""
        shown = box[0] is not None and bool(box[0].object)
        self._drop_empty_slot(box)
        if isinstance(exc, SessionTimeOver):
            if not shown:
                self._retract_user_message(box)
            self._refuse_time_over()
        elif isinstance(exc, VignetteError):
            self._fail(str(exc))
        else:  # an engine bug must not kill the page
            self._fail(f"{type(exc).__name__}: {exc}")
        return False

    def send(self, raw: str | None) -> bool:
        """Send one counselor utterance and consume the streamed reply (synchronously).

        Returns
        -------
        bool
            False when nothing happened (blank input, busy, refused).
        """
        text = self._begin_turn(raw)
        if text is None:
            return False
        events = self._open_stream(text)
        if events is None:
            return False
        box = self._show_turn(text)
        buf: list[str] = []
        try:
            for event in events:
                self._apply(event, buf, box)
        except VignetteError as exc:
            return self._abandon(box, exc)
        self._finish(buf, box)
        return True

    async def send_async(self, raw: str | None) -> bool:
        """Server variant of :meth:`send`.

        The service's stream holds its lock for the whole turn, so it is consumed by ONE
        worker thread that hands events to the event loop through a queue; the loop applies
        them (Bokeh models are only touched on the loop) and paces tokens for display.

        For the first visible token (issue 16: ≤ 150 ms): the worker starts before the page
        draws the trainee's message (masking, the state update and the client's reply run
        meanwhile; masking still precedes the engine, and the guardrail still checks every
        token before it is handed over), the reply goes into a slot drawn with that message,
        and after the first token the worker waits until the loop has shown it before it goes
        on to the turn's bookkeeping (evaluation, KB search, the database write), which would
        otherwise compete with the display for the interpreter.
        """
        text = self._begin_turn(raw)
        if text is None:
            return False
        events = self._open_stream(text)
        if events is None:
            return False
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        shown = threading.Event()

        def pump() -> None:
            try:
                for item in events:
                    loop.call_soon_threadsafe(queue.put_nowait, ("event", item))
                    if item.type == "token" and not shown.is_set():
                        shown.wait(_FIRST_TOKEN_HEAD_START_S)
                loop.call_soon_threadsafe(queue.put_nowait, ("end", None))
            except BaseException as exc:  # noqa: BLE001 - re-raised on the loop below
                loop.call_soon_threadsafe(queue.put_nowait, ("exc", exc))

        threading.Thread(target=pump, name="vl-send-stream", daemon=True).start()
        box = self._show_turn(text)
        buf: list[str] = []
        try:
            while True:
                kind, item = await queue.get()
                if kind == "end":
                    break
                if kind == "exc":
                    raise item
                self._apply(item, buf, box)
                if item.type == "token":
                    if not shown.is_set():
                        await asyncio.sleep(0)  # let the loop send the patch, then release the worker
                        shown.set()
                    if self._token_delay:
                        await asyncio.sleep(self._token_delay)
        except Exception as exc:  # noqa: BLE001 - see _abandon: an engine bug must not kill the page
            shown.set()
            return self._abandon(box, exc)
        shown.set()
        self._finish(buf, box)
        self._prepare_next_turn()
        return True

    async def _on_send_click(self, event: Any = None) -> None:
        await self.send_async(self._input.value_input or self._input.value)

    async def _on_enter(self, event: Any = None) -> None:
        await self.send_async(self._input.value)

    def refresh_progress(self) -> dict[str, Any]:
        """Re-read the trainee-safe progress numbers and redraw the panel."""
        if not self.session_id:
            return {}
        try:
            self._progress = dict(self._service.progress(self.session_id, learner_id=self._lid))
        except VignetteError:
            return self._progress
        self._progress_pane.object = (f'<div class="vl-session" data-session-id="{html.escape(self.session_id)}">'
                                      f'{progress_html(self._progress)}</div>')
        if self._progress.get("time_over"):
            self._input.disabled = True
        return self._progress

    def _refresh_credits(self) -> None:
        try:
            self.coach_credits = int(self._service.coach_credits(self.session_id, learner_id=self._lid))
        except (VignetteError, TypeError, ValueError):
            pass

    def request_coach(self) -> Any:
        """Ask the live coach for a card (uses one credit)."""
        if not self.session_id:
            return None
        try:
            card = self._service.coach(self.session_id, learner_id=self._lid)
        except CoachCreditExhausted as exc:
            self.notice = str(exc)
            self.coach_credits = 0
            return None
        except VignetteError as exc:
            self.notice = f"코칭 카드를 받을 수 없습니다: {exc}"
            return None
        self._add_coach_card(card, card.turn_seq)
        self.coach_credits = card.credits_left
        return card

    def _add_coach_card(self, card: Any, turn: Any) -> None:
        from vignette_lab.session.coach import trainee_turn_number

        markdown = coach_card_markdown(card)
        self._append("agent", markdown, kind="coach")
        self.coach_cards.append({"turn_seq": turn, "markdown": markdown})
        self._coach_history.object = "<ul>" + "".join(
            f"<li>상담자 {html.escape(str(trainee_turn_number(c['turn_seq']) if c['turn_seq'] is not None else '-'))}번째 발화: "
            f"{html.escape(c['markdown'].splitlines()[0].lstrip('# '))}</li>"
            for c in self.coach_cards) + "</ul>"

    def end(self) -> Any:
        """End the session (persisted first by the service) and show the review."""
        if not self.session_id:
            return None
        try:
            # the end is stored at once; embedding and the deep loop run in a worker and the
            # periodic refresh fills the review in (issue 16: end → review ≤ 1 s)
            review = self._service.end(self.session_id, learner_id=self._lid, background=True)
        except VignetteError as exc:
            self.notice = f"회기를 종료할 수 없습니다: {exc}"
            return None
        self.notice = ""
        try:  # the header was drawn when the session was active: show its stored status now
            self._show_header(self._service.get(self.session_id, learner_id=self._lid))
        except VignetteError:
            pass
        self._show_review(review)
        return review

    def refresh_review(self) -> Any:
        """Re-read a pending review."""
        if self.session_id:
            self._show_review(self._service.review(self.session_id, learner_id=self._lid))
        return self.review_data

    def _show_review(self, review: Any) -> None:
        from vignette_lab.app.review_render import review_html
        self.review_data = review
        self._review_pane.object = review_html(review)
        self.state, self.state_detail = "idle", ""
        self.view = "review"


def make_periodic_refresh(page: SessionPage) -> Callable[[], None]:
    """Callback for ``pn.state.add_periodic_callback``: timer/progress tick and pending review."""
    def tick() -> None:
        if page.view == "chat" and not page.busy:
            page.refresh_progress()
        elif page.view == "review" and page.review_data is not None and page.review_data.status == "pending":
            page.refresh_review()
    return tick
