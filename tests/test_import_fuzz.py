"""Fuzz-style test of every import: a few hundred generated malformed files per backend.

Transcript import (``dataset import``), annotation import (``annotations import``) and golden
import (``import DIR``) get truncated files, byte flips, wrong types, huge fields, deep nesting,
odd encodings, NUL bytes, lone surrogates, header mistakes and unsafe manifest paths. Every
one must end with a non-zero exit code and a one-line ``Error: …`` naming the file, with no
traceback, and no ``ds`` table may change (a refusal only writes an audit entry).

The files are generated from a fixed seed, so a failure is reproducible; each generated case
is malformed by construction (the test fails if one is accepted).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from vignette_lab.cli import main
from vignette_lab.store.ds_repo import table_counts

SEED = 1301
HEADER = "session_id,seq,speaker,text"
ROWS = [("s1", 0, "counselor", "요즘 어떻게 지내요?"), ("s1", 1, "client", "그냥 그래요."),
        ("s1", 2, "counselor", "그냥 그렇다는 게 어떤 느낌인지 궁금해요."),
        ("s2", 0, "counselor", "오늘은 어떤 이야기를 하고 싶어요?")]


def _csv(rows=ROWS, header=HEADER) -> str:
    return header + "\n" + "".join(f"{a},{b},{c},\"{d}\"\n" for a, b, c, d in rows)


def _jsonl(rows=ROWS) -> str:
    return "".join(json.dumps({"session_id": a, "seq": b, "speaker": c, "text": d},
                              ensure_ascii=False) + "\n" for a, b, c, d in rows)


def _obj_line(**over) -> str:
    base = {"session_id": "s9", "seq": 0, "speaker": "counselor", "text": "안녕하세요"}
    base.update(over)
    return json.dumps(base, ensure_ascii=False)


def _flip(rng: random.Random, raw: bytes, choices: list[bytes]) -> bytes:
    """``raw`` with one byte replaced so that it is no longer valid UTF-8 (or holds a NUL)."""
    while True:
        pos = rng.randrange(len(raw))
        out = raw[:pos] + rng.choice(choices) + raw[pos + 1:]
        try:
            out.decode("utf-8")
        except UnicodeDecodeError:
            return out
        if b"\x00" in out:
            return out


def _transcript_cases(rng: random.Random) -> list[tuple[str, bytes]]:
    good_csv, good_jsonl = _csv(), _jsonl()
    cases: list[tuple[str, bytes]] = []
    enc = lambda s: s.encode("utf-8")  # noqa: E731
    # truncations: inside a quoted CSV cell (unterminated quote) and inside the last JSON line
    for _ in range(15):
        last = good_csv.rstrip("\n").rsplit("\n", 1)[1]
        start = len(good_csv.rstrip("\n")) - len(last)
        q = good_csv.index('"', start)
        cut = rng.randint(q + 1, len(good_csv.rstrip("\n")) - 2)
        cases.append(("csv", enc(good_csv[:cut])))
    for _ in range(15):
        body = good_jsonl.rstrip("\n")
        start = body.rfind("\n") + 1
        cases.append(("jsonl", enc(body[:rng.randint(start + 1, len(body) - 2)])))
    # byte flips: an invalid UTF-8 byte or a NUL at a random place
    for fmt, text in (("csv", good_csv), ("jsonl", good_jsonl)):
        raw = enc(text)
        for _ in range(12):
            cases.append((fmt, _flip(rng, raw, [b"\xff", b"\xc3", b"\x80", b"\xfe", b"\x00"])))
    # wrong types (JSONL) and wrong values (both)
    for bad in ({"seq": "abc"}, {"seq": [1]}, {"seq": {"a": 1}}, {"seq": 1.5}, {"seq": True},
                {"seq": None}, {"seq": -3}, {"seq": 2 ** 40}, {"session_id": [1]},
                {"session_id": {"x": 1}}, {"session_id": 1.5}, {"session_id": True},
                {"text": 5}, {"text": ["a"]}, {"text": None}, {"speaker": 3},
                {"speaker": "therapist"}, {"persona": 7}, {"created_at": "yesterday"},
                {"intended_technique": "hypnosis"}, {"extra_col": 1}):
        cases.append(("jsonl", enc(good_jsonl + _obj_line(**bad) + "\n")))
    for seq in ("x", "-1", "1e3", "99999999999", "", " "):
        cases.append(("csv", enc(good_csv + f"s9,{seq},counselor,안녕\n")))
    cases += [("csv", enc(good_csv + "s9,0,robot,안녕\n")),
              ("csv", enc(good_csv + "s9,0,counselor,안녕,extra\n")),
              ("csv", enc("session_id,seq,seq,speaker,text\ns,0,0,counselor,a\n")),
              ("csv", enc("session_id,seq,speaker\ns,0,counselor\n")),
              ("csv", enc("session_id,seq,speaker,text,,\ns,0,counselor,a,,\n")),
              ("csv", enc("session_id,seq,speaker,text,who\ns,0,counselor,a,b\n")),
              ("jsonl", enc("[1, 2, 3]\n")), ("jsonl", enc('"just a string"\n')),
              ("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": NaN, "speaker": "counselor", "text": "a"}\n')),
              ("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": Infinity, "speaker": "counselor", "text": "a"}\n')),
              ("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": 0, "speaker": "counselor", "text": "a\\u0000b"}\n')),
              ("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": 0, "speaker": "counselor", "text": "\\udc80"}\n')),
              ("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": 0, "speaker": "counselor", "text": "a"')),
              ("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": 1' + "0" * 5000 + ', "speaker": "counselor", "text": "a"}\n')),
              ("jsonl", enc(good_jsonl.replace('"s1", "seq": 1, "speaker": "client", "text": "그냥 그래요."',
                                                '"s1", "seq": 0, "speaker": "client", "text": "다른 말"'))),
              ("csv", b""), ("csv", b"   \n\n"), ("jsonl", b"\n\n")]
    # huge fields and lines, deep nesting
    for n in (100_001, 150_000, 300_000):
        cases.append(("csv", enc(good_csv + f's9,0,counselor,"{"가" * n}"\n')))
        cases.append(("jsonl", enc(good_jsonl + _obj_line(text="a" * n) + "\n")))
    cases.append(("jsonl", enc(good_jsonl + _obj_line(text="a" * 1_100_000) + "\n")))
    for depth in (5, 20, 200, 5000):
        cases.append(("jsonl", enc(good_jsonl + '{"session_id": "s9", "seq": 0, "speaker": "counselor",'
                                   ' "text": "a", "persona": ' + "[" * depth + "]" * depth + "}\n")))
    # odd encodings
    korean = _csv()
    for codec in ("utf-16", "utf-16-le", "utf-16-be", "cp949", "euc-kr"):
        raw = korean.encode(codec)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            cases.append(("csv", raw))
        raw = _jsonl().encode(codec)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            cases.append(("jsonl", raw))
    cases.append(("csv", korean.replace("요즘", "café").encode("latin-1", "replace")
                  .replace(b"caf?", b"caf\xe9")))
    return cases


def _annotation_cases(rng: random.Random) -> list[tuple[str, bytes]]:
    head = "session_id,seq,annotator,field,value\n"
    good = head + "s1,0,kim,appropriateness,pos\ns1,2,lee,appropriateness,warn\n"
    cases: list[tuple[str, bytes]] = []
    for line in ("s1,0,kim,appropriateness,great", "s1,0,kim,mood,pos", "s1,1,kim,appropriateness,pos",
                 "s1,99,kim,appropriateness,pos", "s1,0,,appropriateness,pos", "s1,x,kim,appropriateness,pos",
                 "s1,0,kim,empathy,9", "s1,0,kim,empathy,high", "s1,0,kim,techniques,open_question|made_up",
                 "s1,0,kim,appropriateness,pos,extra", 's1,0,kim,appropriateness,"pos',
                 "s1,0,kim,appropriateness,pos|warn", "nope,0,kim,appropriateness,pos",
                 "s1,99999999999,kim,appropriateness,pos", "s1,0,kim,,pos"):
        cases.append(("csv", (good + line + "\n").encode()))
    cases.append(("csv", (good + "s1,0,kim,appropriateness,warn\n").encode()))  # duplicate
    cases.append(("csv", (head.replace("value", "label") + "s1,0,kim,appropriateness,pos\n").encode()))
    cases.append(("csv", (head.replace("\n", ",annotator\n") + "s1,0,kim,appropriateness,pos,x\n").encode()))
    cases.append(("csv", (good.rstrip("\n") + ",\n").encode()))
    raw = good.encode()
    for _ in range(10):
        cases.append(("csv", _flip(rng, raw, [b"\xff", b"\x00", b"\xc3"])))
    for over in ({"seq": "abc"}, {"seq": [0]}, {"annotator": ["k"]}, {"value": {"a": 1}},
                 {"value": 5}, {"annotator_kind": "robot"}, {"created_at": "noon"},
                 {"session_id": 1.5}, {"field": 3}, {"rationale": 4}):
        rec = {"session_id": "s1", "seq": 0, "annotator": "kim", "field": "appropriateness",
               "value": "pos"}
        rec.update(over)
        cases.append(("jsonl", (json.dumps(rec) + "\n").encode()))
    cases.append(("jsonl", b'{"session_id": "s1", "seq": 0, "annotator": "k", "field": "appropriateness", "value": "\\ud800"}\n'))
    cases.append(("jsonl", b'{"session_id": "s1", "seq": 0, "annotator": "k", "field": "appropriateness", "value": "pos"'))
    cases.append(("csv", ("\ufeff" + good).encode("utf-16")))
    cases.append(("csv", (head + 's1,0,kim,appropriateness,"' + "a" * 120_000 + '"\n').encode()))
    cases.append(("csv", b""))
    return cases


def _golden_dir(tmp: Path, name: str, *, items: str | None = None, manifest: dict | None = None,
                mutate=None) -> Path:
    d = tmp / name
    d.mkdir()
    rec = {"schema": "vignette-lab/golden/v1", "item_id": f"fuzz-{name}", "session_id": "s",
           "seq": 0, "persona_code": "P1", "learner_id": None, "context": [],
           "counselor_text": "안녕하세요", "client_reply": None, "intended_technique": None,
           "labels": {"techniques": ["open_question"], "client_state": [], "appropriateness": "pos",
                      "intent_deviation": None, "scores": {"empathy": 3.0}, "rationale": None},
           "source": "agreed", "source_annotations": ["a1"]}
    text = items if items is not None else json.dumps(rec, ensure_ascii=False) + "\n"
    (d / "items.jsonl").write_text(text, encoding="utf-8")
    m = manifest or {"schema": "vignette-lab/golden-manifest/v1", "golden_id": "g", "version": 1,
                     "dataset": {"name": "fuzz"}, "taxonomy_version": "x",
                     "counts": {"items": 1, "agreed": 1, "adjudicated": 0},
                     "files": {"items.jsonl": {"sha256": hashlib.sha256(text.encode()).hexdigest(),
                                               "bytes": len(text.encode()), "lines": 1}}}
    if mutate is not None:
        mutate(m, d)
    if not (d / "manifest.json").exists():
        (d / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    return d


def _golden_cases(tmp: Path) -> list[Path]:
    def rec_with(**labels_over):
        base = json.loads(json.dumps({"schema": "vignette-lab/golden/v1", "item_id": "x",
                                      "session_id": "s", "seq": 0, "persona_code": None,
                                      "learner_id": None, "context": [], "counselor_text": "a",
                                      "client_reply": None, "intended_technique": None,
                                      "labels": {"techniques": [], "client_state": [],
                                                 "appropriateness": None, "intent_deviation": None,
                                                 "scores": {}, "rationale": None},
                                      "source": "agreed", "source_annotations": []}))
        for k, v in labels_over.items():
            if k.startswith("labels."):
                base["labels"][k[7:]] = v
            else:
                base[k] = v
        return json.dumps(base) + "\n"

    out = []
    muts = {
        "traversal": lambda m, d: m["files"].update({"../../../../etc/passwd": {"sha256": "0" * 64}}),
        "absolute": lambda m, d: m["files"].update({"/etc/passwd": {"sha256": "0" * 64}}),
        "files_str": lambda m, d: m["files"].update({"items.jsonl": "abc"}),
        "files_list": lambda m, d: m.update(files=["items.jsonl"]),
        "version_str": lambda m, d: m.update(version="v1"),
        "version_zero": lambda m, d: m.update(version=0),
        "counts_wrong": lambda m, d: m["counts"].update(items=5),
        "counts_type": lambda m, d: m.update(counts="1"),
        "counts_missing": lambda m, d: m.pop("counts"),
        "schema": lambda m, d: m.update(schema="v0"),
        "sha": lambda m, d: m["files"]["items.jsonl"].update(sha256="0" * 64),
        "sha_type": lambda m, d: m["files"]["items.jsonl"].update(sha256=5),
        "missing_file": lambda m, d: m["files"].update({"other.jsonl": {"sha256": "0" * 64}}),
        "manifest_dir": lambda m, d: (d / "manifest.json").mkdir(),
        "manifest_bad_json": lambda m, d: (d / "manifest.json").write_text("{", encoding="utf-8"),
        "manifest_latin1": lambda m, d: (d / "manifest.json").write_bytes(b'{"a": "\xe9"}'),
        "manifest_list": lambda m, d: (d / "manifest.json").write_text("[]", encoding="utf-8"),
        "dataset_type": lambda m, d: m.update(dataset=5),
        "symlink_out": lambda m, d: ((d / "link.jsonl").symlink_to("/etc/hostname"),
                                     m["files"].update({"link.jsonl": {"sha256": "0" * 64}})),
    }
    for name, f in muts.items():
        out.append(_golden_dir(tmp, name, mutate=f))
    for name, items in {"techniques_int": rec_with(**{"labels.techniques": 5}),
                        "scores_str": rec_with(**{"labels.scores": "high"}),
                        "score_range": rec_with(**{"labels.scores": {"empathy": 9}}),
                        "seq_str": rec_with(seq="0"), "seq_huge": rec_with(seq=2 ** 40),
                        "context_bad": rec_with(context=[{"seq": 0, "speaker": "x", "text": 1}]),
                        "labels_list": rec_with(labels=[]), "source_bad": rec_with(source="guess"),
                        "state_unknown": rec_with(**{"labels.client_state": ["sleepy"]}),
                        "srcann_int": rec_with(source_annotations=[1]),
                        "truncated": rec_with()[:40], "nul": rec_with(counselor_text="a\u0000b"),
                        "surrogate": rec_with()[:-2].replace('"a"', '"\\ud800"') + "}\n",
                        "deep": rec_with(**{"labels.intent_deviation": json.loads("[" * 30 + "]" * 30)}),
                        "dup_ids": rec_with() + rec_with(),
                        "not_object": "[1]\n", "empty": ""}.items():
        n = max(1, items.count("\n"))
        out.append(_golden_dir(tmp, name, items=items, mutate=lambda m, d, n=n: m["counts"].update(items=n, agreed=n)))
    return out


def _check(res, path: Path) -> None:
    text = res.output.strip()
    assert res.exit_code != 0, f"{path.name} was accepted: {text[:200]}"
    assert "Traceback" not in text, text[-600:]
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = text.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), text[:400]
    assert path.name in lines[0], lines[0][:300]


def test_malformed_files_fail_cleanly_and_write_nothing(db, tmp_path):
    rng = random.Random(SEED)
    url = db.url
    runner = CliRunner()
    good = tmp_path / "good.csv"
    good.write_text(_csv(), encoding="utf-8")
    res = runner.invoke(main, ["--db", url, "dataset", "import", str(good), "--json"])
    assert res.exit_code == 0, res.output
    did = json.loads(res.stdout)["dataset_id"]
    before = table_counts(db)
    started = time.perf_counter()
    n = 0
    for i, (fmt, raw) in enumerate(_transcript_cases(rng)):
        p = tmp_path / f"t{i:03d}.{fmt}"
        p.write_bytes(raw)
        _check(runner.invoke(main, ["--db", url, "dataset", "import", str(p)]), p)
        n += 1
    for i, (fmt, raw) in enumerate(_annotation_cases(rng)):
        p = tmp_path / f"a{i:03d}.{fmt}"
        p.write_bytes(raw)
        _check(runner.invoke(main, ["--db", url, "annotations", "import", str(p), "--dataset", did]), p)
        n += 1
    for d in _golden_cases(tmp_path / "golden" if (tmp_path / "golden").mkdir() is None else tmp_path):
        res = runner.invoke(main, ["--db", url, "import", str(d)])
        text = res.output.strip()
        assert res.exit_code != 0, f"{d.name} was accepted: {text[:200]}"
        assert "Traceback" not in text and len(text.splitlines()) == 1, text[:400]
        assert d.name in text, text[:300]
        n += 1
    assert n >= 200
    assert table_counts(db) == before
    assert time.perf_counter() - started < 60
