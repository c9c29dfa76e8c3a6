"""Round 2: human review — reviewer assignment, the review queue, and the notebook widget.

:class:`ReviewQueue` is the one piece of review logic; the ipywidgets UI here
(:func:`review_widget`) and the Panel review page both drive it, with the same key dispatch
(:func:`scheme_keys`, :func:`key_action`: a key for every category of every field). A reviewer's save is one transaction that appends one annotation row
(a re-save supersedes the reviewer's previous row), so a crash loses at most the item in
hand and two reviewers saving at the same time never touch each other's rows.
"""

from __future__ import annotations

import functools
import html
import math
import random
import time
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import ipywidgets as _w

from vignette_lab.errors import InputError
from vignette_lab.pipeline.rounds import (
    APPROPRIATENESS,
    HumanReview,
    _held,
    _now,
    _pinned,
    effective_annotations,
    get_round,
    labels_of,
    taxonomy_info,
    taxonomy_labels,
    validate_labels,
    write_annotation,
)
from vignette_lab.store import ds_repo
from vignette_lab.store.catalog import get_persona_row
from vignette_lab.core.scheme import default_scheme
from vignette_lab.pipeline.schemes import dataset_scheme

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["CLIENT_TAG", "KEYMAP", "ReviewItem", "ReviewQueue", "ReviewWidget", "SchemeReviewWidget", "apply_label",
           "assign_reviewers", "key_action", "review_status", "review_widget", "scheme_keys"]

#: The old default-taxonomy shortcut map, kept for scripts: digits 1–9 and 0 toggle the first ten
#: techniques in taxonomy order (0 = tenth). The notebook widgets and the Panel page now use
#: :func:`scheme_keys` + :func:`key_action`, which keep these keys for the default taxonomy and
#: give its remaining techniques and every client state a key as well.
KEYMAP: dict[str, str] = {
    **{str(d): f"toggle_technique:{(d - 1) % 10}" for d in range(1, 10)},
    "0": "toggle_technique:9",
    "a": "appropriateness:pos",
    "s": "appropriateness:warn",
    "d": "appropriateness:neutral",
    "Enter": "save",
    "n": "next",
    "p": "previous",
    "h": "toggle_proposal",
}


@_pinned
def assign_reviewers(db: Database, round_id: str, reviewers: Sequence[str], *, overlap: float = 0.3,
                     per_overlap_item: int = 2, seed: int = 0) -> dict[str, Any]:
    """Assign every item of a ``human_review`` round to reviewers.

    Every item gets one reviewer; a seeded random ``overlap`` fraction gets
    ``per_overlap_item`` distinct reviewers so agreement can be measured. Load is balanced
    (each item goes to the least-loaded reviewers, ties broken by the seeded order).

    Parameters
    ----------
    db : Database
    round_id : str
    reviewers : sequence of str
    overlap : float, default=0.3
        Fraction of items (rounded up) that get several reviewers; 0–1.
    per_overlap_item : int, default=2
        Reviewers per overlap item; needs at least that many reviewers.
    seed : int, default=0

    Returns
    -------
    dict
        ``{"items", "overlap_items", "per_reviewer": {reviewer: n}}``.
    """
    rnd = get_round(db, round_id)
    if rnd["kind"] != "human_review":
        raise InputError(f"round {round_id} is {rnd['kind']}; reviewers are assigned to "
                         "human_review rounds", field="round_id")
    reviewers = list(dict.fromkeys(reviewers))
    if not reviewers:
        raise InputError("at least one reviewer is needed", field="reviewers")
    if not 0.0 <= overlap <= 1.0:
        raise InputError(f"overlap must be between 0 and 1; got {overlap}", field="overlap")
    if overlap > 0 and len(reviewers) < per_overlap_item:
        raise InputError(f"overlap needs at least {per_overlap_item} reviewers; got {len(reviewers)}",
                         field="reviewers")
    if ds_repo.assignment_count(db, round_id):
        raise InputError(f"round {round_id} already has reviewer assignments", field="round_id")
    items = [r["item_id"] for r in ds_repo.dataset_items(db, rnd["dataset_id"])]
    rng = random.Random(seed)
    order = items[:]
    rng.shuffle(order)
    n_overlap = math.ceil(overlap * len(order)) if overlap > 0 else 0
    overlap_set = set(order[:n_overlap])
    load = {r: 0 for r in reviewers}
    tiebreak = {r: rng.random() for r in reviewers}
    rows = []
    now = _now()
    for item in order:
        k = per_overlap_item if item in overlap_set else 1
        chosen = sorted(reviewers, key=lambda r: (load[r], tiebreak[r]))[:k]
        for r in chosen:
            rows.append([round_id, item, r, load[r], now])
            load[r] += 1
    ds_repo.insert_assignments(db, rows)
    return {"items": len(items), "overlap_items": n_overlap, "per_reviewer": load}


@_pinned
def review_status(db: Database, round_id: str) -> list[dict[str, Any]]:
    """Per reviewer: assigned and done counts (``[{"reviewer_id", "assigned", "done"}]``)."""
    get_round(db, round_id)
    assigned = ds_repo.assigned_counts(db, round_id)
    done: dict[str, int] = {}
    seen = set()
    for a in effective_annotations(db, round_id, annotator_kind="human"):
        key = (a["annotator_id"], a["item_id"])
        if key not in seen:
            seen.add(key)
            done[a["annotator_id"]] = done.get(a["annotator_id"], 0) + 1
    return [{"reviewer_id": r["reviewer_id"], "assigned": int(r["n"]),
             "done": done.get(r["reviewer_id"], 0)} for r in assigned]


@dataclass
class ReviewItem:
    """What a reviewer sees for one item.

    ``proposal`` is the AI round's label set (``None`` in blind mode or when no AI round
    exists); ``own`` is this reviewer's current annotation of the item, if any.
    """

    item_id: str
    index: int
    total: int
    speaker: str
    context: list[dict[str, Any]]
    counselor_text: str
    client_reply: str | None
    persona_code: str | None
    proposal: dict[str, Any] | None
    guidelines: dict[str, Any]
    own: dict[str, Any] | None = None
    shown_at: float = field(default_factory=time.monotonic)
    #: the persona's display name, bare ("서연(고2)" → "서연"), shown where the stored text has ``[CLIENT]``
    persona_name: str | None = None


def _label_view(ann: Mapping[str, Any]) -> dict[str, Any]:
    return {"annotation_id": ann["annotation_id"], "labels": labels_of(ann),
            "techniques": list(ann["techniques"]),
            "client_state": list(ann["client_state"]), "appropriateness": ann["appropriateness"],
            "intent_deviation": ann.get("intent_deviation"), "scores": dict(ann["scores"] or {}),
            "rationale": ann.get("rationale")}


def _held_method(func):
    """Hold the queue's database open for one method call (many small statements)."""
    @functools.wraps(func)
    def wrapper(self: "ReviewQueue", *args: Any, **kwargs: Any) -> Any:
        with _held(self.db):
            return func(self, *args, **kwargs)
    return wrapper


class ReviewQueue:
    """One reviewer's queue in one ``human_review`` round.

    Parameters
    ----------
    db : Database
    round_id : str
    reviewer_id : str
    blind : bool, default=False
        Hide the AI proposal (blind review for a clean agreement estimate).

    Examples
    --------
    >>> q = ReviewQueue(db, round_id, "rev-1")                  # doctest: +SKIP
    >>> item = q.next_item()                                    # doctest: +SKIP
    >>> q.submit(item.item_id, ["open_question"], [], "pos")    # doctest: +SKIP
    """

    def __init__(self, db: Database, round_id: str, reviewer_id: str, *, blind: bool = False):
        with _held(db):
            self._init(db, round_id, reviewer_id, blind)

    def _init(self, db: Database, round_id: str, reviewer_id: str, blind: bool) -> None:
        rnd = get_round(db, round_id)
        if rnd["kind"] != "human_review":
            raise InputError(f"round {round_id} is {rnd['kind']}; the review queue needs a "
                             "human_review round", field="round_id")
        self.db, self.round_id, self.reviewer_id, self.blind = db, round_id, reviewer_id, blind
        self.dataset_id = rnd["dataset_id"]
        self.ai_round_id = rnd["config"].get("ai_round_id") or self._latest_ai_round()
        self._order = ds_repo.reviewer_items(db, round_id, reviewer_id)
        if not self._order:
            raise InputError(f"reviewer {reviewer_id!r} has no items in round {round_id}",
                             field="reviewer_id")
        self._cursor = -1
        self.taxonomy = taxonomy_info()

        self.scheme = dataset_scheme(db, self.dataset_id)

    def _latest_ai_round(self) -> str | None:
        return ds_repo.latest_ai_round(self.db, self.dataset_id)

    # ------------------------------------------------------------------ reading
    def _own(self) -> dict[str, dict[str, Any]]:
        rows = [r for r in effective_annotations(self.db, self.round_id)
                if r["annotator_id"] == self.reviewer_id]
        rows.sort(key=lambda r: r["created_at"])
        return {r["item_id"]: r for r in rows}

    def _proposal(self, item_id: str) -> dict[str, Any] | None:
        if self.blind or not self.ai_round_id:
            return None
        rows = effective_annotations(self.db, self.ai_round_id, annotator_kind="ai", item_id=item_id)
        return _label_view(rows[0]) if rows else None

    def guidelines(self) -> dict[str, Any]:
        """Taxonomy snippet shown beside every item (labels and definitions in Korean)."""
        t = self.taxonomy
        return {"version": t.version, "general": list(t.general),
                "techniques": [{"code": c, "label": t.names.get(c, c),
                                "definition": t.guidelines.get(c, "")} for c in t.techniques],
                "client_states": [{"code": c, "label": t.state_names.get(c, c),
                                   "definition": t.state_guidelines.get(c, "")}
                                  for c in t.client_states],
                "score_dimensions": [{"code": c, "label": t.names.get(c, c)}
                                     for c in t.score_dimensions]}

    def _item(self, index: int) -> ReviewItem:
        item_id = self._order[index]
        row = ds_repo.item_row(self.db, item_id)
        assert row is not None  # the queue holds ids of items of this data set
        return ReviewItem(item_id=item_id, index=index, total=len(self._order),
                          speaker=row["speaker"],
                          context=row["context"], counselor_text=row["counselor_text"],
                          client_reply=row["client_reply"], persona_code=row["persona_code"],
                          proposal=self._proposal(item_id), guidelines=self.guidelines(),
                          own=(lambda o: _label_view(o) if o else None)(self._own().get(item_id)),
                          persona_name=self._persona_name(row["persona_code"]))

    def _persona_name(self, code: str | None) -> str | None:
        """The persona's bare display name (latest card version), remembered per queue."""
        if not code:
            return None
        cache = self.__dict__.setdefault("_persona_names", {})
        if code not in cache:
            row = get_persona_row(self.db, code)
            cache[code] = (str(row.get("display_name") or "").split("(")[0].strip() or None) if row else None
        return cache[code]

    @property
    def item_ids(self) -> list[str]:
        return list(self._order)

    @property
    def current(self) -> ReviewItem | None:
        return self._item(self._cursor) if 0 <= self._cursor < len(self._order) else None

    @_held_method
    def next_item(self) -> ReviewItem | None:
        """The next item after the cursor that this reviewer has not saved; ``None`` when done.

        Wraps around once so skipped items come back at the end.
        """
        done = set(self._own())
        n = len(self._order)
        for step in range(1, n + 1):
            idx = (self._cursor + step) % n if self._cursor >= 0 else step - 1
            if self._order[idx] not in done:
                self._cursor = idx
                return self._item(idx)
        return None

    def skip(self) -> ReviewItem | None:
        """Leave the current item unsaved and move to the next pending one."""
        return self.next_item()

    @_held_method
    def previous(self) -> ReviewItem | None:
        """Step back to the previous item in queue order (saved or not); ``None`` at the start."""
        if self._cursor <= 0:
            return None
        self._cursor -= 1
        return self._item(self._cursor)

    @_held_method
    def goto(self, item_id: str) -> ReviewItem:
        """Jump to one of this reviewer's items."""
        if item_id not in self._order:
            raise InputError(f"item {item_id} is not assigned to {self.reviewer_id}", field="item_id")
        self._cursor = self._order.index(item_id)
        return self._item(self._cursor)

    @_held_method
    def progress(self) -> tuple[int, int]:
        """``(done, total)`` for this reviewer."""
        return len(set(self._own()) & set(self._order)), len(self._order)

    # ------------------------------------------------------------------ writing
    @_held_method
    def submit(self, item_id: str, techniques: Sequence[str], client_state: Sequence[str] = (),
               appropriateness: str | None = None, intent_deviation: Mapping[str, Any] | None = None,
               scores: Mapping[str, float] | None = None, rationale: str | None = None,
               time_spent_s: float | None = None) -> str:
        """Save this reviewer's labels for one item (one transaction, append-only).

        A second save of the same item appends a new row that supersedes the first.

        Returns
        -------
        str
            The new ``annotation_id``.
        """
        if item_id not in self._order:
            raise InputError(f"item {item_id} is not assigned to {self.reviewer_id}", field="item_id")
        if appropriateness is not None and appropriateness not in APPROPRIATENESS:
            raise InputError(f"appropriateness must be pos, warn or neutral; got {appropriateness!r}",
                             field="appropriateness")
        labels = taxonomy_labels(techniques=techniques, client_state=client_state,
                                 appropriateness=appropriateness, scores=scores)
        return self.submit_labels(item_id, labels, rationale=rationale,
                                  intent_deviation=intent_deviation, time_spent_s=time_spent_s)

    @_held_method
    def submit_labels(self, item_id: str, labels: Mapping[str, Any], *,
                      rationale: str | None = None,
                      intent_deviation: Mapping[str, Any] | None = None,
                      time_spent_s: float | None = None) -> str:
        """Save this reviewer's ``{field: value}`` for one item, for any label scheme.

        Values are checked against the data set's scheme and the item's speaker; a re-save
        supersedes the reviewer's previous row (append-only). Returns the ``annotation_id``.
        """
        if item_id not in self._order:
            raise InputError(f"item {item_id} is not assigned to {self.reviewer_id}", field="item_id")
        row = ds_repo.item_row(self.db, item_id)
        assert row is not None  # checked above: the item is in this reviewer's queue
        validate_labels(self.scheme, labels, speaker=row["speaker"])
        # write_annotation links the row to this reviewer's current one and retries a save
        # that lost a race with another tab (one current row per round/item/reviewer).
        return write_annotation(self.db, HumanReview(
            round_id=self.round_id, item_id=item_id, annotator_id=self.reviewer_id,
            labels=dict(labels), rationale=rationale, intent_deviation=intent_deviation,
            time_spent_s=time_spent_s))


# ---------------------------------------------------------------------- notebook widget

def _score_control(lo: float, hi: float, step: float, description: str) -> Any:
    """A notebook score control that starts at "미입력" (value ``""``), never at a number.

    Buttons for a short range (0–5), a drop-down for a long one. A default value would be saved as
    the reviewer's own label and inflate ICC; read it with :func:`_score_value` (None = unset).
    """
    n = int(round((hi - lo) / step)) + 1
    values = [lo + i * step for i in range(n)]
    options = [("미입력", "")] + [(f"{v:g}", float(v)) for v in values]
    if len(options) <= 7:
        return _w.ToggleButtons(options=options, value="", description=description,
                                style={"button_width": "auto"})
    return _w.Dropdown(options=options, value="", description=description)


def _score_value(ctrl: Any) -> float | None:
    return None if ctrl.value in ("", None) else float(ctrl.value)


def _set_score(ctrl: Any, v: Any) -> None:
    """Show ``v`` (None: 미입력), snapped to the control's nearest value."""
    if v is None:
        ctrl.value = ""
        return
    values = [o[1] for o in ctrl.options if o[1] != ""]
    ctrl.value = min(values, key=lambda o: abs(o - float(v)))

def _show_progress(widget: Any) -> None:
    """Progress bar and header of either review widget (shared by both)."""
    done, total = widget.queue.progress()
    widget.progress_bar.max, widget.progress_bar.value = max(total, 1), done
    widget.header.value = f"<b>검토자 {html.escape(widget.queue.reviewer_id)}</b> · {done}/{total} 완료"


#: the role tag the PII gate writes where a turn named the persona (core/pii.py PLACEHOLDERS)
CLIENT_TAG = "[CLIENT]"


def masked_html(text: str, *, persona_name: str | None) -> str:
    """A stored (masked) text as HTML for the review pages: escaped, and each ``[CLIENT]`` shown
    as the persona's display name.

    The persona is fictional, so its name is no PII: the gate still stores ``[CLIENT]`` (the
    role, whatever spelling was typed), and only the page shows the name, marked as the role.

    Parameters
    ----------
    text : str
        A masked text as stored.
    persona_name : str or None
        The persona's display name; None keeps ``[CLIENT]``.

    Returns
    -------
    str
        Escaped HTML.
    """
    escaped = html.escape(str(text))
    if not persona_name:
        return escaped
    shown = (f'<span class="vl-role-client" title="{html.escape(CLIENT_TAG)} — 가상 내담자 이름">'
             f"{html.escape(persona_name)}</span>")
    return escaped.replace(html.escape(CLIENT_TAG), shown)


def _context_html(item: ReviewItem) -> str:
    who = {"counselor": "상담자", "client": "내담자"}
    name = item.persona_name
    lines = [f"<div style='color:#555'><b>{who.get(c['speaker'], c['speaker'])}</b>: "
             f"{masked_html(c['text'], persona_name=name)}</div>" for c in item.context]
    lines.append(f"<div style='background:#eef4ff;padding:4px'><b>상담자 (검토 대상)</b>: "
                 f"{masked_html(item.counselor_text, persona_name=name)}</div>")
    if item.client_reply:
        lines.append(f"<div style='color:#555'><b>내담자 반응</b>: {masked_html(item.client_reply, persona_name=name)}</div>")
    return (f"<div><small>{item.index + 1}/{item.total} · 페르소나 {html.escape(item.persona_code or '-')}"
            "</small></div>" + "".join(lines))


def _proposal_html(item: ReviewItem, names: Mapping[str, str], state_names: Mapping[str, str]) -> str:
    p = item.proposal
    if p is None:
        return "<i>AI 제안 없음 (블라인드 검토)</i>"
    tech = ", ".join(names.get(t, t) for t in p["techniques"]) or "-"
    states = ", ".join(state_names.get(s, s) for s in p["client_state"]) or "-"
    return (f"<div style='border-left:3px solid #f0ad4e;padding-left:6px'><b>AI 제안 (확정 아님)</b><br>"
            f"기법: {html.escape(tech)}<br>내담자 상태: {html.escape(states)}<br>"
            f"적절성: {html.escape(names.get(p['appropriateness'] or '', p['appropriateness'] or '-'))}"
            "</div>")


class ReviewWidget(_w.VBox):
    """ipywidgets review UI over a :class:`ReviewQueue` (see :func:`review_widget`).

    Every control is an attribute (``technique_boxes``, ``state_boxes``, ``appropriateness``,
    ``sliders``, ``rationale``, ``save_button``, ``next_button``, ``prev_button``,
    ``skip_button``, ``proposal_toggle``, ``shortcuts``, ``progress_bar``, ``status``) so
    tests and notebooks can drive it from Python.
    """

    def __init__(self, queue: ReviewQueue):
        tax = queue.taxonomy
        self.queue = queue
        self.item: ReviewItem | None = None
        #: ``{key: (field, code)}`` of every technique, client state and appropriateness.
        self.shortcut_keys = scheme_keys(queue.scheme).get("counselor", {})
        key_of = {fc: k for k, fc in self.shortcut_keys.items()}
        self.header = _w.HTML()
        self.context_view = _w.HTML()
        self.proposal_view = _w.HTML()
        # hidden until asked for, on every item, as on the review page (unbiased review)
        self.proposal_toggle = _w.ToggleButton(value=False, description="AI 제안 보기 (h)",
                                               disabled=queue.blind)
        wide = _w.Layout(width="auto")
        self.technique_boxes = {c: _w.Checkbox(value=False, indent=False, layout=wide,
                                               description=f"{key_of.get(('techniques', c), ' ')} "
                                                           f"{tax.names.get(c, c)}")
                                for c in tax.techniques}
        self.state_boxes = {c: _w.Checkbox(value=False, indent=False, layout=wide,
                                           description=f"{key_of.get(('client_state', c), ' ')} "
                                                       f"{tax.state_names.get(c, c)}")
                            for c in tax.client_states}
        self.appropriateness = _w.ToggleButtons(
            options=[("미선택", None)] + [(f"{c.label_ko} ({key_of.get(('appropriateness', c.code), '')})", c.code)
                                          for f in queue.scheme.fields if f.name == "appropriateness"
                                          for c in f.categories],
            value=None, style={"button_width": "auto"}, layout=_w.Layout(flex_flow="row wrap"))
        # unset until the reviewer picks a value (stored as no value)
        self.sliders = {c: _score_control(0, 5, 1, tax.names.get(c, c)) for c in tax.score_dimensions}
        self.rationale = _w.Textarea(placeholder="근거 메모 (선택)")
        self.save_button = _w.Button(description="저장 (Enter)", button_style="primary")
        self.next_button = _w.Button(description="다음 (n)")
        self.prev_button = _w.Button(description="이전 (p)")
        self.skip_button = _w.Button(description="건너뛰기")
        self.shortcuts = _w.Text(placeholder="단축키: 항목 옆 글자(기법·내담자 상태·적절성), Enter=저장, n/p, h")
        self.progress_bar = _w.IntProgress(min=0, max=1, value=0)
        self.status = _w.HTML()
        self.save_button.on_click(lambda _b: self.save())
        self.next_button.on_click(lambda _b: self.next())
        self.prev_button.on_click(lambda _b: self.previous())
        self.skip_button.on_click(lambda _b: self.next())
        self.proposal_toggle.observe(lambda _c: self._render_proposal(), names="value")
        self.shortcuts.observe(self._on_shortcut, names="value")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.shortcuts.on_submit(lambda _t: self.handle_key("Enter"))
        super().__init__(children=[
            self.header, self.progress_bar, self.context_view, self.proposal_toggle,
            self.proposal_view, _w.HTML("<b>기법</b>"),
            _w.GridBox(list(self.technique_boxes.values()),
                       layout=_w.Layout(grid_template_columns="repeat(auto-fill, minmax(11em, 1fr))",
                                        width="100%")),
            _w.HTML("<b>내담자 상태</b>"),
            _w.GridBox(list(self.state_boxes.values()),
                       layout=_w.Layout(grid_template_columns="repeat(auto-fill, minmax(11em, 1fr))",
                                        width="100%")),
            _w.HTML("<b>적절성</b>"), self.appropriateness, _w.HTML("<b>점수 (0–5)</b>"),
            *self.sliders.values(), self.rationale, self.shortcuts,
            _w.HBox([self.prev_button, self.save_button, self.skip_button, self.next_button]),
            self.status])
        self.show(queue.next_item())

    # -- rendering
    def show(self, item: ReviewItem | None) -> None:
        self.item = item
        _show_progress(self)
        if item is None:
            self.context_view.value = "<b>모든 항목을 검토했습니다.</b>"
            self.proposal_view.value = ""
            return
        self.context_view.value = _context_html(item)
        start = item.own or {}
        for c, box in self.technique_boxes.items():
            box.value = c in start.get("techniques", ())
        for c, box in self.state_boxes.items():
            box.value = c in start.get("client_state", ())
        self.appropriateness.value = start.get("appropriateness")
        for c, s in self.sliders.items():
            _set_score(s, start.get("scores", {}).get(c))
        self.rationale.value = start.get("rationale") or ""
        if self.proposal_toggle.value:
            self.proposal_toggle.value = False  # re-renders through the observer
        else:
            self._render_proposal()

    def _render_proposal(self) -> None:
        shown = self.proposal_toggle.value
        self.proposal_toggle.description = "AI 제안 숨기기 (h)" if shown else "AI 제안 보기 (h)"
        if self.item is None or not shown:
            self.proposal_view.value = "" if self.item is None else "<i>AI 제안 숨김</i>"
            return
        t = self.queue.taxonomy
        self.proposal_view.value = _proposal_html(self.item, t.names, t.state_names)

    # -- actions
    def save(self) -> str | None:
        if self.item is None:
            return None
        techniques = [c for c, b in self.technique_boxes.items() if b.value]
        if not techniques:
            self.status.value = "<span style='color:#b00'>기법을 하나 이상 고르세요.</span>"
            return None
        ann_id = self.queue.submit(
            self.item.item_id, techniques, [c for c, b in self.state_boxes.items() if b.value],
            self.appropriateness.value, None,
            {c: v for c, s in self.sliders.items() if (v := _score_value(s)) is not None},
            self.rationale.value or None, round(time.monotonic() - self.item.shown_at, 3))
        self.status.value = "저장했습니다."
        self.show(self.queue.next_item())
        return ann_id

    def next(self) -> None:
        self.show(self.queue.skip())

    def previous(self) -> None:
        item = self.queue.previous()
        if item is not None:
            self.show(item)

    def handle_key(self, key: str) -> None:
        """Apply one shortcut (:func:`key_action` over :attr:`shortcut_keys`)."""
        act = key_action(key, self.shortcut_keys)
        if act is None:
            return
        verb, hit = act
        if verb == "label":
            assert hit is not None  # a "label" action names its (field, code)
            fname, code = hit
            boxes = {"techniques": self.technique_boxes, "client_state": self.state_boxes}.get(fname)
            if boxes is not None and code in boxes:
                boxes[code].value = not boxes[code].value
            elif fname == "appropriateness":
                self.appropriateness.value = apply_label(self.appropriateness.value, code, multi=False)
        elif verb == "save":
            self.save()
        elif verb == "next":
            self.next()
        elif verb == "previous":
            self.previous()
        elif verb == "toggle_proposal" and not self.queue.blind:
            self.proposal_toggle.value = not self.proposal_toggle.value

    def _on_shortcut(self, change: Mapping[str, Any]) -> None:
        typed = change["new"]
        if not typed:
            return
        self.shortcuts.value = ""
        for ch in typed:
            self.handle_key(ch)


_RESERVED_KEYS = {"n", "p", "h"}
_KEY_POOL = [str(d) for d in (*range(1, 10), 0)] + [c for c in "abcdefgijklmoqrstuvwxyz"] + \
    [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]


def _default_preferred(scheme: Any) -> dict[tuple[str, str], str]:
    """Keys the default taxonomy keeps from the old map: 1–9·0 the first ten techniques,
    a/s/d appropriateness (pos/warn/neutral); its other categories get free keys."""

    if scheme.name != default_scheme().name:
        return {}
    out: dict[tuple[str, str], str] = {}
    for f in scheme.fields:
        if f.name == "techniques":
            out.update({(f.name, c.code): str((i + 1) % 10) for i, c in enumerate(f.categories[:10])})
        elif f.name == "appropriateness":
            out.update({(f.name, c.code): k for c, k in zip(f.categories, "asd")})
    return out


def scheme_keys(scheme: Any) -> dict[str, dict[str, tuple[str, str]]]:
    """Shortcut keys of every category, per speaker: ``{speaker: {key: (field, code)}}``.

    A category's declared ``key`` is used when it is free for that speaker; every other
    category gets the next free key from 1–9, 0, a–z, A–Z (``n``, ``p``, ``h`` and Enter stay
    navigation keys). Score fields have no category keys. The default taxonomy keeps its old
    keys (1–9·0 for the first ten techniques, a/s/d for appropriateness); its remaining
    techniques and every client state get the next free letters.
    """
    preferred = _default_preferred(scheme)
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for speaker in scheme.speakers():
        keys: dict[str, tuple[str, str]] = {}
        pending = []
        for f in scheme.fields_for(speaker):
            for c in f.categories:
                want = c.key or preferred.get((f.name, c.code))
                if want and want not in keys and want not in _RESERVED_KEYS:
                    keys[want] = (f.name, c.code)
                else:
                    pending.append((f.name, c.code))
        pool = (k for k in _KEY_POOL if k not in _RESERVED_KEYS)
        for fc in pending:
            k = next(k for k in pool if k not in keys)
            keys[k] = fc
        out[speaker] = keys
    return out


def key_action(key: str, keys: Mapping[str, tuple[str, str]]) -> tuple[str, tuple[str, str] | None] | None:
    """What one key press does, shared by the notebook widgets and the Panel review page.

    Parameters
    ----------
    key : str
        The key (``"Enter"`` or one character).
    keys : mapping
        ``{key: (field, code)}`` of the item's speaker (one entry of :func:`scheme_keys`).

    Returns
    -------
    tuple or None
        ``("save" | "next" | "previous" | "toggle_proposal", None)``, ``("label", (field,
        code))`` — set a single/ordinal category (again: unset) or toggle a multi one — or
        ``None`` for a key without meaning.
    """
    nav = {"Enter": "save", "n": "next", "p": "previous", "h": "toggle_proposal"}
    if key in nav:
        return nav[key], None
    hit = keys.get(key)
    return ("label", hit) if hit is not None else None


def apply_label(value: Any, code: str, *, multi: bool) -> Any:
    """New value of a control after its category key: toggle in a list, or set/unset."""
    if multi:
        current = list(value or [])
        return [c for c in current if c != code] if code in current else [*current, code]
    return None if value == code else code


class SchemeReviewWidget(_w.VBox):
    """ipywidgets review UI for any label scheme (used when the data set's scheme is not the
    default taxonomy).

    Every field of the scheme has a control — ``single``/``ordinal``: toggle buttons,
    ``multi``: checkboxes, ``score``: buttons or a drop-down over the field's range starting at 미입력 — and only the fields
    that apply to the item's speaker are shown. Every category shows its shortcut key
    (:func:`scheme_keys`) and its Korean label; the category grids wrap (``auto-fill``), so no
    label is cut off at any width.
    """

    def __init__(self, queue: ReviewQueue):
        self.queue = queue
        self.scheme = queue.scheme
        self.shortcut_keys = scheme_keys(self.scheme)
        self.item: ReviewItem | None = None
        self.header = _w.HTML()
        self.context_view = _w.HTML()
        self.proposal_view = _w.HTML()
        # hidden until asked for, on every item, as on the review page (unbiased review)
        self.proposal_toggle = _w.ToggleButton(value=False, description="AI 제안 보기 (h)",
                                               disabled=queue.blind)
        self.proposal_toggle.observe(lambda _c: self._render_proposal(), names="value")
        self.controls: dict[str, Any] = {}
        self.sections: dict[str, Any] = {}
        label_of = {sp: {fc: k for k, fc in keys.items()} for sp, keys in self.shortcut_keys.items()}
        any_key = {fc: k for keys in label_of.values() for fc, k in keys.items()}
        for f in self.scheme.fields:
            title = _w.HTML(f"<b>{html.escape(f.label_ko)}</b> <small>({html.escape(f.name)})</small>")
            if f.kind == "multi":
                boxes = {c.code: _w.Checkbox(value=False, indent=False,
                                             description=f"{any_key.get((f.name, c.code), ' ')} {c.label_ko}",
                                             layout=_w.Layout(width="auto"))
                         for c in f.categories}
                ctrl: Any = boxes
                body: Any = _w.GridBox(list(boxes.values()), layout=_w.Layout(
                    grid_template_columns="repeat(auto-fill, minmax(11em, 1fr))", width="100%"))
            elif f.kind == "score":
                assert f.range is not None  # a score field has a range (scheme validation)
                lo, hi = f.range
                ctrl = body = _score_control(lo, hi, 0.5 if hi - lo <= 10 else 1, f.label_ko)
            else:
                ctrl = body = _w.ToggleButtons(
                    options=[("미선택", None)] + [(f"{any_key.get((f.name, c.code), '')} {c.label_ko}".strip(),
                                                  c.code) for c in f.categories],
                    value=None, style={"button_width": "auto"}, layout=_w.Layout(flex_flow="row wrap"))
            self.controls[f.name] = ctrl
            self.sections[f.name] = _w.VBox([title, body])
        self.rationale = _w.Textarea(placeholder="근거 메모 (선택)")
        self.save_button = _w.Button(description="저장 (Enter)", button_style="primary")
        self.next_button = _w.Button(description="다음 (n)")
        self.prev_button = _w.Button(description="이전 (p)")
        self.shortcuts = _w.Text(placeholder="단축키: 범주 옆 글자, Enter=저장, n/p")
        self.progress_bar = _w.IntProgress(min=0, max=1, value=0)
        self.status = _w.HTML()
        self.save_button.on_click(lambda _b: self.save())
        self.next_button.on_click(lambda _b: self.show(self.queue.skip()))
        self.prev_button.on_click(lambda _b: self._previous())
        self.shortcuts.observe(self._on_shortcut, names="value")
        super().__init__(children=[self.header, self.progress_bar, self.context_view,
                                   self.proposal_toggle, self.proposal_view, *self.sections.values(),
                                   self.rationale,
                                   self.shortcuts,
                                   _w.HBox([self.prev_button, self.save_button, self.next_button]),
                                   self.status], layout=_w.Layout(width="100%"))
        self.show(queue.next_item())

    def _fields(self) -> tuple[Any, ...]:
        return self.scheme.fields_for(self.item.speaker) if self.item is not None else ()

    def show(self, item: ReviewItem | None) -> None:
        self.item = item
        _show_progress(self)
        if item is None:
            self.context_view.value = "<b>모든 항목을 검토했습니다.</b>"
            for sec in self.sections.values():
                sec.layout.display = "none"
            self.proposal_view.value = ""
            return
        who = {"counselor": "상담자", "client": "내담자"}
        lines = [f"<div style='color:#555'><b>{who.get(c['speaker'], c['speaker'])}</b>: "
                 f"{html.escape(c['text'])}</div>" for c in item.context]
        lines.append(f"<div style='background:#eef4ff;padding:4px'><b>{who.get(item.speaker, item.speaker)}"
                     f" (검토 대상)</b>: {html.escape(item.counselor_text)}</div>")
        self.context_view.value = "".join(lines)
        applies = {f.name for f in self._fields()}
        start = (item.own or {}).get("labels", {})
        for f in self.scheme.fields:
            self.sections[f.name].layout.display = "" if f.name in applies else "none"
            ctrl = self.controls[f.name]
            v = start.get(f.name)
            if f.kind == "multi":
                for code, box in ctrl.items():
                    box.value = code in (v or ())
            elif f.kind == "score":
                _set_score(ctrl, v)
            else:
                ctrl.value = v
        self.rationale.value = (item.own or {}).get("rationale") or ""
        if self.proposal_toggle.value:
            self.proposal_toggle.value = False  # re-renders through the observer
        else:
            self._render_proposal()

    def _render_proposal(self) -> None:
        shown = self.proposal_toggle.value
        self.proposal_toggle.description = "AI 제안 숨기기 (h)" if shown else "AI 제안 보기 (h)"
        item = self.item
        if item is None:
            self.proposal_view.value = ""
            return
        p = item.proposal
        if not shown:
            self.proposal_view.value = "<i>AI 제안 숨김</i>"
        elif p is None:
            self.proposal_view.value = "<i>AI 제안 없음</i>"
        else:
            parts = []
            for f in self._fields():
                v = p.get("labels", {}).get(f.name)
                if v is None:
                    continue
                text = ", ".join(f.label(c) for c in v) if f.kind == "multi" else (
                    f"{v:g}" if f.kind == "score" else f.label(v))
                parts.append(f"{html.escape(f.label_ko)}: {html.escape(text)}")
            self.proposal_view.value = ("<div style='border-left:3px solid #f0ad4e;padding-left:6px'>"
                                        "<b>AI 제안 (확정 아님)</b><br>" + "<br>".join(parts) + "</div>")

    def labels(self) -> dict[str, Any]:
        """The ``{field: value}`` the controls show for the current item's fields."""
        out: dict[str, Any] = {}
        for f in self._fields():
            ctrl = self.controls[f.name]
            if f.kind == "multi":
                out[f.name] = [c for c, b in ctrl.items() if b.value]
            elif f.kind == "score":
                if (score := _score_value(ctrl)) is not None:  # 미입력: no value
                    out[f.name] = score
            elif ctrl.value is not None:
                out[f.name] = ctrl.value
        return out

    def save(self) -> str | None:
        if self.item is None:
            return None
        labels = self.labels()
        if not any(v not in (None, []) for v in labels.values()):
            self.status.value = "<span style='color:#b00'>하나 이상 표시하세요.</span>"
            return None
        missing = [f.label_ko for f in self._fields() if f.required and labels.get(f.name) in (None, [])]
        if missing:  # a field the scheme marks "required": true (the review page refuses the same way)
            self.status.value = ("<span style='color:#b00'>"
                                 + html.escape(f"필수 항목을 입력하세요: {', '.join(missing)}") + "</span>")
            return None
        ann_id = self.queue.submit_labels(self.item.item_id, labels,
                                          rationale=self.rationale.value or None,
                                          time_spent_s=round(time.monotonic() - self.item.shown_at, 3))
        self.status.value = "저장했습니다."
        self.show(self.queue.next_item())
        return ann_id

    def _previous(self) -> None:
        item = self.queue.previous()
        if item is not None:
            self.show(item)

    def handle_key(self, key: str) -> None:
        """A category key sets (single/ordinal) or toggles (multi) that category (:func:`key_action`)."""
        speaker = self.item.speaker if self.item is not None else None
        act = key_action(key, self.shortcut_keys.get(speaker, {}) if speaker is not None else {})
        if act is None:
            return
        verb, hit = act
        if verb == "save":
            self.save()
        elif verb == "next":
            self.show(self.queue.skip())
        elif verb == "previous":
            self._previous()
        elif verb == "toggle_proposal" and not self.queue.blind:
            self.proposal_toggle.value = not self.proposal_toggle.value
        elif verb == "label" and self.item is not None:
            assert hit is not None  # a "label" action names its (field, code)
            fname, code = hit
            ctrl = self.controls[fname]
            if isinstance(ctrl, dict):
                ctrl[code].value = not ctrl[code].value
            else:
                ctrl.value = apply_label(ctrl.value, code, multi=False)

    def _on_shortcut(self, change: Mapping[str, Any]) -> None:
        typed = change["new"]
        if not typed:
            return
        self.shortcuts.value = ""
        for ch in typed:
            self.handle_key(ch)


def review_widget(db: Database, round_id: str, reviewer_id: str, *, blind: bool = False) -> Any:
    """Notebook review UI for one reviewer (an ``ipywidgets.VBox``).

    For the default taxonomy: the context, the AI proposal (toggle; hidden when ``blind``),
    technique and client-state checkboxes, appropriateness buttons, 0–5 score buttons (미입력 until set), a rationale
    box, save/next/previous/skip buttons, a progress bar and a shortcut box using
    :data:`KEYMAP`. For any other scheme: :class:`SchemeReviewWidget`.
    """

    queue = ReviewQueue(db, round_id, reviewer_id, blind=blind)
    if queue.scheme.name == default_scheme().name:
        return ReviewWidget(queue)
    return SchemeReviewWidget(queue)
