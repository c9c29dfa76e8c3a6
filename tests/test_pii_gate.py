"""The PII gate itself: role names first, JSON values, idempotence, import cost, downstream use."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from vignette_lab.core.pii import gate_json, gate_text, gate_texts, mask_pii

ROOT = Path(__file__).resolve().parents[1]


def test_role_names_become_role_tokens_before_pii_masking():
    text = "김서연이 박상담 선생님한테 010-1234-5678로 연락했어요. 이지우도 왔어요."
    out = gate_text(text, counselor_names=["박상담"], client_names=["김서연", "서연"])
    assert out == "[CLIENT]이 [COUNSELOR] 선생님한테 [PHONE]로 연락했어요. [NAME]도 왔어요."


def test_gate_is_idempotent_and_keeps_none():
    once = gate_text("저는 김민지고요 900101-1234567, 힘들면 1577-0199")
    assert once == "저는 [NAME]고요 [RRN], 힘들면 1577-0199"
    assert gate_text(once) == once
    assert gate_text(None) is None


def test_gate_json_masks_values_not_keys():
    value = {"note": "카드 4111-1111-1111-1111", "items": ["민지야 미안해", 3, None], "010-1234-5678": True}
    assert gate_json(value) == {"note": "카드 [CARD]", "items": ["[NAME]야 미안해", 3, None], "010-1234-5678": True}


def test_gate_texts_counts_what_it_changed():
    out, changed = gate_texts(["오늘은 괜찮아요", "메일 a.b@example.com", None])
    assert out == ["오늘은 괜찮아요", "메일 [EMAIL]", None] and changed == 1


def test_uuid_like_ids_and_timestamps_inside_json_are_not_masked():
    rng = random.Random(1)
    ids = ["12345678-1234-4234-1234-123456789012", "a1b2c3d4-1234-5678-9012-abcdefabcdef"]
    ids += [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(2000)]
    stamps = [(datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=rng.randrange(10**8))).isoformat()
              for _ in range(500)]
    assert gate_json({"ids": ids, "at": stamps}) == {"ids": ids, "at": stamps}


def test_masking_never_imports_transformers_or_torch():
    code = ("import sys; from vignette_lab.core.guardrails import mask_pii; "
            "r = mask_pii('저는 김민지고요 010-1234-5678', backend='presidio'); "
            "assert r.text == '저는 [NAME]고요 [PHONE]', r.text; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules; "
            "assert all(sys.modules.get(n, 1) is not None for n in ('torch', 'transformers'))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]


def _run(code: str, **env_extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "VIGNETTE_PII_BACKEND"}
    env.update({"PYTHONPATH": str(ROOT), "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", **env_extra})
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)


def test_one_shot_cli_commands_mask_with_the_regex_backend_and_never_import_presidio():
    code = ("import sys, json; from click.testing import CliRunner; from vignette_lab.cli import main; "
            "from vignette_lab.core import pii; seen = []; "
            "import click\n"
            "@main.command('probe-pii')\n"
            "def probe():\n"
            "    r = pii.mask_pii('저는 김민지고요 010-1234-5678'); seen.append((r.backend, r.text, pii.chosen_backend()[1]))\n"
            "res = CliRunner().invoke(main, ['--db', ':memory:', 'probe-pii'], catch_exceptions=False)\n"
            "assert res.exit_code == 0, res.output\n"
            "print(json.dumps({'seen': seen, 'presidio': 'presidio_analyzer' in sys.modules, "
            "'after': pii.chosen_backend()[0]}, ensure_ascii=False))")
    res = _run(code)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    backend, text, why = out["seen"][0]
    assert (backend, text) == ("regex", "저는 [NAME]고요 [PHONE]") and "one-shot CLI command (probe-pii)" in why
    assert out["presidio"] is False
    assert out["after"] == "presidio"  # the process default comes back when the command ends


def test_serve_keeps_presidio_and_the_environment_overrides_everywhere():
    from vignette_lab.cli import LONG_LIVED_COMMANDS

    assert "serve" in LONG_LIVED_COMMANDS
    code = ("from vignette_lab.core import pii; print(pii.chosen_backend()[0], pii.mask_pii('010-1234-5678').backend)")
    assert _run(code).stdout.split() == ["presidio", "presidio"]  # library / notebook / app server
    assert _run(code, VIGNETTE_PII_BACKEND="regex").stdout.split() == ["regex", "regex"]
    cli = ("from click.testing import CliRunner; from vignette_lab.cli import main; from vignette_lab.core import pii\n"
           "@main.command('probe-pii')\n"
           "def probe():\n"
           "    print(pii.mask_pii('010-1234-5678').backend)\n"
           "print(CliRunner().invoke(main, ['--db', ':memory:', 'probe-pii']).output.strip())")
    assert _run(cli, VIGNETTE_PII_BACKEND="presidio").stdout.split() == ["presidio"]


def test_doctor_says_which_pii_backend_and_why():
    from vignette_lab.core.pii import pii_backend, set_default_backend

    previous = set_default_backend("regex", reason="one-shot CLI command (doctor)")
    try:
        info = pii_backend()
    finally:
        set_default_backend(previous[0], reason=previous[1])  # type: ignore[arg-type]
    assert info["active"] == "regex" and "one-shot CLI command (doctor)" in info["reason"]
    with pytest.raises(ValueError):
        set_default_backend("spacy", reason="x")  # type: ignore[arg-type]
