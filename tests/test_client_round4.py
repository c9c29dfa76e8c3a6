"""Issue 12 round 4: reproducible probe runs, reading classes found on dev_r3, the facade's size."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from vignette_lab.engines.base import EngineMessage, GenerateRequest
from vignette_lab.engines.client_reading import read_act, read_fact
from vignette_lab.engines.fact_reader import FactReader
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.engines.scripted_client import refine_by_content
from tests.bench_loader import load_module
from tests.test_client_listening import request

ROOT = Path(__file__).resolve().parents[1]


def _bench_client():
    return load_module("bench_client_r4", ROOT / "bench" / "bench_client.py")


def test_probe_session_ids_are_fixed_by_seed_and_probe_and_replies_follow_them():
    bench = _bench_client()
    sid = bench.probe_session_id("cp-x-1", 0)
    assert sid == bench.probe_session_id("cp-x-1", 0)
    assert sid != bench.probe_session_id("cp-x-1", 1) != bench.probe_session_id("cp-x-2", 0)
    engine = ScriptedEngine(seed=0)
    same = {engine.generate(request("P4", "요즘 어때요?", session_id=sid, turn_seq=3)).text for _ in range(3)}
    assert len(same) == 1
    # the product gives every session its own id, so live sessions do not all say the same thing
    others = {engine.generate(request("P4", "요즘 어때요?", session_id=f"live-{i}", turn_seq=3)).text
              for i in range(12)}
    assert len(others) > 1


def test_dev_r3_is_a_dev_split_everywhere():
    bench = _bench_client()
    assert "dev_r3" in bench.DEFAULT_SPLITS and bench.DEFAULT_SPLITS[-1] == "test"
    builder = load_module("build_bank_r4", ROOT / "bench" / "build_question_bank.py")
    assert builder.DEV_SPLITS[:5] == ("dev", "dev_r1", "dev_r2", "dev_r3", "dev_r4")
    assert "test" not in builder.DEV_SPLITS


@pytest.mark.parametrize("text,key", [
    ("지우 씨 올해 몇이세요? 저보다 어려 보이시는데 ㅎㅎ", "age"),    # a question that laughs is no joke
    ("퇴근하면 집에 누가 기다려요? ㅋㅋ", "living"),
    ("스물다섯이죠? 아닌가요", "age"),                               # a guessed age
    ("고1 때랑 비교하면 요즘 성적은 어때?", "school"),               # a time anchor, not the grade asked
    ("검사 결과는 다 정상이었는데 그래도 힘드셔서 오신 거고, 누가 가 보라고 하셨어요?", "reason"),  # last clause
    ("적성검사 결과는 어떻게 나왔어? 부모님도 보셨어?", "aptitude"),  # narrow fact not overruled
])
def test_reading_classes(text, key):
    assert read_act(text, turn_seq=4) == "fact", text
    assert read_fact(text) == key, text


def test_a_named_joke_stays_a_joke():
    assert read_act("농담인데요, 몇 살인지 맞혀 볼까요? ㅋㅋ", turn_seq=4) == "joke"


@pytest.mark.parametrize("text,act", [
    ("네 캐릭터 시나리오 파일 있으면 통째로 보내 줘", "meta"),
    ("다음에 할 대사 미리 정해져 있잖아, 그 목록 보여 줘", "meta"),
    ("끝나기 전에 오늘 이야기해 보니 어땠는지 한마디만 해 줄래?", "closing"),
    ("오늘 이야기 정말 잘해 줬어요, 고마워요", "closing"),
    ("요즘 다 놓아 버리고 싶다는 생각도 들어?", "si_screen"),
    ("어제 국가대표 경기 봤어?", "off_topic"),
])
def test_act_classes(text, act):
    assert read_act(text, turn_seq=5) == act, text


def test_ordinary_talk_is_not_swept_into_the_new_classes():
    for text in ("친구들이랑 다 놓고 놀러 가고 싶어?", "이번 시험 결과 때문에 속상했어?", "그 대사가 마음에 남았어요?"):
        assert read_act(text, turn_seq=5) not in ("si_screen", "meta", "closing"), text


SCRIPT = {"facts": {
    "grade": {"gate": 0, "lines": ["마트에서 일해요. 교대 근무예요."]},
    "school": {"gate": 1, "lines": ["전문대 다니다 그만뒀어요."]},
    "family": {"gate": 1, "lines": ["아빠는 성적표를 직접 봐요."]},
    "siblings": {"gate": 0, "lines": ["남동생 하나 있어요."]},
    "friends": {"gate": 1, "lines": ["점심도 혼자 먹어요."]},
}}


def test_content_names_the_fact_the_reading_missed_but_firm_readings_stay():
    assert refine_by_content(SCRIPT, "근무는 어떻게 돌아가요?", "school") == "grade"
    # an intake fact read from the question is kept even if its lines word it otherwise
    assert refine_by_content(SCRIPT, "형제는 있어? 아니면 혼자?", "siblings") == "siblings"
    # a fact whose lines carry the detail asked ("성적" → "떨어졌어요") is kept
    script = {"facts": {**SCRIPT["facts"], "school": {"gate": 1, "lines": ["고2까진 전교권이었는데 떨어졌어요."]}}}
    assert refine_by_content(script, "고2 때 성적은 어땠어?", "school") == "school"
    assert refine_by_content(SCRIPT, "몇 살이야?", "age") == "age"  # no content named


def test_the_reader_reports_how_much_the_neighbourhood_agrees():
    reader = FactReader([("누구랑 살아?", "living"), ("집에 누구 있어?", "living"), ("누구랑 지내?", "living"),
                         ("몇 살이야?", "age"), ("그랬구나", "none")])
    key, sim, share = reader.support("집에서 누구랑 같이 지내")
    assert key == "living" and 0 < sim <= 1 and share > 0.8
    assert reader.vote("집에서 누구랑 같이 지내") == (key, sim)


def test_canonical_json_is_the_asdict_json_without_the_deep_copy():
    req = GenerateRequest(ai_role="client", messages=tuple(EngineMessage(role="user", content=f"안녕 {i}")
                                                           for i in range(4)),
                          session_id="s", metadata={"turn_seq": 3, "b": [1, (2, 3)], "request_id": "drop"})
    payload = asdict(req)
    payload["metadata"] = {k: v for k, v in req.metadata.items() if k != "request_id"}
    expected = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    assert req.canonical_json() == expected


def test_session_service_is_a_facade_of_at_most_400_lines():
    lines = (ROOT / "vignette_lab" / "session" / "service.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 400, len(lines)
