"""Source pack validation and chunking (pure, no database)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vignette_lab.errors import InputError
from vignette_lab.kb.packs import KB_KINDS, chunk_document, load_pack, load_packs

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "kb_sources"


def _write(tmp_path: Path, **overrides) -> Path:
    data = json.loads((SOURCES / "ko_context.json").read_text(encoding="utf-8"))
    for key, value in overrides.items():
        if value is KeyError:
            data.pop(key)
        else:
            data[key] = value
    path = tmp_path / "ko_context.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_shipped_packs_are_valid_and_cover_every_kind():
    packs = load_packs(SOURCES)
    assert 6 <= len(packs) <= 12
    assert {p.kb_kind for p in packs} == set(KB_KINDS)
    assert any(p.sensitivity == 3 for p in packs), "a quarantined pack proves sensitivity 3 is never chunked"
    for p in packs:
        if p.license_class in ("C", "D"):
            assert p.external_llm_ok is False, p.source_id
    n_chunks = sum(len(chunk_document(d.title, d.body)) for p in packs if not p.quarantined for d in p.documents)
    assert 60 <= n_chunks <= 150


def test_invalid_license_class_names_file_line_and_field(tmp_path):
    path = _write(tmp_path, license_class="E")
    with pytest.raises(InputError) as err:
        load_pack(path)
    msg = str(err.value)
    assert str(path) in msg and "field 'license_class'" in msg
    assert "expected one of A, B, C, D, got 'E'" in msg
    assert err.value.line == 5 and err.value.field == "license_class"


@pytest.mark.parametrize("field,value,expect", [
    ("kb_kind", "dsm", "expected one of diagnostic"),
    ("visible_to", ["client", "teacher"], "subset of client, counselor, evaluator"),
    ("visible_to", [], "non-empty subset"),
    ("sensitivity", 5, "expected 0, 1, 2 or 3"),
    ("sensitivity", True, "expected an integer"),
    ("external_llm_ok", "yes", "expected true or false"),
    ("source_id", "Ko Context", "lower_snake_case"),
    ("citation", KeyError, "missing required field"),
    ("documents", [], "non-empty list"),
])
def test_each_declaration_field_is_checked(tmp_path, field, value, expect):
    with pytest.raises(InputError) as err:
        load_pack(_write(tmp_path, **{field: value}))
    assert err.value.field == field
    assert expect in str(err.value)


def test_license_c_may_not_go_to_external_llm(tmp_path):
    with pytest.raises(InputError, match="must be false for license_class C"):
        load_pack(_write(tmp_path, license_class="C", external_llm_ok=True))


def test_document_fields_and_json_syntax(tmp_path):
    with pytest.raises(InputError) as err:
        load_pack(_write(tmp_path, documents=[{"doc_uri": "a", "title": "t", "body": "  "}]))
    assert err.value.field == "documents[0].body"
    bad = tmp_path / "broken.json"
    bad.write_text('{\n  "source_id": "x",\n  oops\n}', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_pack(bad)
    assert err.value.line == 3 and "invalid JSON" in str(err.value)


def test_duplicate_source_id_across_packs(tmp_path):
    shutil.copy(SOURCES / "templates.json", tmp_path / "a.json")
    shutil.copy(SOURCES / "templates.json", tmp_path / "b.json")
    with pytest.raises(InputError, match="duplicate source_id 'templates'"):
        load_packs(tmp_path)


def test_hash_changes_with_body_and_with_access_declaration(tmp_path):
    base = load_pack(_write(tmp_path))
    same = load_pack(_write(tmp_path))
    assert [d.content_hash for d in base.documents] == [d.content_hash for d in same.documents]
    tightened = load_pack(_write(tmp_path, sensitivity=1))
    assert all(a.content_hash != b.content_hash for a, b in zip(base.documents, tightened.documents))


def test_chunking_is_heading_aware_with_bounded_size():
    body = "# 큰 제목\n\n## 첫 절\n\n" + "가나다라마바사. " * 120 + "\n\n## 둘째 절\n\n짧은 문단입니다.\n\n### 하위\n\n하위 문단."
    chunks = chunk_document("문서", body)
    assert [c.seq for c in chunks] == list(range(len(chunks)))
    assert all(len(c.text) <= 520 for c in chunks)
    first = [c for c in chunks if c.heading_path == "문서 > 큰 제목 > 첫 절"]
    assert len(first) >= 2 and all(len(c.text) >= 300 for c in first[:-1])
    paths = [c.heading_path for c in chunks]
    assert "문서 > 큰 제목 > 둘째 절" in paths and "문서 > 큰 제목 > 둘째 절 > 하위" in paths
    # overlap: a later chunk of the same section starts with the previous chunk's last sentence
    assert first[1].text.startswith(first[0].text.split(". ")[-1].strip()[:5])
