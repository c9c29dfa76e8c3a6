"""Issue 12, per-turn cost second pass: the memos change no judgement and no stored row."""

from __future__ import annotations

import json

from vignette_lab.engines import appropriateness, crisis_cues
from vignette_lab.engines import utterance_tagger as ut
from vignette_lab.session.selfplay import run_selfplay
from vignette_lab.store import app_repo, connect, init_db
from vignette_lab.store.catalog import load_catalog

CLIENT_LINES = ["요즘 그냥 다 끝내버리고 싶어요", "배고파 죽겠다", "시험 기간엔 잘 못 자요.",
                "가끔은 내가 없으면 다들 편할 것 같아요.", "", "손목에 상처가 좀 있어요", "살기도 귀찮아요."]


def test_crisis_cue_memo_equals_a_fresh_computation():
    for text in CLIENT_LINES * 2:  # the second round answers from the memo
        assert crisis_cues.crisis_cue_reason(text) == crisis_cues.crisis_cue_reason.__wrapped__(text)
        assert ut.crisis_cue(text) == ut.crisis_cue.__wrapped__(text)
    assert crisis_cues.crisis_cue_reason("요즘 그냥 다 끝내버리고 싶어요") == "끝내다"
    assert crisis_cues.crisis_cue_reason("배고파 죽겠다") is None


CASES = [
    ("그냥 공부를 더 열심히 하면 돼요.", ["direct_guidance"], "4등 했어요.", "라포", []),
    ("요즘 많이 힘드셨겠어요.", ["reflection_feelings"], "그냥 다 끝내버리고 싶어요", "탐색",
     [("counselor", "안녕하세요."), ("client", "네.")]),
    ("근데 학교는 어때요?", ["open_question"], "잘 모르겠어요.", "라포",
     [{"speaker": "client", "text": "가끔은 내가 없으면 다들 편할 것 같아요."}]),
    ("혹시 죽고 싶다는 생각까지 든 적 있어요?", ["closed_question"], "살기도 귀찮아요.", "탐색", []),
]


def test_judge_memo_gives_the_fresh_verdict_and_a_private_copy():
    ut._JUDGE_CACHE.clear()
    model = appropriateness.default_appropriateness_model()
    for _round in range(2):
        for text, techs, prev, stage, history in CASES:
            fresh = ut._judge(text, techs, client_prev=prev, stage=stage, history=history, crisis_context=None,
                              persona_code="P4", model=model)
            got = ut.judge(text, techs, client_prev=prev, stage=stage, history=history, persona_code="P4")
            assert got == fresh
            got["reasons"].append("changed by a caller")  # must not reach the next caller
            got["appropriateness"] = "x"
    assert len(ut._JUDGE_CACHE) == len(CASES)
    # the rules alone (model=None) are a separate key, not the refined verdict
    text, techs, prev, stage, history = CASES[0]
    assert ut.judge(text, techs, client_prev=prev, stage=stage, history=history, model=None) == ut.rule_judge(
        text, techs, client_prev=prev, stage=stage, history=history)


def _stored(tmp_path, name, *, memo: bool, monkeypatch):
    monkeypatch.setattr(ut, "JUDGE_CACHE_SIZE", 4096 if memo else 0)
    ut._JUDGE_CACHE.clear()
    real, calls = ut._judge, []

    def counted(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(ut, "_judge", counted)
    db = connect(str(tmp_path / f"{name}.duckdb"))
    init_db(db)
    load_catalog(db)
    res = run_selfplay(db, personas=("P1",), counselor="novice", sessions=1, turns=10, seed=11, progress=False,
                       evaluate=True)
    sid = res.sessions[0].session_id
    def keep(row):  # random ids and timestamps differ between any two runs
        return {k: v for k, v in (row or {}).items() if k not in ("eval_id", "turn_id") and not k.endswith("_at")}

    out = {
        "turns": app_repo.session_turn_texts(db, sid),
        "turn_evals": [keep(e) for e in app_repo.list_turn_evaluations(db, sid)],
        "session_eval": keep(app_repo.get_session_evaluation(db, sid)),
        "review_status": app_repo.get_session(db, sid)["review_status"],
    }
    monkeypatch.setattr(ut, "_judge", real)
    out["_judged"] = len(calls)
    db.close()
    return json.loads(json.dumps(out, default=str, ensure_ascii=False))


def test_deep_evaluation_reusing_fast_loop_verdicts_stores_the_same_rows(tmp_path, monkeypatch):
    with_memo = _stored(tmp_path, "memo", memo=True, monkeypatch=monkeypatch)
    without = _stored(tmp_path, "plain", memo=False, monkeypatch=monkeypatch)
    assert with_memo["session_eval"] and with_memo["turn_evals"]
    assert with_memo["review_status"] == "ready"  # stored although self-play no longer reads the review back
    # fast loop + deep loop judge each of the 10 counselor lines: the deep loop reused verdicts
    assert without["_judged"] >= 20 and with_memo["_judged"] < without["_judged"]
    with_memo.pop("_judged"), without.pop("_judged")
    assert with_memo == without


def test_tag_turn_memo_equals_a_fresh_tagging():
    from vignette_lab.engines import scripted_evaluator as se

    se._TAGS.clear()
    lines = [text for text, *_ in CASES] + ["몇 학년이에요?", ""]
    for _round in range(2):
        for text in lines:
            assert se.tag_turn(text) == ut.tag(text, model=ut.default_model())
    assert set(se._TAGS) == set(lines)
    assert se.tag_turn("몇 학년이에요?", model=None) == ut.rule_tags("몇 학년이에요?")


def test_judge_memo_from_threads_with_evictions(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(ut, "JUDGE_CACHE_SIZE", 2)  # evicts on almost every call
    ut._JUDGE_CACHE.clear()
    model = appropriateness.default_appropriateness_model()
    expected = [ut._judge(text, techs, client_prev=prev, stage=stage, history=history, crisis_context=None,
                          persona_code="P4", model=model) for text, techs, prev, stage, history in CASES]

    def run(i):
        text, techs, prev, stage, history = CASES[i % len(CASES)]
        return i % len(CASES), ut.judge(text, techs, client_prev=prev, stage=stage, history=history, persona_code="P4")

    with ThreadPoolExecutor(max_workers=4) as pool:
        for k, verdict in pool.map(run, range(200)):
            assert verdict == expected[k]
    assert len(ut._JUDGE_CACHE) <= 2
