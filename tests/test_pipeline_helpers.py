"""Shared builders for the pipeline tests (no tests here; imported by test_pipeline_*.py).

Sessions and turns are inserted with plain SQL (the storage contract of
docs/architecture.md) so most pipeline tests do not pay for self-play; the demo tests run
real self-play.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

# One counselor line per intended technique (already free of PII: stored as text_masked).
COUNSELOR_LINES = {
    "open_question": "요즘 하루가 어떻게 흘러가는지 들려줄 수 있을까요?",
    "reflection_feelings": "그 말을 들으니 많이 서운하고 속상하셨겠어요.",
    "closed_question": "어제는 잠을 좀 잤어요?",
    "approval_reassurance": "여기까지 와서 이야기해 준 것만으로도 큰 용기예요.",
    "restatement": "그러니까 선생님이 권해서 오게 됐다는 거네요.",
    "direct_guidance": "오늘 밤에는 휴대폰을 멀리 두고 일찍 누워 보세요.",
}
CLIENT_LINES = ["잘 모르겠어요. 그냥 좀 지쳤어요.", "엄마는 제 말을 안 들어요.", "…그냥요.",
                "학교 가기가 싫어요.", "네, 조금은요.", "그건 저도 알아요."]


def seed_sessions(db, *, sessions: int = 2, counselor_turns: int = 4, persona: str = "P1",
                  mode: str = "selfplay", learner: str = "learner-a",
                  started_at: datetime | None = None) -> list[str]:
    """Insert ended sessions with alternating counselor/client turns; return session ids."""
    from vignette_lab.pipeline.rounds import _held

    with _held(db):  # one open DuckDB file for the whole insert loop
        return _seed(db, sessions, counselor_turns, persona, mode, learner, started_at)


def _seed(db, sessions, counselor_turns, persona, mode, learner, started_at):
    techs = list(COUNSELOR_LINES)
    started = started_at or datetime.now(timezone.utc)
    ids = []
    for s in range(sessions):
        sid = str(uuid.uuid4())
        ids.append(sid)
        db.execute("INSERT INTO app.sessions (session_id, learner_id, persona_code, mode, status,"
                   " started_at) VALUES (?, ?, ?, ?, 'ended', ?)",
                   [sid, learner, persona, mode, started + timedelta(seconds=s)])
        seq = 0
        for t in range(counselor_turns):
            tech = techs[(s + t) % len(techs)]
            line = COUNSELOR_LINES[tech]
            db.execute("INSERT INTO app.turns (turn_id, session_id, seq, speaker, text, text_masked,"
                       " intended_technique) VALUES (?, ?, ?, 'counselor', ?, ?, ?)",
                       [str(uuid.uuid4()), sid, seq, line, line,
                        tech if mode == "selfplay" else None])
            reply = CLIENT_LINES[(s + t) % len(CLIENT_LINES)]
            db.execute("INSERT INTO app.turns (turn_id, session_id, seq, speaker, text, text_masked)"
                       " VALUES (?, ?, ?, 'client', ?, ?)",
                       [str(uuid.uuid4()), sid, seq + 1, reply, reply])
            seq += 2
    return ids


def dataset_with_items(db, **kw) -> str:
    from vignette_lab.pipeline.datasets import create_dataset_from_sessions

    seed_sessions(db, **kw)
    return create_dataset_from_sessions(db, "test-set")


def human_round(db, dataset_id: str, labels: dict[str, dict[str, dict]], *, ai_round_id=None) -> str:
    """A human_review round where ``labels[reviewer][item_id]`` are that reviewer's labels."""
    from vignette_lab.pipeline.rounds import _held, create_round, save_annotation

    with _held(db):
        rid = create_round(db, dataset_id, "human_review", ai_round_id=ai_round_id)
        for reviewer, per_item in labels.items():
            for pos, (item_id, lab) in enumerate(per_item.items()):
                db.execute("INSERT INTO ds.reviewer_assignment (round_id, item_id, reviewer_id,"
                           " position, assigned_at) VALUES (?, ?, ?, ?, ?)",
                           [rid, item_id, reviewer, pos, datetime.now(timezone.utc)])
                save_annotation(db, rid, item_id, reviewer, annotator_kind="human", **lab)
    return rid
