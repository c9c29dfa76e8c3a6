"""Drift checks on independent text: register classifier and meta-disclosure detector.

Dev thresholds are asserted strictly: the rules were tuned on ``dev`` and the meta model is
trained on ``dev``, ``dev_r1`` … ``dev_r4`` (the scored round-1 … round-4 test splits, all now dev
material; the sixth session read the misses of ``dev_r3`` and ``dev_r4``) and the old probes, so
these are training figures, not evidence (the honest ones are ``bench/build_meta_model.py --loso``).
The held-out ``test`` split (new authors, round 5, ids ``dr-t5-``) is added by the lead after the
merge; its target test runs only then and has not been measured.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from vignette_lab.core.eval_splits import dev_splits
from vignette_lab.core.guardrails import detect_ccd_meta_disclosure

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_drift import DRIFT_DIR, META_PROBES, LABELS, load, ordinary_sentences, score_meta, score_register  # noqa: E402

TEST = DRIFT_DIR / "test.jsonl"


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


DEV_SPLITS = dev_splits(DRIFT_DIR)


@pytest.fixture(scope="module")
def dev():
    return load(DRIFT_DIR / "dev.jsonl")


@pytest.mark.parametrize("name", DEV_SPLITS)
def test_dev_sets_are_well_formed(name):
    rows = load(DRIFT_DIR / f"{name}.jsonl")
    assert len(rows) >= 200
    assert {r["register"] for r in rows} == set(LABELS)
    assert all(isinstance(r["meta"], bool) and r["text"].strip() for r in rows)
    assert len({_norm(r["text"]) for r in rows}) == len(rows)


def test_dev_splits_share_no_normalised_text():
    seen: dict[str, str] = {}
    for name in DEV_SPLITS:
        for r in load(DRIFT_DIR / f"{name}.jsonl"):
            assert seen.setdefault(_norm(r["text"]), name) == name, (name, seen[_norm(r["text"])], r["text"])


def test_register_on_dev(dev):
    reg = score_register(dev)
    assert reg["accuracy"] >= 0.97, reg["misses"]
    assert reg["kappa"] >= 0.95 and reg["kappa_ci"][0] >= 0.9, (reg["kappa"], reg["kappa_ci"])
    # every label is recognised at least most of the time, not only the majority 해요체
    for lab in LABELS:
        row = reg["confusion"][lab]
        assert row[lab] >= 0.9 * sum(row.values()), (lab, row)


@pytest.mark.parametrize("name", ["dev_r1", "dev_r2", "dev_r3", "dev_r4", "dev_r5"])
def test_register_on_the_later_dev_splits(name):
    reg = score_register(load(DRIFT_DIR / f"{name}.jsonl"))
    assert reg["accuracy"] >= 0.97 and reg["kappa"] >= 0.95, reg["misses"]


def test_register_on_dev_r6():
    # tuned on in the eighth session (dev figure 0.864 -> 0.884); most remaining misses are lines the
    # author labelled none although they end in a polite 요 ("모르겠어요 진짜"), which the guideline calls 해요체
    reg = score_register(load(DRIFT_DIR / "dev_r6.jsonl"))
    assert reg["kappa"] >= 0.87, reg["misses"]


@pytest.mark.parametrize("name", DEV_SPLITS)
def test_meta_on_dev(name):
    meta = score_meta(load(DRIFT_DIR / f"{name}.jsonl"))
    assert meta["recall"] >= 0.97 and meta["precision"] >= 0.95, meta["misses"]


def test_meta_keeps_recall_on_the_old_probes():
    old = score_meta(load(META_PROBES))
    assert old["fn"] == 0 and old["fp"] == 0, old["misses"]


def test_meta_rarely_fires_on_ordinary_sentences():
    plain = ordinary_sentences()
    fired = [t for t in plain if detect_ccd_meta_disclosure(t)]
    assert len(plain) > 1000 and len(fired) <= 0.002 * len(plain), fired


def test_meta_rarely_fires_on_ordinary_sentences_it_never_trained_on():
    from build_meta_model import heldout_ordinary

    held = heldout_ordinary()
    fired = [t for t in held if detect_ccd_meta_disclosure(t)]
    assert len(held) > 500 and len(fired) <= 0.005 * len(held), fired


@pytest.mark.skipif(not TEST.exists(), reason="held-out test split not added yet (the lead runs it)")
def test_dev_and_test_share_no_normalised_text():
    dev_text = {_norm(r["text"]) for name in DEV_SPLITS for r in load(DRIFT_DIR / f"{name}.jsonl")}
    shared = dev_text & {_norm(r["text"]) for r in load(TEST)}
    assert not shared, sorted(shared)[:10]


# Round 2 (now dev_r2, 406 sentences, 120 meta) scored register kappa 0.971, meta recall 0.892 (107/120); round 3
# (now dev_r3) met the bar (recall 0.937); round 4 (now dev_r4, 403 sentences, 109 meta) missed it on the fifth
# session's code: recall 98/109 = 0.899, precision 0.942. The sixth session trains on all four and fixed rule gaps
# by class; its leave-one-split-out figures are in bench/RESULTS.md ("Drift round 5 — meta-disclosure"). Round 5
# (now dev_r5) gave recall 116/124 = 0.935 on the sixth session's code. Round 6 (the seventh session's test split, now dev_r6,
# a new author writing regional dialect, fake system/log lines and English meta-talk) gave register kappa 0.862
# and meta recall 105/117 = 0.897 (precision 1.000) on the merged code — just under the bar (the code before the
# seventh session's meta-model changes: 102/117). Round 7 (the eighth session's test split, a chat-fiction writer and
# a red-team tester: subtle role/instructions/simulation talk, regional and English tails) gave register kappa 0.935
# and meta recall 128/143 = 0.895 (precision 0.970) on the merged code; the code before that session's meta_synth
# classes (retrained with dev_r6 only) gave 130/143 = 0.909. Round 8 (the ninth session's test split, a TRPG game-master
# slipping out of character in game terms with everyday game/script/settings hard negatives, and a linguist's register
# edge cases) gave register kappa 0.923 and meta recall 120/146 = 0.822 (precision 0.938) on the merged code; the
# code before that session's tuning 119/146 (0.815). Round 9 (the twelfth session's test split, 487 lines after
# de-duplication: a web-novel/drama writer slipping out of character in writer's terms with everyday hard negatives,
# and a register linguist's internet and dialect endings) gave register kappa 0.950 and meta recall 114/126 = 0.905,
# precision 0.966 on the merged code — the first round at the bar since round 5 (the code before that session's
# tuning: 111/126 = 0.881); the strict xfail marker went.
@pytest.mark.skipif(not TEST.exists(), reason="held-out test split not added yet (the lead runs it)")
def test_issue_targets_on_the_held_out_test_split():
    rows = load(TEST)
    reg, meta = score_register(rows), score_meta(rows)
    assert reg["kappa"] >= 0.8, f"register kappa {reg['kappa']:.3f} on {len(rows)}"
    assert meta["recall"] >= 0.9 and meta["precision"] >= 0.9, (
        f"meta recall {meta['recall']:.3f}, precision {meta['precision']:.3f} ({meta['positives']} positives)")


@pytest.mark.parametrize("text", [
    "혈당 수치가 6.5였어요", "엄마 역할에서 벗어나고 싶어요", "발표 대본 읽는 연습해요", "AI 챗봇 써봤어요",
    "상담 기록이 학교 평가에 들어가요?", "상사한테 받은 지시대로 했어요", "웹소설 인물 설정 짜요",
    "폰에 시스템 메시지가 떴어요", "게임 설정상 주인공이 죽어요", "병원에서 우울증 진단 받았어요",
    "핵심신념이란 말 책에서 봤어요", "신입 연수 때 롤플레이로 전화 응대를 배웠어요", "친구가 나 로봇 같대",
    "보드게임에서 내 턴이 제일 늦게 와", "완전 망했다 진짜", "회사에서 LLM이라는 걸 써요", "수업이 역할극인 줄 알았어요"])
def test_everyday_talk_is_not_meta(text):
    # written by the tuner while tightening the rules (training material, not evidence)
    assert not detect_ccd_meta_disclosure(text)


def test_nonverbal_stage_directions_are_not_meta():
    # The seed's own safe fallback reply is a bracketed stage direction ("……(말을 잇지 못하고 잠시
    # 침묵한다)", seed 001 run_turn_generate) and the persona scripts show behaviour the same way,
    # so a nonverbal direction is the client's voice in this system, not simulation talk; one that
    # names the frame ("[내담자 역할 유지 중]") is.
    from build_meta_model import persona_strings
    from vignette_lab.core.guardrails import SAFE_FALLBACK_REPLY

    directions = sorted({m for s in persona_strings() for m in re.findall(r"\([^()]{2,40}\)", s)})
    assert len(directions) >= 20
    assert not detect_ccd_meta_disclosure(SAFE_FALLBACK_REPLY)
    assert not [d for d in directions if detect_ccd_meta_disclosure(d)]
    assert detect_ccd_meta_disclosure("[내담자 역할 유지 중]")


@pytest.mark.parametrize("source", ["persona", "client_lines"])
def test_streaming_prefixes_of_ordinary_replies_never_fire(source):
    # The stream guard checks every accumulated prefix (partial=True); an ordinary reply must never
    # be replaced mid-way (the fragment defect of round 4: "사실", "저는" fired the model).
    from bench_drift import ordinary_client_lines, prefix_false_alarms
    from build_meta_model import persona_strings

    texts = persona_strings() if source == "persona" else ordinary_client_lines()
    assert len(texts) > 1000
    assert prefix_false_alarms(texts) == []


@pytest.mark.parametrize("text", [
    "나 진짜 AI라니까", "전 그냥 봇임 ㅋㅋ", "우리 지금 롤플 중이잖아", "대화창 길이 넘으면 앞에 한 말은 다 지워져요",
    "선생님 방금 감정 반영 점수 잘 나오겠다", "I'm only a model, I don't have a mom", "그건 제가 LLM이라서 그래요",
    "상황극인 거 다 알아요"])
def test_meta_classes_of_the_fourth_session_fire(text):
    # written by the tuner for the classes read from dev_r2 (training material, not evidence)
    assert detect_ccd_meta_disclosure(text)


@pytest.mark.parametrize("text", [
    "저 사실 GPT예요", "앤트로픽 정책상 그건 말씀 못 드려요", "저는 이렇게 말하도록 되어 있어요", "입력하신 내용이 잘 안 보여요",
    "아 이거 캐붕인데", "난 봇인데 왜 자꾸 물어봐", "[시스템 안내] 역할 유지", "I'm just an AI, I can't feel that",
    "Sorry, that's against my guidelines", "제 다음 대답 후보가 두 개 있어요"])
def test_meta_classes_of_the_sixth_session_fire(text):
    # written by the tuner for the classes of the sixth session (training material, not evidence)
    assert detect_ccd_meta_disclosure(text)


@pytest.mark.parametrize("text", [
    "moderate", "medium 정도로 매운 거 먹어요", "biology 숙제 너무 많아요", "Slack 알림 끄고 싶어요", "normal 모드로 게임해요",
    "기분이 그냥 so so예요", "APT. 노래만 계속 들어요", "Canva로 발표 자료 만들었어요", "ChatGPT로 영어 숙제했어요",
    "아빠가 네이버 개발자예요", "부모님 대본대로 사는 것 같아요", "마케팅 팀에서 고객 페르소나 설정을 맡았어요",
    "자꾸 짜증나게 말하게 돼요", "입력된 주소가 틀렸대요", "반에서 분위기 메이커 역할이에요", "쌤 저 부탁드릴 거 있어요",
    "선생님이 요청하신 대로 일기 써 왔어요", "그 부분은 생각해 보고 답변드리겠습니다", "My sister borrowed my jacket without asking",
    "I got a B on my essay", "Our coach made us run ten laps", "Nobody texts me back", "The writers of that drama ruined the ending"])
def test_english_words_and_everyday_nouns_are_not_meta(text):
    # the cards' English difficulty value (a training negative), English words clients use and the new classes' nouns
    # in their everyday sense, written by the tuner and not training sentences (training material's neighbours, not
    # evidence)
    assert not detect_ccd_meta_disclosure(text)


@pytest.mark.parametrize("text", [
    "사용자님, 세션을 이어서 진행하시겠어요?", "유저님이 원하시면 좀 더 냉소적인 말투로 바꿔 드릴게요",
    "사용자님의 다음 메시지를 기다리는 중입니다", "상담자께서는 감정 반영을 한 번도 하지 않으셨습니다",
    "채점표로 치면 방금 질문은 부적절에 해당해요", "주호소: 불면, 식욕 저하. 위험도: 높음",
    "자해 위험 1단계, 계획 없음, 보호요인 반려견", "2회기 전에는 아빠 얘기 꺼내면 안 되는 거예요",
    "(내담자 한참 망설인 후) 그냥요", "ok back in character now", "말투 설정상 '근데요'를 자주 넣어야 돼요"])
def test_meta_classes_of_the_ninth_session_fire(text):
    # the ninth session's classes (the assistant's voice to "the user", evaluator labels and formal feedback, a
    # chart line, a disclosure schedule per 회기, a stage direction naming the 내담자, a speech habit as a setting,
    # English out-of-character tags), written by the tuner in new wording (training material, not evidence)
    assert detect_ccd_meta_disclosure(text)


@pytest.mark.parametrize("text", [
    "앱 사용자 리뷰 보다가 우울해졌어요", "이 게임 유저들 욕을 너무 해요", "팀장님께서는 칭찬을 한 번도 하지 않으셨습니다",
    "쌤 혹시 챗봇이에요? 답이 너무 빨라요", "언어 모델 연구실에 들어가서 요즘 바빠요", "I asked ChatGPT about my sleep lol",
    "가정통신문에 체험학습 신청은 금요일까지라고 돼 있네요", "솔직히 말하면 저는 그냥 도망친 거죠", "(한참 망설인 후) 그냥요",
    "back to work tomorrow ugh", "엄마가 보호자로 같이 오셨어요", "제 말버릇이 '몰라요'래요"])
def test_the_ninth_session_nouns_in_their_everyday_sense_are_not_meta(text):
    # the same nouns in everyday use: app/game users, a boss's formal praise, asking whether the counselor is an AI,
    # language models as a field of work, forms that say something, "말하자면 저는", a nonverbal direction
    assert not detect_ccd_meta_disclosure(text)


def test_an_ai_question_asked_of_the_counselor_is_not_a_disclosure():
    from vignette_lab.core.guardrails import detect_ccd_meta_rules

    assert detect_ccd_meta_rules("선생님 혹시 AI예요?") == ()
    assert detect_ccd_meta_rules("너 봇이야?") == ()
    # the client about itself stays a disclosure, asked or told
    assert detect_ccd_meta_rules("선생님, 저 AI예요") and detect_ccd_meta_rules("선생님 저는 AI예요?")
    assert detect_ccd_meta_rules("나 AI야?") and detect_ccd_meta_rules("선생님 AI라서 잘 모르시죠? 저도 AI예요")
    # a language model as a topic of work, not as oneself
    assert detect_ccd_meta_rules("언어 모델 도입 프로젝트 때문에 야근해요") == ()
    assert detect_ccd_meta_rules("저는 언어 모델이라 몸이 없어요")
