"""The self-play counselor reads the client (issue 12 item 5).

Openings presuppose no talk, slot words are argument nouns of the client's line, restatements and
quotes use only what the client said, questions follow the client's topic, a skilled counselor
always answers a crisis cue (and goes on assessing), no line or template twice in a session. The
bench checker (``bench/check_selfplay_counselor.py``) is scored against its hand-labelled dev set.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vignette_lab.engines import crisis_cues
from vignette_lab.engines.base import EngineMessage, GenerateRequest
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.engines.scripted_counselor import (
    CRISIS_CUE, MODALITY, PRESUPPOSES_TALK, argument_nouns, load_contingent)
from tests.bench_loader import load_module

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "datasets" / "eval" / "selfplay_counselor" / "dev.jsonl"


def _checker():
    return load_module("check_selfplay_counselor", ROOT / "bench" / "check_selfplay_counselor.py")


def _say(engine, client_lines, *, profile="skilled", said=(), turn=5, turns=20, stage="탐색", sid="c", code="P1"):
    msgs = [EngineMessage("system", "상담자")]
    for i, line in enumerate(client_lines):
        msgs.append(EngineMessage("user", line))
        if i < len(said):
            msgs.append(EngineMessage("assistant", said[i]))
    if not client_lines:
        msgs.append(EngineMessage("user", "(상담이 시작되었습니다. 먼저 인사를 건네세요.)"))
    return engine.generate(GenerateRequest("counselor", tuple(msgs), session_id=sid, metadata={
        "counselor_profile": profile, "stage": stage, "turn_seq": turn, "turns": turns, "persona_code": code,
        "progress": 0.0, "seed": 1, "prior_lines": list(said)}))


@pytest.mark.parametrize(("line", "expected"), [
    ("음… 반반이요.", ()),                                   # a predicate nominal
    ("잠을 잘 못 자요. 새벽 네 시쯤 돼야 잠들어요.", ("잠",)),  # a time noun before a count; 잠 with its particle
    ("틀리면 제가 완전 바보 같아요.", ()),                    # a simile is a predicate
    ("기대 안 하면 실망도 안 하니까, 그냥 기대 안 해요.", ()),  # part of a light-verb predicate
    ("솔직히… 그건 왜요? 상관없잖아요.", ()),                 # 상관 + 없다 is one adjective
    ("야간 근무 있는 날은 더 못 자고요.", ("야간 근무",)),     # a compound is one phrase
    ("이번 시험 망하면 진짜 끝일 것 같아요.", ("시험",)),      # deixis left out
    ("시험 끝나고 친구들이랑 답 맞춰 봤어요.", ("시험", "친구들")),  # dropped particle before a verb; 답 bare
    ("(휴대폰 화면만 내려다본다)", ()),                       # a stage direction says nothing
])
def test_slot_words_are_argument_nouns_of_the_client_line(line, expected):
    got = argument_nouns(line)
    assert got[:len(expected)] == expected if expected else got == ()


def test_the_opening_presupposes_no_talk_and_names_no_problem():
    engine = ScriptedEngine(seed=5)
    openers = {t for lines in load_contingent()["opening"].values() for t in lines}
    for k in range(40):
        resp = _say(engine, [], turn=1, stage="라포", sid=f"o{k}", code=f"P{k % 7 + 1}")
        assert resp.text in openers, resp.text
        assert not PRESUPPOSES_TALK.search(resp.text)
        assert resp.metadata["intended_technique"]


def test_a_silent_turn_gets_a_line_that_presupposes_no_talk():
    engine = ScriptedEngine(seed=6)
    for k in range(30):
        resp = _say(engine, ["안녕하세요.", "(말없이 고개를 숙인다)"], said=["안녕하세요. 오늘 어떤 이야기부터 하고 싶어요?"],
                    sid=f"s{k}")
        assert not PRESUPPOSES_TALK.search(resp.text), resp.text


def test_restatements_and_quotes_use_only_what_the_client_said():
    engine = ScriptedEngine(seed=7)
    client = "엄마는 맨날 늦게 들어와요. 들어오면 성적 얘기부터 해요."
    for k in range(60):
        resp = _say(engine, [client], sid=f"r{k}", code="P1")
        text = resp.text
        assert "혼자 지냈다" not in text and "괜찮다고 했" not in text and "상관없다고" not in text, text
        if resp.metadata["intended_technique"] == "restatement":
            assert "엄마" in text or "성적" in text or not re.search(r"(다는|라는)\s*(거|말|얘기)", text), text
        assert "반반" not in text and "새벽" not in text


def test_questions_follow_the_clients_topic():
    engine = ScriptedEngine(seed=8)
    client = "회사에서 팀장님이 보고서를 세 번이나 돌려보냈어요."
    off = ("부모님", "잠은", "시험", "친구")
    for k in range(60):
        resp = _say(engine, [client], sid=f"q{k}", code="P2")
        if resp.text.rstrip().endswith("?"):
            assert not any(w in resp.text for w in off), resp.text


def test_a_skilled_counselor_answers_every_crisis_cue_and_keeps_assessing():
    engine = ScriptedEngine(seed=9)
    crisis = load_contingent()["crisis"]
    cue = "가끔 자다가 안 깼으면 좋겠다고 생각해요."
    for k in range(20):
        first = _say(engine, [cue], sid=f"k{k}")
        assert first.metadata["crisis_response"] == "safety_check" and first.text in crisis["safety_check"]
        # the client's answer to the check gets a risk follow-up, not a new topic
        nxt = _say(engine, [cue, "가끔요."], said=[first.text], sid=f"k{k}", turn=6)
        assert nxt.metadata["crisis_response"] == "follow_up" and nxt.text in crisis["follow_up"], nxt.text
    # a novice may miss it, and the miss is recorded
    missed = [_say(engine, [cue], profile="novice", sid=f"n{k}").metadata["crisis_missed"] for k in range(30)]
    assert any(missed) and not all(missed)


def test_wanting_the_session_to_end_is_not_a_crisis_cue():
    assert not CRISIS_CUE.search("안녕하세요. 빨리 끝났으면 좋겠어요.")
    assert CRISIS_CUE.search("그냥 다 끝났으면 좋겠어요.") and CRISIS_CUE.search("아침에 안 일어났으면 좋겠어요.")
    resp = _say(ScriptedEngine(seed=3), ["빨리 끝났으면 좋겠어요."], sid="end")
    assert resp.metadata["crisis_response"] is None and not resp.metadata["crisis_cue"]


@pytest.mark.parametrize(("line", "cue"), [
    ("어디 아무도 없는 데로 가 버리고 싶어요.", True),           # a wish to be gone, with absence
    ("그냥 며칠만 세상이 멈췄으면 좋겠어요.", True),
    ("아침에 그냥 계속 자고 싶을 때가 많아요.", True),
    ("이렇게 계속 사는 게 좀 지친다는 생각은 들어요.", True),     # life itself judged
    ("잠 좀 푹 자고 싶어요.", False),                             # a sleep complaint
    ("주말에 여행 가고 싶어요.", False),
    ("다음 주엔 학원 그만두고 싶어요.", False),
    ("엄마가 좀 멀리 갔으면 좋겠어요.", False),
])
def test_passive_ideation_as_a_wish_to_be_gone_gets_a_safety_check(line, cue):
    resp = _say(ScriptedEngine(seed=4), [line], sid="wish")
    assert bool(resp.metadata["crisis_cue"]) is cue
    assert (resp.metadata["crisis_response"] == "safety_check") is cue, resp.text


@pytest.mark.parametrize("kind", ["safety_check", "follow_up"])
def test_every_crisis_line_reads_as_safety_screening_to_the_evaluator(kind):
    cue = "사라지고 싶다는 생각이 들어요."
    for line in load_contingent()["crisis"][kind]:
        assert (crisis_cues.screening_question(line) or crisis_cues.risk_screen(line)
                or crisis_cues.follow_up_shape(line, client_prev=cue) or crisis_cues.safety_plan(line, client_prev=cue)
                or re.search(r"(109|1388|1577)", line)), line


def test_no_line_and_no_template_twice_and_no_modality_in_a_session():
    engine = ScriptedEngine(seed=10)
    lines = ["요즘 엄마가 성적 얘기만 해서 집에 있기가 싫어요.", "학교 가는 게 좀 힘들어요.", "친구들이 저만 빼고 놀아요.",
             "그냥요.", "시험 끝나면 좀 나아질 것 같아요."]
    said: list[str] = []
    client: list[str] = []
    for turn in range(1, 21):
        client.append(lines[turn % len(lines)])
        resp = _say(engine, client, said=said, turn=turn, turns=20, sid="same")
        assert resp.text not in said and not MODALITY.search(resp.text), resp.text
        said.append(resp.text)
    templates = [t for lines in load_contingent()["contingent"].values() for t in lines]
    for t in templates:
        rx = re.compile("^" + re.sub(r"\\\{\w+\\\}", "(.+?)", re.escape(t)) + "$")
        assert sum(bool(rx.match(x)) for x in said) <= 1, t
    assert "마무리" in said[-1] or "마칠" in said[-1] or "여기까지" in said[-1]


def test_the_checker_agrees_with_the_hand_labels_of_its_dev_set():
    checker = _checker()
    agree, n, wrong = checker.dev_agreement(DEV)
    assert n >= 30
    assert agree / n >= 0.85, wrong


def test_phrase_extraction_on_the_dev_set():
    items = [json.loads(x) for x in DEV.read_text(encoding="utf-8").splitlines() if x.strip()]
    phrase = [it for it in items if it["kind"] == "phrase"]
    good = sum((not it["echo_ok"] and not argument_nouns(it["client"]))
               or (bool(argument_nouns(it["client"])) and argument_nouns(it["client"])[0] in it["echo_ok"])
               for it in phrase)
    assert len(phrase) >= 20 and good / len(phrase) >= 0.8


def test_checker_flags_nothing_structural_on_a_short_grid():
    checker = _checker()
    played = checker.play(sessions=1, turns=8, seed=3, personas=("P1", "P4"), profiles=("skilled",))
    table, flagged = checker.score(played)
    for check in ("opening", "repeat", "modality", "crisis_missed"):
        k, n = table["all"][check]
        assert k == 0, [f for f in flagged if f["check"] == check]
