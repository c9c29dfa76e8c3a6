"""Persona cards P1–P7: schema validation, audience views and script safety."""

import copy
import json
import re
import statistics
from pathlib import Path

import pytest

from vignette_lab.core.personas import (
    CLIENT_HIDDEN_FIELDS,
    PersonaCard,
    content_hash,
    load_persona_file,
    load_personas,
)
from vignette_lab.errors import InputError

PERSONAS = Path(__file__).resolve().parents[1] / "datasets" / "personas"
META_WORDS = ("핵심신념", "핵심 신념", "자동사고", "자동적 사고", "중간신념", "진단", "CCD", "DSM",
              "개방도", "openness", "단계", "인지왜곡", "저항도", "Patient")
MEANS_WORDS = ("약", "칼", "뛰어내", "목을", "방법", "옥상", "번개탄", "농약", "수면제", "투신",
               "손목", "끈", "가스", "다리 위", "높은 곳", "유서", "계획")
# Per the seed 001 §2.3 table.
TABLE = {
    "P1": ("서연", "고2", "hard", ["humanistic"], 2),
    "P2": ("민재", None, "moderate", ["cbt"], 1),
    "P3": ("지우", None, "moderate", ["humanistic"], 1),
    "P4": ("하늘", "고2", "easy", ["cbt", "humanistic"], 1),
    "P5": ("도윤", "중3", "moderate", ["humanistic", "cbt"], 1),
    "P6": ("하린", "고3", "moderate", ["humanistic", "cbt"], 1),
    "P7": ("도현", "고3", "hard", ["humanistic", "cbt"], 2),
}


@pytest.fixture(scope="module")
def cards():
    return load_personas()


def script_lines(script):
    """Every string in a script with its dotted path."""
    out = []

    def walk(value, path):
        if isinstance(value, str):
            out.append((path, value))
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")
        elif isinstance(value, (int, float)):  # a fact's gate
            return
        else:
            for key, item in value.items():
                walk(item, f"{path}.{key}")

    walk(script, "script")
    return out


def test_all_seven_load_sorted(cards):
    assert list(cards) == [f"P{i}" for i in range(1, 8)]
    assert all(isinstance(c, PersonaCard) for c in cards.values())


def test_default_load_is_cached_but_dict_is_a_copy(cards):
    again = load_personas()
    assert again is not cards and again["P1"] is cards["P1"]
    again.pop("P1")
    assert "P1" in load_personas()


@pytest.mark.parametrize("code", list(TABLE))
def test_cards_follow_the_seed_table(cards, code):
    name, grade, difficulty, theory, ideation = TABLE[code]
    card = cards[code]
    assert card.display_name == name
    if grade:
        assert card.demographics["grade"] == grade
    assert card.difficulty == difficulty
    assert list(card.theory_target) == theory
    assert card.ideation_stage == ideation
    assert card.is_synthetic is True and card.status == "approved"
    assert card.source_provenance.startswith("synthetic")


def test_seed_specifics(cards):
    assert cards["P1"].resistance["base_resistance"] == pytest.approx(0.7)
    assert cards["P2"].demographics["age_band"].startswith("30대")
    assert cards["P3"].demographics["age_band"].startswith("20대")
    # easy persona opens up faster than the hard ones
    assert cards["P4"].resistance["base_resistance"] < min(
        cards[c].resistance["base_resistance"] for c in ("P1", "P7"))


def test_public_view_hides_everything_clinical(cards):
    for card in cards.values():
        view = card.public_view()
        assert set(view) == {"code", "display_name", "age_band", "grade", "difficulty",
                             "theory_target", "presenting_summary"}
        dumped = json.dumps(view, ensure_ascii=False)
        for belief in card.ccd["core_beliefs"]:
            assert belief not in dumped
        for row in card.dsm5_dimensional["criteria_behavior_matrix"]:
            assert row["behavioral_cue"] not in dumped
        for line in card.script["disclosures"]["3"]:
            assert line not in dumped


def test_client_visible_dict_has_no_ccd_or_dsm(cards):
    for card in cards.values():
        data = card.client_visible_dict()
        assert not set(CLIENT_HIDDEN_FIELDS) & set(data)
        dumped = json.dumps(data, ensure_ascii=False)
        for key in ("core_beliefs", "intermediate_beliefs", "automatic_thoughts",
                    "criteria_behavior_matrix"):
            assert key not in dumped
        for thought in card.ccd["automatic_thoughts"] + card.ccd["core_beliefs"]:
            assert thought not in dumped
        assert "script" in data and "speech_style" in data


def test_card_is_immutable_and_hash_is_canonical(cards):
    card = cards["P1"]
    with pytest.raises(TypeError):
        card.big5["N"] = 0.1
    with pytest.raises(AttributeError):
        card.code = "P9"
    data = card.to_dict()
    assert content_hash(data) == card.content_hash
    data["big5"]["N"] = 0.1  # a copy: the card is untouched
    assert card.big5["N"] != 0.1
    assert content_hash(data) != card.content_hash
    assert len({c.content_hash for c in cards.values()}) == 7


def test_scripts_meet_minimums_and_are_distinct(cards):
    for code, card in cards.items():
        lines = [line for _, line in script_lines(card.script)]
        assert 70 <= len(lines) <= 300, (code, len(lines))
        assert len(set(lines)) == len(lines), code


def test_script_lines_never_go_meta(cards):
    for code, card in cards.items():
        for path, line in script_lines(card.script):
            for word in META_WORDS:
                assert word not in line, (code, path, line)
            # no numbers that read like scores or stages ("0.7", "3단계", "7점")
            assert not re.search(r"\d+\s*(점|단계|%)|\d\.\d", line), (code, path, line)


def test_ideation_hints_have_no_means_and_stay_within_stage(cards):
    for code, card in cards.items():
        hints = card.script["ideation_hints"]
        assert sorted(hints) == [str(s) for s in range(1, card.ideation_stage + 1)]
        for path, line in script_lines(hints):
            for word in MEANS_WORDS:
                assert word not in line, (code, path, line)


def test_whole_script_has_no_means_words(cards):
    for code, card in cards.items():
        for path, line in script_lines(card.script):
            for word in ("칼", "뛰어내", "목을", "옥상", "번개탄", "농약", "수면제", "투신", "손목"):
                assert word not in line, (code, path, line)


def test_reactions_to_advice_and_judgement_are_more_closed(cards):
    # Closed = says less and opens nothing new: shorter on average than empathic/open reactions.
    for code, card in cards.items():
        r = card.script["reactions"]
        closed = statistics.mean(len(x) for x in r["advice"] + r["judgement"])
        opened = statistics.mean(len(x) for x in r["empathic"] + r["open_question"])
        assert closed < opened, code


def test_disclosure_depth_sentences_are_near_card_length(cards):
    for code, card in cards.items():
        # The listening banks (facts, acts, si, topics: issue 12) are short answers by design;
        # the card's sentence length is the voice of the talk banks.
        talk = {k: v for k, v in card.script.items() if k not in ("facts", "acts", "si", "topics")}
        spoken = [line for _, line in script_lines(talk) if not line.startswith("(")]
        sentences = [s for line in spoken for s in re.split(r"(?<=[.?!])\s+", line) if s.strip()]
        mean = statistics.mean(len(s) for s in sentences)
        assert abs(mean - card.speech_style["avg_sentence_len"]) <= 3, (code, mean)


# --------------------------------------------------------------------------- malformed variants

@pytest.fixture()
def p3():
    return json.loads((PERSONAS / "P3.json").read_text(encoding="utf-8"))


def write(tmp_path, data, name="P3.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def check_error(err, path, field):
    message = str(err.value)
    assert "\n" not in message
    assert err.value.source == str(path)
    assert err.value.field == field
    assert str(path) in message and f"field '{field}'" in message


def test_out_of_range_number(tmp_path, p3):
    p3["big5"]["N"] = 1.7
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="expected a number between 0 and 1, got 1.7") as err:
        load_persona_file(path)
    check_error(err, path, "big5.N")


def test_missing_field(tmp_path, p3):
    del p3["resistance"]["unlock_rate"]
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="missing required field") as err:
        load_persona_file(path)
    check_error(err, path, "resistance.unlock_rate")


def test_ideation_above_cap_is_refused(tmp_path, p3):
    p3["affect_baseline"]["suicide_ideation_stage"] = 4
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="between 1 and 3, got 4") as err:
        load_persona_file(path)
    check_error(err, path, "affect_baseline.suicide_ideation_stage")


def test_hints_above_card_stage_are_refused(tmp_path, p3):
    p3["script"]["ideation_hints"]["2"] = ["그냥 다 사라졌으면 좋겠어요."]
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="above the persona's ideation stage 1") as err:
        load_persona_file(path)
    check_error(err, path, "script.ideation_hints.2")


def test_wrong_type(tmp_path, p3):
    p3["speech_style"]["honorific"] = "yes"
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="expected true or false, got str") as err:
        load_persona_file(path)
    check_error(err, path, "speech_style.honorific")


def test_bool_is_not_a_number(tmp_path, p3):
    p3["big5"]["O"] = True
    path = write(tmp_path, p3)
    with pytest.raises(InputError) as err:
        load_persona_file(path)
    check_error(err, path, "big5.O")


def test_bad_enum(tmp_path, p3):
    p3["difficulty"] = "extreme"
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="expected one of easy, moderate, hard") as err:
        load_persona_file(path)
    check_error(err, path, "difficulty")


def test_script_minimum_counts(tmp_path, p3):
    p3["script"]["reactions"]["advice"] = p3["script"]["reactions"]["advice"][:2]
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="at least 5 items, got 2") as err:
        load_persona_file(path)
    check_error(err, path, "script.reactions.advice")


def test_missing_script_key(tmp_path, p3):
    del p3["script"]["disclosures"]["3"]
    path = write(tmp_path, p3)
    with pytest.raises(InputError) as err:
        load_persona_file(path)
    check_error(err, path, "script.disclosures.3")


def test_unknown_key(tmp_path, p3):
    p3["diagnosis"] = "none"
    path = write(tmp_path, p3)
    with pytest.raises(InputError, match="unknown key") as err:
        load_persona_file(path)
    check_error(err, path, "diagnosis")


def test_code_must_match_file_name(tmp_path, p3):
    path = write(tmp_path, p3, name="P8.json")
    with pytest.raises(InputError, match="does not match the file name") as err:
        load_persona_file(path)
    check_error(err, path, "code")


def test_bad_json_reports_line_number(tmp_path):
    path = tmp_path / "P3.json"
    path.write_text('{\n "code": "P3",\n "version": 1,,\n}', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_persona_file(path)
    assert err.value.line == 3
    assert "line 3" in str(err.value) and "\n" not in str(err.value)


def test_load_personas_from_directory(tmp_path, p3):
    write(tmp_path, p3)
    other = copy.deepcopy(p3)
    other["code"] = "P10"
    write(tmp_path, other, name="P10.json")
    cards = load_personas(tmp_path)
    assert list(cards) == ["P3", "P10"]  # numeric order, not string order
    (tmp_path / "P11.json").write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="expected an object, got list"):
        load_personas(tmp_path)


def test_empty_or_missing_directory(tmp_path):
    with pytest.raises(InputError, match="no persona cards"):
        load_personas(tmp_path)
    with pytest.raises(InputError, match="not found"):
        load_personas(tmp_path / "missing")
