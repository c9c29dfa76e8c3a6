"""Self-play: stored like live sessions, deterministic per seed, skill matters, CLI."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from vignette_lab.cli.session import selfplay, session
from vignette_lab.session.selfplay import run_selfplay, sparkline, summarize
from vignette_lab.store import app_repo, connect, init_db
from vignette_lab.store.catalog import load_catalog


def _fresh(path):
    db = connect(str(path))
    init_db(db)
    load_catalog(db)
    return db


def test_same_seed_same_sessions_and_everything_stored(tmp_path):
    a, b = _fresh(tmp_path / "a.duckdb"), _fresh(tmp_path / "b.duckdb")
    try:
        ra = run_selfplay(a, personas=("P2",), sessions=1, turns=6, seed=11, progress=False)
        rb = run_selfplay(b, personas=("P2",), sessions=1, turns=6, seed=11, progress=False)
        assert ra.to_json() == rb.to_json()
        s = ra.sessions[0]
        assert len(s.turns) == 12 and s.stage_reached in ("라포", "탐색", "개입", "정리")
        assert all(t["intended_technique"] for t in s.turns if t["speaker"] == "counselor")
        assert all(t["intended_technique"] is None for t in s.turns if t["speaker"] == "client")
        info = app_repo.get_session(a, s.session_id)
        assert info["mode"] == "selfplay" and info["counselor_profile"] == "skilled" and info["status"] == "ended"
        assert len(app_repo.list_turn_evaluations(a, s.session_id)) == 6
        assert app_repo.get_session_summary(a, s.session_id)["digest"]
        # a second run in the same database gets new sessions instead of colliding
        again = run_selfplay(a, personas=("P2",), sessions=1, turns=2, seed=11, progress=False)
        assert again.sessions[0].session_id != s.session_id
        other_seed = run_selfplay(b, personas=("P2",), sessions=1, turns=6, seed=12, progress=False)
        assert other_seed.to_json()["sessions"][0]["turns"] != ra.to_json()["sessions"][0]["turns"]
    finally:
        a.close()
        b.close()


def test_summary_rows():
    from vignette_lab.session.selfplay import SelfPlaySession
    rows = summarize([SelfPlaySession("s1", "P4", "skilled", "탐색", 0.4, (0.2, 0.4), 0, ()),
                      SelfPlaySession("s2", "P4", "skilled", "라포", 0.2, (0.1, 0.2, 0.2), 1, ())])
    assert rows == [{"persona": "P4", "counselor": "skilled", "sessions": 2, "reached_exploration_share": 0.5,
                     "mean_final_openness": 0.3, "openness_trajectory": [0.15, 0.3, 0.2], "safety_events": 1}]
    assert sparkline([0.0, 0.5, 0.99]) == "▁▅█"


def test_progress_callback_and_improving_profile_progress(duck_db):
    from vignette_lab.session.selfplay import _skill_progress
    calls = []
    run_selfplay(duck_db, personas=("P4",), counselor="improving", sessions=2, turns=2, evaluate=False,
                 learner_id="same-learner", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    rows = app_repo.list_sessions(duck_db, learner_id="same-learner")
    assert [r["session_no"] for r in rows] == [1, 2]  # one shared case: the counselor "improves" across it
    assert _skill_progress("improving", 1, 5, 20) == 0.0 and _skill_progress("improving", 8, 1, 20) == 1.0
    assert _skill_progress("skilled", 1, 5, 20) == 0.25


def test_bad_arguments_are_input_errors(duck_db):
    from vignette_lab.errors import InputError
    with pytest.raises(InputError, match="counselor"):
        run_selfplay(duck_db, counselor="genius", progress=False)
    with pytest.raises(InputError, match="turns"):
        run_selfplay(duck_db, turns=0, progress=False)


@pytest.mark.slow
def test_skill_matters_on_an_easy_persona(duck_db):
    skilled = run_selfplay(duck_db, personas=("P4",), counselor="skilled", sessions=10, turns=20, seed=7,
                           progress=False, evaluate=False).summary[0]
    jumper = run_selfplay(duck_db, personas=("P4",), counselor="advice-jumper", sessions=10, turns=20, seed=7,
                          progress=False, evaluate=False).summary[0]
    assert skilled["reached_exploration_share"] > jumper["reached_exploration_share"]
    assert skilled["mean_final_openness"] > jumper["mean_final_openness"] + 0.08
    assert skilled["openness_trajectory"][-1] > skilled["openness_trajectory"][0]


def _cli():
    @click.group()
    @click.option("--db", "db_url")
    @click.pass_context
    def root(ctx, db_url):
        ctx.obj = {"db_url": db_url}
    root.add_command(selfplay)
    root.add_command(session)
    return root


def test_cli_selfplay_json_and_summary(tmp_path):
    url = str(tmp_path / "cli.duckdb")
    _fresh(url).close()
    runner = CliRunner()
    res = runner.invoke(_cli(), ["--db", url, "selfplay", "--persona", "P4", "--persona", "P5", "--sessions", "1",
                                 "--turns", "3", "--no-eval", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [s["persona"] for s in data["sessions"]] == ["P4", "P5"]
    first = data["sessions"][0]
    assert set(first) == {"session_id", "persona", "counselor", "stage_reached", "final_openness", "turns"}
    assert [t["speaker"] for t in first["turns"]] == ["counselor", "client"] * 3
    res = runner.invoke(_cli(), ["--db", url, "selfplay", "--persona", "P4", "--sessions", "2", "--turns", "5",
                                 "--counselor", "advice-jumper", "--no-eval"])
    assert res.exit_code == 0, res.output
    assert "P4 × advice-jumper: sessions=2" in res.output and "t5=" in res.output
    bad = runner.invoke(_cli(), ["--db", url, "selfplay", "--persona", "P42", "--turns", "1", "--json"])
    assert bad.exit_code != 0 and "P42" in bad.output and "Traceback" not in bad.output


@pytest.mark.slow
def test_cli_session_group_round_trip(tmp_path):
    url = str(tmp_path / "cli2.duckdb")
    _fresh(url).close()
    runner, cli = CliRunner(), _cli()
    sid = runner.invoke(cli, ["--db", url, "session", "start", "P4"]).output.strip()
    reply = runner.invoke(cli, ["--db", url, "session", "send", sid, "오늘 어떤 이야기를 하고 싶어요?"])
    assert reply.exit_code == 0 and reply.output.strip()
    blank = runner.invoke(cli, ["--db", url, "session", "send", sid, "   "])
    assert blank.exit_code != 0
    ended = runner.invoke(cli, ["--db", url, "session", "end", sid])
    assert ended.exit_code == 0, ended.output
    lines = ended.output.strip().splitlines()
    assert lines[0] == "회기를 종료했습니다. 평가 완료."
    assert lines[-1] == f"전체 검토 보기: {cli.name} --db {url} session review {sid} --text"
    assert any(ln.startswith("기법: 개방형 질문 1회") for ln in lines), lines  # Korean labels, not codes
    assert "open_question" not in ended.output and "ready" not in ended.output
    review = json.loads(runner.invoke(cli, ["--db", url, "session", "review", sid]).output)
    assert review["status"] == "ready" and review["checklist"]["id"].startswith("first-session")
    again = runner.invoke(cli, ["--db", url, "session", "end", sid, "--json"])  # ending twice: the same review
    assert again.exit_code == 0 and json.loads(again.output)["status"] == "ready"
    text = runner.invoke(cli, ["--db", url, "session", "review", sid, "--text"])
    assert text.exit_code == 0 and text.output.startswith("평가 완료.") and "첫 회기 체크리스트" in text.output
    assert text.output.strip().splitlines()[-1] == f"JSON으로 보기: {cli.name} --db {url} session review {sid}"


@pytest.mark.slow
def test_cli_session_end_without_a_counselor_turn_says_so(tmp_path):
    url = str(tmp_path / "cli3.duckdb")
    _fresh(url).close()
    runner, cli = CliRunner(), _cli()
    sid = runner.invoke(cli, ["--db", url, "session", "start", "P2"]).output.strip()
    ended = runner.invoke(cli, ["--db", url, "session", "end", sid])
    assert ended.exit_code == 0, ended.output
    lines = ended.output.strip().splitlines()
    assert "요약: 상담자 발화 없이 회기가 끝났습니다." in lines[1], lines
    assert "기법: 평가된 상담자 발화가 없습니다." in lines and "잘한 점:" not in lines  # nothing to praise yet
    assert any("열린 질문으로 대화를 시작해 보세요" in ln for ln in lines)


def test_every_cli_command_is_documented():
    for cmd in [selfplay, *session.commands.values()]:
        assert cmd.help and "Example:" in cmd.help, cmd.name
        assert all(p.help for p in cmd.params if isinstance(p, click.Option)), cmd.name


def test_killed_batch_is_aborted_and_resume_continues_it(duck_db, monkeypatch):
    from vignette_lab.session import selfplay as sp

    real = sp._play_one
    calls = {"n": 0}

    def dying(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # the batch is killed during its second session
        return real(*args, **kwargs)

    monkeypatch.setattr(sp, "_play_one", dying)
    with pytest.raises(KeyboardInterrupt):
        run_selfplay(duck_db, personas=("P4",), sessions=3, turns=3, seed=5, progress=False, evaluate=False)
    rows = app_repo.selfplay_sessions_of(duck_db, seed=5, persona_code="P4", counselor_profile="skilled")
    assert [r["status"] for r in rows] == ["ended", "aborted"]
    assert all((r["meta"] or {}).get("batch") for r in rows)
    monkeypatch.setattr(sp, "_play_one", real)
    resumed = run_selfplay(duck_db, personas=("P4",), sessions=3, turns=3, seed=5, progress=False, evaluate=False,
                           resume=True)
    assert len(resumed.sessions) == 3 and resumed.sessions[0].session_id == rows[0]["session_id"]
    rows = app_repo.selfplay_sessions_of(duck_db, seed=5, persona_code="P4", counselor_profile="skilled")
    assert sorted(r["status"] for r in rows) == ["aborted", "ended", "ended", "ended"]
    assert not any(r["status"] == "active" for r in rows)
    # a data set never picks up the aborted session
    from vignette_lab.pipeline.datasets import create_dataset_from_sessions

    ds = create_dataset_from_sessions(duck_db, "no-aborted", modes=["selfplay"], created_by="t")
    items = duck_db.fetchall("SELECT * FROM ds.dataset_item WHERE dataset_id = ?", [ds])
    aborted = next(r["session_id"] for r in rows if r["status"] == "aborted")
    assert items and all(aborted not in str(it) for it in items)


def test_stale_active_session_of_a_killed_process_is_aborted_at_next_run(duck_db):
    from vignette_lab.session.service import SessionService

    from vignette_lab.engines.scripted import ScriptedEngine

    svc = SessionService(duck_db, engine=ScriptedEngine(seed=9), run_fast_eval=False)
    stale = svc.start("P2", learner_id="x", mode="selfplay", counselor_profile="skilled", seed=9)
    run_selfplay(duck_db, personas=("P2",), sessions=1, turns=2, seed=9, progress=False, evaluate=False)
    assert app_repo.get_session(duck_db, stale.session_id)["status"] == "aborted"
