"""Guardrails: PII never survives masking (both backends), crisis vs role-play, means blocking."""

import pytest

from vignette_lab.core import guardrails as g
from vignette_lab.core.guardrails import (
    SAFE_FALLBACK_REPLY,
    classify_crisis,
    clamp_ideation,
    detect_ccd_meta_disclosure,
    mask_pii,
    mask_role_identities,
    pii_backend,
    sanitize_client_reply,
)

# (entity, sentence containing it, the secret that must not survive)
PII_CASES = [
    ("rrn", "제 주민번호는 900101-1234567이에요.", "900101-1234567"),
    ("rrn_nodash", "주민번호 9001012345678 맞아요", "9001012345678"),
    ("frn", "외국인등록번호 850505-5123456", "850505-5123456"),
    ("mobile", "연락처는 010-1234-5678이에요", "1234-5678"),
    ("mobile_compact", "번호 01098765432로 문자 주세요", "01098765432"),
    ("mobile_intl", "+82 10 2345 6789로 연락 주세요", "2345 6789"),
    ("landline", "집 전화는 02-123-4567이에요", "123-4567"),
    ("landline_region", "031-9876-5432로 걸어 주세요", "9876-5432"),
    ("email", "메일은 hong.gildong@example.co.kr 입니다", "hong.gildong@example.co.kr"),
    ("card", "카드번호 4111-1111-1111-1111", "4111-1111-1111-1111"),
    ("licence", "면허번호 11-12-123456-12", "123456"),
    ("passport", "여권번호 M12345678 이에요", "M12345678"),
    ("account", "계좌는 110-123-456789로 보내요", "456789"),
    ("long_digits", "학번이 202312345678 이에요", "202312345678"),
    ("address", "서울특별시 강남구 테헤란로 123에 살아요", "테헤란로 123"),
    ("address_apt", "푸른마을아파트 101동 1203호예요", "1203호"),
    ("school", "저는 한빛고등학교 2학년이에요", "한빛고등학교"),
    ("url", "제 블로그 https://blog.example.com/hong 보세요", "blog.example.com/hong"),
    ("handle", "인스타 @hong_gildong 팔로우해요", "hong_gildong"),
]


@pytest.fixture(params=["presidio", "regex"])
def backend(request):
    if request.param == "presidio" and pii_backend()["active"] != "presidio":
        pytest.fail("Presidio should load in this environment: " + pii_backend()["reason"])
    return request.param


@pytest.mark.parametrize("name,text,secret", PII_CASES, ids=[c[0] for c in PII_CASES])
def test_pii_never_survives_masking(backend, name, text, secret):
    result = mask_pii(text, backend=backend)
    assert secret not in result.text
    assert result.entities, f"no entity found in {text!r}"
    assert result.backend == backend
    assert any(ph in result.text for ph in set(g.PLACEHOLDERS.values()))


def test_masking_keeps_ordinary_korean_text_intact(backend):
    text = "요즘 시험 때문에 잠을 잘 못 자요. 3일째 그래요."
    assert mask_pii(text, backend=backend).text == text


def test_masking_is_idempotent_and_handles_blank(backend):
    once = mask_pii("010-1111-2222, a@b.co", backend=backend).text
    assert mask_pii(once, backend=backend).text == once
    assert mask_pii("   ", backend=backend).text == "   "
    assert mask_pii(None).text == ""


def test_mask_result_str_is_the_masked_text():
    assert str(mask_pii("010-1234-5678")) == "[PHONE]"


def test_bad_backend_is_refused():
    with pytest.raises(ValueError, match="'backend' parameter of mask_pii"):
        mask_pii("x", backend="spacy")


def test_pii_backend_reports_presidio_honestly():
    info = pii_backend()
    assert info["active"] in {"presidio", "regex"}
    assert info["reason"]


def test_role_identities_become_role_tokens():
    text = "김서연이 박상담 선생님한테 민지 얘기를 했어요. 서연이는 울었어요."
    out = mask_role_identities(text, counselor_names=["박상담"], client_names=["김서연", "서연"], other_names=["민지"])
    assert out == "[CLIENT]이 [COUNSELOR] 선생님한테 [NAME] 얘기를 했어요. [CLIENT]이는 울었어요."


@pytest.mark.parametrize("text", [
    "저 사실 요즘 진짜 죽고 싶어요",
    "연습 말고 제가 요즘 자살 생각을 자주 해요.",
    "농담 아니고 저 오늘 밤에 사라지고 싶어요.",
])
def test_trainee_first_person_crisis_is_escalated(text):
    result = classify_crisis(text)
    assert result.kind == "learner_real"
    assert result.escalate


@pytest.mark.parametrize("text", [
    "혹시 죽고 싶다는 생각이 든 적 있어요?",
    "자해를 해 본 적이 있나요?",
    "그런 생각이 들 만큼 힘들었군요. 사라지고 싶다는 마음이 드는 거네요.",
])
def test_counselor_assessing_the_client_is_not_escalated(text):
    result = classify_crisis(text)
    assert result.kind == "persona_play"
    assert not result.escalate


def test_persona_playing_ideation_is_never_escalated():
    result = classify_crisis("저 요즘 진짜 죽고 싶어요", speaker="persona")
    assert result.kind == "persona_play" and not result.escalate


def test_no_crisis_terms_is_none():
    assert classify_crisis("오늘 날씨가 좋네요").kind == "none"


@pytest.mark.parametrize("text", [
    "약을 한꺼번에 많이 먹으면 될까 생각했어요",
    "수면제를 모아서 먹을까 봐요",
    "옥상에서 뛰어내리는 상상을 해요",
    "번개탄을 피우면 된대요",
    "손목을 그었어요",
    "목을 매는 방법을 찾아봤어요",
    "고통 없이 죽는 방법이 궁금해요",
])
def test_means_content_is_blocked_and_replaced(text):
    result = sanitize_client_reply(text, 2)
    assert result.needs_regeneration
    assert result.text == SAFE_FALLBACK_REPLY
    assert result.matched


@pytest.mark.parametrize("text", [
    "다 사라졌으면 좋겠다는 생각은 해요",
    "약속 장소에서 밥을 많이 먹었어요",
    "요즘 잠을 못 자요",
])
def test_passive_ideation_and_ordinary_text_pass(text):
    result = sanitize_client_reply(text, 2)
    assert not result.needs_regeneration
    assert result.text == text


def test_ideation_cap_enforced():
    result = sanitize_client_reply("괜찮아요", 5)
    assert result.ideation_cap_violation and result.ideation_stage == 3
    assert clamp_ideation(0) == 1 and clamp_ideation(7) == 3 and clamp_ideation(2) == 2


@pytest.mark.parametrize("text", ["제 핵심신념은 저는 쓸모없다는 거예요", "제 자동사고가 그래요", "제 진단명이 뭐예요?",
                                  "지금 개방도가 올라갔어요", "제 설정상 그래요"])
def test_ccd_meta_disclosure_probe_is_caught(text):
    assert detect_ccd_meta_disclosure(text)


def test_natural_speech_is_not_meta():
    assert not detect_ccd_meta_disclosure("저는 뭘 해도 안 될 것 같아요. 다들 저를 귀찮아하는 것 같고요.")
