"""Reviewer page: the Panel face of ``vignette_lab.pipeline.review.ReviewQueue``.

Same logic and key dispatch (:func:`~vignette_lab.pipeline.review.scheme_keys` and
:func:`~vignette_lab.pipeline.review.key_action`: a key for every category) as the notebook
widget: context turns, the AI proposal (hideable; hidden in blind rounds), guidelines,
technique and client-state checkboxes, appropriateness, 0–5 scores, rationale, progress, and
an atomic ``submit`` per save.

Nothing is filled in for the reviewer: a score starts unset ("미입력") and is stored only when
the reviewer picks a value (a default would become a "human" label and inflate ICC); a field the
scheme marks ``required`` must be set before 저장 saves. The AI proposal is hidden until the
reviewer asks for it (``h`` or the button), for every item, so a reviewer forms a judgement first.
The 저장/이전/건너뛰기 row and its message sit at the top of the form column, where the reviewer
looks at 1366×768. Keys reach Python through :class:`KeyListener`, a tiny
``JSComponent`` whose ES module is served by the Panel server itself (works offline).
"""

from __future__ import annotations

import html
import time
from typing import Any

import panel as pn
import param
from panel.custom import JSComponent

from vignette_lab.app.render import CHAT_CSS
from vignette_lab.app.stores import ReviewStore, human_rounds_for, masked_html
from vignette_lab.errors import VignetteError

__all__ = ["KeyListener", "NO_ROUND_HTML", "ReviewPage", "UNSET", "human_rounds_for", "score_of", "score_widget",
           "set_score", "shortcut_line"]

#: The label of an unset score (stored as no value).
UNSET = "미입력"
#: Most buttons a score row shows before it becomes a number box (0–5 in steps of 1 is 6 + 미입력).
_MAX_SCORE_BUTTONS = 7
_SHOW_LABEL, _HIDE_LABEL = "AI 제안 보기 (h)", "AI 제안 숨기기 (h)"


_UNSET_VALUE = ""


def score_of(widget: Any) -> float | None:
    """The score a :func:`score_widget` holds, None when unset (미입력)."""
    v = widget.value
    return None if v is None or v == _UNSET_VALUE else float(v)


def set_score(widget: Any, v: float | None) -> None:
    """Show ``v`` (None: 미입력) in a :func:`score_widget`; a button row takes its nearest value."""
    if isinstance(widget, pn.widgets.RadioButtonGroup):
        if v is None:
            widget.value = _UNSET_VALUE
        else:
            options = [o for o in widget.options.values() if o != _UNSET_VALUE]
            widget.value = min(options, key=lambda o: abs(o - v))
    else:
        widget.value = None if v is None else float(v)


def score_widget(lo: float, hi: float, step: float, *, css_classes: list[str] | None = None) -> Any:
    """A score control whose value is None until the reviewer sets it.

    A row of buttons "미입력 · lo … hi" when the range has few steps (미입력 is a real option,
    ``""``, so the browser highlights it: Panel sends no active button for ``None``), otherwise a
    number box with the placeholder "미입력". Read it with :func:`score_of` (None = unset).
    """
    n = int(round((hi - lo) / step)) + 1
    classes = ["vl-score", *(css_classes or [])]
    if n + 1 <= _MAX_SCORE_BUTTONS:
        values = [lo + i * step for i in range(n)]
        options = {UNSET: _UNSET_VALUE, **{f"{v:g}": (int(v) if float(v).is_integer() else v) for v in values}}
        return pn.widgets.RadioButtonGroup(options=options, value=_UNSET_VALUE, css_classes=classes)
    return pn.widgets.FloatInput(value=None, start=lo, end=hi, step=step, placeholder=UNSET, width=160,
                                 css_classes=classes)


class KeyListener(JSComponent):
    """Forwards document-level key presses (outside text fields), one message per key.

    Each press is its own ``send_msg`` message: syncing a ``key`` property would let two fast
    presses coalesce into one update and lose the first key.
    """

    key = param.String(default="", doc="last key received")
    count = param.Integer(default=0, doc="number of keys received")

    _esm = """
    export function render({ model }) {
      const onKey = (event) => {
        const target = event.composedPath()[0];
        const tag = target && target.tagName ? target.tagName.toUpperCase() : "";
        if (tag === "TEXTAREA" || (tag === "INPUT" && (target.type === "text" || target.type === "search"))) {
          return;
        }
        if (event.ctrlKey || event.metaKey || event.altKey) { return; }
        model.send_msg({ key: event.key });
      };
      document.addEventListener("keydown", onKey);
      model.on("remove", () => document.removeEventListener("keydown", onKey));
      const el = document.createElement("span");
      el.className = "vl-keys-ready";
      el.textContent = "⌨";
      el.title = "단축키를 쓸 수 있습니다";
      return el;
    }
    """

    def _handle_msg(self, data: Any) -> None:
        if isinstance(data, dict) and isinstance(data.get("key"), str):
            self.key = data["key"]
            self.count += 1


#: Shown instead of an empty round selector: what to do to get a round.
NO_ROUND_HTML = ('<div class="vl-empty vl-info" style="padding:8px 12px">검토할 라운드가 없습니다 — 노트북 02 '
                 '(AI 주석)와 03 (사람 검토 배정)으로 만들거나 <code>vignette-lab annotate --round ai --dataset …</code> '
                 '뒤 <code>vignette-lab review assign --dataset … --reviewer {who}</code>로 만드세요. '
                 '전체 흐름을 한 번에 보려면 <code>vignette-lab pipeline demo</code>.</div>')


def _key_runs(keys: list[str]) -> str:
    """``1–9·0·b·c·e``: keys in the order they are given, runs of three or more as a range."""
    out: list[str] = []
    i = 0
    while i < len(keys):
        j = i
        while j + 1 < len(keys) and len(keys[j]) == len(keys[j + 1]) == 1 and ord(keys[j + 1]) == ord(keys[j]) + 1:
            j += 1
        out.append(f"{keys[i]}–{keys[j]}" if j - i >= 2 else "·".join(keys[i:j + 1]))
        i = j + 1
    return "·".join(out)


def shortcut_line(scheme: Any | None, keys: dict[str, dict[str, tuple[str, str]]], *,
                  proposal_key: bool = True) -> str:
    """The review page's one-line shortcut help for the active scheme's keys.

    Parameters
    ----------
    scheme : LabelScheme or None
        None before a round is open.
    keys : dict
        :func:`~vignette_lab.pipeline.review.scheme_keys` of ``scheme``.
    proposal_key : bool, default=True
        Whether ``h`` toggles the AI proposal (the default-taxonomy form).
    """
    tail = "Enter 저장 · n 다음 · p 이전" + (" · h AI 제안" if proposal_key else "")
    if scheme is None:
        return f"단축키: 라운드를 고르면 그 라벨 체계의 범주 키가 여기에 나옵니다 · {tail}"
    who = {"counselor": "상담자 발화", "client": "내담자 발화"}
    labels = {f.name: f.label_ko for f in scheme.fields}
    groups = []
    for speaker, by_key in keys.items():
        fields: dict[str, list[str]] = {}
        for key, (fname, _code) in by_key.items():
            fields.setdefault(fname, []).append(key)
        order = [f.name for f in scheme.fields]
        ranked = sorted(fields.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
        parts = ", ".join(f"{labels.get(f, f)} {_key_runs(ks)}" for f, ks in ranked)
        if parts:
            groups.append(f"{who.get(speaker, speaker)}: {parts}" if len(keys) > 1 else parts)
    return "단축키: " + "; ".join(groups) + f" · {tail}"


class ReviewPage(pn.viewable.Viewer):
    """Round-2 human review for one reviewer.

    Parameters
    ----------
    store : ReviewStore
        Rounds and queues (the page holds no database).
    reviewer_id : str
        The signed-in user; only rounds that assign them are offered.
    reviewer_name : str, optional
        The name shown for them (the top bar's display name); ``reviewer_id`` when omitted.
    round_id : str, optional
        Open this round directly.
    blind : bool, default=False
        Hide the AI proposal for the whole session (blind review).
    """

    round_id = param.Selector(default=None, objects=[None], allow_None=True)  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values
    status = param.String(default="")

    def __init__(self, store: ReviewStore, *, reviewer_id: str, reviewer_name: str | None = None,
                 round_id: str | None = None, blind: bool = False, **params: Any):
        super().__init__(**params)
        self.store, self.reviewer_id, self.blind = store, reviewer_id, blind
        self.reviewer_name = reviewer_name or reviewer_id
        from vignette_lab.app.labels import round_label

        rounds = store.human_rounds(reviewer_id)
        labels = {round_label(r): r["round_id"] for r in rounds}
        self.param.round_id.objects = [None, *labels.values()]
        self.queue: Any = None
        self.item: Any = None
        self._round_select = pn.widgets.Select(options={"— 라운드 선택 —": None, **labels},
                                               label="검토 라운드", sizing_mode="stretch_width", max_width=520,
                                               visible=bool(labels))
        self._empty = pn.pane.HTML("" if labels else NO_ROUND_HTML.format(who=html.escape(reviewer_id)),
                                   css_classes=["vl-review-empty"], sizing_mode="stretch_width")
        self._shortcuts = pn.pane.HTML(f"<small>{html.escape(shortcut_line(None, {}))}</small>",
                                       css_classes=["vl-shortcuts"], sizing_mode="stretch_width")
        self._round_select.param.watch(lambda e: self.open_round(e.new), "value")
        self._keys = KeyListener()
        self._keys.param.watch(lambda e: self.handle_key(self._keys.key), "count")
        self._header = pn.pane.HTML("", css_classes=["vl-review-header"])
        self._progress = pn.indicators.Progress(value=0, max=1, sizing_mode="stretch_width", max_width=520,
                                                css_classes=["vl-review-progress"])
        self._context = pn.pane.HTML("", stylesheets=[CHAT_CSS], sizing_mode="stretch_width",
                                     css_classes=["vl-review-context"])
        self._proposal = pn.pane.HTML("", stylesheets=[CHAT_CSS], sizing_mode="stretch_width",
                                      css_classes=["vl-review-proposal"])
        # Hidden until asked, for every item; the label says what a click does.
        self._proposal_toggle = pn.widgets.Toggle(label=_SHOW_LABEL, value=False, disabled=blind,
                                                  css_classes=["vl-proposal-toggle"])
        self._proposal_toggle.param.watch(lambda e: self._on_toggle(), "value")
        self._techniques = pn.widgets.CheckBoxGroup(options={}, inline=False, css_classes=["vl-techniques"])
        # A vertical list: inline, the last states ("협력", "위기신호") ran off the 460 px column.
        self._states = pn.widgets.CheckBoxGroup(options={}, inline=False, css_classes=["vl-states"])
        self._appropriateness = pn.widgets.RadioButtonGroup(
            options={"적절 (a)": "pos", "주의 (s)": "warn", "중립 (d)": "neutral"}, value=None,
            css_classes=["vl-appropriateness"])
        self._sliders: dict[str, Any] = {}  # one score_widget per score dimension; None = 미입력
        self._rationale = pn.widgets.TextAreaInput(placeholder="근거 메모 (선택)", height=70,
                                                   sizing_mode="stretch_width")
        self._save = pn.widgets.Button(label="저장 (Enter)", color="primary", css_classes=["vl-save"])
        self._save.on_click(lambda e: self.save())  # type: ignore[arg-type, return-value]  # Panel ignores a click callback's return value
        self._next = pn.widgets.Button(label="건너뛰기 (n)", css_classes=["vl-next"])
        self._next.on_click(lambda e: self.next())
        self._prev = pn.widgets.Button(label="이전 (p)", css_classes=["vl-prev"])
        self._prev.on_click(lambda e: self.previous())
        # Next to 저장, at the top of the form column (in view at 1366×768): refusals and "saved".
        self._status = pn.pane.HTML("", css_classes=["vl-review-status"], sizing_mode="stretch_width")
        self._guidelines = pn.pane.HTML("", stylesheets=[CHAT_CSS], sizing_mode="stretch_width")
        self._sliders_box = pn.Column()
        # Any other scheme: one control per field (see _build_scheme_controls).
        self._scheme_box = pn.Column(sizing_mode="stretch_width", css_classes=["vl-scheme-fields"])
        self._field_widgets: dict[str, Any] = {}
        self._field_sections: dict[str, Any] = {}
        self._scheme_keys: dict[str, dict[str, tuple[str, str]]] = {}
        self.generic = False
        self._labels = pn.Column(width=460)
        self._round_error = pn.pane.HTML("", css_classes=["vl-round-error"], sizing_mode="stretch_width")
        self._shortcut_row = pn.Row(self._keys, self._shortcuts, sizing_mode="stretch_width", visible=False)
        self._work = pn.Row(sizing_mode="stretch_width", visible=False)
        if round_id is not None:
            self.open_round(round_id)

    def __panel__(self) -> pn.viewable.Viewable:
        self._fill_labels()
        item = pn.Column(self._header, self._progress, self._context, self._proposal_toggle, self._proposal,
                         pn.Card(self._guidelines, title="지침", collapsed=True), sizing_mode="stretch_width")
        self._work.objects = [item, self._labels]
        return pn.Column(pn.pane.Markdown(f"## 주석 검토 — {html.escape(self.reviewer_name)}"),
                         self._empty, self._round_select, self._round_error, self._shortcut_row, self._work,
                         sizing_mode="stretch_width")

    def _show_work(self, shown: bool) -> None:
        """The item, the labelling form and the shortcut line (with the key listener's ⌨) only
        once a round is open: before that the page is the round selector or the empty-state hint."""
        self._work.visible = self._shortcut_row.visible = shown

    # ------------------------------------------------------------------ queue
    def open_round(self, round_id: str | None) -> None:
        """Open this reviewer's queue in ``round_id``."""
        if round_id is None:
            return
        try:
            self.queue = self.store.queue(round_id, self.reviewer_id, blind=self.blind)
        except VignetteError as exc:
            self.queue = None
            self._status.object = self._round_error.object = \
                f'<span style="color:#b3261e">{html.escape(str(exc))}</span>'
            self._show_work(False)
            return
        self._round_error.object = ""
        self._show_work(True)
        from vignette_lab.core.scheme import default_scheme

        self.generic = self.queue.scheme.name != default_scheme().name
        if self.generic:
            self._build_scheme_controls()
        else:
            from vignette_lab.pipeline.review import scheme_keys
            self._scheme_keys = scheme_keys(self.queue.scheme)
        self._fill_labels()
        self._shortcuts.object = ("<small>" + html.escape(shortcut_line(self.queue.scheme, self._scheme_keys,
                                                                         proposal_key=not self.blind))
                                  + "</small>")
        tax = self.queue.taxonomy
        key_of = {fc: k for k, fc in self._scheme_keys.get("counselor", {}).items()}
        self._techniques.options = {f"{key_of.get(('techniques', c), ' ')} · {tax.names.get(c, c)}": c
                                    for c in tax.techniques}
        self._states.options = {f"{key_of.get(('client_state', c), ' ')} · {tax.state_names.get(c, c)}": c
                                for c in tax.client_states}
        self._appropriateness.options = {
            f"{c.label_ko} ({key_of.get(('appropriateness', c.code), '')})": c.code
            for f in self.queue.scheme.fields if f.name == "appropriateness" for c in f.categories}
        ranges = {f.name: f.range for f in self.queue.scheme.fields if f.kind == "score" and f.range}
        self._sliders = {}
        for c in tax.score_dimensions:
            lo, hi = ranges.get(c) or (0.0, 5.0)
            self._sliders[c] = score_widget(lo, hi, 1, css_classes=[f"vl-score-{c}"])
        self._sliders_box.objects = [
            pn.Column(pn.pane.HTML(f"<small>{html.escape(tax.names.get(c, c))}</small>", margin=(0, 10)), w,
                      margin=(0, 0, 4, 0)) for c, w in self._sliders.items()]
        guide = self.queue.guidelines()
        self._guidelines.object = "<ul>" + "".join(
            f"<li><b>{html.escape(t['label'])}</b>: {html.escape(t['definition'])}</li>"
            for t in guide["techniques"]) + "</ul>"
        if self._round_select.value != round_id:
            self._round_select.value = round_id
        self.show(self.queue.next_item())

    # not Viewer.show (serving the page in a new server): this page shows one review item
    def show(self, item: Any) -> None:  # type: ignore[override]
        self.item = item
        if self._proposal_toggle.value:  # each item starts with the proposal hidden
            self._proposal_toggle.value = False
        done, total = self.queue.progress()
        self._progress.max, self._progress.value = max(total, 1), done
        self._header.object = (f'<b>{html.escape(self.reviewer_name)}</b> · '
                               f'<span class="vl-review-count" data-done="{done}" data-total="{total}">'
                               f'{done}/{total} 완료</span>')
        if item is None:
            self._context.object = '<div class="vl-review-done"><b>모든 항목을 검토했습니다.</b></div>'
            self._proposal.object = ""
            return
        who = {"counselor": "상담자", "client": "내담자"}
        name = getattr(item, "persona_name", None)  # [CLIENT] shown as the (fictional) persona's name
        lines = [f"<div style='color:#555'><b>{who.get(c.get('speaker'), c.get('speaker'))}</b>: "
                 f"{masked_html(str(c.get('text', '')), persona_name=name)}</div>" for c in (item.context or [])]
        lines.append(f"<div class='vl-review-target' data-item-id='{html.escape(item.item_id)}' "
                     f"style='background:#eef4ff;padding:6px;margin:6px 0'>"
                     f"<b>{who.get(item.speaker, item.speaker)} (검토 대상)</b>: "
                     f"{masked_html(item.counselor_text, persona_name=name)}</div>")
        if item.client_reply:
            lines.append(f"<div style='color:#555'><b>내담자</b>: {masked_html(item.client_reply, persona_name=name)}</div>")
        self._context.object = "".join(lines)
        if self.generic:
            self._show_scheme_item(item)
            return
        start = item.own or {}
        self._techniques.value = [c for c in start.get("techniques", []) if c in self._techniques.options.values()]
        self._states.value = [c for c in start.get("client_state", []) if c in self._states.options.values()]
        self._appropriateness.value = start.get("appropriateness")
        for code, widget in self._sliders.items():
            set_score(widget, (start.get("scores") or {}).get(code))  # own earlier value, else 미입력
        self._rationale.value = start.get("rationale") or ""
        self._render_proposal()

    def _on_toggle(self) -> None:
        self._proposal_toggle.label = _HIDE_LABEL if self._proposal_toggle.value else _SHOW_LABEL
        self._render_proposal()

    def _missing_required(self, labels: dict[str, Any]) -> list[str]:
        """Korean labels of the required fields (for this item's speaker) that have no value."""
        return [f.label_ko for f in self.queue.scheme.fields_for(self.item.speaker)
                if f.required and labels.get(f.name) in (None, [])]

    def _refuse(self, message: str) -> None:
        self._status.object = f'<span class="vl-save-error" role="alert" style="color:#b3261e">{message}</span>'

    def _render_proposal(self) -> None:
        item = self.item
        if item is None:
            self._proposal.object = ""
            return
        if self.generic:
            self._render_scheme_proposal()
            return
        if self.blind or not self._proposal_toggle.value or not item.proposal:
            self._proposal.object = "<i>AI 제안 숨김</i>" if item.proposal or self.blind else "<i>AI 제안 없음</i>"
            return
        tax = self.queue.taxonomy
        p = item.proposal
        techniques = ", ".join(tax.names.get(c, c) for c in p.get("techniques", [])) or "없음"
        states = ", ".join(tax.state_names.get(c, c) for c in p.get("client_state", [])) or "없음"
        appropriateness = {c.code: c.label_ko for f in self.queue.scheme.fields if f.name == "appropriateness"
                           for c in f.categories}
        code = p.get("appropriateness")
        shown = appropriateness.get(code, "미정" if code is None else str(code))
        self._proposal.object = (f'<div class="vl-proposal" style="border-left:3px solid #999;padding-left:8px">'
                                 f'<b title="AI가 제안한 라벨 (status: proposed)">AI 제안 (확정 전)</b><br>'
                                 f'기법: {html.escape(techniques)}<br>'
                                 f'내담자 상태: {html.escape(states)}<br>적절성: '
                                 f'<span title="{html.escape(str(code))}">{html.escape(shown)}</span><br>'
                                 f'<small>{html.escape(str(p.get("rationale") or ""))}</small></div>')

    # ------------------------------------------------------------------ actions
    def save(self) -> str | None:
        """Submit the current labels (one atomic append) and move to the next item."""
        if self.queue is None or self.item is None:
            return None
        if self.generic:
            return self._save_scheme()
        if not self._techniques.value:
            self._refuse("기법을 하나 이상 고르세요.")
            return None
        scores = {c: v for c, w in self._sliders.items() if (v := score_of(w)) is not None}
        missing = self._missing_required({"techniques": list(self._techniques.value),
                                          "client_state": list(self._states.value),
                                          "appropriateness": self._appropriateness.value, **scores})
        if missing:
            self._refuse(html.escape(f"필수 항목을 입력하세요: {', '.join(missing)}"))
            return None
        annotation_id = self.queue.submit(
            self.item.item_id, list(self._techniques.value), list(self._states.value),
            self._appropriateness.value, None, scores,
            self._rationale.value or None, round(time.monotonic() - self.item.shown_at, 3))
        self._status.object = '<span class="vl-saved">저장했습니다.</span>'
        self.show(self.queue.next_item())
        return annotation_id

    def next(self) -> None:
        if self.queue is not None:
            self.show(self.queue.skip())

    def previous(self) -> None:
        if self.queue is not None:
            item = self.queue.previous()
            if item is not None:
                self.show(item)

    def handle_key(self, key: str) -> None:
        """Apply one shortcut (:func:`~vignette_lab.pipeline.review.key_action`, the notebook's too).

        Every category has a key (:func:`~vignette_lab.pipeline.review.scheme_keys`): for the
        default taxonomy 1–9·0 and then letters for techniques, letters for client states, a/s/d
        for appropriateness; Enter saves, n/p move, h shows the AI proposal.
        """
        from vignette_lab.pipeline.review import apply_label, key_action

        if self.generic and self.queue is not None:
            self._scheme_key(key)
            return
        act = key_action(key, self._scheme_keys.get("counselor", {}))
        if act is None or self.queue is None:
            return
        verb, hit = act
        if verb == "label":
            assert hit is not None  # a "label" action names its (field, code)
            fname, code = hit
            if fname == "techniques":
                self._techniques.value = apply_label(self._techniques.value, code, multi=True)
            elif fname == "client_state":
                self._states.value = apply_label(self._states.value, code, multi=True)
            elif fname == "appropriateness":
                self._appropriateness.value = apply_label(self._appropriateness.value, code, multi=False)
        elif verb == "save":
            self.save()
        elif verb == "next":
            self.next()
        elif verb == "previous":
            self.previous()
        elif verb == "toggle_proposal" and not self.blind:
            self._proposal_toggle.value = not self._proposal_toggle.value

    # ------------------------------------------------------------------ any scheme
    def _fill_labels(self) -> None:
        # The buttons and their message first: at 1366×768 the bottom of this column is below the fold.
        nav = [pn.Row(self._prev, self._next, self._save, css_classes=["vl-review-nav"]), self._status]
        if self.generic:
            self._labels.objects = [*nav, self._scheme_box, self._rationale]
        else:
            self._labels.objects = [*nav, pn.pane.Markdown("**기법** (복수 선택)"), self._techniques,
                                    pn.pane.Markdown("**내담자 상태**"), self._states,
                                    pn.pane.Markdown("**적절성**"), self._appropriateness,
                                    pn.pane.Markdown(f"**점수 (0–5)** — 고르지 않으면 {UNSET}"),
                                    self._sliders_box, self._rationale]

    def _build_scheme_controls(self) -> None:
        """One control per scheme field; every category shows its key and Korean label.

        Categories are listed vertically (never cut off at any width): single/ordinal as a
        radio list, multi as a checkbox list, score as a :func:`score_widget` (미입력 until set; never its minimum).
        """
        from vignette_lab.pipeline.review import scheme_keys

        scheme = self.queue.scheme
        self._scheme_keys = scheme_keys(scheme)
        key_of = {fc: k for keys in self._scheme_keys.values() for k, fc in keys.items()}
        self._field_widgets, self._field_sections = {}, {}
        for f in scheme.fields:
            opts = {f"{key_of.get((f.name, c.code), '')} · {c.label_ko} ({c.label_en})": c.code
                    for c in f.categories}
            if f.kind == "multi":
                w: Any = pn.widgets.CheckBoxGroup(options=opts, inline=False, css_classes=["vl-field-multi"])
            elif f.kind == "score":
                lo, hi = f.range
                w = score_widget(lo, hi, 0.5 if hi - lo <= 10 else 1, css_classes=["vl-field-score"])
            else:
                w = pn.widgets.RadioBoxGroup(options={"미선택": None, **opts}, value=None, inline=False,
                                             css_classes=["vl-field-single"])
            self._field_widgets[f.name] = w
            must = " · 필수" if f.required else ""
            self._field_sections[f.name] = pn.Column(pn.pane.Markdown(f"**{f.label_ko}** ({f.name}){must}"), w,
                                                     css_classes=["vl-field", f"vl-field-{f.name}"])
        self._scheme_box.objects = list(self._field_sections.values())

    def _show_scheme_item(self, item: Any) -> None:
        applies = {f.name for f in self.queue.scheme.fields_for(item.speaker)}
        start = (item.own or {}).get("labels", {})
        for f in self.queue.scheme.fields:
            self._field_sections[f.name].visible = f.name in applies
            w, v = self._field_widgets[f.name], start.get(f.name)
            if f.kind == "multi":
                w.value = list(v or [])
            elif f.kind == "score":
                set_score(w, v)
            else:
                w.value = v
        self._rationale.value = (item.own or {}).get("rationale") or ""
        self._render_proposal()

    def _render_scheme_proposal(self) -> None:
        item = self.item
        if item.proposal and (self.blind or not self._proposal_toggle.value):
            self._proposal.object = "<i>AI 제안 숨김</i>"
            return
        self._proposal.object = "<i>AI 제안 없음</i>" if not item.proposal else (
            '<div class="vl-proposal" style="border-left:3px solid #999;padding-left:8px"><b>AI 제안 (확정 전)</b><br>'
            + "<br>".join(f"{html.escape(f.label_ko)}: {html.escape(self._ko(f, item.proposal['labels'][f.name]))}"
                          for f in self.queue.scheme.fields_for(item.speaker)
                          if item.proposal.get("labels", {}).get(f.name) is not None) + "</div>")

    @staticmethod
    def _ko(f: Any, v: Any) -> str:
        if f.kind == "multi":
            return ", ".join(f.label(c) for c in v)
        return f"{v:g}" if f.kind == "score" else f.label(v)

    def scheme_labels(self) -> dict[str, Any]:
        """``{field: value}`` the controls show for the current item's fields."""
        out: dict[str, Any] = {}
        for f in self.queue.scheme.fields_for(self.item.speaker):
            v = self._field_widgets[f.name].value
            if f.kind == "multi":
                out[f.name] = list(v)
            elif f.kind == "score":
                if (score := score_of(self._field_widgets[f.name])) is not None:  # 미입력: no value
                    out[f.name] = score
            elif v is not None:
                out[f.name] = v
        return out

    def _save_scheme(self) -> str | None:
        labels = self.scheme_labels()
        if not any(v not in (None, []) for v in labels.values()):
            self._refuse("하나 이상 표시하세요.")
            return None
        missing = self._missing_required(labels)
        if missing:
            self._refuse(html.escape(f"필수 항목을 입력하세요: {', '.join(missing)}"))
            return None
        annotation_id = self.queue.submit_labels(self.item.item_id, labels,
                                                 rationale=self._rationale.value or None,
                                                 time_spent_s=round(time.monotonic() - self.item.shown_at, 3))
        self._status.object = '<span class="vl-saved">저장했습니다.</span>'
        self.show(self.queue.next_item())
        return annotation_id

    def _scheme_key(self, key: str) -> None:
        if key == "Enter":
            self.save()
        elif key == "n":
            self.next()
        elif key == "p":
            self.previous()
        elif key == "h":
            if not self.blind:
                self._proposal_toggle.value = not self._proposal_toggle.value
        elif self.item is not None:
            from vignette_lab.pipeline.review import apply_label, key_action
            act = key_action(key, self._scheme_keys.get(self.item.speaker, {}))
            if act is None or act[0] != "label":
                return
            assert act[1] is not None  # a "label" action names its (field, code)
            fname, code = act[1]
            w = self._field_widgets[fname]
            w.value = apply_label(w.value, code, multi=isinstance(w, pn.widgets.CheckBoxGroup))
