"""Data sets from sessions and from transcript files (JSONL/CSV), on both backends."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from test_pipeline_helpers import COUNSELOR_LINES, seed_sessions
from vignette_lab.errors import InputError
from vignette_lab.pipeline.datasets import (
    create_dataset_from_sessions,
    dataset_items,
    import_transcripts,
)


def _count(db, table):
    return db.scalar(f"SELECT count(*) FROM ds.{table}")


def test_items_from_sessions_have_context_reply_and_intent(db):
    seed_sessions(db, sessions=2, counselor_turns=4)
    did = create_dataset_from_sessions(db, "sp", context_turns=2)
    items = dataset_items(db, did)
    assert len(items) == 8  # one per counselor turn
    assert db.scalar("SELECT item_count FROM ds.dataset WHERE dataset_id = ?", [did]) == 8
    by_seq = {(it["session_id"], it["seq"]): it for it in items}
    first = [it for it in items if it["seq"] == 0]
    assert all(it["context"] == [] for it in first)
    third = next(it for it in items if it["seq"] == 4)
    assert [c["seq"] for c in third["context"]] == [2, 3]           # 2 preceding turns
    assert [c["speaker"] for c in third["context"]] == ["counselor", "client"]
    assert third["client_reply"] is not None and third["persona_code"] == "P1"
    # self-play ground truth is copied: the stored line matches its intended technique
    assert all(COUNSELOR_LINES[it["intended_technique"]] == it["counselor_text"]
               for it in by_seq.values())


def test_session_filters(db):
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    seed_sessions(db, sessions=1, persona="P1", mode="selfplay", started_at=t0)
    seed_sessions(db, sessions=1, persona="P4", mode="live", learner="learner-b",
                  started_at=t0 + timedelta(days=10))
    only_p4 = dataset_items(db, create_dataset_from_sessions(db, "p4", personas=["P4"]))
    assert {it["persona_code"] for it in only_p4} == {"P4"}
    assert all(it["intended_technique"] is None for it in only_p4)  # live: no intent
    live = dataset_items(db, create_dataset_from_sessions(db, "live", modes=["live"]))
    assert {it["learner_id"] for it in live} == {"learner-b"}
    early = dataset_items(db, create_dataset_from_sessions(db, "early", until=t0 + timedelta(days=1)))
    assert {it["persona_code"] for it in early} == {"P1"}
    with pytest.raises(InputError, match="mode"):
        create_dataset_from_sessions(db, "bad", modes=["replay"])


def _write_jsonl(path, rows):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")


ROWS = [
    {"session_id": "s1", "seq": 0, "speaker": "counselor", "text": "안녕하세요, 오늘 어떤 이야기를 해 볼까요?",
     "persona": "P2", "learner_id": "L1", "intended_technique": "open_question"},
    {"session_id": "s1", "seq": 1, "speaker": "client",
     "text": "제 번호는 010-1234-5678이고 메일은 minji@example.com 이에요."},
    {"session_id": "s1", "seq": 2, "speaker": "counselor", "text": "연락처까지 알려 주셨네요. 많이 답답하셨겠어요."},
    {"session_id": "s1", "seq": 3, "speaker": "client", "text": "네."},
]


def test_import_jsonl_masks_pii_before_storage(db, tmp_path):
    path = tmp_path / "t.jsonl"
    _write_jsonl(path, ROWS)
    did = import_transcripts(db, path)
    items = dataset_items(db, did)
    assert [it["seq"] for it in items] == [0, 2]
    assert items[0]["intended_technique"] == "open_question" and items[0]["persona_code"] == "P2"
    stored = json.dumps([dict(it, created_at=None) for it in items], ensure_ascii=False)
    assert "010-1234-5678" not in stored and "minji@example.com" not in stored
    assert items[0]["client_reply"] != ROWS[1]["text"]  # masked on the way in
    assert db.scalar("SELECT name FROM ds.dataset WHERE dataset_id = ?", [did]) == "t.jsonl"


def test_import_csv(db, tmp_path):
    import csv

    path = tmp_path / "t.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["session_id", "seq", "speaker", "text", "persona"])
        w.writeheader()
        for r in ROWS:
            w.writerow({k: r.get(k, "") for k in w.fieldnames})
    items = dataset_items(db, import_transcripts(db, path, name="csv-set"))
    assert len(items) == 2 and items[1]["context"][-1]["speaker"] == "client"


@pytest.mark.parametrize("content, line, field", [
    ('{"session_id": "s", "seq": 0, "speaker": "counselor", "text": "안녕"}\n{"session_id": "s", "seq": 1,\n',
     2, None),
    ('{"session_id": "s", "seq": 0, "speaker": "counselor"}\n', 1, "text"),
    ('{"session_id": "s", "seq": 0, "speaker": "counselor", "text": "a"}\n'
     '{"session_id": "s", "seq": 1, "speaker": "therapist", "text": "b"}\n', 2, "speaker"),
    ('{"session_id": "s", "seq": 0, "speaker": "counselor", "text": "a"}\n'
     '{"session_id": "s", "seq": 0, "speaker": "client", "text": "b"}\n', 2, "speaker"),
    ('{"session_id": "s", "seq": 0, "speaker": "counselor", "text": "a", "intended_technique": "hypnosis"}\n',
     1, "intended_technique"),
])
def test_malformed_jsonl_names_file_line_field_and_writes_nothing(db, tmp_path, content, line, field):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    before = (_count(db, "dataset"), _count(db, "dataset_item"))
    with pytest.raises(InputError) as err:
        import_transcripts(db, path)
    assert err.value.source == str(path) and err.value.line == line and err.value.field == field
    assert "bad.jsonl" in str(err.value)
    assert (_count(db, "dataset"), _count(db, "dataset_item")) == before


def test_not_utf8_and_empty_files(duck_db, tmp_path):
    latin = tmp_path / "cp949.jsonl"
    good = '{"session_id": "s", "seq": 0, "speaker": "counselor", "text": "ok"}\n'
    latin.write_bytes(good.encode() + '{"session_id": "s", "seq": 1, "speaker": "client", "text": "안녕"}\n'
                      .encode("cp949"))
    with pytest.raises(InputError, match="not UTF-8") as err:
        import_transcripts(duck_db, latin)
    assert err.value.line == 2
    empty = tmp_path / "empty.csv"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        import_transcripts(duck_db, empty)
    with pytest.raises(InputError, match="format"):
        import_transcripts(duck_db, tmp_path / "x.txt")
    assert _count(duck_db, "dataset") == 0
