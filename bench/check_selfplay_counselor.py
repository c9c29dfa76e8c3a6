"""Does the self-play counselor read the client?  Mechanical checks on every counselor line.

Plays ``--sessions`` sessions × the seven personas × the four counselor profiles (scripted
engine, fresh in-memory DuckDB, evaluation off: the counselor's lines do not depend on it) and
checks each counselor line against the client lines before it:

``opening``
    the line presupposes client talk ("이야기를 들어 보니", "그 일", a problem topic such as
    "불안 이야기") although the client has said nothing yet — the first line of a session, or a
    line after a client turn that is only a stage direction ("(말없이 고개를 숙인다)");
``ungrounded``
    a restatement, or any line that reports what the client said ("…다는 거네요", "…라고 했는데",
    "X 이야기를 했네요"), names content words (kiwipiepy nouns / verb and adjective stems, minus
    counseling function words) that the client never said in this session — or, for a
    restatement, none of the client's last two lines; a word quoted as the client's
    ("괜찮다고 했지만") must be one the client used;
``off_topic``
    a question whose content words occur in neither of the client's last two lines (generic
    follow-ups such as "그때 마음이 어땠어요?" have no content words and always pass);
``crisis_missed``
    the client line carries a suicide/self-harm cue (the evaluator's ``crisis_cues.crisis_cue_reason``
    or explicit wording, :data:`CRISIS_CUE`) and the next counselor line is no safety check, risk
    follow-up or help-line referral (``crisis_cues`` shapes); reported per profile — a skilled
    counselor must never miss, the others may, and then the miss must be recorded
    (``crisis_unrecorded`` counts misses with no ``counselor_missed_crisis_cue`` event). The
    evaluator's anaphoric reading ("그런 생각이 들면 …") counts only after an explicit cue earlier
    in the session;
``hint_unscreened``
    ground truth from the client side: the client line contains one of its card's
    ``script.ideation_hints`` (which the counselor cannot see) and the next line is no safety
    response — how many passive-ideation hints the counselor's reading of the text lets pass;
``modality``
    voice, face, tears or posture in a text chat, unless the client's last line described it;
``repeat``
    the same line (fillers such as "음, " stripped) said earlier in the session;
``unanswered``
    the client put a question to the counselor (:func:`~vignette_lab.engines.scripted_counselor.client_question`:
    confidentiality, the next session, how long, why ask, what changes, reassurance, advice …) and the next line is
    not one of the bank's answers to that kind of question (the reader and the answers are the counselor's own, so
    this counts how often a profile answers, not whether a human would call the answer good);
``echo``
    a word copied into a template slot that is not a content noun where the client used it: a
    noun must bear a case or topic particle or head a noun phrase in the client's line —
    predicate nominals ("반반이에요"), adverbial time nouns ("새벽 네 시쯤"), fragments.

Every figure here is computed on the project's own engine and banks: **training material, not
evidence** of how well a human or an LLM counselor reads a client. The hand-labelled
``datasets/eval/selfplay_counselor/dev.jsonl`` (dev material, written by the tuner) checks the
checker: ``--dev`` prints how often its verdict agrees with the hand label.

Usage::

    python bench/check_selfplay_counselor.py --sessions 3 --turns 20
    python bench/check_selfplay_counselor.py --dev
    python bench/check_selfplay_counselor.py --sessions 1 --show 40   # print flagged lines
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _stats import wilson  # noqa: E402

CHECKS = ("opening", "ungrounded", "off_topic", "crisis_missed", "crisis_unrecorded", "hint_unscreened", "modality",
          "repeat", "echo", "unanswered")
PROFILES = ("skilled", "novice", "advice-jumper", "improving")
PERSONAS = ("P1", "P2", "P3", "P4", "P5", "P6", "P7")

# Counseling function words: saying them claims nothing about what the client said.
GENERIC = frozenset("""
이야기 얘기 말 말씀 마음 생각 느낌 기분 부분 요즘 오늘 지금 하루 시간 자리 여기 거기 상담 처음 사람 일 것 거 때
그때 이번 주 다음 번 가지 하나 방법 조금 좀 정도 순간 쪽 동안 그동안 정리 요약 이후 이유 무엇 뭐 어떤 누구 제일
가장 먼저 계속 다시 더 많이 정말 진짜 혼자서 서로 지난번 전 후 앞 모습 장면 영향 상황 문제 뿐 점 수 번째 때문
마지막 이곳 상담실 주 자신 나 저 우리 당신 마무리 기억 도움 다음번 선생님 쌤 시간대 경우 편 만큼 대답 질문
하 되 있 없 같 보 주 오 가 들 알 싶 말하 이야기하 얘기하 느끼 들리 나오 꺼내 모르 그렇 어떻 이렇 괜찮 듣 지내 해 보
크 작 많 적 길 짧 어렵 쉽 힘들 무겁 가볍 편하 불편하 고맙 감사하 좋 싫 나 남 드 생기 떠오르 달라지 걸리 쓰이 느껴지
말씀드리 들려주 나누 함께하 정하 잡 만나 이어 버티 애쓰 견디 지치 쌓이 담기 같이 따로 이어지 연결 연결되 그러
정리하 요약하 보이 않 지 다르 자리하 계시 계 둘 생각하 이야기 자체 오 가지 동안
""".split())
FEELING_STEMS = frozenset("""
답답 서운 불안 무기력 외롭 속상 억울 지치 슬프 부담 화 걱정 막막 두렵 미안 긴장 후련 아쉽 뭉클 겁 실망 상처
두려움 외로움 답답함 서운함 속상함 억울함 지침 슬픔 부담감 막막함 죄책감 무기력함 부담스럽 무섭 우울 짜증 창피
""".split())
REPORTED = re.compile(r"(다고\s*했|라고\s*했|다는\s*거|다는\s*말|다는\s*얘기|다는\s*이야기|이야기를\s*했|얘기를\s*했|"
                      r"이야기를\s*해\s*줬|이야기가\s*나왔|이야기가\s*나오|말했|한\s*말|했는데|했지만|하면서도|하는데)")
PRESUPPOSE = re.compile(r"(들어\s*보니|방금|아까|그\s*일|그때|그\s*상황|그런\s*생각|그\s*생각|그\s*말|그\s*이야기|그\s*얘기|"
                        r"말해\s*줘서|꺼내\s*줘서|솔직하게|이야기를\s*해|얘기를\s*해|다는\s*거|다고\s*했|라고\s*했|했는데|"
                        r"이야기가\s*나|그렇게\s*느끼|그렇게\s*잘)")
MODALITY = re.compile(r"(목소리|표정|눈빛|눈물|울먹|고개|한숨|떨리|떨려|떨고|자세|몸짓|얼굴|웃으|웃는|미소|어깨|눈을\s*피|"
                      r"손을\s*만지|말투가)")
SAFETY_WORDS = re.compile(r"(죽|자살|자해|해치|안전|109|1388|1577|상담\s*전화|사라지|그\s*생각|그런\s*마음|그\s*마음)")
FILLER = re.compile(r"^(음|네|그렇군요|그래요|아)[,.…\s]+")
ANAPHORIC = ("그 생각",)
# Explicit suicide/self-harm wording (the checker's own copy, so that old and new engines are
# scored with one definition; a bare "끝났으면" is mostly the session: "빨리 끝났으면 좋겠어요").
CRISIS_CUE = re.compile(r"(죽고\s*싶|자살|자해|사라지고\s*싶|사라졌으면|없어지면|없어졌으면|안\s*깼으면|안\s*깨어났으면|"
                        r"안\s*일어났으면|다\s*끝났으면|살기\s*싫|살고\s*싶지|없으면\s*다들|제가\s*없어도|다\s*끝내고\s*싶|"
                        r"(?:삶|인생)을?\s*끝내)")
# Words a line puts in the client's mouth: "괜찮다고 했는데", "상관없다고 하면서도".
QUOTED = re.compile(r"([가-힣]+?)(?:다|이라|라)고\s*(?:했|하면서|하지만|하는데|말했|하셨)")
# What a counselor may name before the client speaks: the meeting itself.
OPENING_WORDS = frozenset("안녕 반가움 만남 인사 길 비밀 안전 예외 정답 분 사람 편 단어 질문 대답 약속 숨 곳 신경".split())
LIGHT = frozenset("하 되 받 당하 시키 드리 떨 부리 피우 지르 나 내 없 같 치 쓰".split())
_PARTICLE = ("JKS", "JKO", "JX", "JKB", "JKC", "JC", "JKG", "JKV")


def _kiwi():
    from vignette_lab.core.morph import kiwi

    return kiwi()


_TOK: dict[str, tuple[tuple[str, str], ...]] = {}


def morphs(text: str) -> tuple[tuple[str, str], ...]:
    hit = _TOK.get(text)
    if hit is None:
        hit = tuple((t.form, t.tag) for t in _kiwi().tokenize(text))
        _TOK[text] = hit
    return hit


def spoken(text: str) -> str:
    """A client line without its stage directions "(…)"."""
    return re.sub(r"\([^)]*\)", " ", text or "").strip()


def lemmas(text: str) -> set[str]:
    """Nouns and predicate stems of a text (kiwipiepy), noun+suffix joined, stems without 다."""
    out: set[str] = set()
    ms = list(morphs(text))
    for i, (form, tag) in enumerate(ms):
        if tag in ("NNG", "NNP", "XR", "NR", "SL", "SN"):
            out.add(form)
            if i + 1 < len(ms) and ms[i + 1][1] in ("XSN",):
                out.add(form + ms[i + 1][0])
        elif tag in ("VV", "VA", "VX", "VV-R", "VA-R", "VV-I", "VA-I"):
            out.add(form)
        elif tag in ("XSA", "XSV") and i and ms[i - 1][1] in ("NNG", "XR"):
            out.add(ms[i - 1][0] + form)
    return out


def claim_words(text: str) -> set[str]:
    """What a counselor line asserts or asks about: its lemmas minus function and feeling words."""
    return {w for w in lemmas(text) if w not in GENERIC and w not in FEELING_STEMS
            and not any(w.startswith(f) for f in FEELING_STEMS) and len(w) >= 1 and not w.isdigit()}


def _norm(text: str) -> str:
    t = text.strip()
    while FILLER.match(t):
        t = FILLER.sub("", t, count=1)
    return re.sub(r"[\s.,!?…~'\"]+", "", t)


def _grounded(word: str, client: set[str]) -> bool:
    return word in client or any(word in c or c in word for c in client if len(c) >= 2 and len(word) >= 2)


def _slot_regexes(bank: Path | None = None) -> list[tuple[re.Pattern[str], list[str]]]:
    """Each bank template with slots, as a regex that recovers what filled them (``bank``: the
    ``counselor_banks.json`` the transcripts were played with; the installed one by default)."""
    from vignette_lab.engines.scripted_counselor import load_contingent

    extra = load_contingent(str(bank) if bank else None)
    templates = [t for lines in extra["contingent"].values() for t in lines] + list(extra["closing"])
    templates += [t for lines in extra.get("crisis", {}).values() for t in lines]
    out = []
    for t in templates:
        if "{noun" not in t:
            continue
        names: list[str] = []

        def repl(m: re.Match[str]) -> str:
            names.append(m.group(1))
            return r"(\S+?)" if m.group(1).startswith("noun") else r"(.+?)"
        pattern = re.sub(r"\\\{(\w+)\\\}", repl, re.escape(t))
        out.append((re.compile("^" + pattern + "$"), names))
    return out


def echoed_nouns(line: str, regexes: Sequence[tuple[re.Pattern[str], list[str]]]) -> list[str]:
    for rx, names in regexes:
        m = rx.match(line)
        if m:
            return [m.group(i + 1) for i, n in enumerate(names) if n.startswith("noun")]
    return []


def content_noun_in(word: str, client_line: str) -> bool:
    """``word`` is an argument noun in the client's line: it bears a particle, heads into another
    noun (a compound) or stands before a full verb with its particle dropped, so "X 이야기" reads
    naturally. A run of nouns ("야간 근무", "담임쌤") is judged by what follows its last noun."""
    ms = list(morphs(spoken(client_line)))
    merged: list[tuple[str, str]] = []
    for form, tag in ms:
        if tag == "XSN" and merged and merged[-1][1] in ("NNG", "NNP"):
            merged[-1] = (merged[-1][0] + form, merged[-1][1])
        else:
            merged.append((form, tag))
    for i in range(len(merged)):
        for j in range(i, len(merged)):
            if merged[j][1] not in ("NNG", "NNP"):
                break
            forms = [f for f, _ in merged[i:j + 1]]
            if word not in ("".join(forms), " ".join(forms)):
                continue
            after_form, after = merged[j + 1] if j + 1 < len(merged) else ("", "")
            if after.startswith(_PARTICLE) or after in ("NNG", "NNP") or after_form == "때문":
                return True
            # a dropped particle before a full verb ("시험 끝나고", "성적 안 물어보니까"); not a light
            # verb ("기대 안 해요", "눈물 나요", "유난 떠는") or a simile ("바보 같아요")
            k = j + 2 if after_form in ("안", "못") and j + 2 < len(merged) else j + 1
            verb_form, verb = merged[k] if k < len(merged) else ("", "")
            if verb.startswith(("VV", "VA")) and verb_form not in LIGHT:
                return True
    return False


def crisis_cue(text: str, *, earlier: Sequence[str] = ()) -> bool:
    """A suicide/self-harm cue: the counselor's own pattern or the evaluator's reading; an
    anaphoric reading ("그런 생각이 들어요") counts only after an explicit cue earlier in the session."""
    from vignette_lab.engines import crisis_cues

    t = spoken(text)
    if not t:
        return False
    if CRISIS_CUE.search(t):
        return True
    reason = crisis_cues.crisis_cue_reason(t)
    if reason is None:
        return False
    if reason in ANAPHORIC:
        return any(CRISIS_CUE.search(spoken(e)) or crisis_cues.crisis_cue_reason(spoken(e)) not in (None, *ANAPHORIC)
                   for e in earlier)
    return True


def opening_nouns(line: str) -> set[str]:
    """Nouns a line names before the client has said anything ("불안 이야기를 꺼내려니"): NNG/NNP
    that are not part of a predicate ("긴장되겠어요") and not counseling function words."""
    ms = list(morphs(line))
    out = set()
    for i, (form, tag) in enumerate(ms):
        nxt = ms[i + 1][1] if i + 1 < len(ms) else ""
        if tag in ("NNG", "NNP") and form not in GENERIC and not nxt.startswith(("XSV", "XSA", "VCP")):
            out.add(form)
    return out - OPENING_WORDS


def safety_response(line: str, client: str) -> bool:
    from vignette_lab.engines import crisis_cues

    prev = spoken(client)
    return bool(crisis_cues.screening_question(line) or crisis_cues.risk_screen(line)
                or crisis_cues.follow_up_shape(line, client_prev=prev) or crisis_cues.safety_plan(line, client_prev=prev)
                or re.search(r"(109|1388|1577)", line))


def check_session(turns: Sequence[dict[str, Any]], *, profile: str, missed_recorded: set[int],
                  regexes: Sequence[tuple[re.Pattern[str], list[str]]], hints: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One row per counselor line: ``{"i", "text", "technique", "client_before", <check>: True/False/None}``
    (None: the check does not apply to this line)."""
    from vignette_lab.engines.scripted_counselor import client_question, load_contingent

    answers = load_contingent()["answers"]
    rows: list[dict[str, Any]] = []
    client_lines: list[str] = []
    seen: set[str] = set()
    counselor_i = 0
    for k, t in enumerate(turns):
        if t["speaker"] != "counselor":
            client_lines.append(t["text"])
            continue
        counselor_i += 1
        line, tech = t["text"], t.get("intended_technique") or ""
        last = client_lines[-1] if client_lines else ""
        said = [spoken(c) for c in client_lines]
        silent = not re.search(r"[가-힣A-Za-z0-9]", spoken(last))
        session_words: set[str] = set().union(*(lemmas(c) for c in said if c)) if said else set()
        recent_words: set[str] = set().union(*(lemmas(c) for c in said[-2:] if c)) if said else set()
        row: dict[str, Any] = {"i": counselor_i, "text": line, "technique": tech, "client_before": last}
        cue = bool(last) and crisis_cue(last, earlier=client_lines[:-1])
        safe = cue and safety_response(line, last)
        closing = k >= len(turns) - 2 and counselor_i > 1 and re.search(r"(마무리|여기까지|다음 (주|시간)|시간이 다)", line)
        # opening: nothing said yet (or only a stage direction) but the line presupposes talk
        if silent:
            topic_nouns = opening_nouns(line) if not said or not any(said) else set()
            row["opening"] = bool(PRESUPPOSE.search(line) or topic_nouns)
        else:
            row["opening"] = None
        # ungrounded restatement / report of what the client said
        if not silent and not cue and not closing and (tech == "restatement" or REPORTED.search(line)):
            words = claim_words(line)
            missing = sorted(w for w in words if not _grounded(w, session_words))
            for quoted in QUOTED.findall(line):  # "괜찮다고 했지만": the client must have said it
                missing += sorted(w for w in lemmas(quoted) - {"하", "되", "있"} if not _grounded(w, session_words))
            stale = tech == "restatement" and words and not any(_grounded(w, recent_words) for w in words)
            row["ungrounded"] = bool(missing or stale)
            row["ungrounded_words"] = missing
        else:
            row["ungrounded"] = None
        # questions follow the topic
        assessing = safety_response(line, last) and any(crisis_cue(c, earlier=client_lines[:n])
                                                        for n, c in enumerate(client_lines))
        if line.rstrip().endswith("?") and not silent and not cue and not closing and not assessing:
            words = claim_words(line)
            row["off_topic"] = bool(words) and not any(_grounded(w, recent_words) for w in words)
            row["off_topic_words"] = sorted(words)
        else:
            row["off_topic"] = None
        row["crisis_missed"] = (not safe) if cue else None
        hinted = any(h in last for h in hints)  # the client engine said one of its card's ideation hints
        row["hint_unscreened"] = (not safety_response(line, last)) if hinted else None
        row["crisis_unrecorded"] = (row["crisis_missed"] and counselor_i not in missed_recorded) if cue else None
        asked = client_question(last) if last and not silent and not cue and not closing else None
        row["unanswered"] = (line not in answers.get(asked, ())) if asked else None
        m = MODALITY.search(line)
        row["modality"] = bool(m and m.group(1) not in last)
        key = _norm(line)
        row["repeat"] = key in seen
        seen.add(key)
        echoed = echoed_nouns(line, regexes)
        if echoed and not silent:
            window = said if closing else said[-2:]  # a closing may name the session's topics
            bad = [w for w in echoed if not any(content_noun_in(w, c) for c in window)]
            row["echo"] = bool(bad)
            row["echo_words"] = bad
        else:
            row["echo"] = None
        rows.append(row)
    return rows


def ideation_hints(persona: str) -> tuple[str, ...]:
    """The card's ideation hint lines (what the client engine says at each ideation stage)."""
    path = ROOT / "datasets" / "personas" / f"{persona}.json"
    if not path.exists():
        return ()
    hints = (json.loads(path.read_text(encoding="utf-8")).get("script") or {}).get("ideation_hints") or {}
    return tuple(h for lines in hints.values() for h in lines if isinstance(h, str) and h.strip())


def play(*, sessions: int, turns: int, seed: int, personas: Sequence[str] = PERSONAS,
         profiles: Sequence[str] = PROFILES) -> list[dict[str, Any]]:
    """Run the self-play grid on a fresh in-memory database; one dict per session."""
    from vignette_lab.session.selfplay import run_selfplay
    from vignette_lab.store import app_repo, connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(":memory:")
    init_db(db)
    load_catalog(db)
    out = []
    try:
        for profile in profiles:
            res = run_selfplay(db, personas=tuple(personas), counselor=profile, sessions=sessions, turns=turns,
                               seed=seed, progress=False, evaluate=False)
            for s in res.sessions:
                turn_rows = list(s.turns)
                seq_to_i, i = {}, 0
                stored = app_repo.list_turns(db, s.session_id)
                for r in stored:
                    if r["speaker"] == "counselor":
                        i += 1
                        seq_to_i[r["seq"]] = i
                missed = {seq_to_i.get(e["turn_seq"], -1) for e in app_repo.list_safety_events(db, s.session_id)
                          if e.get("kind") == "counselor_missed_crisis_cue"}
                out.append({"session_id": s.session_id, "persona": s.persona, "profile": profile,
                            "turns": turn_rows, "missed_recorded": sorted(missed)})
    finally:
        db.close()
    return out


def score(played: Iterable[dict[str, Any]], *, bank: Path | None = None
          ) -> tuple[dict[str, dict[str, tuple[int, int]]], list[dict[str, Any]]]:
    """``({profile or "all": {check: (flagged, applicable)}}, flagged rows)``."""
    regexes = _slot_regexes(bank)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    flagged = []
    for s in played:
        rows = check_session(s["turns"], profile=s["profile"], missed_recorded=set(s["missed_recorded"]),
                             regexes=regexes, hints=ideation_hints(s["persona"]))
        for r in rows:
            for c in CHECKS:
                if r.get(c) is None:
                    continue
                for key in (s["profile"], "all"):
                    counts[key][c + ":n"] += 1
                    counts[key][c + ":k"] += int(bool(r[c]))
                if r[c]:
                    flagged.append({"check": c, "persona": s["persona"], "profile": s["profile"], **r})
    table = {key: {c: (cnt[c + ":k"], cnt[c + ":n"]) for c in CHECKS} for key, cnt in counts.items()}
    return table, flagged


def format_table(table: dict[str, dict[str, tuple[int, int]]]) -> str:
    keys = [k for k in (*PROFILES, "all") if k in table]
    lines = ["| check | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
    for c in CHECKS:
        cells = []
        for k in keys:
            f, n = table[k][c]
            lo, hi = wilson(f, n)
            cells.append(f"{f}/{n} = {f / n:.3f} [{lo:.3f}, {hi:.3f}]" if n else "—")
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def dev_agreement(path: Path) -> tuple[int, int, list[dict[str, Any]]]:
    """Checker verdict vs the hand label on the ``reply`` items of ``dev.jsonl``: a reply is
    *fitting* for the checker when none of its checks fires."""
    regexes = _slot_regexes()
    items = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    items = [it for it in items if it.get("kind", "reply") == "reply"]
    agree, wrong = 0, []
    for it in items:
        history = [{"speaker": "client", "text": c} for c in it.get("context", [])]
        if it.get("client") is not None:
            history.append({"speaker": "client", "text": it["client"]})
        turns = history + [{"speaker": "counselor", "text": it["reply"], "intended_technique": it.get("technique")}]
        row = check_session(turns, profile="skilled", missed_recorded=set(), regexes=regexes)[-1]
        fired = [c for c in CHECKS if c != "crisis_unrecorded" and row.get(c)]
        verdict = not fired
        if verdict == bool(it["fitting"]):
            agree += 1
        else:
            wrong.append({"id": it["id"], "label": it["fitting"], "fired": fired, "reply": it["reply"]})
    return agree, len(items), wrong


def hint_probe(*, seeds: int = 3, profiles: Sequence[str] = PROFILES) -> dict[str, tuple[int, int, list[str]]]:
    """Every card's ideation hint line (``script.ideation_hints``, all stages — written by the card
    authors, unseen by the counselor) as the client's line in 탐색, ``seeds`` sessions each: how often the
    counselor's next line is a safety response. ``{profile: (answered, n, [missed hints])}``."""
    from vignette_lab.engines.base import EngineMessage, GenerateRequest
    from vignette_lab.engines.scripted import ScriptedEngine

    engine = ScriptedEngine(seed=7)
    out: dict[str, tuple[int, int, list[str]]] = {}
    for profile in profiles:
        k = n = 0
        missed: list[str] = []
        for persona in PERSONAS:
            for h, hint in enumerate(ideation_hints(persona)):
                for seed in range(seeds):
                    msgs = (EngineMessage("system", "상담자"), EngineMessage("user", "요즘 좀 힘들어요."),
                            EngineMessage("assistant", "요즘 어떤 게 제일 힘들어요?"), EngineMessage("user", hint))
                    resp = engine.generate(GenerateRequest("counselor", msgs, session_id=f"hint-{persona}-{h}-{seed}",
                                                           metadata={"counselor_profile": profile, "stage": "탐색",
                                                                     "turn_seq": 3, "turns": 20, "persona_code": persona,
                                                                     "progress": 0.0, "seed": seed}))
                    n += 1
                    if safety_response(resp.text, hint):
                        k += 1
                    elif seed == 0:
                        missed.append(hint)
        out[profile] = (k, n, missed)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--show", type=int, default=0, help="print up to N flagged lines")
    ap.add_argument("--json", type=Path, help="write the played transcripts and the table here")
    ap.add_argument("--dev", action="store_true", help="score the checker against the hand-labelled dev set")
    ap.add_argument("--hints", action="store_true", help="probe: every card ideation hint as the client's line")
    ap.add_argument("--from-json", type=Path, help="re-score transcripts written earlier with --json")
    ap.add_argument("--bank", type=Path, help="counselor_banks.json the --from-json transcripts were played with")
    ap.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated counselor profiles")
    ap.add_argument("--personas", default=",".join(PERSONAS), help="comma-separated persona codes")
    args = ap.parse_args(argv)
    if args.dev:
        path = ROOT / "datasets" / "eval" / "selfplay_counselor" / "dev.jsonl"
        k, n, wrong = dev_agreement(path)
        lo, hi = wilson(k, n)
        print(f"checker agrees with the hand label: {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}] (dev material)")
        for w in wrong:
            print("  ", w)
        test = path.with_name("test.jsonl")
        if test.exists():
            k, n, _ = dev_agreement(test)
            lo, hi = wilson(k, n)
            print(f"test split: {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]")
        return 0
    if args.hints:
        for profile, (k, n, missed) in hint_probe(profiles=tuple(p for p in args.profiles.split(",") if p)).items():
            lo, hi = wilson(k, n)
            print(f"{profile}: safety response after an ideation hint {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]"
                  " (training material, not evidence)")
            for h in missed[: args.show]:
                print("   missed:", h)
        return 0
    t0 = time.perf_counter()
    if args.from_json:
        played = json.loads(args.from_json.read_text(encoding="utf-8"))["sessions"]
    else:
        played = play(sessions=args.sessions, turns=args.turns, seed=args.seed,
                      profiles=tuple(p for p in args.profiles.split(",") if p),
                      personas=tuple(p for p in args.personas.split(",") if p))
    elapsed = time.perf_counter() - t0
    table, flagged = score(played, bank=args.bank)
    print(f"{len(played)} sessions × {args.turns} turns, seed {args.seed}, {elapsed:.0f} s wall on a shared machine "
          "(training material, not evidence)")
    print(format_table(table))
    by_check = Counter(f["check"] for f in flagged)
    print("flagged:", dict(by_check))
    for f in flagged[: args.show]:
        extra = f.get(f["check"] + "_words", "")
        print(f"[{f['check']}] {f['persona']} {f['profile']} #{f['i']} {f['technique']}: {f['text']}  "
              f"<- {f['client_before']!r} {extra}")
    if args.json:
        args.json.write_text(json.dumps({"table": {k: {c: list(v) for c, v in t.items()} for k, t in table.items()},
                                         "sessions": played}, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
