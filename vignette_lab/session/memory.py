"""Session memory across the lifecycle A–D (seed 004 §1–§2, seed 001 §2.7).

* **working** — :func:`checkpoint` upserts ``app.session_state`` every turn and
  :func:`restore_state` rebuilds a :class:`SessionState` from it after a restart;
* **episodic** — ``app.turns`` (append-only) get a rule-based :func:`salience`;
* **summary** — :func:`scripted_digest` writes 6–10 deterministic Korean sentences from the
  masked client-visible turns, plus open threads and homework;
* **semantic** — :func:`close_session_memory` updates ``app.case_profile`` (trajectory,
  alliance EWMA, case digest) and conservative pinned facts with append-only history.

Numbers carry over losslessly by code (``make_carry_over``); narratives may be lossy.
:func:`build_recall_context` assembles what the client may remember — big picture, then the
last summary, then episodic detail — within a token budget. It reads only client-visible
rows: no case conceptualisation, no evaluator output, no trainee profile.

Token estimate: Korean text runs about two characters per token for the tokenizers we
target, so ``tokens ≈ ceil(chars / 2)``. It is a budget guard, not a billing figure.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from vignette_lab.core.guardrails import mask_pii
from vignette_lab.core.pii import clip_masked
from vignette_lab.core.state import CarryOver, SessionState, make_carry_over
from vignette_lab.session.layers import RecallContext, _mask
from vignette_lab.store import app_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "ALLIANCE_ALPHA",
    "PinnedChange",
    "build_recall_context",
    "checkpoint",
    "checkpoint_turn",
    "close_session_memory",
    "estimate_tokens",
    "extract_pinned_candidates",
    "first_checkpoint",
    "load_carry_over",
    "open_threads",
    "pinned_for_client",
    "restore_state",
    "salience",
    "scripted_digest",
    "state_to_dict",
    "update_pinned_facts",
]

ALLIANCE_ALPHA = 0.5  # EWMA weight of the newest session in the alliance level
_ACTIVE_FACT = ("stable", "evolving", "locked")


def estimate_tokens(text: str) -> int:
    """``ceil(len(text) / 2)`` — about two Korean characters per token (module docstring)."""
    return math.ceil(len(text or "") / 2)


def state_to_dict(state: SessionState) -> dict[str, Any]:
    return state.snapshot()


# --- working memory --------------------------------------------------------------------

def checkpoint(db: Database, session_id: str, state: SessionState, *, short_buffer: Sequence[tuple[str, str]],
               recall: RecallContext | None, coach_credits: int) -> None:
    """Upsert the working-memory row so a killed process resumes at the same point."""
    app_repo.upsert_session_state(
        db, session_id, state,
        # memoised mask: a buffered text is masked once, not once per checkpoint it stays in
        short_buffer=[{"speaker": sp, "text": _mask(tx)} for sp, tx in short_buffer],
        recall_context=recall.to_dict() if recall is not None else None,
        coach_credits=coach_credits)


def first_checkpoint(db: Database, session_id: str, state: SessionState, *, recall: RecallContext | None,
                     coach_credits: int) -> None:
    """The working-memory row of a session opened in this transaction (a plain insert, see
    :func:`~vignette_lab.store.app_repo.insert_session_state`); later turns update it."""
    app_repo.insert_session_state(db, session_id, state, short_buffer=[],
                                  recall_context=recall.to_dict() if recall is not None else None,
                                  coach_credits=coach_credits)


def checkpoint_turn(db: Database, session_id: str, state: SessionState, *, short_buffer: Sequence[tuple[str, str]],
                    coach_credits: int) -> None:
    """The checkpoint after a turn: what a turn changes (the recall context is written at start)."""
    app_repo.update_session_state_turn(db, session_id, state,
                                       short_buffer=[{"speaker": sp, "text": _mask(tx)} for sp, tx in short_buffer],
                                       coach_credits=coach_credits)


_CHECKPOINT_COLUMNS = ("stage", "turn_seq", "effective_openness", "rapport_credit", "resistance",
                       "ideation_stage", "affect_state", "prev_rapport_credit")


def restore_state(row: dict[str, Any], snapshot: dict[str, Any]) -> SessionState:
    """Rebuild a :class:`SessionState` after a restart.

    ``snapshot`` is the last full ``SessionState.snapshot()`` written with the checkpoint (the
    last turn's ``state_after``, or the session's initial state); the checkpoint row's columns
    win where both have a value, so the row stays the source of truth for the numbers.
    """
    values = dict(snapshot)
    for col in _CHECKPOINT_COLUMNS:
        got = row.get(col)
        if got is None:
            continue
        if isinstance(got, float) and isinstance(values.get(col), (int, float)) \
                and abs(got - float(values[col])) < 1e-6:
            continue  # a REAL column rounds to float32: keep the lossless snapshot value
        values[col] = got
    for key in ("effective_openness", "rapport_credit", "resistance", "prev_rapport_credit"):
        values[key] = float(values[key])
    values["turn_seq"], values["ideation_stage"] = int(values["turn_seq"]), int(values["ideation_stage"])
    return SessionState.from_snapshot(values)


# --- episodic salience -----------------------------------------------------------------

_DISCLOSURE = re.compile(r"(사실은?|처음\s*말|아무한테도|아무에게도|비밀|솔직히|털어놓)")
_EMOTION = re.compile(r"(슬퍼|슬프|화가|화나|무서|두려|불안|외로|우울|눈물|울었|울고|답답|억울|미안|창피|부끄)")
_CRISIS = re.compile(r"(죽고\s*싶|사라지고\s*싶|없어지고\s*싶|살기\s*싫|자해|자살)")
_SMALLTALK = re.compile(r"^(네|예|아니요|음+|글쎄요|몰라요|모르겠어요|그냥요)[.…!?\s]*$")


def salience(text: str, speaker: str, *, is_pinned: bool = False) -> float:
    """Rule salience in [0, 1]: pinned/crisis/first disclosure/emotion up, small talk down."""
    text = text or ""
    score = 0.3 if speaker == "client" else 0.2
    if _SMALLTALK.match(text.strip()):
        return 0.05
    if speaker == "client":
        if _DISCLOSURE.search(text):
            score += 0.3
        if _EMOTION.search(text):
            score += 0.2
        if _CRISIS.search(text):
            score += 0.4
        if len(text) >= 60:
            score += 0.1
    if is_pinned:
        score += 0.3
    return round(min(1.0, score), 3)


# --- summary ---------------------------------------------------------------------------

def _quote(text: str, limit: int = 40) -> str:
    """One-sentence excerpt with sentence punctuation flattened so quotes never split sentences."""
    flat = re.sub(r"[.!?…]+", ",", (text or "").strip()).strip(", ")
    flat = re.sub(r"\s+", " ", flat)
    return flat if len(flat) <= limit else clip_masked(flat, limit + 1)  # never inside a mask tag


_DEFLECT = re.compile(r"(모르겠|몰라|그냥요|별로|글쎄|말하기\s*싫|나중에)")
_HOMEWORK = re.compile(r"(다음\s*(주|시간|번)까지|해\s*보(세요|면\s*어떨|시겠)|적어\s*(보|와)|기록해)")


def open_threads(turns: Sequence[dict[str, Any]], *, limit: int = 3) -> list[str]:
    """Counselor questions the client deflected — what the next session may pick up."""
    threads: list[str] = []
    for prev, nxt in zip(turns, turns[1:]):
        if prev["speaker"] == "counselor" and nxt["speaker"] == "client" and "?" in prev["text_masked"] \
                and (_DEFLECT.search(nxt["text_masked"]) or len(nxt["text_masked"].strip()) < 8):
            threads.append(f"'{_quote(prev['text_masked'])}'라는 물음에는 아직 답하지 못했다")
    return threads[-limit:]


def homework(turns: Sequence[dict[str, Any]]) -> list[str]:
    return [_quote(t["text_masked"], 60) for t in turns
            if t["speaker"] == "counselor" and _HOMEWORK.search(t["text_masked"])][-2:]


_STAGE_SENTENCE = {
    "라포": "아직은 상담자를 알아가는 단계였다.",
    "탐색": "상담자와 함께 내 이야기를 조금씩 구체적으로 살펴보기 시작했다.",
    "개입": "상담자와 함께 다른 관점이나 방법을 찾아보는 데까지 나아갔다.",
    "정리": "상담자와 그동안의 이야기를 정리하는 단계에 있었다.",
}


def scripted_digest(turns: Sequence[dict[str, Any]], *, session_no: int, end_stage: str,
                    openness_rose: bool) -> list[str]:
    """6–10 Korean sentences, built deterministically from masked client-visible turns.

    Written from the client's side ("나") because the client AI reads it as its own memory.
    No numbers, no labels, no evaluator output.
    """
    client = [t for t in turns if t["speaker"] == "client"]
    counselor = [t for t in turns if t["speaker"] == "counselor"]
    sentences = [f"{session_no}번째 상담에서 상담자와 {len(counselor)}번 정도 이야기를 주고받았다."]
    if counselor:
        sentences.append(f"상담자는 처음에 '{_quote(counselor[0]['text_masked'])}'라고 말을 걸었다.")
    if client:
        sentences.append(f"나는 처음에 '{_quote(client[0]['text_masked'])}'라고 대답했다.")
    ranked = sorted(client[1:-1], key=lambda t: (-salience(t["text_masked"], "client"), t["seq"]))
    for t in sorted(ranked[:3], key=lambda t: t["seq"]):
        sentences.append(f"중간에 '{_quote(t['text_masked'])}'라는 이야기를 꺼냈다.")
    if len(client) >= 2:
        sentences.append(f"마지막에는 '{_quote(client[-1]['text_masked'])}'라고 말했다.")
    sentences.append(_STAGE_SENTENCE.get(end_stage, _STAGE_SENTENCE["라포"]))
    sentences.append("이번에는 전보다 조금 더 마음을 열 수 있었다." if openness_rose
                     else "이번에는 마음을 여는 게 여전히 쉽지 않았다.")
    fillers = ["상담자가 내 이야기를 어떻게 받아들였는지가 기억에 남는다.",
               "다음에 만나면 이어서 이야기할 수 있을 것 같다.",
               "아직 다 꺼내지 못한 이야기가 남아 있다."]
    for filler in fillers:
        if len(sentences) >= 6:
            break
        sentences.append(filler)
    return sentences[:10]


# --- pinned facts ----------------------------------------------------------------------

_AGREEMENT = re.compile(r"(다음\s*(주|번|시간|상담)|또)\s*(에|에도|도)?\s*(올게요|올께요|올\s*거예요|올게|"
                        r"오겠|올래요|와\s*볼게요|만나요|뵐게요|봬요)")
_WITHDRAW = re.compile(r"(다시는|다음엔|더는|이제)?\s*(안\s*올|오지\s*않을|오지\s*않겠|그만\s*올|"
                       r"그만\s*다닐|상담\s*(은\s*)?그만|안\s*오려고|못\s*올\s*것\s*같)")
_IDENTITY_TOKEN = re.compile(r"\[(NAME|ORG|SCHOOL|PERSON)\]")


@dataclass(frozen=True)
class PinnedChange:
    key: str
    value: str
    fact_type: str
    source_turn: str | None
    withdraw: bool = False


def extract_pinned_candidates(turns: Sequence[dict[str, Any]]) -> list[PinnedChange]:
    """Conservative rules over masked client turns: identity mentions and counseling agreements."""
    out: dict[str, PinnedChange] = {}
    for t in turns:
        if t["speaker"] != "client":
            continue
        text = t["text_masked"] or ""
        for m in _IDENTITY_TOKEN.finditer(text):
            key = f"identity:{m.group(1).lower()}"
            if key not in out:
                sentence = next((s for s in re.split(r"(?<=[.!?…])\s+", text) if m.group(0) in s), text)
                out[key] = PinnedChange(key, _quote(sentence, 60), "identity", t.get("turn_id"))
        if _WITHDRAW.search(text):
            out["agreement:counseling"] = PinnedChange("agreement:counseling", "상담에 계속 오기로 한 약속",
                                                       "agreement", t.get("turn_id"), withdraw=True)
        elif _AGREEMENT.search(text):
            out["agreement:counseling"] = PinnedChange("agreement:counseling", "다음 상담에도 오기로 약속했다",
                                                       "agreement", t.get("turn_id"))
    return list(out.values())


def update_pinned_facts(db: Database, case_id: str, session_no: int, candidates: Sequence[PinnedChange]) -> list[str]:
    """Upsert facts with append-only history; returns the keys that changed.

    Same value → no history row; ``locked`` → untouched; an explicit withdrawal only turns an
    existing non-locked ``agreement:counseling`` into ``contradicted`` (reason ``contradiction``).
    """
    existing = {f["key"]: f for f in app_repo.list_pinned_facts(db, case_id)}
    changed = []
    for c in candidates:
        cur = existing.get(c.key)
        if cur is not None and cur["status"] == "locked":
            continue
        if c.withdraw:
            if cur is None or cur["status"] == "contradicted":
                continue  # never invent a contradicted fact
            app_repo.upsert_pinned_fact(db, case_id=case_id, key=c.key, value=cur["value"], fact_type=cur["fact_type"],
                                        status="contradicted", source_turn=c.source_turn,
                                        confidence=float(cur["confidence"] or 0.9),
                                        version=int(cur["version"]) + 1, session_no=session_no,
                                        visible_to=list(cur["visible_to"] or ["client", "evaluator"]),
                                        fact_id=cur["id"])
            app_repo.append_pinned_history(db, fact_id=cur["id"], case_id=case_id,
                                           old_value=cur["value"], new_value=cur["value"],
                                           reason="contradiction", session_no=session_no,
                                           turn_id=c.source_turn)
            changed.append(c.key)
            continue
        if cur is not None and cur["value"] == c.value and cur["status"] in _ACTIVE_FACT:
            continue
        fact_id = app_repo.upsert_pinned_fact(
            db, case_id=case_id, key=c.key, value=c.value, fact_type=c.fact_type, status="stable",
            source_turn=c.source_turn, confidence=0.9,
            version=1 if cur is None else int(cur["version"]) + 1, session_no=session_no,
            visible_to=["client", "evaluator"], fact_id=None if cur is None else cur["id"])
        app_repo.append_pinned_history(db, fact_id=fact_id, case_id=case_id,
                                       old_value=None if cur is None else cur["value"], new_value=c.value,
                                       reason="insert" if cur is None else "update",
                                       session_no=session_no, turn_id=c.source_turn)
        changed.append(c.key)
    return changed


def pinned_for_client(db: Database, case_id: str) -> list[str]:
    """Active client-visible facts, phrased as the client's own memory (L4)."""
    return [f["value"] for f in app_repo.list_pinned_facts(db, case_id, visible_to="client")
            if f["status"] in _ACTIVE_FACT]


# --- session end -----------------------------------------------------------------------

def close_session_memory(db: Database, session: dict[str, Any], state: SessionState, *, start_state: SessionState,
                         turns: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Lifecycle C: carry-over, summary, case profile and pinned facts (one transaction).

    Returns the summary fields written.
    """
    carry = make_carry_over(state)
    client_visible = [t for t in turns if "client" in (t.get("visible_to") or ())]
    digest = scripted_digest(client_visible, session_no=int(session["session_no"]), end_stage=state.stage,
                             openness_rose=state.effective_openness > start_state.effective_openness)
    threads = open_threads(client_visible)
    summary: dict[str, Any] = {"end_state": dataclasses.asdict(carry),
               "rapport_delta": round(float(state.rapport_credit) - float(start_state.rapport_credit), 6),
               "digest": " ".join(digest), "open_threads": threads, "homework": homework(client_visible)}
    case = app_repo.get_case_profile_by_id(db, session["case_id"])
    assert case is not None  # every session is opened on a stored case profile
    trajectory = list(case.get("rapport_trajectory") or [])
    trajectory.append({"session_no": int(session["session_no"]),
                       "start_rapport": round(float(start_state.rapport_credit), 6),
                       "end_rapport": round(float(state.rapport_credit), 6),
                       "end_openness": round(float(state.effective_openness), 6), "end_stage": state.stage})
    prev_alliance = case.get("alliance_level")
    alliance = float(state.effective_openness) if prev_alliance is None else \
        ALLIANCE_ALPHA * float(state.effective_openness) + (1 - ALLIANCE_ALPHA) * float(prev_alliance)
    case_digest = _merge_case_digest(case.get("case_digest") or "", digest, int(session["session_no"]))
    with db.transaction():
        app_repo.upsert_session_summary(db, session["session_id"], case_id=session["case_id"],
                                        session_no=int(session["session_no"]), compressed_by="scripted", **summary)
        app_repo.update_case_profile(db, session["case_id"], last_session_no=int(session["session_no"]),
                                     rapport_trajectory=trajectory, alliance_level=round(alliance, 6),
                                     case_digest=case_digest, presenting_arc=case.get("presenting_arc"))
        update_pinned_facts(db, session["case_id"], int(session["session_no"]),
                            extract_pinned_candidates(client_visible))
    return summary


def _merge_case_digest(previous: str, digest: Sequence[str], session_no: int) -> str:
    head = f"지금까지 상담자와 {session_no}번 만났다."
    prev_body = re.sub(r"^지금까지 상담자와 \d+번 만났다\.\s*", "", previous).strip()
    prev_sents = [s for s in re.split(r"(?<=[.!?])\s+", prev_body) if s][:3]
    latest = [s for s in digest[2:5]]
    return " ".join([head] + prev_sents + latest)[:800]


def load_carry_over(db: Database, case_id: str) -> tuple[CarryOver | None, dict[str, Any] | None]:
    """The last session's lossless end state of this case (None for a first session)."""
    last = app_repo.get_last_summary(db, case_id)
    if last is None or not last.get("end_state"):
        return None, last
    names = {f.name for f in dataclasses.fields(CarryOver)}
    data = {k: v for k, v in dict(last["end_state"]).items() if k in names}
    return CarryOver(**data), last


# --- recall (lifecycle A) --------------------------------------------------------------

def _fit(text: str, budget: int) -> str:
    if estimate_tokens(text) <= budget:
        return text
    return clip_masked(text, budget * 2) if budget > 0 else ""


def build_recall_context(db: Database, case_id: str, *, budget_tokens: int = 1200, query: str | None = None,
                         episodic_k: int = 5, embedder: Any = None,
                         recall_fn: Callable[..., Any] | None = None) -> RecallContext:
    """Big picture → last summary → episodic detail, within ``budget_tokens``.

    Shares: up to 40 % for the case digest, up to 35 % for the last summary and its open
    threads, the rest for episodic snippets (client-visible turns of *this* case only).
    """
    if budget_tokens <= 0:
        raise ValueError(f"build_recall_context: 'budget_tokens' must be > 0. Got {budget_tokens}.")
    case = app_repo.get_case_profile_by_id(db, case_id)
    if case is None or not int(case.get("last_session_no") or 0):
        return RecallContext()
    last = app_repo.get_last_summary(db, case_id)
    used = 0
    case_digest = _fit(mask_pii(case.get("case_digest") or "").text, int(budget_tokens * 0.40))
    used += estimate_tokens(case_digest)
    last_summary, threads = "", []
    if last is not None:
        last_summary = _fit(mask_pii(last.get("digest") or "").text, int(budget_tokens * 0.30))
        used += estimate_tokens(last_summary)
        for th in list(last.get("open_threads") or []):
            th = mask_pii(str(th)).text
            if used + estimate_tokens(th) > int(budget_tokens * 0.75):
                break
            threads.append(th)
            used += estimate_tokens(th)
    episodic: list[str] = []
    for snippet in _episodic(db, case_id, query=query or " ".join(threads) or last_summary,
                             k=episodic_k, embedder=embedder, recall_fn=recall_fn):
        snippet = mask_pii(snippet).text
        if used + estimate_tokens(snippet) > budget_tokens:
            break
        episodic.append(snippet)
        used += estimate_tokens(snippet)
    return RecallContext(case_digest=case_digest, last_summary=last_summary, open_threads=tuple(threads),
                         episodic=tuple(episodic), previous_session_no=int(case["last_session_no"]),
                         token_estimate=used)


def _episodic(db: Database, case_id: str, *, query: str, k: int, embedder: Any,
              recall_fn: Callable[..., Any] | None) -> list[str]:
    """Episodic snippets: ``kb.retrieval.recall_turns`` when present, else salience order."""
    fn = recall_fn
    if fn is None:
        from vignette_lab.kb.retrieval import recall_turns as fn  # numpy + embedders: ~0.3 s, only on recall
    if fn is not None and embedder is not None and query:
        hits = fn(db, case_id=case_id, query=query, k=k, embedder=embedder)
        return [str(h.get("text_masked") if isinstance(h, dict) else getattr(h, "text_masked", h)) for h in hits]
    return app_repo.salient_client_turns(db, case_id, k=k)
