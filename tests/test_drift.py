"""Persona drift: checks, storage, style-swap detection on self-play, report."""

from __future__ import annotations

import shutil
import uuid
from datetime import datetime, timezone

import pytest

from drift_fixtures import inject_style_swap

from vignette_lab.analytics import drift as D
from vignette_lab.analytics.drift.checks import _register_evidence, _sentences, _walk
from vignette_lab.errors import InputError
from vignette_lab.store import app_repo, connect


def _session(db, persona="P1", lines=(), *, learner="drift-test", facts=()):
    case = app_repo.ensure_case_profile(db, persona, learner)
    sid = str(uuid.uuid4())
    now = datetime.now(timezone.utc)
    app_repo.insert_session(db, session_id=sid, case_id=case["case_id"], learner_id=learner, persona_code=persona,
                            persona_version=1, mode="live", engine="scripted", model="scripted", session_no=2,
                            status="ended", started_at=now, ended_at=now, seed=0, review_status="ready", meta={})
    for i, line in enumerate(lines):
        app_repo.insert_turn(db, session_id=sid, case_id=case["case_id"], seq=2 * i + 1, speaker="counselor",
                             text_masked="요즘 어떻게 지내요?", visible_to=["client", "counselor", "evaluator"])
        app_repo.insert_turn(db, session_id=sid, case_id=case["case_id"], seq=2 * i + 2, speaker="client",
                             text_masked=line, visible_to=["client", "counselor", "evaluator"])
    for key, value, ftype in facts:
        app_repo.upsert_pinned_fact(db, case_id=case["case_id"], key=key, value=value, fact_type=ftype,
                                    status="stable", source_turn=None, confidence=1.0, version=1,
                                    session_no=1, visible_to=["client", "evaluator"])
    return sid


@pytest.mark.parametrize("sentence, expected", [
    ("저는 학생입니다.", "hapsyo"), ("말씀드리겠습니까?", "hapsyo"), ("그냥 귀찮아요.", "haeyo"),
    ("그렇죠 뭐.", "haeyo"), ("그렇죠.", "haeyo"), ("몰라.", "banmal"), ("아, 네.", None), ("음…", None),
    ("티 안 내려고 했는데.", "banmal"), ("감사합니다.", "hapsyo"), ("엄마는 맨날 늦게 와요 아홉시 넘어서", "haeyo"),
    ("할머니는 \"그리 하시오\" 하시고 말았어요", "haeyo"), ("별로요", "haeyo"), ("피곤함", None),
    ("(한숨을 쉰다)", None), ("그러게유", "haeyo"), ("OK", None),
    # eighth session: 하오체 read as 합쇼체, 충청 -쥬 and polite tails read as nouns, a 요 on a noun
    # with a suffix, an inverted "-ㄹ까 봐" clause, a postposed noun phrase with a particle, fillers
    ("그냥 참고 사는 거쥬", "haeyo"), ("나는 잘 모르겠소", "hapsyo"), ("여기 앉으시오", "hapsyo"),
    ("저도 힘들었어유", "haeyo"), ("두 시간쯤요", "haeyo"), ("폰 잠가 놨어요 동생이 볼까 봐", "haeyo"),
    ("진짜 싫어 그 사람은", "banmal"), ("음 뭔가…", None), ("네넹", None), ("아 예", None),
    # ninth session: 경상 합쇼체 -니더/-심더/-니꺼 and 제주 polite -마씸 (kiwipiepy splits them into a stem, a
    # connective and an adverb); a new sentence after a full stop ending on a final-like connective decides,
    # a true connective after the stop ("…왔는데.", "…올까 봐.") does not
    ("그런 거 아입니더", "hapsyo"), ("마 됐심더", "hapsyo"), ("그거 맞십니꺼?", "hapsyo"), ("경해마씸", "haeyo"),
    ("시험은 잘 봤어요. 근데 수학은 망했지", "banmal"), ("여기 또 와야 돼요? 지난번에도 왔는데.", "haeyo"),
    ("잘 자요. 걱정하실까 봐.", "haeyo")])
def test_classify_register(sentence, expected):
    assert D.classify_register(sentence) == expected


@pytest.mark.parametrize("sentence", ["티 안 내려고 했는데.", "감사합니다.", "그랬구나.", "고2니까"])
def test_register_evidence_ignores_formulas_and_connective_endings(sentence):
    # 해요체 speakers say these too, so the drift scan does not count them as a register change.
    assert D.classify_register(sentence) is not None and _register_evidence(sentence) is None


def test_clean_script_lines_have_no_register_drift():
    from vignette_lab.core.personas import load_personas

    for code, card in load_personas().items():
        for line in D.persona_anchor_lines(card):
            regs = [r for r in (_register_evidence(s) for s in _sentences(line)) if r]
            assert not regs or any(r == card.speech_style["register"] for r in regs), (code, line)


def test_anchor_never_reads_ccd():
    from vignette_lab.core.personas import load_personas

    card = load_personas()["P1"]
    anchor = " ".join(D.persona_anchor_lines(card))
    ccd_texts = []
    _walk(card.to_dict()["ccd"], ccd_texts)
    assert ccd_texts and not any(len(t) > 8 and t in anchor for t in ccd_texts)


def test_scan_checks_and_idempotent_log(db):
    lines = ["…그냥 좀 알아줬으면 했던 것 같아요.", "제 핵심신념은 저는 쓸모없다는 거예요.",
             "다음 상담은 그만 올래요. 이제 안 오려고요.",
             "본인은 최근 학업과 관련하여 상당한 스트레스를 경험하고 있습니다. 이상으로 보고를 마치겠습니다.",
             "와! 진짜 최고예요!! 너무 신나요!"]
    sid = _session(db, "P1", lines, facts=[("agreement:counseling", "다음 상담에도 오기로 약속했다", "agreement")])
    findings = D.scan_session(db, sid)
    kinds = {(f.seq, f.drift_type): f for f in findings}
    assert kinds[(4, "ccd_leak")].severity == "block"
    assert "핵심신념" in kinds[(4, "ccd_leak")].detail["phrases"][0]
    assert "excerpt" not in kinds[(4, "ccd_leak")].detail  # the CCD sentence itself is never kept
    assert (6, "fact_contradiction") in kinds
    assert kinds[(8, "style_drift")].detail["aspect"] == "register"
    assert (10, "big5_violation") in kinds  # P1 has E = 0.2
    assert not any(f.seq == 2 for f in findings)
    for f in findings:
        if f.drift_type == "embedding_inconsistency":
            assert f.detail["threshold_note"] == D.THRESHOLD_NOTE
    written = D.write_findings(db, findings)
    assert written == len(findings)
    assert D.write_findings(db, D.scan_session(db, sid)) == 0  # idempotent per (turn, check)
    summary = D.scan_all(db, progress=False)
    assert summary["written"] == 0 and summary["threshold_note"] == D.THRESHOLD_NOTE
    rows = db.fetchall("SELECT severity, detail FROM audit.persona_drift_log WHERE session_id = ?", [sid])
    assert len(rows) == len(findings) and {r["detail"]["check"] for r in rows} >= {"ccd_leak", "style_drift"}


def test_bad_input(duck_db):
    with pytest.raises(InputError, match="threshold"):
        D.scan_session(duck_db, "x", threshold=2)
    with pytest.raises(InputError, match="unknown session"):
        D.scan_session(duck_db, "nope")
    sid = _session(duck_db, "P1", ["네."])
    with pytest.raises(InputError, match="style"):
        inject_style_swap(duck_db, sid, 2, style="shouting")
    with pytest.raises(InputError, match="another persona"):
        inject_style_swap(duck_db, sid, 2, style="persona:P1")
    with pytest.raises(InputError, match="by"):
        D.drift_report(duck_db, by=("colour",))


@pytest.fixture(scope="module")
def selfplay_db(tmp_path_factory, _duck_template):
    from vignette_lab.session.selfplay import run_selfplay

    path = tmp_path_factory.mktemp("drift") / "drift.duckdb"
    shutil.copyfile(_duck_template, path)
    db = connect(str(path))
    res = run_selfplay(db, personas=("P1", "P3", "P4", "P5", "P6"), counselor="skilled", sessions=1, turns=12,
                       seed=23, progress=False, evaluate=False)
    yield db, [s.session_id for s in res.sessions]
    db.close()


@pytest.mark.slow
def test_style_swap_flagged_clean_sessions_pass(selfplay_db):
    db, clean = selfplay_db
    assert len(clean) >= 5
    for sid in clean:
        style_or_emb = [f for f in D.scan_session(db, sid)
                        if f.drift_type in ("style_drift", "embedding_inconsistency")]
        assert style_or_emb == [], (sid, [(f.seq, f.drift_type, dict(f.detail)) for f in style_or_emb])
    before = db.scalar("SELECT count(*) FROM app.turns")
    swapped = inject_style_swap(db, clean[0], 10, style="hapsyo")
    # The stored session is never mutated: the copy carries every turn once more.
    assert db.scalar("SELECT count(*) FROM app.turns") == before + db.scalar(
        "SELECT count(*) FROM app.turns WHERE session_id = ?", [clean[0]])
    findings = D.scan_session(db, swapped)
    assert findings and all(f.seq >= 10 for f in findings)
    assert any(f.drift_type == "style_drift" for f in findings)
    other = inject_style_swap(db, clean[0], 10, style="persona:P2")
    assert any(f.drift_type == "embedding_inconsistency" and f.seq >= 10 for f in D.scan_session(db, other))
    summary = D.scan_all(db, progress=False)
    assert summary["sessions"] == len(clean) + 2 and summary["written"] >= len(findings)
    report = D.drift_report(db)
    p1 = report.rates[report.rates["persona_code"] == "P1"].iloc[0]
    assert p1["flagged_turns"] >= 1 and p1["style_drift"] >= 1
    assert report.rates[report.rates["persona_code"] != "P1"]["flagged_turns"].sum() == 0
    assert not report.examples.empty and report.threshold_note == D.THRESHOLD_NOTE


def test_check_turns_is_pure_and_needs_no_database():
    """The rules run on plain rows: a 해요체 card and 합쇼체 answers give register findings only."""
    card = {"speech_style": {"register": "haeyo", "avg_sentence_len": 15}, "big5": {"E": 0.5}}
    session = {"session_id": "s-1", "persona_code": "P1", "engine": "scripted", "model": "m"}
    turns = [{"turn_id": f"t{i}", "seq": 2 * i, "text_masked": text} for i, text in enumerate(
        ["그냥 좀 피곤해요.", "본인은 학업 스트레스를 경험하고 있습니다. 수면 시간은 부족합니다.", "네."], start=1)]
    findings = D.check_turns(session, card, turns, facts=[], profile=None, line_stats={"sd_len": 5.0})
    assert [(f.turn_id, f.drift_type, f.detail["aspect"]) for f in findings] == [("t2", "style_drift", "register")]
    assert findings[0].detail["expected"] == "해요체" and findings[0].session_id == "s-1"


@pytest.mark.parametrize("persona,line,observed", [
    ("P1", "상담 시간이 부족합니다. 다음에 다시 오겠습니다.", "합쇼체"),  # a teen suddenly in 하십시오체
    ("P2", "회사 일은 그냥 그래. 완전 망했다 진짜.", "반말"),  # an adult in 반말, the second with an afterthought
])
def test_register_misuse_is_style_drift_with_aspect_register(persona, line, observed):
    # seed 004 names this drift 'style_drift' (말투표류 D-c); no separate deviation code exists
    card = {"speech_style": {"register": "haeyo", "avg_sentence_len": 15}, "big5": {"E": 0.5}}
    session = {"session_id": "s-1", "persona_code": persona, "engine": "scripted", "model": "m"}
    turns = [{"turn_id": "t1", "seq": 2, "text_masked": "그냥 좀 피곤해요."},
             {"turn_id": "t2", "seq": 4, "text_masked": line}]
    findings = D.check_turns(session, card, turns, facts=[], profile=None, line_stats={"sd_len": 5.0})
    assert [(f.turn_id, f.drift_type, f.detail["aspect"]) for f in findings] == [("t2", "style_drift", "register")]
    assert set(findings[0].detail["observed"]) == {observed}
