"""Issue 11 round 3: crisis cues from morphemes, dismissal vs follow-up after a cue, learned appropriateness."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vignette_lab.engines import appropriateness as appr
from vignette_lab.engines import crisis_cues
from vignette_lab.engines import utterance_tagger as ut
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.engines.base import EngineMessage, GenerateRequest
from vignette_lab.engines.scripted_evaluator import _session_evaluation, label_utterance

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "datasets" / "eval" / "evaluator"


# ------------------------------------------------------------------ crisis cues in the client line
@pytest.mark.parametrize("line", [
    "요즘 그냥 다 끝내버리고 싶어요",            # 끝내다 + 버리다
    "사라지고싶다 진짜",                       # no space
    "죽고십다 진짜",                           # typo
    "이렇게 살 바엔 그냥 죽는 게 나을 것 같아.",  # evaluating death
    "가끔 저만 없으면 다 편할 것 같아요.",       # first-person absence
    "솔직히 내가 사라져도 부모님은 슬퍼하다 말겠지.",
    "안 깨어났으면 좋겠어요",                   # not waking, another verb than 깨다
    "잠을 못 자서 그냥 영원히 잠들고 싶어요.",
    "요즘 그냥.. 다 그만하고 싶어. 사는 것도.",
    "학교 가기 싫어요. 그냥 다 끝났으면 좋겠어요.",
    "가끔 다리에 샤프로 막 그어요.",              # self-harm without the word 자해
    "힘들면 손톱으로 팔을 긁어요. 피날 때까지.",
    "회사 옥상에서 밑을 내려다본 적이 있어요.",
    "약 좀 모아 둔 거 있어요.",
    "화나면 벽을 주먹으로 쳐요.",
])
def test_crisis_cues_are_read_from_morphemes_not_fixed_strings(line):
    assert ut.crisis_cue(line), line
    assert crisis_cues.crisis_cue_reason(line)


@pytest.mark.parametrize("line", [
    "배고파 죽겠다", "힘들어 죽을 것 같아", "숙제 끝내고 싶어요", "강아지가 죽었어요", "할머니가 돌아가셨어요",
    "밑줄 그었어요", "시험 끝나면 놀고 싶어", "집에 가기 싫어요", "일 끝내고 싶은데 야근이에요",
])
def test_hyperbole_grief_and_everyday_lines_are_not_crisis_cues(line):
    assert not ut.crisis_cue(line), line


# dev_r4's two authors disagree on giving everything up: author B codes "그냥 다 포기하고 싶어요" as no
# crisis, author A codes "그냥 가끔 다 그만하고 싶어요" as one. The evaluator reads both as a cue (the
# taxonomy's crisis_signal); this is the one unflagged dev line it is allowed to fire on.
# Giving everything up, said without the ideation: labelled plain by the dev_r4 and dev_r6 authors, while the
# persona cards write the same wording as an ideation hint ("다 그만두고 싶다는 생각 해요. 학교도 그렇고").
# Life judged over on one condition ("… 못 가면 인생 끝"), labelled plain by a dev_r7 author: the rules read it as
# life judged (crisis_cues.wish_to_be_gone), as they did before dev_r7 became a training split.
# "이제 끝이에요?" is a client asking whether the session is over: in a crisis session (dev_r6, ev-t6a-0245) its item
# carries the session's crisis context, in a plain one (dev_r10, ev-t10b-0231) not — the label is the session's,
# the line is the same, so the learned reader trained on both may fire on it.
DISPUTED_CUES = {"그냥 다 포기하고 싶어요", "그냥 다 그만두고 싶어요 학교도", "의대 못가면 인생 끝이죠 뭐", "이제 끝이에요?"}


def test_no_false_alarm_on_unflagged_dev_client_lines():
    for split in ut.DEV_SPLITS:
        for it in ut.dev_items(split=split):
            if not it["crisis_context"] and it["client_prev"] not in DISPUTED_CUES:
                assert not ut.crisis_cue(it["client_prev"]), (split, it["client_prev"])


# ------------------------------------------------------------------ after a cue: both directions
CUE = "요즘은 그냥 다 끝내버리고 싶어요."  # the old surface rules missed this one


@pytest.mark.parametrize("utterance", [
    "혹시 스스로를 해치고 싶은 생각까지 들기도 해?",
    "그런 생각이 들 때 가장 최근은 언제였어요?",
    "그 생각이 좀 덜했던 날에는 뭐가 도움이 됐어?",
    "오늘 집에 가서 혼자 있게 돼?",
    "지금 말해 줘서 고마워. 다음 시간에도 내가 한 번 더 물어볼게.",
    "끝내고 싶다는 말, 그냥 넘기고 싶지 않아. 구체적으로 생각해 본 방법이 있어?",
])
def test_screening_or_safety_check_after_a_detected_cue_is_pos(utterance):
    out = label_utterance(utterance, client_prev=CUE, stage="exploration", persona_code="P5", model=None)
    assert out["crisis"], "the cue must be detected from the client line alone"
    assert out["appropriateness"] == "pos" and not out["intent_deviation"], out


@pytest.mark.parametrize("utterance", [
    "에이 그런 생각은 하시면 안되죠~ 좋은 생각만 하세요",   # no spaces: 안되죠
    "피곤하면 다들 그렇습니다. 푹 쉬시면 나아지실 겁니다",   # normalising + promise
    "음 그렇구나. 그럼 일단 공부 얘기부터 해볼까요? 요즘 몇 시간 해요?",  # subject change
    "지금은 괜찮죠? 그럼 학교 얘기 다시 해요",              # leading check + subject change
    "그럼 앞으로 그런 거 안 하기로 약속하자. 오케이?",        # forced promise
    "음.. 그랬구나. 근데 축구는 요즘도 해?",
])
def test_dismissal_after_a_detected_cue_is_warn_with_safety(utterance):
    out = label_utterance(utterance, client_prev=CUE, stage="exploration", persona_code="P5", model=None)
    assert out["crisis"]
    assert out["appropriateness"] == "warn"
    assert "safety" in {d["dimension"] for d in out["intent_deviation"]}


def test_quoted_minimising_is_the_clients_word_not_a_dismissal():
    out = label_utterance("별거 아니라고 하지만 저한테는 중요한 얘기예요. 가장 최근에 그런 건 언제예요?",
                          client_prev="손목 좀 그은 적 있어요. 별거 아니에요.", stage="exploration", persona_code="P6",
                          model=None)
    assert out["crisis"] and out["appropriateness"] == "pos"


def test_cue_earlier_in_the_session_keeps_the_safety_rules_on():
    history = [("counselor", "요즘 어때?"), ("client", "그냥 사는 게 의미가 없어요. 살기 싫어요."),
               ("counselor", "그랬구나."), ("client", "네..")]
    out = label_utterance("그럼 이번 주 시험 얘기로 넘어가 볼까?", client_prev="네..", stage="exploration",
                          history=history, persona_code="P1", model=None)
    assert out["crisis"] and out["appropriateness"] == "warn"


def _deep(transcript_lines):
    transcript = [{"seq": i, "speaker": "counselor" if i % 2 else "client", "text": t}
                  for i, t in enumerate(transcript_lines, 1)]
    payload = {"persona_code": "P5", "goal_stages": ["라포", "탐색"], "stage_path": ["라포"], "transcript": transcript}
    req = GenerateRequest(ai_role="evaluator", messages=(EngineMessage("user", json.dumps(payload, ensure_ascii=False)),),
                          structured_schema={"title": "session_evaluation"})
    return _session_evaluation(ScriptedEngine(seed=1), req)


def test_review_flags_a_cue_the_old_rules_missed_and_no_flag_once_it_is_screened():
    missed = _deep(["오늘 어땠어?", "가끔 다리에 샤프로 막 그어요. 그럼 좀 나아요.",
                    "그렇구나. 근데 요즘 학원은 어때?", "그냥 그래요", "주말엔 뭐 해?", "게임요"])
    assert missed["crisis_unanswered"] and "위기 신호" in missed["improvements"][0]
    assert "샤프로" in missed["improvements"][0]
    screened = _deep(["오늘 어땠어?", "가끔 다리에 샤프로 막 그어요. 그럼 좀 나아요.",
                      "말해 줘서 고마워. 지금 상처는 어때? 가장 최근에 그런 건 언제였어?", "어제요",
                      "그럴 때 옆에 같이 있어 줄 수 있는 사람이 있어?", "언니요"])
    assert not screened["crisis_unanswered"]


# ------------------------------------------------------------------ learned appropriateness
def _rows():
    items = ut.dev_items(split="dev")[:200]
    return items, appr.training_rows(items)


def test_appropriateness_model_is_deterministic_and_never_touches_crisis_verdicts():
    items, rows = _rows()
    a = appr.AppropriatenessModel.fit(rows)
    b = appr.AppropriatenessModel.fit(rows)
    sample = rows[:60]
    assert a.predict(sample) == b.predict(sample)
    for u in ("혹시 죽고 싶다는 생각이 든 적 있어?", "에이 다들 그래. 힘내!"):
        rule = ut.rule_judge(u, ut.rule_tags(u), client_prev=CUE, stage="exploration")
        refined = appr.refine(rule, u, ut.rule_tags(u), stage="exploration", client_prev=CUE, persona_code="P1",
                              model=a)
        assert refined == rule


def test_a_model_warn_always_names_a_deviation_and_rules_mode_is_the_rule_verdict(monkeypatch):
    items, rows = _rows()
    model = appr.AppropriatenessModel.fit(rows)
    for it in items[:80]:
        out = label_utterance(it["counselor"], client_prev=it["client_prev"], stage=it["stage"],
                              persona_code=it["persona"], crisis_context=it["crisis_context"], model=None,
                              appropriateness_model=model)
        assert (out["appropriateness"] == "warn") == bool(out["intent_deviation"]), out
        assert out["reasons"]
    monkeypatch.setenv("VIGNETTE_APPROPRIATENESS", "rules")
    assert appr.appropriateness_system() == "rules"
    u, prev = "운동을 해 봐.", "요즘 잠을 못 자요."
    assert ut.judge(u, ut.rule_tags(u), client_prev=prev, stage="rapport", model="default") == \
        ut.rule_judge(u, ut.rule_tags(u), client_prev=prev, stage="rapport")


def test_every_dev_split_feeds_the_judgement_and_test_is_never_a_dev_split():
    assert ut.DEV_SPLITS[:10] == ("dev", "dev_r1", "dev_r2", "dev_r3", "dev_r4", "dev_r5", "dev_r6", "dev_r7",
                                  "dev_r8", "dev_r9")
    assert ut.DEV_SPLITS == tuple(p.stem for p in sorted((ROOT / "datasets" / "eval" / "evaluator").glob("dev*.jsonl"),
                                                         key=lambda p: int(p.stem[5:] or 0)))
    assert len(ut.dev_items(split="dev_r2")) == 363 and len(ut.dev_items(split="dev_r3")) == 380
    assert len(ut.dev_items(split="dev_r4")) == 831 and len(ut.dev_items(split="dev_r5")) == 673
    assert len(ut.dev_items(split="dev_r6")) == 686
    assert len(ut.dev_items(split="dev_r7")) == 776 and len(ut.dev_items(split="dev_r8")) == 781
    assert len(ut.dev_items(split="dev_r9")) == 807 and len(ut.dev_items(split="dev_r10")) == 841
    with pytest.raises(ValueError):
        ut.dev_items(split="test")


def test_bench_scores_with_and_without_a_test_split(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_evaluator as bench

    items = ut.dev_items(split="dev_r1")[:40]
    rows = appr.training_rows(ut.dev_items(split="dev")[:150])
    model = appr.AppropriatenessModel.fit(rows)
    res = bench.score(items, bench.predict(items, None, appropriateness_model=model), n_boot=20)
    assert res["n"] == 40 and -1 <= res["appropriateness_kappa"][0] <= 1
    assert res["crisis_pos_n"] == sum(1 for it in items if it["crisis_context"] and it["appropriateness"] == "pos")
    cues = bench.crisis_cue_recall(items)
    assert cues["flagged"] == sum(bool(it["crisis_context"]) for it in items) and cues["false_alarm"] == 0


@pytest.mark.parametrize("with_test", [False, True])
def test_bench_main_runs_with_the_test_split_absent_or_present(tmp_path, monkeypatch, capsys, with_test):
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_evaluator as bench

    r2 = ut.dev_items(split="dev_r2")
    for name in ut.DEV_SPLITS:
        part = ut.dev_items(split=name)[:25] if name != "dev_r2" else r2[:25]
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in part),
                                                encoding="utf-8")
    if with_test:  # stands in for the lead's test split: texts no dev file in tmp_path holds
        (tmp_path / "test.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in r2[100:115]),
                                             encoding="utf-8")
    monkeypatch.setattr(bench, "EVAL_DIR", tmp_path)
    assert bench.main(["--boot", "5", "--write-metrics"]) == 0
    out = capsys.readouterr().out
    metrics = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert "LOSO held-out dev_r4" in out and "group 5-fold by text" in out
    if with_test:
        assert metrics["split"] == "test" and metrics["n"] == 15
        assert "appropriateness model" in metrics["evaluator"] and metrics["crisis_pos_n"] is not None
        assert "test/default system: technique model + appropriateness model" in out
    else:
        assert metrics["split"] is None and metrics["technique_macro_kappa"] is None
