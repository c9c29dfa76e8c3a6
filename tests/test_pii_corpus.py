"""PII masking measured on the dev corpora, the persona cards and the counselor bank.

* every listed value of the dev files (``dev.jsonl``, ``dev_r1.jsonl`` = the round-1 held-out split,
  ``dev_r2.jsonl``, ``dev_r3.jsonl`` = the round-2 held-out split, ``dev_r4.jsonl`` = the round-3
  held-out split, ``dev_r5.jsonl`` = the round-4 held-out split, ``dev_r6.jsonl`` = the round-5
  held-out split (authors A ``pii-t5a`` and B ``pii-t5b``), ``dev_r7.jsonl`` = the round-6 held-out
  split (authors A ``pii-t6a`` and B ``pii-t6b``), ``dev_r8.jsonl`` … ``dev_r11.jsonl`` = the
  round-7 … round-10 held-out splits (authors ``pii-t7a/b`` … ``pii-t10a/b``), each read and tuned on after its score
  was recorded) is masked (both backends), apart from the ``KNOWN_DEV_MISSES`` listed below;
* every ``clean_dev*`` sentence, persona-card line and counselor-bank line comes back unchanged
  (the cards and the bank are training material, not evidence);
* when the independent ``test`` split exists (the lead adds it), the issue's targets hold on it;
* dev and test share no normalised text.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from vignette_lab.core.eval_splits import dev_splits
from vignette_lab.core.pii import find_entities, mask_pii, pii_backend

ROOT = Path(__file__).resolve().parents[1]
PII_DIR = ROOT / "datasets" / "eval" / "pii"
CATEGORIES = ("person_name", "rrn", "phone", "email", "account", "card", "foreigner_id", "passport",
              "car_plate", "school_class", "sns_id", "birthday", "address")
MUST_BE_PERFECT = ("rrn", "phone", "email", "account", "card")
#: every dev file (tuned on), found on disk: each round's held-out split became dev material
#: (dev_r1, dev_r3 … the newest dev_rN) after its scores were read; each PII file has its clean pair
DEV_FILES = tuple(f"{name}.jsonl" for name in dev_splits(PII_DIR))
CLEAN_DEV_FILES = tuple(f"clean_{name}.jsonl" for name in dev_splits(PII_DIR, prefix="clean_"))


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).lower().split()).rstrip(".?!…~")


def _strings(value, skip=("code", "status", "version", "register", "sex", "difficulty", "theory_target")):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from _strings(v, skip)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, skip)


def material_lines() -> list[str]:
    """Every persona-card string and counselor-bank line (training material, not evidence)."""
    lines: list[str] = []
    for p in sorted((ROOT / "datasets" / "personas").glob("*.json")):
        card = json.loads(p.read_text(encoding="utf-8"))
        lines.extend(s for s in _strings(card) if s.strip() and s != card.get("display_name"))
    bank = json.loads((ROOT / "datasets" / "counselor_banks.json").read_text(encoding="utf-8"))
    lines.extend(s for s in _strings(bank.get("utterances", {})) if s.strip())
    return lines


#: 가온이는 착한 애예요 (dev_r4, a bare topic particle after a word morphology knows as a common noun) was missed
#: from round 4 to round 11; since the twelfth session it is masked by the double-particle class (이 and then a
#: particle after a consonant: a name's 이, tests/test_pii_round12.py) and left this list.
#: Round 7 adds two dev_r7 names no general class reaches yet: a vocative of a word morphology knows
#: as a common noun with no other cue (은혜야 밥 먹었어?) and a name that is a known common noun glued
#: to 쌤 (재석쌤한테만: 수학쌤, 담임쌤 are the same shape).
#: Eighth session: dev_r8 and dev_r9 (the round-7 and round-8 held-out splits) joined the dev files and
#: the name model's training; the misses below are the classes no general recogniser reaches yet
#: (dev figures: dev_r8 340/351, dev_r9 346/383):
#: * a bare name that morphology reads as a common word, adverb or verb, with no cue the rules know
#:   and below the learned model's leave-one-split-out threshold (사라가 …, 한결 걔는, 한결아, 도담아,
#:   경호가, 재현이 또, 현서요, 올리비아가 전학 온); 재원이 is lost to the veto that keeps
#:   "보람이 없어요" (a common noun with a bare subject 이 and no owner before it) unmasked;
_KNOWN_R8_R9_BARE = {"pii-t7a-0029", "pii-t7a-0035", "pii-t7b-0039", "pii-t8a-0003", "pii-t8a-0034", "pii-t8a-0043",
                     "pii-t8b-0002", "pii-t8b-0003", "pii-t8b-0034", "pii-t8b-0040", "pii-t8b-0049"}
#: * names spelled letter by letter, split by spaces or dots, or as initials (김. 민. 서, 유.나.연,
#:   ㅈ ㅣ ㅎ ㅠ, 박 지 성, 유 진, ㄱㅁㅈ, ㅎㅈ; 문길수 … 문 길 수 is masked since the twelfth session: a found
#:   name spelled syllable by syllable), a name typed wrong before its correction
#:   (김민쥰 아 오타 …), the second of two alternatives (…이었나 류성빈이었나), bare names listed with
#:   spaces (도현 민재 승우, 나은 이랑 가윤 이랑), the second of two recipients (… 연서한테만), a
#:   Latin name in capitals with a detached particle (DANIEL 이), a Hangul spelling after a Latin
#:   one (어용아로 적는), nicknames (뚱이, 꼬북이, 마귀);
_KNOWN_R8_R9_SHAPE = {"pii-t7a-0032", "pii-t7a-0044", "pii-t7b-0040", "pii-t7b-0042",
                      "pii-t8a-0020", "pii-t8a-0021", "pii-t8a-0029", "pii-t8a-0036", "pii-t8a-0037", "pii-t8a-0048",
                      "pii-t8a-0058", "pii-t8b-0010", "pii-t8b-0022", "pii-t8b-0037", "pii-t8b-0039", "pii-t8b-0053"}
#: * identifiers given in pieces or partly starred: an RRN, phone or plate split across words
#:   (941023-... 1047382, 앞은 010-44 나머지 19-8833, 앞 6자리 … 뒤 첫자리 3, 앞은 45더 뒤는 3**1),
#:   Korean-digit fragments before a correction (공일공오이사), a passport letter apart from its digits
#:   or starred (M 다음에 …, M1234****), a starred plate (78라 ****), handles in jamo or split by
#:   words (ㅈㅇㅈ_0909, ㅇㅇ_tuul, hajin__ … 07, 스냅 hyun.snap22), a birthday with its month
#:   and day apart (7월이고 날짜는 23일), a school given after a correction or
#:   a time word (아니 대신중, 지금 신곡중), an address in pieces (은행나무로 이고 번호가 17, 한양빌
#:   3층 after 이고). (음력 8월 보름 and 청학동 산 45-2 are masked since the twelfth session.)
_KNOWN_R8_R9_PIECES = {"pii-t7a-0057", "pii-t7b-0143", "pii-t8a-0071", "pii-t8a-0078", "pii-t8a-0134", "pii-t8a-0136",
                       "pii-t8a-0143", "pii-t8a-0169", "pii-t8a-0191", "pii-t8b-0072", "pii-t8b-0146", "pii-t8b-0157",
                       "pii-t8b-0160", "pii-t8b-0170", "pii-t8b-0173", "pii-t8b-0181", "pii-t8b-0192"}
#: Ninth session: dev_r10 (the round-9 held-out split, authors ``pii-t9a`` a company EAP office and ``pii-t9b``
#: a multicultural family centre and a defector school) joined the dev files and the name model's training
#: (dev figure, in-sample: 360/402); pii-t7b-0036 (dev_r8) is masked now and left the list. What dev_r10 still
#: keeps, by class:
#: * bare names with no cue the rules know and below the model's threshold: common words (한결 걔는,
#:   가을이가 … 가을이, 봄이 여름이), one-syllable names (현아, 눙이가, 솜차이랑 눙 이랑), vocatives and
#:   addresses of foreign names (투이야, 은송아, 마리셀 너는, 야 타오), names listed with no particle
#:   (하람이 시우 로운이, 알렉산드라 랑 제이슨), a Hangul foreign name before a copula or a role
#:   (마이클 인데, 법인장 마이클 브라운이, 응우옌티투이 예요), a misspelt full name before a rank (이승휸 주임),
#:   the second of two alternatives (명수 였나 명석 이였나, 찬드라 아니고 짠드라, 쩐반안 아니고 쩐반언);
_KNOWN_R10_BARE = {"pii-t9a-0148", "pii-t9a-0162", "pii-t9a-0169", "pii-t9a-0174", "pii-t9a-0183", "pii-t9a-0194",
                   "pii-t9a-0206", "pii-t9b-0001", "pii-t9b-0003", "pii-t9b-0004", "pii-t9b-0010", "pii-t9b-0020",
                   "pii-t9b-0021", "pii-t9b-0031", "pii-t9b-0039", "pii-t9b-0047", "pii-t9b-0048", "pii-t9b-0049",
                   "pii-t9b-0055", "pii-t9b-0056"}
#: * names spelled, split or typed wrong (최.영.길, 김 철, 이 상 욱, J-O-S-E-P-H-I-N-E, 긴지수 아 오타, 탁… 아니
#:   탁성민), in Chinese characters (王丽丽, 刘梅), a North Korean spelling (리광철), nicknames (짱구, 비비 …
#:   Vivian), a lower-case Latin name (vu van thanh), a one-word foreign name before 씨 after an id (응우옌 씨);
_KNOWN_R10_SHAPE = {"pii-t9a-0069", "pii-t9a-0168", "pii-t9a-0176", "pii-t9a-0197", "pii-t9b-0009", "pii-t9b-0019",
                    "pii-t9b-0026", "pii-t9b-0034", "pii-t9b-0035", "pii-t9b-0040", "pii-t9b-0041", "pii-t9b-0061",
                    "pii-t9b-0062"}
#: * values in pieces or starred: an RRN half in Korean digits before 다시, a plate's front and back apart
#:   (앞이 45 뒤가 1102), starred passport, plate and road number (C0****21, **가 5521, 한누리대로 ***), a road
#:   number in Korean digits before 번지 아니고, schools with no kind a rule knows (늘푸른유치원, 여명학교,
#:   하나둘학교).
_KNOWN_R10_PIECES = {"pii-t9a-0006", "pii-t9a-0091", "pii-t9a-0101", "pii-t9a-0140", "pii-t9a-0143", "pii-t9b-0140",
                     "pii-t9b-0152", "pii-t9b-0156", "pii-t9b-0160"}
#: Eleventh session: dev_r11 (round 10's held-out split, authors ``pii-t10a`` a military counselling office and
#: ``pii-t10b`` a school Wee class) joined the dev files with its 55 held-out misses listed as found. The twelfth
#: session fixed them by class (tests/test_pii_round12.py: surname or full name and military rank, the owner of an
#: identifier, a pupil by class, a given name after its full name, 이 + particle after a consonant, a spelled found
#: name, a bracketed kin word, a nickname, a bare full name confirmed or recalled, the subject of what only a person
#: does, plates before 등록, road numbers before ", N동", mountain and village lots, post boxes, lunar birthdays,
#: the RRN front half, short school and college names, a Hangul nickname as one word, the one called to in reported
#: speech). One remains: pii-t10a-0003 (이 중사님이): the surname 이 is masked, but the value 이 also occurs as the
#: particle of 중사님이, so the substring check cannot pass. dev_r11 is still not in the name model's training
#: (``bench/train_name_model.py`` ``HELD_BACK``: trained on, the leave-one-split-out threshold rises 1.905 -> 3.073
#: and older names are lost).
_KNOWN_R11_UNREAD = {"pii-t10a-0003"}
KNOWN_DEV_MISSES = frozenset({"pii-t6a-0026", "pii-t6a-0031"} | _KNOWN_R8_R9_BARE | _KNOWN_R8_R9_SHAPE
                             | _KNOWN_R8_R9_PIECES | _KNOWN_R10_BARE | _KNOWN_R10_SHAPE | _KNOWN_R10_PIECES
                             | _KNOWN_R11_UNREAD)


def survivors(rows: list[dict], backend: str) -> list[tuple[dict, str]]:
    out = []
    for r in rows:
        masked = mask_pii(r["text"], backend=backend).text
        if any(v in masked for v in r["pii"]):
            out.append((r, masked))
    return out


@pytest.fixture(params=["presidio", "regex"])
def backend(request):
    if request.param == "presidio" and pii_backend()["active"] != "presidio":
        pytest.fail("Presidio should load in this environment: " + pii_backend()["reason"])
    return request.param


def dev_rows() -> list[dict]:
    return [r for name in DEV_FILES for r in _jsonl(PII_DIR / name)]


def clean_dev_rows() -> list[dict]:
    return [r for name in CLEAN_DEV_FILES for r in _jsonl(PII_DIR / name)]


def test_dev_corpus_is_well_formed():
    rows = dev_rows()
    clean = clean_dev_rows()
    assert len(rows) >= 300 + 233 + 150 + 250 + 250 + 250 + 340 + 350 + 350 + 380 + 400 and \
        len(clean) >= 1000 + 563 + 100 + 500 + 500 + 500 + 690 + 720 + 660 + 710 + 730
    for name in DEV_FILES:
        assert {r["category"] for r in _jsonl(PII_DIR / name)} == set(CATEGORIES), name
    for r in rows:
        assert r["pii"] and all(v in r["text"] for v in r["pii"]), r["id"]
    ids = [r["id"] for r in rows + clean]
    assert len(ids) == len(set(ids))
    texts = [_norm(r["text"]) for r in rows] + [_norm(r["text"]) for r in clean]
    assert len(texts) == len(set(texts))


def test_no_dev_pii_survives(backend):
    bad = survivors([r for r in dev_rows() if r["id"] not in KNOWN_DEV_MISSES], backend)
    assert not bad, "\n".join(f"{r['id']} {r['category']}: {r['text']!r} -> {m!r}" for r, m in bad)


@pytest.mark.xfail(strict=True, reason="two dev_r7 names, 9 dev_r8, 35 dev_r9, 42 dev_r10 and 1 dev_r11 cases (see KNOWN_DEV_MISSES)")
def test_known_dev_misses_are_masked(backend):
    rows = [r for r in dev_rows() if r["id"] in KNOWN_DEV_MISSES]
    assert len(rows) == len(KNOWN_DEV_MISSES)
    bad = survivors(rows, backend)
    assert not bad, [r["id"] for r, _ in bad]


def test_no_dev_clean_or_material_sentence_is_altered(backend):
    texts = [r["text"] for r in clean_dev_rows()] + material_lines()
    altered = [(t, m) for t in texts if (m := mask_pii(t, backend=backend).text) != t]
    assert not altered, "\n".join(f"{t!r} -> {m!r}" for t, m in altered[:40])


def test_backends_find_identical_spans():
    rows = dev_rows() + clean_dev_rows()
    for r in rows:
        assert mask_pii(r["text"], backend="presidio").entities == mask_pii(r["text"], backend="regex").entities, r["id"]


@pytest.mark.skipif(not (PII_DIR / "test.jsonl").exists(), reason="held-out test split not added yet (the lead runs it)")
@pytest.mark.xfail(strict=True, reason=(
    "issue 13 target not yet shown on an independent split: round 2 (now dev_r3) gave recall 221/264 = "
    "0.837 (Wilson 0.788-0.877), 2/515 clean altered; round 3 with the normalised digit-run rule scored "
    "dev_r3 leave-one-split-out at 242/264 = 0.917 (0.877-0.944); the independent round-3 test split "
    "(now dev_r4) gave 246/280 = 0.879 (0.835-0.912), 4/578 clean altered; round 4 scored dev_r4 "
    "leave-one-split-out with the learned name model at 247/280 = 0.882 (0.839-0.915), 5/578 altered; "
    "the independent round-4 test split gave 240/258 = 0.930 (0.892-0.955), names 42/50, rrn 17/18, email "
    "17/18, 1/557 clean altered (round-3 code on the same split: 237/258, 3/557); round 5 scored that split "
    "(now dev_r5) leave-one-split-out with its first change at 240/258 = 0.930 (0.892-0.955), 1/557 altered. "
    "The independent round-5 test split (two authors) gave 325/341 = 0.953 (0.925-0.971), names 77/87, "
    "phone 23/24, email 20/21, 2/690 clean altered (round-4 code on the same split: 316/341, names 70/87, 2/690); "
    "round 6 scored that split (now dev_r6) leave-one-split-out with its first change (word-class context "
    "features of the name model) at 325/341 = 0.953 (0.925-0.971), names 77/87, 2/690 altered (no gain). "
    "The independent round-6 test split (two authors) gave 326/354 = 0.921 (0.888-0.945), names 84/97, phone 23/24, "
    "card 20/21, 4/723 clean altered (round-5 code: 321/354); round 7 scored that split (now dev_r7) with its first "
    "change (a cue-anchored value recogniser) before reading its misses at 327/354 = 0.924 (0.891-0.947), 4/723 "
    "altered. The independent round-7 test split (two authors, new voices) gave 331/351 = 0.943 (0.914-0.963), "
    "names 80/94, rrn 20/21, sns 21/22, 4/661 clean altered (round-6 code: 330/351). The independent round-8 test split "
    "(two authors in new voices: a university counselling centre with international students, a youth 1388 line "
    "with parents in dialect) gave 311/383 = 0.812 (0.770-0.848), names 83/122, address 11/23, rrn 20/22, phone "
    "20/22, card 21/22, 2/712 clean altered (round-7 code: 308/383). The independent round-9 test split (two "
    "authors in new voices: a company EAP office with coworkers and managers, a multicultural family centre with "
    "marriage migrants and defector teens) gave 342/402 = 0.851 (0.813-0.882), names 87/126, address 18/24, "
    "school_class 15/23, rrn 22/23, email 22/23, 5/739 clean altered (round-8 code: 330/402). The independent round-10 "
    "test split (two authors in new voices: a military counselling office with ranks and family callers, a school "
    "Wee class with teens in chat slang) gave 367/422 = 0.870 (0.834-0.898), names 97/131, address 20/25, "
    "school_class 20/24, passport 20/23, 2/714 clean altered (round-9 code: 364/422, 1/714). The independent round-11 "
    "test split (two authors in new voices: a university counselling centre with dorms, part-time jobs and international "
    "students; a community mental-health phone line transcribed by speech-to-text, elderly and multicultural callers) "
    "gave 386/465 = 0.830 (0.793-0.862), names 91/131, address 23/33, car_plate 20/26, birthday 23/28, rrn 26/27, "
    "phone 29/32, account 25/27, card 25/26, 10/767 clean altered (11/767 once the name model was rebuilt for the new "
    "persona-card lines; round-10 code: 383/465, 10/767). Strict, so reaching the "
    "target fails this marker and it must be removed"))
def test_issue_targets_on_the_held_out_test_split(backend):
    rows = _jsonl(PII_DIR / "test.jsonl")
    bad = survivors(rows, backend)
    recall = 1 - len(bad) / len(rows)
    assert recall >= 0.98, f"overall recall {recall:.3f} on {len(rows)} cases"
    for cat in MUST_BE_PERFECT:
        missed = [r["id"] for r, _ in bad if r["category"] == cat]
        assert not missed, f"{cat}: {missed}"
    clean_path = PII_DIR / "clean_test.jsonl"
    if clean_path.exists():
        altered = [r["id"] for r in _jsonl(clean_path) if mask_pii(r["text"], backend=backend).text != r["text"]]
        assert not altered, f"altered clean sentences: {altered}"


@pytest.mark.skipif(not (PII_DIR / "test.jsonl").exists(), reason="held-out test split not added yet")
def test_dev_and_test_share_no_normalised_text():
    dev = {_norm(r["text"]) for r in dev_rows() + clean_dev_rows()}
    test = {_norm(r["text"]) for name in ("test.jsonl", "clean_test.jsonl") if (PII_DIR / name).exists()
            for r in _jsonl(PII_DIR / name)}
    assert not dev & test, sorted(dev & test)[:10]


def test_find_entities_is_what_both_backends_mask():
    text = "저는 김민지고요 010-1234-5678, 힘들면 1577-0199"
    assert {"PERSON", "KR_PHONE"} <= {e.type for e in find_entities(text)}
    assert [e.type for e in mask_pii(text, backend="regex").entities] == ["PERSON", "KR_PHONE"]
    assert mask_pii(text, backend="regex").text == "저는 [NAME]고요 [PHONE], 힘들면 1577-0199"
