"""The masked persona-card layer kept on disk (`vignette_lab.session.card_mask`): the same text
as the gate gives, read back without masking, keyed by the gate's code and settings."""

from __future__ import annotations

import json

import pytest

from vignette_lab.core import pii
from vignette_lab.core.personas import load_personas
from vignette_lab.session import card_mask, layers


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(tmp_path))
    return tmp_path / "session"


def _card_texts() -> dict[str, str]:
    return {code: layers.L0_SAFETY + "\n\n" + layers.render_card(card.client_visible_dict())
            for code, card in load_personas().items()}


def test_every_persona_card_reads_back_what_the_gate_gives(cache, monkeypatch):
    texts = _card_texts()
    assert len(texts) >= 7
    first = {code: card_mask.masked_card_text(text) for code, text in texts.items()}
    assert first == {code: pii.mask_pii(text).text for code, text in texts.items()}
    assert len(list(cache.glob("card-*.json"))) == len(texts)

    def refuse(*args, **kwargs):
        raise AssertionError("masked again although the layer is on disk")

    monkeypatch.setattr(pii, "mask_pii", refuse)
    assert {code: card_mask.masked_card_text(text) for code, text in texts.items()} == first


def test_a_changed_gate_or_a_broken_file_masks_afresh(cache, monkeypatch):
    text = next(iter(_card_texts().values()))
    want = pii.mask_pii(text).text
    assert card_mask.masked_card_text(text) == want
    (path,) = cache.glob("card-*.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**doc, "masked": "stale"}), encoding="utf-8")
    assert card_mask.masked_card_text(text) == "stale"  # the same key: the stored answer is used …
    monkeypatch.setattr(card_mask, "gate_fingerprint", lambda: "another gate")
    assert card_mask.masked_card_text(text) == want  # … another gate version never reads it
    for p in cache.glob("card-*.json"):
        p.write_text("{not json", encoding="utf-8")
    assert card_mask.masked_card_text(text) == want
    stored = {p.read_text(encoding="utf-8") for p in cache.glob("card-*.json")}
    # the current key's file was rewritten whole; the other gate's stays broken until that gate asks
    assert {s for s in stored if s != "{not json"} and all(json.loads(s)["masked"] == want
                                                            for s in stored if s != "{not json")


def test_the_fingerprint_follows_the_backend_and_the_files_are_owner_only(cache):
    regex = pii.set_default_backend("regex", reason="test")
    try:
        a = card_mask.gate_fingerprint()
        pii.set_default_backend("presidio", reason="test")
        b = card_mask.gate_fingerprint()
    finally:
        pii.set_default_backend(regex[0], reason=regex[1])  # type: ignore[arg-type]
    assert a != b
    card_mask.masked_card_text("짧은 카드")
    (path,) = cache.glob("card-*.json")
    assert path.stat().st_mode & 0o077 == 0 and cache.stat().st_mode & 0o077 == 0


def test_an_unwritable_cache_folder_still_masks(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(blocker))  # a file where the folder should be
    text = "제 번호는 010-1234-5678이에요"
    assert card_mask.masked_card_text(text) == pii.mask_pii(text).text == "제 번호는 [PHONE]이에요"
    assert card_mask.masked_card_text("") == ""
