"""HTML for chat messages, coach cards, the state line and the progress panel.

Pure functions (no Panel objects) so every rule is unit-testable: the label, CSS classes and
alignment of a message come from its role through :mod:`vignette_lab.core.messages`;
user (trainee) text is escaped and shown in a right-aligned bubble; agent text (client
replies, coach cards) is markdown, sanitised, and shown *without* a bubble (seed 002 §4.1).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from vignette_lab.app.markdown import render_markdown, render_partial_markdown
from vignette_lab.core.messages import align_for, css_class_for, label_for, role_class_for

__all__ = [
    "CHAT_CSS",
    "HEADING_CSS",
    "STATE_LABELS",
    "coach_card_markdown",
    "credits_html",
    "heading_html",
    "message_html",
    "progress_html",
    "state_line_html",
    "timer_text",
]

#: Page and section headings in pixels, so a heading looks the same whether it was drawn with the
#: page (a reload, a reopened session) or added later (Markdown headings scale with whatever font
#: size the surrounding document has at that moment: 28 px live, 14 px after a reload; QA round 5).
HEADING_CSS = """
.vl-heading { font-family: 'Noto Sans CJK KR', 'Noto Sans KR', sans-serif; color: #222; font-weight: 600;
              line-height: 1.3; }
h2.vl-heading { font-size: 24px; margin: 10px 0 6px; }
h3.vl-heading { font-size: 18px; margin: 8px 0 4px; }
"""


def heading_html(text: str, *, level: int = 3) -> str:
    """A page (``level=2``) or section (``level=3``) heading with fixed sizes (see :data:`HEADING_CSS`).

    >>> heading_html("진행 상황")
    '<h3 class="vl-heading">진행 상황</h3>'
    """
    if level not in (2, 3):
        raise ValueError(f"heading level must be 2 or 3, not {level!r}")
    return f'<h{level} class="vl-heading">{html.escape(text)}</h{level}>'


# Scaled for a chat column: H1 ≤ 1.4×, H2 1.2×, H4–H6 body size (seed 002 §4.2).
CHAT_CSS = """
/* Korean breaks between words (어절), never inside one ("요/즘"); a run longer than the line still wraps. */
:host { --vl-accent: #3b6fd8; font-family: 'Noto Sans CJK KR', 'Noto Sans KR', sans-serif;
  word-break: keep-all; overflow-wrap: anywhere; }
.vl-msg { margin: 14px 0; line-height: 1.6; font-size: 15px; }
.vl-msg .vl-label { font-size: 12px; color: #667; margin-bottom: 2px; }
.vl-msg.user-message { display: flex; flex-direction: column; align-items: flex-end; }
.vl-msg.user-message .vl-body { background: #e7efff; border-radius: 14px 14px 2px 14px;
  padding: 8px 12px; max-width: 75%; white-space: pre-wrap; word-break: keep-all;
  overflow-wrap: anywhere; }
.vl-msg.response-message { text-align: left; }
.vl-msg.response-message .vl-body { padding: 0; background: none; border: none; max-width: 100%; }
.vl-msg.coach .vl-body { border-left: 3px solid #e0a100; padding-left: 12px; }
.vl-body h1 { font-size: 1.4em; margin: 1.2em 0 .4em; } .vl-body h2 { font-size: 1.2em; margin: 1.1em 0 .4em; }
.vl-body h3 { font-size: 1.1em; margin: 1em 0 .3em; }
.vl-body h4, .vl-body h5, .vl-body h6 { font-size: 1em; margin: 1em 0 .3em; }
.vl-body h1, .vl-body h2, .vl-body h3, .vl-body h4, .vl-body h5, .vl-body h6 { font-weight: 700; }
.vl-body code { font-family: 'Noto Sans Mono CJK KR', monospace; background: #f1f2f4; padding: 1px 4px; border-radius: 4px; }
.vl-body pre { background: #f6f8fa; padding: 10px 12px; border-radius: 6px; overflow-x: auto; min-height: 1.6em; }
.vl-body pre code { background: none; padding: 0; white-space: pre; }
.vl-body table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%; }
.vl-body th, .vl-body td { border: 1px solid #d0d4da; padding: 4px 10px; }
.vl-body th { background: #f1f3f6; font-weight: 700; }
.vl-body blockquote { border-left: 4px solid #c8ccd4; margin: 8px 0; padding: 2px 12px; color: #444; }
.vl-body hr { border: none; border-top: 1px solid #d0d4da; margin: 12px 0; width: 100%; }
.vl-body ul { list-style: disc; padding-left: 1.4em; } .vl-body ul ul { list-style: circle; }
.vl-body ul ul ul { list-style: square; } .vl-body ol { padding-left: 1.6em; }
.vl-body ul.contains-task-list { list-style: none; padding-left: .4em; }
.vl-body img { max-width: 100%; height: auto; }
.vl-body kbd { border: 1px solid #bbb; border-radius: 4px; box-shadow: 0 1px 0 #bbb; padding: 0 4px; font-family: monospace; }
.vl-review-body table { border-collapse: collapse; margin: 6px 0; }
.vl-review-body th, .vl-review-body td { border: 1px solid #d0d4da; padding: 4px 10px; text-align: left; }
.vl-review-body th { background: #f1f3f6; }
.vl-state { min-height: 1.4em; color: #555; font-size: 13px; }
.vl-state.error { color: #b3261e; font-weight: 600; }
.vl-progress table { border-collapse: collapse; } .vl-progress td { padding: 2px 8px; }
.vl-bar { background: #eceef2; border-radius: 4px; width: 140px; height: 10px; display: inline-block; vertical-align: middle; }
.vl-bar > span { background: var(--vl-accent); border-radius: 4px; height: 10px; display: block; }
.vl-warning { background: #fff4d6; border: 1px solid #e0a100; padding: 6px 10px; border-radius: 6px; }
.vl-refused { background: #fde7e7; border: 1px solid #b3261e; padding: 6px 10px; border-radius: 6px; }
.vl-info { background: #eef4ff; border: 1px solid #3b6fd8; padding: 6px 10px; border-radius: 6px; }
"""

STATE_LABELS: Mapping[str, str] = {
    # Plain text: the installed fonts have no emoji glyphs (they render as boxes).
    "thinking": "생각 중…",
    "responding": "응답 중…",
    "error": "오류가 발생했습니다",
    "idle": "",
}


def message_html(role: str, body: str, *, kind: str = "chat", streaming: bool = False,
                 context: str = "session") -> str:
    """Render one message.

    Parameters
    ----------
    role : {"user", "agent"}
        Canonical role; label, classes and alignment derive from it.
    body : str
        Text. User text is escaped verbatim; agent text is markdown.
    kind : {"chat", "coach"}, default="chat"
        Coach cards are agent messages with a coach label.
    streaming : bool, default=False
        Render a partial (possibly unterminated) markdown snapshot.
    context : {"default", "session"}, default="session"
        Label set (상담자/내담자 on the session page).

    Returns
    -------
    str
        ``<div class="vl-msg user-message|response-message" data-role=… data-align=…>``.
    """
    if kind not in ("chat", "coach"):
        raise ValueError(f"message kind must be 'chat' or 'coach', got {kind!r}")
    label = "라이브 코치" if kind == "coach" else label_for(role, context=context)
    if role == "user":
        inner = html.escape(body)
    else:
        inner = render_partial_markdown(body) if streaming else render_markdown(body)
    classes = f"vl-msg {css_class_for(role)}" + (" coach" if kind == "coach" else "")
    state = ' data-streaming="1"' if streaming else ""
    return (f'<div class="{classes}" data-role="{role}" data-align="{align_for(role)}"{state}>'
            f'<div class="vl-label {role_class_for(role)}">{html.escape(label)}</div>'
            f'<div class="vl-body">{inner}</div></div>')


def coach_card_markdown(card: Any) -> str:
    """Markdown for a live-coach card (object with attributes or a mapping).

    The card's ``message`` is engine text and may itself hold markdown; it is rendered
    like any agent text (and sanitised).
    """
    def get(name: str) -> str:
        value = card.get(name) if isinstance(card, Mapping) else getattr(card, name, None)
        return "" if value is None else str(value)

    parts = [f"#### {get('title') or '코칭 카드'}"]
    if get("focus"):
        parts.append(f"**초점:** {get('focus')}")
    if get("message"):
        parts.append(get("message"))
    if get("next_utterance"):
        parts.append(f"> 다음 발화 예시: {get('next_utterance')}")
    if get("rationale"):
        parts.append(f"*{get('rationale')}*")
    return "\n\n".join(parts)


def state_line_html(state: str, detail: str = "") -> str:
    """The single in-place state indicator (never a chat message)."""
    if state not in STATE_LABELS:
        raise ValueError(f"state must be one of {sorted(STATE_LABELS)}, got {state!r}")
    text = STATE_LABELS[state] + (f": {detail}" if detail else "")
    cls = "vl-state error" if state == "error" else "vl-state"
    return f'<div class="{cls}" data-state="{state}">{html.escape(text)}</div>'


def credits_html(credits: int, *, maximum: int = 3) -> str:
    """Coach credits as a label and filled/empty dots: ``코치 도움 남은 횟수 2/3 ●●○``."""
    credits = max(0, min(int(credits), maximum))
    dots = "●" * credits + "○" * (maximum - credits)
    label = f"코치 도움 남은 횟수 {credits}/{maximum}"
    return (f'<span class="vl-credits-box" title="{label} — 코치 카드를 한 번 받을 때마다 하나씩 줄어듭니다">'
            f'<span class="vl-credits-label">{label}</span> '
            f'<span class="vl-credits" data-credits="{credits}" aria-hidden="true">{dots}</span></span>')


def timer_text(remaining_s: float | None) -> str:
    """``MM:SS`` of the remaining time (``00:00`` once over)."""
    if remaining_s is None:
        return "60:00"
    remaining = max(0, int(round(remaining_s)))
    return f"{remaining // 60:02d}:{remaining % 60:02d}"


def _bar(label: str, percent: Any, key: str) -> str:
    try:
        value = max(0.0, min(100.0, float(percent)))
    except (TypeError, ValueError):
        value = 0.0
    return (f'<tr data-key="{key}"><td>{html.escape(label)}</td><td><span class="vl-bar">'
            f'<span style="width:{value:.0f}%"></span></span></td><td>{value:.0f}%</td></tr>')


def progress_html(progress: Mapping[str, Any]) -> str:
    """Trainee-safe progress panel: stage gauge, rapport, openness, defense (percent) and timer.

    Only the keys listed here are read, so ideation or CCD values can never appear even if a
    caller passes a richer dict.
    """
    stage = html.escape(str(progress.get("stage") or progress.get("stage_label") or "라포"))
    rows = [
        _bar("단계 진행", progress.get("stage_gauge", 0), "stage_gauge"),
        _bar("라포", progress.get("rapport_percent", 0), "rapport_percent"),
        _bar("개방성", progress.get("openness_percent", 0), "openness_percent"),
        _bar("방어", progress.get("defense_percent", 0), "defense_percent"),
    ]
    timer = timer_text(progress.get("remaining_s"))
    banner = ""
    if progress.get("time_over"):
        banner = '<div class="vl-refused">회기 시간이 끝났습니다. 회기를 종료하고 리뷰를 확인하세요.</div>'
    elif progress.get("warning"):
        banner = '<div class="vl-warning">종료 10분 전입니다. 오늘 회기를 정리할 준비를 하세요.</div>'
    return (f'<div class="vl-progress"><div><b>현재 단계:</b> <span class="vl-stage">{stage}</span>'
            f' &nbsp; <b>남은 시간:</b> <span class="vl-timer">{timer}</span></div>{banner}'
            f'<table>{"".join(rows)}</table></div>')
