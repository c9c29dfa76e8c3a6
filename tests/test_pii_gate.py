"""The PII gate itself: role names first, JSON values, idempotence, import cost, downstream use."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from vignette_lab.core.pii import gate_json, gate_text, gate_texts, mask_pii
from vignette_lab.engines.scripted_client import _pick

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


def test_repeat_avoidance_sees_lines_that_masking_changes():
    line = "힘들면 민지한테 010-1234-5678로 연락하래요"
    used = mask_pii(line).text  # the history holds only masked text
    assert _pick([line, "그냥요."], used, random.Random(0)) == "그냥요."
    assert _pick([line], used, random.Random(0)) is None


def test_masking_never_imports_transformers_or_torch():
    code = ("import sys; from vignette_lab.core.guardrails import mask_pii; "
            "r = mask_pii('저는 김민지고요 010-1234-5678', backend='presidio'); "
            "assert r.text == '저는 [NAME]고요 [PHONE]', r.text; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules; "
            "assert all(sys.modules.get(n, 1) is not None for n in ('torch', 'transformers'))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
