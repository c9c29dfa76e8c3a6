"""Issue 12 round 5: closings, small talk, long turns ending in a question, English gist, fact classes.

The sentences here are written for the tests (paraphrases of the classes found on dev_r4), so
they check the mechanism, not the probes it was read from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vignette_lab.core.guardrails import detect_ccd_meta_rules, detect_means_content
from vignette_lab.core.personas import SMALL_TALK_SUBJECTS, load_personas
from vignette_lab.core.pii import mask_pii
from vignette_lab.engines.client_reading import (
    closing_kind,
    english_gist,
    read_act,
    read_fact,
    small_talk_subject,
)
from vignette_lab.engines.scripted import ScriptedEngine
from tests.test_client_listening import request
from tests.bench_loader import load_module

ROOT = Path(__file__).resolve().parents[1]


def test_dev_r4_is_a_dev_split_everywhere_and_test_stays_out_of_the_bank():
    bench = load_module("bench_client_r5", ROOT / "bench" / "bench_client.py")
    assert bench.DEFAULT_SPLITS[:5] == ("dev", "dev_r1", "dev_r2", "dev_r3", "dev_r4")
    assert bench.DEFAULT_SPLITS[-1] == "test"
    builder = load_module("build_bank_r5", ROOT / "bench" / "build_question_bank.py")
    assert "dev_r4" in builder.DEV_SPLITS and "test" not in builder.DEV_SPLITS
    assert {row["src"] for row in builder.rows()} >= {"dev_r4"}


@pytest.mark.parametrize("text,kind", [
    ("오늘 상담해 보니까 어땠어요? 솔직하게 말해도 돼요", "review"),
    ("끝내기 전에 오늘 대화에서 기억에 남는 거 하나만 말해 줄래?", "review"),
    ("마치기 전에 혹시 물어보고 싶은 거나 궁금한 거 있어요?", "review"),
    ("다음 시간까지 잠들기 전에 그날 기분을 한 줄씩 적어 와 볼래? 오늘은 여기까지 하자", "homework"),
    ("오늘은 여기서 마칠게요. 다음 주 이 시간에 오실 수 있으세요?", "next"),
    ("시험 끝나고 한 번 더 보면 좋겠다. 다음 주 어때?", "next"),
    ("오늘은 여기까지 할게. 오늘 얘기한 거 정리해 보면, 엄마랑 있을 때 제일 숨이 막힌다는 거지?", "summary"),
    ("슬슬 끝낼 시간이네. 오늘 어땠어? 솔직하게", "review"),
    ("다음 주에도 이 시간 괜찮아?", "next"),
    ("오늘 정말 수고 많으셨어요. 조심히 들어가세요", "plain"),
    ("이제 가도 돼. 다음에 봐", "plain"),
])
def test_closings_are_read_as_a_class_and_by_what_they_ask(text, kind):
    assert read_act(text, turn_seq=9) == "closing", text
    assert closing_kind(text) == kind, text


@pytest.mark.parametrize("text", [
    "오늘 얘기한 거 정리해 보면 학교에서도 집에서도 재미있는 게 별로 없다는 거지?",
    "쌤이 지금까지 들은 걸 정리해 보면, 학교에서는 혼자 있고 집에서는 말을 안 한다는 거지? 그때 기분이 어땠어?",
    "그 얘기는 다음 주에 시험이 있어서 더 그런 거야?",
])
def test_a_summary_of_what_was_said_so_far_is_not_a_closing(text):
    assert read_act(text, turn_seq=6) != "closing", text


def test_closing_replies_answer_what_the_wrap_up_asks():
    engine = ScriptedEngine(seed=0)
    review = engine.generate(request("P5", "오늘 상담해 보니까 어땠어? 별로였으면 별로라고 해도 돼", turn_seq=9)).text
    assert not review.startswith("네, 감사합니다")
    assert any(line in review for line in load_personas()["P5"].client_visible_dict()["script"]["acts"]["closing_review"])
    homework = engine.generate(request("P2", "다음 주까지 걱정될 때마다 메모해 보실래요? 오늘은 여기서 마칠게요", turn_seq=9))
    assert homework.metadata["reply_parts"][0] == "closing:homework"
    asked = engine.generate(request("P3", "마치기 전에 궁금하신 거 있으세요?", turn_seq=9)).text
    assert "없어요" in asked


@pytest.mark.parametrize("text,subject", [
    ("오늘 날씨 엄청 쌀쌀하다, 그치?", "weather"),
    ("점심에 급식 뭐 나왔어?", "food"),
    ("요즘 재밌는 예능 뭐 봐?", "media"),
    ("주말에 야구 경기 봤어?", "game_sport"),
    ("요즘 기름 값 너무 올랐던데", "money"),
    ("혹시 엑셀 잘 알아요? 쌤이 표 만드는 게 너무 어려워서", "favour"),
    ("그 가방 예쁘다. 어디서 샀어?", "style"),
])
def test_small_talk_subjects(text, subject):
    assert small_talk_subject(text) == subject, text
    assert read_act(text, turn_seq=5) == "off_topic", text


@pytest.mark.parametrize("text", [
    "비 오는 날엔 기분이 더 가라앉아?",          # about feelings
    "요즘 밥은 잘 먹어?",                        # about the client's appetite
    "축구부에서 무슨 일이 있었어?",              # the client's own story
])
def test_on_topic_questions_are_not_small_talk(text):
    assert read_act(text, turn_seq=5) != "off_topic", text


@pytest.mark.parametrize("text", ["공부는 이제 그만하고 싶다는 마음이 들어?", "그 얘기는 다음에 더 해도 괜찮아. 지금은 어때?"])
def test_mid_session_turns_are_not_closings(text):
    assert read_act(text, turn_seq=5) != "closing", text


def test_breakfast_is_not_school_lunch():
    out = ScriptedEngine(seed=0).generate(request("P1", "오늘 아침 뭐 먹었어?", turn_seq=4))
    assert out.metadata["act"] == "off_topic" and "급식" not in out.text



def test_small_talk_is_answered_on_its_subject_in_character():
    engine = ScriptedEngine(seed=0)
    out = engine.generate(request("P4", "근데 갑자기 궁금한데 짜장면 파야 짬뽕 파야? ㅋㅋ", turn_seq=6))
    assert out.metadata["act"] == "off_topic"
    assert "먹었" not in out.text  # a liking is asked, not what was eaten
    seen = engine.generate(request("P5", "어제 야구 경기 봤어? 진짜 대박이던데", turn_seq=6)).text
    assert "봤" in seen or "안 봐" in seen
    assert seen.split()[0] in ("야구요?", "경기요?")  # the subject echoed back


def test_groups_are_not_the_clients_grade():
    for text in ("요즘 고1들 사이에서 뭐가 유행해?", "요즘 중학생들은 무슨 노래 들어?"):
        assert read_fact(text) != "grade", text
    assert read_act("요즘 고1들 사이에서 뭐가 유행해?", turn_seq=5) == "off_topic"


def test_a_long_turn_is_answered_on_its_last_question():
    summary = ("쌤이 이해한 걸 말해 볼게. 모의고사가 끝나고 나서 점수가 계속 떨어졌고, 그래서 공부할 마음이 안 생기고, "
               "집에 가도 마음이 편하지 않다는 거지. 집 분위기도 무겁다고 했던 것 같은데, 혹시 틀린 거 있으면 말해 줘. "
               "그런데 집에는 누구누구 같이 살아?")
    out = ScriptedEngine(seed=0).generate(request("P7", summary, turn_seq=6))
    assert out.metadata["fact"] == "living" and "형" in out.text


@pytest.mark.parametrize("text,key", [
    ("집에선 혼자 지내세요?", "living"),
    ("가족분들은 다 어디 계세요?", "living"),
    ("무슨 계기로 상담을 신청하게 되셨어요?", "reason"),
    ("상담이 꼭 필요하다고 생각했어?", "reason"),
    ("동생이랑 비교될 때 기분이 어때?", "family"),
    ("적성 검사 결과는 어떻게 나왔어?", "aptitude"),
    ("요즘 회사에서 맡은 업무가 많아졌어요?", "school"),
])
def test_fact_classes(text, key):
    assert read_fact(text) == key, text


def test_lines_naming_what_is_asked_come_before_loose_detail_cues():
    out = ScriptedEngine(seed=0).generate(request("P3", "아이 아빠랑은 지금도 연락하세요?", turn_seq=6, openness=0.5))
    assert "아이 아빠" in out.text


def test_english_gist_for_adults_only():
    assert english_gist("How is your sleep these days?") == "sleep"
    adult = ScriptedEngine(seed=0).generate(request("P2", "How are things at work these days?", turn_seq=5))
    assert adult.metadata["reply_parts"][0] == "english:gist" and "회사" in adult.text
    teen = ScriptedEngine(seed=0).generate(request("P5", "How is school these days?", turn_seq=5))
    assert teen.metadata["reply_parts"] == ["english"]


def test_teens_answer_a_typed_laugh():
    out = ScriptedEngine(seed=0).generate(request("P7", "쌤 어제 계단에서 넘어질 뻔했잖아 ㅋㅋ 농담 아니고", turn_seq=5))
    assert out.metadata["act"] == "joke" and out.text.startswith("ㅋㅋ")
    adult = ScriptedEngine(seed=0).generate(request("P2", "저 어제 계단에서 넘어질 뻔했어요 ㅋㅋ 농담 아니고요", turn_seq=5))
    assert not adult.text.startswith("ㅋㅋ")


def test_new_card_lines_are_safe_unmasked_and_cover_the_subjects():
    for code, card in load_personas().items():
        script = card.client_visible_dict()["script"]
        assert set(script["small_talk"]) == set(SMALL_TALK_SUBJECTS), code
        lines = [x for v in script["small_talk"].values() for x in v]
        lines += [x for k in ("closing_review", "closing_next", "closing_homework") for x in script["acts"][k]]
        for line in lines:
            assert mask_pii(line, backend="regex").text == line, (code, line)
            assert not detect_means_content(line) and not detect_ccd_meta_rules(line), (code, line)


def test_bench_reports_each_author_of_a_split_apart():
    bench = load_module("bench_client_r5b", ROOT / "bench" / "bench_client.py")
    assert bench.author_of("cp-t5a-0012") == "cp-t5a" and bench.author_of("cp-t5b-0003") == "cp-t5b"
    lines = bench.report("test", {"n_probes": 2, "seconds": 0.1, "counts": {"closing_ok": [1, 2]},
                                  "by_author": {"cp-t5a": {"closing_ok": [1, 1]}, "cp-t5b": {"closing_ok": [0, 1]}}})
    assert any("author cp-t5a" in x for x in lines) and any("author cp-t5b" in x for x in lines)
