"""L0–L6 prompt assembly and information asymmetry (leak test T2, seed 004 §4.4)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from vignette_lab.core.personas import load_personas
from vignette_lab.core.state import init_state
from vignette_lab.session import layers
from vignette_lab.session.layers import RecallContext, build_client_messages

CARDS = load_personas()
FORBIDDEN = ("ccd", "dsm5", "evaluation", "learner_profile", "load_ccd")


def _ccd_strings(card) -> list[str]:
    """Every string leaf of the card's CCD and DSM sections that is long enough to be specific."""
    out: list[str] = []

    def walk(v):
        if isinstance(v, str):
            if len(v) >= 8:
                out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
    data = card.to_dict()
    walk(data.get("ccd"))
    walk(data.get("dsm5_dimensional"))
    visible = json.dumps(card.client_visible_dict(), ensure_ascii=False)
    # a phrase that the card also states in a client-visible field is not a CCD leak
    return [s for s in out if s not in visible]


def test_layers_source_has_no_path_to_hidden_data():
    tree = ast.parse(Path(layers.__file__).read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.name for a in node.names)
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    for name in names:
        low = name.lower()
        for bad in FORBIDDEN:
            assert bad not in low, f"layers.py references {bad!r} via {name!r}"


@pytest.mark.parametrize("code", ["P1", "P2", "P3", "P4", "P5", "P6", "P7"])
def test_no_ccd_string_reaches_client_messages(code):
    card = CARDS[code]
    state = init_state(card)
    recall = RecallContext(case_digest="지난번에 학교 이야기를 했다.", last_summary="시험 걱정을 말했다.",
                           open_threads=("엄마 이야기",), episodic=("엄마가 기대가 커요.",), previous_session_no=1)
    msgs = build_client_messages(card.client_visible_dict(), state, "요즘 어떻게 지내요?", recall=recall,
                                 kb_cues=["말끝을 흐린다"], pinned=["다음 상담에도 오기로 약속했다"],
                                 history=[("counselor", "안녕하세요"), ("client", "네…")])
    blob = "\n".join(m.content for m in msgs)
    leaks = [s for s in _ccd_strings(card) if s in blob]
    assert leaks == []
    assert _ccd_strings(card), "the card should have CCD text to test against"


def test_layer_order_roles_and_cache_hints():
    card = CARDS["P4"]
    history = [("counselor", f"질문 {i}") if i % 2 == 0 else ("client", f"대답 {i}") for i in range(12)]
    msgs = build_client_messages(card.client_visible_dict(), init_state(card), "이번 발화",
                                 recall=RecallContext(case_digest="큰 그림", previous_session_no=2),
                                 kb_cues=["단서"], pinned=["사실 하나"], history=history, k_history=8)
    layers_seen = [m.layer for m in msgs]
    assert layers_seen[:4] == ["L0+L1", "L2", "L3", "L4"]
    assert layers_seen[4:-1] == ["L6"] * 8 and layers_seen[-1] == "L5"
    assert [m.cache for m in msgs[:3]] == [True, True, False]
    assert msgs[-1].role == "user" and msgs[-1].content == "이번 발화"
    l6 = msgs[4:-1]
    assert [m.content for m in l6] == [t for _, t in history[-8:]]
    assert all((m.role == "user") == (sp == "counselor") for m, (sp, _) in zip(l6, history[-8:]))
    assert "자기 기억" in msgs[3].content


def test_state_numbers_become_words_not_digits():
    card = CARDS["P1"]
    state = init_state(card)
    l3 = next(m for m in build_client_messages(card.client_visible_dict(), state, "안녕") if m.layer == "L3")
    assert f"{state.effective_openness:.2f}" not in l3.content
    assert not any(ch.isdigit() for ch in l3.content)
    assert "방법이나 수단은 절대 말하지 않습니다" in l3.content  # P1 has ideation stage 2


def test_injected_text_is_masked_again():
    card = CARDS["P2"]
    msgs = build_client_messages(card.client_visible_dict(), init_state(card), "연락처 010-2222-3333 알려줘",
                                 recall=RecallContext(last_summary="메일은 a.b@example.com 이었다", previous_session_no=1),
                                 history=[("client", "제 번호 010-9999-8888")])
    blob = "\n".join(m.content for m in msgs)
    assert "010-2222-3333" not in blob and "010-9999-8888" not in blob and "a.b@example.com" not in blob


def test_bad_input_is_refused():
    card = CARDS["P4"]
    with pytest.raises(ValueError, match="learner_text_masked"):
        build_client_messages(card.client_visible_dict(), init_state(card), "   ")
    with pytest.raises(ValueError, match="speaker"):
        build_client_messages(card.client_visible_dict(), init_state(card), "hi", history=[("coach", "x")])
