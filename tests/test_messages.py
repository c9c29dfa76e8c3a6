"""Seed 000 message model: role is canonical, presentation derives from it, blank input is inert."""

import dataclasses

import pytest

from vignette_lab.core.messages import (
    Conversation,
    Message,
    align_for,
    css_class_for,
    label_for,
    normalize_input,
    role_class_for,
)


class CountingResponder:
    def __init__(self, replies):
        self.replies = list(replies)
        self.calls = []

    def __call__(self, text):
        self.calls.append(text)
        return self.replies[len(self.calls) - 1]


def test_valid_input_is_trimmed_and_recorded_as_user():
    respond = CountingResponder(["그랬군요."])
    conv = Conversation().submit("  \t요즘 잠을 못 자요 \n", respond)
    assert conv[0] == Message("user", "요즘 잠을 못 자요")
    assert conv[0].role == "user"
    assert respond.calls == ["요즘 잠을 못 자요"]


def test_reply_of_same_submit_is_recorded_as_agent():
    conv = Conversation().submit("안녕하세요", CountingResponder(["네, 안녕하세요."]))
    assert [(m.role, m.body) for m in conv] == [("user", "안녕하세요"), ("agent", "네, 안녕하세요.")]


def test_several_submits_alternate_user_then_agent():
    respond = CountingResponder(["a1", "a2", "a3"])
    conv = Conversation()
    for text in ["하나", " 둘 ", "셋"]:
        conv = conv.submit(text, respond)
    assert [m.role for m in conv] == ["user", "agent"] * 3
    assert [m.body for m in conv] == ["하나", "a1", "둘", "a2", "셋", "a3"]


def test_submit_returns_new_object_and_keeps_old_one():
    first = Conversation().submit("하나", CountingResponder(["a"]))
    second = first.submit("둘", CountingResponder(["b"]))
    assert len(first) == 2 and len(second) == 4
    assert second.messages[:2] == first.messages


@pytest.mark.parametrize("blank", ["", " ", "\t\n  ", "\u3000", None])
def test_blank_input_changes_nothing_and_never_calls_respond(blank):
    respond = CountingResponder([])
    start = Conversation().submit("처음", CountingResponder(["응답"]))
    after = start.submit(blank, respond)
    assert after is start
    assert len(after) == 2
    assert respond.calls == []


def test_normalize_input():
    assert normalize_input("  말 ") == "말"
    assert normalize_input("   ") is None
    assert normalize_input("") is None
    with pytest.raises(TypeError):
        normalize_input(3)


@pytest.mark.parametrize(
    ("role", "label", "session_label", "css", "role_css", "align"),
    [
        ("user", "사용자", "상담자", "user-message", "user-role", "right"),
        ("agent", "에이전트", "내담자", "response-message", "agent-role", "left"),
    ],
)
def test_presentation_is_derived_from_role(role, label, session_label, css, role_css, align):
    message = Message(role, "본문")
    assert message.label == label == label_for(role)
    assert message.label_in("session") == session_label == label_for(role, context="session")
    assert message.css_class == css == css_class_for(role)
    assert message.role_class == role_css == role_class_for(role)
    assert message.align == align == align_for(role)
    # presentation is not stored on the value
    assert [f.name for f in dataclasses.fields(Message)] == ["role", "body"]


@pytest.mark.parametrize("bad", ["assistant", "USER", "", None, "counselor"])
def test_invalid_role_is_rejected_naming_the_value(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(").replace(")", r"\)")):
        Message(bad, "본문")


def test_unknown_label_context_is_rejected():
    with pytest.raises(ValueError, match="'teacher'"):
        label_for("user", context="teacher")


def test_message_is_immutable():
    message = Message("user", "본문")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.role = "agent"


def test_conversation_rejects_out_of_order_messages():
    with pytest.raises(ValueError, match=r"messages\[0\]"):
        Conversation((Message("agent", "먼저 말함"),))
