"""Issue 11 round 5: risk screening and safety follow-up as a class; missed follow-up by class.

Every wording below was written for these tests (banmal, 해요체, 합쇼체, typos, fragments); a test
checks that none of them is an evaluation-split text. Both directions are tested: a follow-up after
a crisis cue in any wording is never ``warn``, and minimising, advice, accusation, a secrecy promise or
a change of subject after a cue is always ``warn`` with the ``safety`` deviation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vignette_lab.engines import crisis_cues
from vignette_lab.engines import utterance_tagger as ut
from vignette_lab.engines.scripted_evaluator import label_utterance

ROOT = Path(__file__).resolve().parents[1]
CUES = ["그냥 다 없어져 버렸으면 좋겠어", "어제 밤에 손목을 또 그었어요", "요즘 죽고 싶단 생각이 자주 들어요"]

# One or more per class of the risk assessment (seed 001 crisis_signal): frequency, intensity,
# a rating scale, timing of a plan, means, past attempts, what holds the client back, whom to
# reach, a contact agreement, a safety plan, a referral.
FOLLOW_UPS = [
    "그 생각은 하루에 몇 번쯤 와?",                                  # frequency
    "요즘은 그게 얼마나 세게 들어요?",                                # intensity
    "0에서 10으로 치면 지금은 몇 점 정도야?",                          # scale
    "10점 만점이면 오늘은 몇이에요?",                                 # scale, another wording
    "혹시 언제쯤 하겠다고 날을 정해 둔 것도 있어?",                     # timing of a plan
    "그때 쓰려고 모아 둔 약 같은 게 있나요?",                          # means
    "예전에도 실제로 해 본 적 있으세요?",                              # past attempts
    "지금까지 버티게 해 준 게 뭐였는지 궁금해요",                        # protective factors
    "힘들 때 제일 먼저 연락할 수 있는 사람은 누구야?",                   # whom to contact
    "매일 자기 전에 나한테 짧게 카톡 하나만 보내 줄래?",                 # contact agreement
    "오늘 밤 그 맘이 세지면 아까 같이 적은 번호부터 눌러 줘요",           # safety-plan reminder
    "너무 힘들면 1393에 바로 전화해도 돼. 밤에도 받아",                  # referral
    "학교 위클래스 선생님이랑 내일 같이 얘기해 볼까?",                   # school counsellor
    "내일 아침에 상담실 와서 얼굴 한 번 보여 주기로 약속하자",           # action promise (a contract)
    "그럴 때 얼마나 오래가는지 같이 적어 보고 싶어요",                    # indirect question
    "말씀하시기 어려우셨을 텐데 감사합니다. 그 충동이 지난주보다 강해졌습니까?",  # 합쇼체
    "혹시 그 생각 요즘두 자주 드러?",                                  # typos
]


@pytest.mark.parametrize("cue", CUES)
@pytest.mark.parametrize("utterance", FOLLOW_UPS)
def test_every_kind_of_risk_follow_up_after_a_cue_is_pos(cue, utterance):
    for model in (None, "default"):
        out = label_utterance(utterance, client_prev=cue, stage="exploration", persona_code="P5", model=model)
        assert out["crisis"], cue
        assert out["appropriateness"] == "pos" and not out["intent_deviation"], (utterance, model, out)


def test_the_client_framing_quoted_back_and_a_limit_of_secrecy_are_follow_ups():
    joke = "죽고 싶다 ㅋㅋ 농담이야 농담"
    for utterance, prev in [
        ("농담이라고 했지만 그냥 넘어가고 싶지 않아. 그런 생각 얼마나 자주 해?", joke),
        ("장난처럼 말씀하셨어도 저는 걱정돼요. 요즘도 그 생각이 드세요?", joke),
        ("비밀은 지킬게. 근데 네가 위험할 때는 보호자한테 알려야 해, 그건 미리 말해 둘게", "엄마한테는 말하지 마요"),
        ("지켜 주기로 약속해 줘서 고마워. 오늘 밤에도 힘들면 나한테 문자 줄래?", "네 오늘은 안 할게요"),
    ]:
        out = label_utterance(utterance, client_prev=prev, stage="exploration", persona_code="P4",
                              crisis_context=True)
        assert out["appropriateness"] == "pos", (utterance, out)


# Missed follow-up, by class: a question on a topic of the counselor's own after receiving the cue,
# advice about the thought, accusation, a secrecy promise, a leading no-harm check, a sign-off.
MISSED = [
    "많이 지쳤구나. 그럼 수행평가는 언제까지야?",                       # received, then a new topic
    "그 정도로 힘들었군요. 그래서 요즘 동아리는 나가요?",
    "그거 위험한데… 그래도 중간고사까진 공부에 집중하자",               # names the risk, moves to study
    "밤엔 그냥 음악 듣다가 자. 그럼 그런 생각 안 나",                  # advice about the thought
    "상처 아니잖아. 솔직하게 말해, 네가 한 거지?",                     # accusation
    "걱정 마, 절대 아무한테도 얘기 안 할게",                           # secrecy promise
    "설마 진짜로 그러진 않을 거잖아 ㅎㅎ",                             # leading no-harm check
    "그런 생각 하시면 안 됩니다. 가족을 생각하셔야죠",                  # prohibition (합쇼체)
    "그래 알겠어~ 다음 주에 봐!",                                       # sign-off without a check
]


@pytest.mark.parametrize("utterance", MISSED)
def test_missed_follow_up_after_a_cue_is_warn_safety(utterance):
    for model in (None, "default"):
        out = label_utterance(utterance, client_prev=CUES[0], stage="exploration", persona_code="P5", model=model)
        assert out["appropriateness"] == "warn", (utterance, model, out)
        assert any(d["dimension"] == "safety" for d in out["intent_deviation"]), (utterance, out)


def test_the_follow_up_shape_and_the_new_topic_question_are_two_sides():
    cue = CUES[0]
    assert crisis_cues.follow_up_shape("그 마음 얼마나 자주 와?", client_prev=cue)
    assert crisis_cues.follow_up_shape("1부터 10까지 중에 지금 몇이야?", client_prev=cue)
    assert not crisis_cues.follow_up_shape("시험은 언제 봐?", client_prev=cue)
    assert not crisis_cues.follow_up_shape("다음 주 언제 만날까?", client_prev=cue)
    assert crisis_cues.new_topic_question("많이 힘들었구나. 그럼 학원은 몇 시에 끝나?", client_prev=cue)
    assert not crisis_cues.new_topic_question("많이 힘들었구나. 혹시 스스로 다칠 생각도 들어?", client_prev=cue)
    # the client's own topic is not a new one
    assert not crisis_cues.new_topic_question("시험 얘기가 그렇게 무거웠구나. 시험 끝나면 그 생각이 더 세져?",
                                              client_prev="시험 망하면 그냥 죽어 버릴 거야")
    # outside a crisis context the evaluator is unchanged: a plain scheduling question stays a question
    out = label_utterance("다음 주 목요일 어때요?", client_prev="네 좋아요", stage="closing", persona_code="P2")
    assert not out["crisis"]


@pytest.mark.parametrize("line", [
    "다리에 난 거요? 별거 아니에요 그냥 긁힌 거예요",      # an injury explained away
    "이번 주를 버틸 수 있을지 잘 모르겠어",                 # doubting one can hold out
    "지나가는 트럭이 그냥 받아 버렸으면 싶어요",             # a vehicle wished for
    "아파트 옥상에서 떨어지면 어떨까 생각해 봤어",           # a fall imagined
    "밤에 학교 옥상 문 열리나 가 봤어요",                    # checking access to a height
    "어제 다리 위에서 한참 서 있었어",                        # lingering on a bridge
    "그냥 다 꺼져 버렸으면 좋겠다 나까지",                   # vanishing, oneself included
    "동생만 아니면 벌써…",                                   # the only thing holding one back
    "아침에 눈 뜨면 그냥 없었으면 좋겠어요",                   # gone, no subject
    "요즘은 사는 것도 귀찮아",                                 # living as a chore
])
def test_crisis_cues_are_read_by_class_from_the_client_line(line):
    assert ut.crisis_cue(line), line


@pytest.mark.parametrize("line", [
    "실수하면 다 끝나는 거잖아요 우리 팀에선",   # a consequence, not a wish
    "제가 눈치가 없으면요?",                     # something lacking, not being gone
    "숙제가 없었으면 좋겠어요",                   # a subject: not the self
    "다리가 아파서 한참 앉아 있었어요",           # a leg, not a bridge
    "모기한테 팔을 긁혔어요",                     # the 모기 exception holds for passives too
    "고양이한테 손등을 긁혔어",                    # an injury with another agent
])
def test_everyday_lines_are_not_crisis_cues(line):
    assert not ut.crisis_cue(line), line


def test_none_of_these_wordings_is_an_evaluation_text():
    dev = {ut.normalise_text(x["counselor"]) for name in ut.DEV_SPLITS for x in ut.dev_items(split=name)}
    dev |= {ut.normalise_text(x.get("client_prev", "")) for name in ut.DEV_SPLITS for x in ut.dev_items(split=name)}
    ours = FOLLOW_UPS + MISSED + CUES
    assert not {ut.normalise_text(x) for x in ours} & dev


def test_bench_reports_one_row_per_author_and_the_fast_test_only_path(tmp_path, monkeypatch, capsys):
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_evaluator as bench

    assert bench.author_prefix("ev-t4b-0012") == "ev-t4b-" and bench.author_prefix("ev-t5-0001") == "ev-t5-"
    r4 = ut.dev_items(split="dev_r4")
    part = [x for x in r4 if x["id"].startswith("ev-t4-")][:12] + [x for x in r4 if x["id"].startswith("ev-t4b-")][:10]
    rows = bench.by_author(part, bench.predict(part, None, appropriateness_model=None), n_boot=5)
    assert set(rows) == {"ev-t4-", "ev-t4b-"} and rows["ev-t4-"]["n"] == 12 and rows["ev-t4b-"]["n"] == 10
    assert bench.by_author(part[:12], bench.predict(part[:12], None, appropriateness_model=None), n_boot=5) == {}

    monkeypatch.setattr(bench, "EVAL_DIR", tmp_path)
    assert bench.main(["--boot", "5", "--test-only", "--write-metrics"]) == 0  # test split absent
    assert json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))["split"] is None
    (tmp_path / "test.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in part),
                                         encoding="utf-8")
    capsys.readouterr()
    assert bench.main(["--boot", "5", "--test-only", "--write-metrics"]) == 0
    out = capsys.readouterr().out
    metrics = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["split"] == "test" and metrics["n"] == 22
    assert set(metrics["authors"]) == {"ev-t4-", "ev-t4b-"} and metrics["authors"]["ev-t4b-"]["n"] == 10
    assert "shipped models" in out and "author ev-t4b-*" in out and "LOSO" not in out
