"""Every path that stores free text goes through the PII gate (DuckDB and Postgres).

Each write path is walked with PII-laden input, then every text/JSON column of every table in
the app, ds, kb and audit schemas is scanned: no raw value may be anywhere.
"""

from __future__ import annotations

import hashlib
import json
import uuid

from test_pipeline_export import _golden
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.kb.embedders import HashingEmbedder
from vignette_lab.kb.retrieval import index_turns
from vignette_lab.pipeline.adjudicate import adjudicate, disagreements
from vignette_lab.pipeline.datasets import dataset_items, import_transcripts
from vignette_lab.pipeline.export import export_golden, import_export
from vignette_lab.pipeline.gate import gate
from vignette_lab.pipeline.rounds import create_round, save_annotation
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo

RAW = {
    "phone": "010-9876-5432",
    "rrn": "900101-1234567",
    "email": "minji0315@naver.com",
    "name": "김민지",
    "account": "123456-01-234567",
    "card": "4111-1111-1111-1111",
}
PII_LINE = (f"저는 {RAW['name']}고요 번호는 {RAW['phone']}, 주민번호 {RAW['rrn']}, 메일 {RAW['email']}, "
            f"국민 {RAW['account']}, 카드 {RAW['card']}이에요")


def _scan(db) -> list[str]:
    cols = db.fetchall(
        "SELECT table_schema, table_name, column_name FROM information_schema.columns "
        "WHERE table_schema IN ('app', 'ds', 'kb', 'audit')")
    tables: dict[tuple[str, str], list[str]] = {}
    for c in cols:
        tables.setdefault((c["table_schema"], c["table_name"]), []).append(c["column_name"])
    leaks = []
    for (schema, table), names in tables.items():
        for row in db.fetchall(f"SELECT * FROM {schema}.{table}"):
            blob = json.dumps({k: v for k, v in row.items()}, ensure_ascii=False, default=str)
            for kind, value in RAW.items():
                if value in blob:
                    leaks.append(f"{schema}.{table}: {kind}")
    return sorted(set(leaks))


def _walk_session_paths(db) -> str:
    svc = SessionService(db, engine=ScriptedEngine(seed=7), embedder=HashingEmbedder())
    info = svc.start("P1", learner_id="u-pii")
    for line in (PII_LINE, f"{RAW['name']}야, 요즘 어때요? {RAW['phone']}로 연락해요", "오늘 하루는 어땠어요?"):
        svc.send(info.session_id, line)
    svc.coach(info.session_id)
    svc.end(info.session_id)  # summary, digest, case profile, pinned facts, evaluations, embeddings
    row = app_repo.get_session(db, info.session_id)
    case_id = row["case_id"]
    # the repository writers themselves gate, whoever calls them
    fid = app_repo.upsert_pinned_fact(db, case_id=case_id, key="contact", value=PII_LINE, fact_type="identity",
                                      status="stable", source_turn=None, confidence=1.0, version=1,
                                      session_no=1, visible_to=["client"])
    app_repo.append_pinned_history(db, fact_id=fid, case_id=case_id, old_value=PII_LINE, new_value=PII_LINE,
                                   reason=PII_LINE, session_no=1, turn_id=None)
    app_repo.insert_coach_event(db, session_id=info.session_id, turn_seq=1, event_type="use", credit_delta=-1,
                                credit_balance=2, reason=PII_LINE, payload={"card": PII_LINE},
                                learner_excerpt=PII_LINE, client_excerpt=PII_LINE)
    app_repo.upsert_session_summary(db, info.session_id, case_id=case_id, session_no=1, end_state={"note": PII_LINE},
                                    rapport_delta=0.1, digest=PII_LINE, open_threads=[PII_LINE], homework=[PII_LINE],
                                    compressed_by="test")
    app_repo.update_case_profile(db, case_id, last_session_no=1, rapport_trajectory=[0.1], alliance_level=None,
                                 case_digest=PII_LINE, presenting_arc={"arc": PII_LINE})
    app_repo.upsert_session_evaluation(db, info.session_id, status="ok", technique_distribution={},
                                       strengths=[PII_LINE], improvements=[PII_LINE], rationale=PII_LINE,
                                       alternatives=[{"text": PII_LINE}], checklist={"x": PII_LINE}, error=None,
                                       engine="test")
    app_repo.insert_safety_event(db, session_id=info.session_id, turn_seq=1, kind="test", escalated=False,
                                 detail={"text": PII_LINE})
    index_turns(db, [{"turn_id": str(uuid.uuid4()), "session_id": info.session_id, "seq": 99, "speaker": "client",
                      "text_masked": PII_LINE}], case_id=case_id, learner_id="u-pii", embedder=HashingEmbedder())
    return case_id


def _walk_pipeline_paths(db, tmp_path) -> dict:
    src = tmp_path / "t.jsonl"
    src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"session_id": "s-pii", "seq": 1, "speaker": "counselor", "text": PII_LINE},
        {"session_id": "s-pii", "seq": 2, "speaker": "client", "text": PII_LINE},
    ]) + "\n", encoding="utf-8")
    did = import_transcripts(db, src)
    item = dataset_items(db, did)[0]
    rid = create_round(db, did, "human_review")
    save_annotation(db, rid, item["item_id"], "kim", annotator_kind="human", techniques=["restatement"],
                    appropriateness="neutral", rationale=PII_LINE)
    adjudicate(db, item["item_id"], rid, "prof-kim", {"techniques": ["restatement"], "appropriateness": "neutral",
                                                      "rationale": PII_LINE, "notes": PII_LINE})
    # golden import of an export that was edited and re-hashed to carry raw PII
    _, hr, _, gs = _golden(db)
    gate(db, hr, n_resamples=50, override_reason=PII_LINE)  # a reviewer's typed override reason
    out = tmp_path / "export"
    export_golden(db, gs["golden_id"], out, notes=[PII_LINE])
    lines = []
    for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        rec["item_id"] = str(uuid.uuid4())
        rec["counselor_text"] = PII_LINE
        lines.append(json.dumps(rec, ensure_ascii=False))
    (out / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["items.jsonl"]["sha256"] = hashlib.sha256((out / "items.jsonl").read_bytes()).hexdigest()
    manifest["files"]["items.jsonl"]["bytes"] = (out / "items.jsonl").stat().st_size
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    return import_export(db, out)


def test_no_raw_pii_in_any_table_after_every_write_path(db, tmp_path):
    _walk_session_paths(db)
    imported = _walk_pipeline_paths(db, tmp_path)
    assert imported["masked_texts"] >= imported["item_count"] > 0  # golden import says what it masked
    assert _scan(db) == []
