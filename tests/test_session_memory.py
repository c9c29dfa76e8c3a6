"""Memory lifecycle: salience, scripted digest, pinned facts with history, recall budget."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from vignette_lab.session import memory
from vignette_lab.store import app_repo


def _turns(pairs):
    out, seq = [], 0
    for c, r in pairs:
        seq += 1
        out.append({"turn_id": f"t{seq}", "seq": seq, "speaker": "counselor", "text_masked": c,
                    "visible_to": ["client", "counselor", "evaluator"]})
        seq += 1
        out.append({"turn_id": f"t{seq}", "seq": seq, "speaker": "client", "text_masked": r,
                    "visible_to": ["client", "counselor", "evaluator"]})
    return out


PAIRS = [("안녕하세요, 오늘 어떤 이야기를 하고 싶어요?", "그냥… 잘 모르겠어요."),
         ("요즘 학교생활은 어때요?", "사실 아무한테도 말 안 했는데, 요즘 너무 불안해요."),
         ("불안하셨군요. 언제 제일 그래요?", "시험 볼 때요. 눈물이 날 것 같아요."),
         ("다음 주에도 만날 수 있을까요?", "네, 다음 주에도 올게요. [NAME]한테도 말해 볼게요.")]


def test_salience_rules():
    assert memory.salience("네.", "client") == 0.05
    assert memory.salience("사실 아무한테도 말 안 했는데 너무 불안해요", "client") > memory.salience("학교 가요", "client")
    assert memory.salience("죽고 싶다는 생각도 들어요", "client") >= 0.7
    assert 0.0 <= memory.salience("x" * 500, "client", is_pinned=True) <= 1.0


def test_digest_is_deterministic_korean_six_to_ten_sentences():
    turns = _turns(PAIRS)
    a = memory.scripted_digest(turns, session_no=1, end_stage="탐색", openness_rose=True)
    b = memory.scripted_digest(turns, session_no=1, end_stage="탐색", openness_rose=True)
    assert a == b and 6 <= len(a) <= 10
    assert all(re.search(r"[가-힣]", s) and s.endswith(".") for s in a)
    assert not any(ch.isdigit() for s in a[1:] for ch in s)  # numbers stay in the lossless carry-over
    short = memory.scripted_digest(_turns(PAIRS[:1]), session_no=2, end_stage="라포", openness_rose=False)
    assert 6 <= len(short) <= 10


def test_open_threads_pick_deflected_questions():
    threads = memory.open_threads(_turns(PAIRS))
    assert len(threads) == 1 and "어떤 이야기를 하고 싶어요" in threads[0]


def test_pinned_candidates():
    cands = {c.key: c for c in memory.extract_pinned_candidates(_turns(PAIRS))}
    assert cands["agreement:counseling"].fact_type == "agreement" and not cands["agreement:counseling"].withdraw
    assert "[NAME]" in cands["identity:name"].value
    withdrawn = memory.extract_pinned_candidates(_turns([("다음 주에 봐요", "이제 상담은 그만 올래요.")]))
    assert withdrawn[0].withdraw


def _case(db):
    return app_repo.ensure_case_profile(db, "P4", "learner-m")["case_id"]


def _session(db, session_id, case_id, *, learner="learner-m", persona="P4", session_no=1):
    now = datetime.now(timezone.utc)
    app_repo.insert_session(db, session_id=session_id, case_id=case_id, learner_id=learner, persona_code=persona,
                            persona_version=1, mode="live", engine="scripted", model="scripted",
                            session_no=session_no, status="ended", started_at=now, ended_at=now, seed=0,
                            review_status="ready", meta={})


def test_pinned_fact_history_rules(db):
    case = _case(db)
    first = memory.extract_pinned_candidates(_turns(PAIRS))
    assert sorted(memory.update_pinned_facts(db, case, 1, first)) == ["agreement:counseling", "identity:name"]
    assert len(app_repo.list_pinned_history(db, case)) == 2
    # same values again: no new history
    assert memory.update_pinned_facts(db, case, 2, first) == []
    assert len(app_repo.list_pinned_history(db, case)) == 2
    # explicit withdrawal: contradicted + reason contradiction
    withdraw = memory.extract_pinned_candidates(_turns([("다음 주에 봐요", "이제 상담은 그만 올래요.")]))
    assert memory.update_pinned_facts(db, case, 3, withdraw) == ["agreement:counseling"]
    facts = {f["key"]: f for f in app_repo.list_pinned_facts(db, case)}
    assert facts["agreement:counseling"]["status"] == "contradicted"
    hist = app_repo.list_pinned_history(db, case)
    assert hist[-1]["reason"] == "contradiction" and hist[-1]["key"] == "agreement:counseling"
    assert "상담에" not in " ".join(memory.pinned_for_client(db, case))  # contradicted facts are not recalled
    # locked facts are untouched
    db.execute("UPDATE app.pinned_fact SET status = 'locked' WHERE case_id = ? AND key = 'identity:name'", [case])
    changed = memory.update_pinned_facts(db, case, 4, [memory.PinnedChange("identity:name", "다른 값", "identity", None)])
    assert changed == [] and {f["key"]: f for f in app_repo.list_pinned_facts(db, case)}["identity:name"]["value"] \
        == facts["identity:name"]["value"]


def test_withdrawal_never_invents_a_contradicted_fact(duck_db):
    case = _case(duck_db)
    withdraw = memory.extract_pinned_candidates(_turns([("다음 주에 봐요", "이제 상담은 그만 올래요.")]))
    assert memory.update_pinned_facts(duck_db, case, 1, withdraw) == []
    assert app_repo.list_pinned_facts(duck_db, case) == []


def test_recall_is_empty_for_a_first_session_and_budgeted_later(duck_db):
    case = _case(duck_db)
    assert memory.build_recall_context(duck_db, case).is_empty()
    _session(duck_db, "s-prev", case)  # the summary's foreign key needs its session
    app_repo.upsert_session_summary(duck_db, "s-prev", case_id=case, session_no=1, end_state={"x": 1},
                                    rapport_delta=0.1, digest="가" * 3000, open_threads=["엄마 이야기"], homework=[],
                                    compressed_by="scripted")
    app_repo.update_case_profile(duck_db, case, last_session_no=1, rapport_trajectory=[], alliance_level=0.3,
                                 case_digest="나" * 3000, presenting_arc=[])
    rc = memory.build_recall_context(duck_db, case, budget_tokens=400)
    assert rc.previous_session_no == 1 and rc.token_estimate <= 400
    assert memory.estimate_tokens(rc.case_digest) <= 160 and rc.last_summary
    assert memory.estimate_tokens("가나다라") == 2
