"""AI proposes, humans confirm: the annotation writer, the DB guards, and auto-annotation."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone

import anthropic
import httpx2
import pytest

from test_pipeline_helpers import dataset_with_items
from vignette_lab.errors import InputError, PermissionDenied, StoreError
from vignette_lab.pipeline.annotate import auto_annotate
from vignette_lab.pipeline.datasets import dataset_items
from vignette_lab.pipeline.rounds import (
    close_round,
    create_round,
    effective_annotations,
    get_round,
    save_annotation,
)


def _raw_insert(db, round_id, item_id, status, kind="ai"):
    db.execute("INSERT INTO ds.annotation (annotation_id, round_id, item_id, annotator_id,"
               " annotator_kind, status, techniques, client_state, created_at)"
               " VALUES (?, ?, ?, 'ai:x', ?, ?, ?, ?, ?)",
               [str(uuid.uuid4()), round_id, item_id, kind, status, ["open_question"], [],
                datetime.now(timezone.utc)])


def test_ai_can_only_propose_in_code_and_in_the_database(db):
    did = dataset_with_items(db, sessions=1, counselor_turns=2)
    item = dataset_items(db, did)[0]["item_id"]
    rid = create_round(db, did, "ai_auto", engine="scripted")
    for status in ("accepted", "submitted", "rejected"):
        with pytest.raises(PermissionDenied, match="only propose"):
            save_annotation(db, rid, item, "ai:scripted", annotator_kind="ai", status=status,
                            techniques=["open_question"])
    # second layer: the CHECK constraint refuses it even when code is bypassed
    with pytest.raises(StoreError):
        _raw_insert(db, rid, item, "accepted")
    _raw_insert(db, rid, item, "proposed")
    assert db.scalar("SELECT count(*) FROM ds.annotation WHERE annotator_kind = 'ai'"
                     " AND status <> 'proposed'") == 0
    # AI rows never land in a human round either
    hr = create_round(db, did, "human_review")
    with pytest.raises(PermissionDenied):
        save_annotation(db, hr, item, "ai:scripted", annotator_kind="ai", techniques=["open_question"])


def test_labels_are_validated_against_the_taxonomy(duck_db):
    did = dataset_with_items(duck_db, sessions=1, counselor_turns=1)
    item = dataset_items(duck_db, did)[0]["item_id"]
    rid = create_round(duck_db, did, "human_review")
    with pytest.raises(InputError, match="unknown label") as err:
        save_annotation(duck_db, rid, item, "kim", annotator_kind="human", techniques=["mind_reading"])
    assert err.value.field == "techniques"
    with pytest.raises(InputError, match="0–5"):
        save_annotation(duck_db, rid, item, "kim", annotator_kind="human",
                        techniques=["open_question"], scores={"empathy": 7})
    with pytest.raises(InputError, match="round kind"):
        create_round(duck_db, did, "crowd")


@pytest.mark.postgres
def test_postgres_annotation_is_append_only(pg_db):
    did = dataset_with_items(pg_db, sessions=1, counselor_turns=1)
    item = dataset_items(pg_db, did)[0]["item_id"]
    rid = create_round(pg_db, did, "human_review")
    aid = save_annotation(pg_db, rid, item, "kim", annotator_kind="human", techniques=["open_question"])
    for sql in ("UPDATE ds.annotation SET status = 'accepted' WHERE annotation_id = ?",
                "DELETE FROM ds.annotation WHERE annotation_id = ?"):
        with pytest.raises(StoreError, match="append-only"):
            pg_db.execute(sql, [aid])
    # a correction is a new row that supersedes the old one
    new = save_annotation(pg_db, rid, item, "kim", annotator_kind="human",
                          techniques=["closed_question"], supersedes=aid)
    current = effective_annotations(pg_db, rid)
    assert [a["annotation_id"] for a in current] == [new]
    assert pg_db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ?", [rid]) == 2


class _Interrupt(Exception):
    pass


def test_auto_annotate_is_proposed_only_and_resumable(db):
    did = dataset_with_items(db, sessions=2, counselor_turns=3)
    rid = create_round(db, did, "ai_auto", engine="scripted")
    seen = []

    def stop_after_two(item_id):
        seen.append(item_id)
        if len(seen) == 2:
            raise _Interrupt  # simulated crash right after the 2nd commit

    with pytest.raises(_Interrupt):
        auto_annotate(db, rid, progress=False, on_item=stop_after_two)
    assert db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ?", [rid]) == 2
    res = auto_annotate(db, rid, progress=False)
    assert (res["total"], res["skipped"], res["written"], res["failed"]) == (6, 2, 4, 0)
    rows = effective_annotations(db, rid)
    assert len(rows) == 6 and len({r["item_id"] for r in rows}) == 6
    assert {r["status"] for r in rows} == {"proposed"} and {r["annotator_kind"] for r in rows} == {"ai"}
    assert all(r["techniques"] for r in rows)
    again = auto_annotate(db, rid, progress=False)
    assert again["written"] == 0 and again["skipped"] == 6


def test_max_items_chunks_a_round(duck_db):
    did = dataset_with_items(duck_db, sessions=1, counselor_turns=4)
    rid = create_round(duck_db, did, "ai_auto", engine="scripted")
    assert auto_annotate(duck_db, rid, progress=False, max_items=3)["written"] == 3
    assert auto_annotate(duck_db, rid, progress=False)["written"] == 1
    close_round(duck_db, rid)
    rnd = get_round(duck_db, rid)
    assert rnd["status"] == "closed" and rnd["closed_at"] is not None
    with pytest.raises(InputError, match="closed"):
        auto_annotate(duck_db, rid, progress=False)


def _batch_json(status, results_url=None):
    return {"id": "msgbatch_07", "type": "message_batch", "processing_status": status,
            "request_counts": {"processing": 0 if status == "ended" else 2, "succeeded": 2,
                               "errored": 0, "canceled": 0, "expired": 0},
            "created_at": "2026-11-30T03:00:00Z", "expires_at": "2026-12-01T03:00:00Z",
            "ended_at": None, "archived_at": None, "cancel_initiated_at": None,
            "results_url": results_url}


def test_batch_round_through_the_anthropic_batches_api(duck_db):
    from vignette_lab.engines.anthropic_engine import AnthropicEngine

    did = dataset_with_items(duck_db, sessions=1, counselor_turns=2)
    rid = create_round(duck_db, did, "ai_auto", engine="anthropic")
    sent = {}
    url = "https://api.anthropic.com/v1/messages/batches/msgbatch_07/results"
    polls = iter([_batch_json("in_progress"), _batch_json("ended", url), _batch_json("ended", url)])

    def answer(cid, payload):
        return {"custom_id": cid, "result": {"type": "succeeded", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": json.dumps(payload, ensure_ascii=False)}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}}}

    def handler(request):
        if request.method == "POST" and request.url.path == "/v1/messages/batches":
            sent["body"] = json.loads(request.content)
            return httpx2.Response(200, json=_batch_json("in_progress"))
        if request.url.path == "/v1/messages/batches/msgbatch_07":
            return httpx2.Response(200, json=next(polls))
        if request.url.path.endswith("/results"):
            ids = [r["custom_id"] for r in sent["body"]["requests"]]
            lines = [answer(ids[0], {"techniques": ["open_question"], "appropriateness": "pos",
                                     "client_state": ["guarded"], "rapport_signal": 0.2}),
                     answer(ids[1], {"techniques": ["made_up"], "appropriateness": "accepted"})]
            return httpx2.Response(200, content="\n".join(json.dumps(x) for x in lines).encode(),
                                   headers={"content-type": "application/binary"})
        return httpx2.Response(404, json={"type": "error", "error": {"type": "not_found_error",
                                                                      "message": "?"}})

    client = anthropic.Anthropic(api_key="test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    engine = AnthropicEngine(client=client, model="claude-haiku-4-5")
    res = auto_annotate(duck_db, rid, engine=engine, batch=True, progress=False, poll_interval_s=0,
                        kb=lambda q: ["[kb-1 · technique · 감정 반영] 감정을 이름 붙여 되비춘다."])
    requests = sent["body"]["requests"]
    assert len(requests) == 2
    # what the evaluator is sent: masked counselor text, never the intended technique
    assert "intended" not in json.dumps(requests, ensure_ascii=False)
    # like the live path: KB passages in one system block, the client's last line and stage in the payload
    body = json.dumps(requests[1]["params"], ensure_ascii=False)
    assert "[kb-1 · technique · 감정 반영]" in body
    user = json.loads(requests[1]["params"]["messages"][-1]["content"][0]["text"]
                      if isinstance(requests[1]["params"]["messages"][-1]["content"], list)
                      else requests[1]["params"]["messages"][-1]["content"])
    assert "client_prev" in user and "stage" in user and user["client_prev"]
    assert res["written"] == 1 and res["failed"] == 1  # unknown labels are dropped, not stored
    (row,) = effective_annotations(duck_db, rid)
    assert row["status"] == "proposed" and row["techniques"] == ["open_question"]
    assert row["annotator_id"] == "ai:anthropic:claude-haiku-4-5"
    # the failed item stays pending: a later run picks it up
    assert auto_annotate(duck_db, rid, engine="scripted", progress=False)["written"] == 1
