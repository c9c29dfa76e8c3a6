"""bench/stage_heldout.py: the lead's staging of independent authors' held-out files (docs/eval_authoring.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench_loader import load_module

ROOT = Path(__file__).resolve().parents[1]
stage_heldout = load_module("stage_heldout", ROOT / "bench" / "stage_heldout.py")


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _author(root: Path, name: str, out: str, rows: list[dict]) -> None:
    folder = root / name
    _jsonl(folder / out, rows)
    (folder / "src").mkdir()
    (folder / "src" / "p1.txt").write_text("hand-written\n", encoding="utf-8")
    (folder / "build_validate.py").write_text("print('ok')\n", encoding="utf-8")
    (folder / "README.md").write_text(f"# {name}\n", encoding="utf-8")


@pytest.fixture()
def layout(tmp_path):
    repo, authors = tmp_path / "repo", tmp_path / "authors"
    ev = repo / "datasets" / "eval"
    _jsonl(ev / "evaluator" / "dev.jsonl", [{"id": "d1", "counselor": "요즘 잠은 좀 어때요?"}])
    _jsonl(ev / "drift" / "dev.jsonl", [{"id": "d2", "text": "네."}])
    _author(authors, "ev_a", "test.jsonl", [
        {"id": "ev-a-1", "counselor": "요즘   잠은 좀 어때요"},          # a dev line with other spacing and no mark
        {"id": "ev-a-2", "counselor": "그 생각이 들 때 누가 곁에 있어요?"}])
    _author(authors, "ev_b", "test.jsonl", [
        {"id": "ev-b-1", "counselor": "그 생각이 들 때 누가 곁에 있어요?!"},  # the other author's line again
        {"id": "ev-b-2", "counselor": "오늘은 여기까지 할까요?"}])
    _author(authors, "drift", "test.jsonl", [{"id": "dr-1", "text": "네"}, {"id": "dr-2", "text": "저 AI 아니에요."}])
    return repo, authors


def test_stages_every_set_without_dev_or_cross_author_duplicates(layout):
    repo, authors = layout
    report = stage_heldout.stage(authors, repo)
    ev = repo / "datasets" / "eval"
    ids = [json.loads(line)["id"] for line in (ev / "evaluator" / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    assert ids == ["ev-a-2", "ev-b-2"]
    assert [json.loads(line)["id"] for line in (ev / "drift" / "test.jsonl").read_text(encoding="utf-8").splitlines()] == ["dr-2"]
    assert (ev / "evaluator" / "README_test_a.md").read_text(encoding="utf-8") == "# ev_a\n"
    assert (ev / "evaluator" / "src_test_b" / "src" / "p1.txt").is_file()
    assert (ev / "drift" / "README_test.md").is_file() and (ev / "drift" / "src_test" / "build_validate.py").is_file()
    assert "evaluator/test.jsonl: 2 staged, 2 dropped (ev-a-1, ev-b-1)" in report
    assert not list(ev.rglob(".*staging"))


def test_an_already_staged_round_is_refused_and_nothing_changes(layout, capsys):
    repo, authors = layout
    stage_heldout.stage(authors, repo)
    before = {p: p.read_bytes() for p in (repo / "datasets").rglob("*") if p.is_file()}
    assert stage_heldout.main([str(authors), "--repo", str(repo)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("stage_heldout: ") and "already staged" in err and "\n" not in err
    assert {p: p.read_bytes() for p in (repo / "datasets").rglob("*") if p.is_file()} == before


def test_a_bad_author_line_names_file_and_line_and_writes_nothing(layout, capsys):
    repo, authors = layout
    path = authors / "ev_b" / "test.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    assert stage_heldout.main([str(authors), "--repo", str(repo)]) == 1
    err = capsys.readouterr().err.strip()
    assert f"{path}:3: not valid JSON" in err and "\n" not in err
    assert not (repo / "datasets" / "eval" / "evaluator" / "test.jsonl").exists()
    assert not (repo / "datasets" / "eval" / "drift" / "test.jsonl").exists()


def test_a_missing_text_field_is_named(layout, capsys):
    repo, authors = layout
    _jsonl(authors / "drift" / "test.jsonl", [{"id": "dr-1", "txt": "네"}])
    assert stage_heldout.main([str(authors), "--repo", str(repo)]) == 1
    assert "test.jsonl:1: field 'text' missing or empty" in capsys.readouterr().err
