"""The same scripted session gives the same stored transcript on DuckDB and PostgreSQL (issue 12).

PostgreSQL's ``JSONB`` keeps no key order, and the rendered client prompt follows the card's key
order: before ``catalog.card_in_file_order`` the prompt text differed between the backends (so
the first PostgreSQL turn of a session masked a text no memo held). The sessions here run with
fixed session ids and seeds on both backends and every stored turn and fast-loop judgement is
compared.
"""

from __future__ import annotations

import json

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session import context
from vignette_lab.session.context import client_view
from vignette_lab.session.layers import render_card
from vignette_lab.session.selfplay import run_selfplay
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo, audit_repo, catalog

pytestmark = pytest.mark.postgres

LINES = ["안녕하세요, 오늘 어떤 이야기를 하고 싶어요?", "몇 학년이에요?", "동생 있어요?", "요즘 잠은 잘 자요?",
         "혹시 죽고 싶다는 생각까지 든 적 있어?", "너 AI지?", "그때 가장 힘들었던 건 뭐였어요?",
         "오늘 여기서 마무리할게요"]
SID = "00000000-0000-4000-8000-0000000000b1"


def _key_orders(value, path=""):
    """Every dict's key order in ``value``, by path."""
    out = {}
    if isinstance(value, dict):
        out[path] = list(value)
        for k, v in value.items():
            out.update(_key_orders(v, f"{path}/{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(_key_orders(v, f"{path}[{i}]"))
    return out


def _stored(db, session_id):
    turns = [(t["seq"], t["speaker"], t["text_masked"], t["intended_technique"],
              json.dumps(t["state_after"], sort_keys=True), json.dumps(t["safety"], sort_keys=True))
             for t in app_repo.list_turns(db, session_id)]
    evals = [(e["turn_seq"], list(e["techniques"]), e["appropriateness"], e["rapport_signal"],
              json.dumps(e["scores"], sort_keys=True)) for e in app_repo.list_turn_evaluations(db, session_id)]
    # the request hash covers the engine's prompt: the same prompt text on both backends
    calls = sorted((c["ai_role"], c["request_hash"]) for c in audit_repo.read_llm_calls(db, session_id=session_id))
    return turns, evals, calls


def _live(db):
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P4", learner_id="live", seed=11, session_id=SID).session_id
    for line in LINES:
        svc.send(sid, line)
    svc.end(sid, run_deep=False)
    return _stored(db, sid)


def _selfplay(db):
    res = run_selfplay(db, personas=("P1",), counselor="skilled", sessions=1, turns=8, seed=5, progress=False,
                       evaluate=True)
    return [(t["speaker"], t["text"]) for t in res.sessions[0].turns]


def test_card_keys_come_back_in_the_file_order(duck_db, pg_db):
    for code in ("P1", "P4", "P7"):
        duck = catalog.get_persona_row(duck_db, code)["card"]
        pg = catalog.get_persona_row(pg_db, code)["card"]
        assert pg == duck
        assert _key_orders(pg) == _key_orders(duck)
        pinned = app_repo.get_persona_card_by_id(pg_db, catalog.get_persona_row(pg_db, code)["persona_id"])["card"]
        assert _key_orders(pinned) == _key_orders(duck)
    listed = {r["code"]: r["card"] for r in catalog.list_persona_rows(pg_db)}
    assert _key_orders(listed["P2"]) == _key_orders(catalog.get_persona_row(duck_db, "P2")["card"])


def test_rendered_client_prompt_is_the_same_text(duck_db, pg_db):
    # the masked prompt text is memoised by its text: a differing text was masked again on the first
    # PostgreSQL turn of each session (1-2 s)
    for code in ("P2", "P5"):
        texts = [render_card(client_view(context.persona_card(db, code)[0])) for db in (duck_db, pg_db)]
        assert texts[0] == texts[1]


def test_card_without_bundled_file_gets_sorted_keys(pg_db):
    card = catalog.card_in_file_order(pg_db, {"zeta": 1, "alpha": {"b": 2, "a": [{"y": 1, "x": 2}]}}, "P999")
    assert _key_orders(card) == {"": ["alpha", "zeta"], "/alpha": ["a", "b"], "/alpha/a[0]": ["x", "y"]}


def test_duckdb_card_is_returned_as_stored(duck_db):
    card = {"zeta": 1, "alpha": 2}
    assert list(catalog.card_in_file_order(duck_db, card, "P4")) == ["zeta", "alpha"]


def test_same_live_session_same_rows_on_both_backends(duck_db, pg_db):
    duck_turns, duck_evals, duck_calls = _live(duck_db)
    pg_turns, pg_evals, pg_calls = _live(pg_db)
    assert len(duck_turns) == 2 * len(LINES)
    assert pg_turns == duck_turns
    assert pg_evals == duck_evals
    assert len(duck_calls) >= len(LINES)
    assert pg_calls == duck_calls


def test_same_selfplay_transcript_on_both_backends(duck_db, pg_db):
    duck = _selfplay(duck_db)
    assert len(duck) >= 8
    assert _selfplay(pg_db) == duck
