"""Self-play page (researcher): run AI-counselor × AI-client batches and browse the sessions.

Runs ``vignette_lab.session.selfplay.run_selfplay`` one persona at a time (same seed and
semantics as ``vignette-lab selfplay``) in a worker thread (``JOBS``) with its own database handle, so
trainees' turns never wait for it; the progress bar moves after every counselor turn; the browser
lists stored self-play sessions and, per session, its turns (speaker, masked text, intended
technique, stage, openness).
"""

from __future__ import annotations

import asyncio
import html
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pandas as pd
import panel as pn
import param

from vignette_lab.app.labels import format_time, profile_label, status_label
from vignette_lab.app.stores import SelfPlayStore
from vignette_lab.errors import VignetteError

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine

log = logging.getLogger(__name__)

__all__ = ["JOBS", "SelfPlayPage", "engine_line", "session_turns_frame", "selfplay_sessions_frame"]

# Long jobs started from pages run here, never on the event loop or a trainee's request.
JOBS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vignette-job")


def selfplay_sessions_frame(store: SelfPlayStore, *, limit: int = 200) -> pd.DataFrame:
    """Stored self-play sessions, newest first, in Korean (profile, status, local start time)."""
    rows = store.sessions()
    rows = sorted(rows, key=lambda r: r["started_at"], reverse=True)[:limit]
    return pd.DataFrame([{"session_id": r["session_id"], "persona": r["persona_code"],
                          "counselor": profile_label(r.get("counselor_profile")),
                          "status": status_label(r["status"]),
                          "started_at": format_time(r["started_at"], seconds=True)} for r in rows],
                        columns=["session_id", "persona", "counselor", "status", "started_at"])


#: Korean column headers of the two tables (the frames keep code column names for callers).
SESSION_TITLES = {"session_id": "회기 ID", "persona": "페르소나", "counselor": "상담자 프로필", "status": "상태",
                  "started_at": "시작 시각"}
TURN_TITLES = {"seq": "순번", "speaker": "화자", "text": "발화 (마스킹)", "intended_technique": "의도한 기법",
               "stage": "단계", "openness": "개방성"}


#: Table headers and cells wrap (never cut off with "…": Tabulator's default is one line with an
#: ellipsis) and Korean text breaks between words.
_TABLE_CSS = """
.tabulator-col .tabulator-col-title { white-space: normal; word-break: keep-all; overflow-wrap: anywhere; }
/* Tabulator's 1 px filler column after the last one: its sort arrow showed, cut, at the right edge */
.tabulator .tabulator-header .tabulator-col:not([tabulator-field]) .tabulator-col-content { visibility: hidden; }
.tabulator .tabulator-row .tabulator-cell { white-space: normal; text-overflow: clip; word-break: keep-all; overflow-wrap: anywhere; }
"""

#: Korean for the engine choice (``engine_status``'s reason is English, for logs and the CLI).
_ENGINE_REASONS = {
    "scripted (VIGNETTE_ENGINE=scripted)": "설정에서 스크립트 엔진을 골랐습니다",
    "anthropic (VIGNETTE_ENGINE=anthropic, ANTHROPIC_API_KEY set)": "설정에서 Claude를 골랐고 API 키가 있습니다",
    "anthropic (auto: ANTHROPIC_API_KEY set)": "자동 선택: API 키가 있어 Claude를 씁니다",
    "scripted (offline default: ANTHROPIC_API_KEY not set)": "오프라인 기본값: API 키가 없어 스크립트 엔진을 씁니다",
}


def engine_line(status: dict[str, Any]) -> str:
    """``활성 엔진: 오프라인 스크립트 엔진 (scripted) · 오프라인 기본값: … (ANTHROPIC_API_KEY 없음)``.

    Korean first; the setting names stay as secondary text in parentheses.
    """
    active = str(status.get("active"))
    names = {"scripted": "오프라인 스크립트 엔진", "anthropic": "Claude", "error": "설정 오류"}
    reason = str(status.get("reason") or "")
    settings = {"scripted (VIGNETTE_ENGINE=scripted)": "VIGNETTE_ENGINE=scripted",
                "anthropic (VIGNETTE_ENGINE=anthropic, ANTHROPIC_API_KEY set)": "VIGNETTE_ENGINE=anthropic",
                "anthropic (auto: ANTHROPIC_API_KEY set)": "ANTHROPIC_API_KEY 있음",
                "scripted (offline default: ANTHROPIC_API_KEY not set)": "ANTHROPIC_API_KEY 없음"}
    if reason in _ENGINE_REASONS:
        why = f"{_ENGINE_REASONS[reason]} ({settings[reason]})"
    elif active == "error":
        why = f"엔진 설정을 확인하세요 ({reason})"
    else:
        why = reason
    head = f"활성 엔진: {names[active]} ({active})" if active in names else f"활성 엔진: {active}"
    return f"{head} · {why}" if why else head


def _technique_label(code: str | None) -> str:
    """``감정 반영 (reflection_feelings)``: the Korean label with the stored code."""
    if not code:
        return ""
    try:
        from vignette_lab.core.taxonomy import load_taxonomy
        return f"{load_taxonomy().technique(code).label} ({code})"
    except Exception as exc:  # noqa: BLE001 - an unknown code is shown as stored
        log.debug("no taxonomy label for this technique code: %s", exc)
        return str(code)


def session_turns_frame(store: SelfPlayStore, session_id: str) -> pd.DataFrame:
    """Per-turn table of one session: speaker, masked text, intended technique, stage, openness."""
    session = store.session(session_id) or {}
    # State is stored on client turns (after the reply); a counselor turn shows the state it
    # was spoken in: the previous client turn's, or the session's initial state.
    current = dict((session.get("meta") or {}).get("initial_state") or {})
    out = []
    for t in store.turns(session_id):
        if t.get("state_after"):
            current = dict(t["state_after"])
        openness = current.get("effective_openness")
        out.append({"seq": t["seq"], "speaker": "상담자" if t["speaker"] == "counselor" else "내담자",
                    "text": t["text_masked"], "intended_technique": _technique_label(t.get("intended_technique")),
                    "stage": current.get("stage", ""),
                    "openness": round(float(openness), 3) if isinstance(openness, (int, float)) else None})
    return pd.DataFrame(out, columns=["seq", "speaker", "text", "intended_technique", "stage", "openness"])


class SelfPlayPage(pn.viewable.Viewer):
    """Run and browse self-play.

    Parameters
    ----------
    store : SelfPlayStore
        Stored self-play sessions and new batches (the page holds no database).
    settings : Settings, optional
        Decides the active engine (scripted unless an Anthropic key is configured).
    engine : Engine, optional
        Overrides the settings (tests).
    """

    personas = param.ListSelector(default=["P4"], objects=[])
    counselor = param.Selector(default="skilled", objects=["skilled", "novice", "advice-jumper", "improving"])  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
    sessions = param.Integer(default=2, bounds=(1, 200))
    turns = param.Integer(default=10, bounds=(1, 60))
    seed = param.Integer(default=7)
    running = param.Boolean(default=False)

    def __init__(self, store: SelfPlayStore, *, settings: Any = None, engine: Engine | None = None, **params: Any):
        from vignette_lab.core.personas import load_personas

        super().__init__(**params)
        self.store, self.settings, self._engine = store, settings, engine
        self.param.personas.objects = sorted(load_personas())
        from vignette_lab.engines import engine_status
        status = engine_status(settings) if engine is None else {"active": getattr(engine, "name", "custom"),
                                                                 "reason": "지정된 엔진"}
        self.engine_label = engine_line(status)
        # shown once a run starts: before that it is an empty outlined box
        self._progress = pn.indicators.Progress(value=0, max=1, width=400, css_classes=["vl-selfplay-progress"],
                                                visible=False)
        self._status = pn.pane.HTML("", css_classes=["vl-selfplay-status"])
        self._run = pn.widgets.Button(label="실행", color="primary", css_classes=["vl-selfplay-run"])
        self._run.on_click(self._on_run)
        # fit_columns with every column a share of the table (summing to 97 %): the tables fit the
        # page at 1366 px as at 1920 px. With one flexible column Tabulator filled the width and
        # Panel's trailing 10 px cell then pushed the last column ("시작 시각", "개방성") 9 px under
        # the edge. Headers wrap rather than clip; the utterance column wraps instead of widening.
        self._sessions = pn.widgets.Tabulator(selfplay_sessions_frame(store), selectable=1, disabled=True,
                                              show_index=False, height=260, sizing_mode="stretch_width",
                                              layout="fit_columns", titles=SESSION_TITLES,
                                              widths={"session_id": "36%", "persona": "11%", "counselor": "20%",
                                                      "status": "10%", "started_at": "20%"},
                                              stylesheets=[_TABLE_CSS], css_classes=["vl-selfplay-sessions"])
        self._sessions.param.watch(self._on_select, "selection")
        self._turns = pn.widgets.Tabulator(pd.DataFrame(columns=list(TURN_TITLES)),
                                           disabled=True, show_index=False, height=360, layout="fit_columns",
                                           titles=TURN_TITLES, widths={"seq": "7%", "speaker": "8%", "text": "44%",
                                                                       "intended_technique": "20%", "stage": "8%",
                                                                       "openness": "10%"},
                                           stylesheets=[_TABLE_CSS],
                                           formatters={"text": {"type": "textarea"}},
                                           sizing_mode="stretch_width", css_classes=["vl-selfplay-turns"])
        self._empty = pn.pane.HTML(self._empty_html(), css_classes=["vl-selfplay-empty"],
                                   sizing_mode="stretch_width")
        self.last_result: Any = None

    def __panel__(self) -> pn.viewable.Viewable:
        form = pn.Column(
            pn.widgets.MultiChoice.from_param(self.param.personas, label="페르소나"),
            pn.widgets.Select.from_param(self.param.counselor, label="상담자 프로필",
                                         options={profile_label(c): c for c in self.param.counselor.objects}),
            pn.Row(pn.widgets.IntInput.from_param(self.param.sessions, label="페르소나별 회기 수", width=150),
                   pn.widgets.IntInput.from_param(self.param.turns, label="회기당 상담자 턴", width=150),
                   pn.widgets.IntInput.from_param(self.param.seed, label="시드", width=100)),
            pn.pane.HTML(f"<small>{html.escape(self.engine_label)}</small>"),
            pn.Row(self._run, self._progress), self._status, width=520)
        return pn.Column(pn.pane.Markdown("## 셀프플레이"), form, pn.pane.Markdown("### 저장된 셀프플레이 회기"),
                         self._empty, self._sessions, pn.pane.Markdown("### 턴별 보기"), self._turns, sizing_mode="stretch_width")

    def run(self, on_progress: Any = None) -> Any:
        """Run the batch synchronously; returns the list of ``SelfPlayResult`` (one per persona)."""
        if not self.personas:
            self._status.object = "페르소나를 하나 이상 고르세요."
            return None
        results = []
        per_persona = self.sessions * self.turns
        self._progress.max, self._progress.value = max(1, len(self.personas) * per_persona), 0
        self._progress.visible = True

        def report(value: int) -> None:
            if on_progress is not None:
                on_progress(value)
            else:
                self._progress.value = value
        # The batch runs on its own database handle (a second cursor on the DuckDB file, its own
        # Postgres connection): trainees' turns on the app's handle never wait for it beyond one
        # statement (issue 14 item 4).
        with self.store.batch() as batch:
            for i, code in enumerate(self.personas):
                # run_selfplay calls back after every counselor turn: the bar moves per turn
                results.append(batch.run(code, counselor=self.counselor, sessions=self.sessions,
                                         turns=self.turns, seed=self.seed, engine=self._engine,
                                         progress=lambda done, _total, base=i * per_persona: report(base + done)))
                report((i + 1) * per_persona)
        self.last_result = results
        summary = "; ".join(f"{row.get('persona')}: {row.get('sessions')}회기, 탐색 이상 도달 "
                            f"{100 * float(row.get('reached_exploration_share') or 0):.0f}%, 평균 최종 개방성 "
                            f"{float(row.get('mean_final_openness') or 0):.2f}"
                            for r in results for row in r.summary)
        self._status.object = f'<span class="vl-selfplay-done">완료: {html.escape(summary)}</span>'
        self._sessions.value = selfplay_sessions_frame(self.store)
        self._empty.object = self._empty_html()
        return results

    def _empty_html(self) -> str:
        if len(self._sessions.value):
            return ""
        return ('<p class="vl-empty">저장된 셀프플레이 회기가 없습니다 — 위에서 페르소나와 상담자 프로필을 고르고 '
                '<b>실행</b>을 누르세요 (CLI: <code>vignette-lab selfplay</code>, 노트북 01).</p>')

    async def _on_run(self, event: Any = None) -> None:
        if self.running:
            return
        self.running = True
        self._run.disabled = True
        self._status.object = "실행 중…"
        self._progress.visible = True
        loop = asyncio.get_running_loop()

        def progress(i: int) -> None:
            loop.call_soon_threadsafe(setattr, self._progress, "value", i)
        try:
            await loop.run_in_executor(JOBS, self.run, progress)
        except VignetteError as exc:
            self._status.object = f'<span style="color:#b3261e">{html.escape(str(exc))}</span>'
        finally:
            self.running = False
            self._run.disabled = False

    def _on_select(self, event: Any) -> None:
        if not event.new:
            return
        session_id = self._sessions.value.iloc[event.new[0]]["session_id"]
        self.show_session(session_id)

    def show_session(self, session_id: str) -> pd.DataFrame:
        frame = session_turns_frame(self.store, session_id)
        self._turns.value = frame
        return frame
