"""Taxonomy file, loader, parsers and the counselor banks/profiles that build on it."""

import copy
import json
from pathlib import Path

import pytest

from vignette_lab.core import taxonomy as tx
from vignette_lab.core.taxonomy import (
    STAGE_ORDER,
    load_taxonomy,
    parse_appropriateness,
    parse_client_states,
    parse_techniques,
)
from vignette_lab.errors import InputError

DATASETS = Path(__file__).resolve().parents[1] / "datasets"
HILL_CODES = {"approval_reassurance", "closed_question", "open_question", "restatement",
              "reflection_feelings", "challenge", "interpretation", "self_disclosure",
              "immediacy", "information", "direct_guidance", "validation", "other"}


@pytest.fixture(scope="module")
def tax():
    return load_taxonomy()


@pytest.fixture()
def raw():
    return json.loads((DATASETS / "taxonomy.json").read_text(encoding="utf-8"))


def write(tmp_path, data, name="taxonomy.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def test_default_load_is_versioned_and_cached(tax):
    assert tax.version == "2026.11-1"
    assert load_taxonomy() is tax


def test_stages_in_canonical_order(tax):
    assert STAGE_ORDER == ("라포", "탐색", "개입", "정리")
    assert tax.stage_order == STAGE_ORDER
    assert [s.code for s in sorted(tax.stages, key=lambda s: s.order)] == [
        "rapport", "exploration", "intervention", "closing"]


def test_techniques_follow_hill(tax):
    assert set(tax.technique_codes()) == HILL_CODES
    categories = {t.code: t.category for t in tax.techniques}
    assert categories["open_question"] == "exploration"
    assert categories["interpretation"] == "insight"
    assert categories["direct_guidance"] == "action"
    for t in tax.techniques:
        assert 2 <= len(t.examples) <= 3, t.code
        assert t.cues, t.code


def test_client_states_appropriateness_deviation_and_scores(tax):
    assert {"guarded", "avoidant", "silent", "emotional_expression", "self_disclosure",
            "ambivalent", "hopeless", "collaborative", "crisis_signal"} <= set(tax.client_state_codes())
    assert [a.code for a in tax.appropriateness] == ["pos", "warn", "neutral"]
    assert tax.deviation_dimension_codes() == ("stage_fit", "focus", "pacing", "theory_fit", "safety")
    assert tax.severities == ("low", "medium", "high")
    assert tax.score_dimension_codes() == ("empathy", "open_questions", "validation", "theory_fit")
    for dim in tax.score_dimensions:
        assert (dim.min, dim.max) == (0, 5)
        assert set(dim.anchors) >= {0, 3, 5}
    assert len(tax.guidelines["borderline_cases"]) >= 4


def test_module_helpers_match_default(tax):
    assert tx.technique_codes() == tax.technique_codes()
    assert tx.client_state_codes() == tax.client_state_codes()
    assert tx.score_dimension_codes() == tax.score_dimension_codes()


def test_parse_techniques_codes_and_labels_stable_no_dupes():
    got = parse_techniques(["감정 반영", "open_question", "made_up", "reflection_feelings",
                            " 직면 ", None, 3, "개방형 질문"])
    assert got == ("reflection_feelings", "open_question", "challenge")
    assert parse_techniques("타당화") == ("validation",)
    assert parse_techniques(None) == ()
    assert parse_techniques(["reflection", "empathy"]) == ()  # no fuzzy guessing


def test_parse_client_states_and_appropriateness():
    assert parse_client_states(["무망감", "guarded", "bored", "무망감"]) == ("hopeless", "guarded")
    assert parse_appropriateness("주의") == "warn"
    assert parse_appropriateness("pos") == "pos"
    assert parse_appropriateness("good") is None
    assert parse_appropriateness(None) is None


def test_borderline_cases_reference_known_codes(tax):
    codes = set(tax.technique_codes())
    for case in tax.guidelines["borderline_cases"]:
        assert set(case["labels"]) <= codes


@pytest.mark.parametrize(("utterance", "expected"), [
    ("그때 마음이 어땠어요?", "open_question"),
    ("어제는 잠을 좀 잤어요?", "closed_question"),
    ("많이 속상했겠어요.", "reflection_feelings"),
    ("그렇게 느끼는 게 당연해요.", "validation"),
    ("오늘 밤엔 일찍 누워 보세요.", "direct_guidance"),
])
def test_tagger_recovers_obvious_cases(tax, utterance, expected):
    assert expected in tax.tag_techniques(utterance)


def test_open_question_is_not_tagged_closed(tax):
    assert "closed_question" not in tax.tag_techniques("요즘 하루가 어떻게 지나가요?")


# --------------------------------------------------------------------------- malformed files

def test_unknown_top_level_key(tmp_path, raw):
    raw["colour"] = "blue"
    with pytest.raises(InputError, match="field 'colour': unknown key") as err:
        load_taxonomy(write(tmp_path, raw))
    assert str(tmp_path) in str(err.value) and "\n" not in str(err.value)


def test_duplicate_technique_code(tmp_path, raw):
    raw["techniques"][4]["code"] = raw["techniques"][2]["code"]
    with pytest.raises(InputError, match=r"techniques\[4\]\.code'.*duplicate code 'open_question'"):
        load_taxonomy(write(tmp_path, raw))


def test_missing_field(tmp_path, raw):
    del raw["client_states"][1]["definition"]
    with pytest.raises(InputError, match=r"client_states\[1\]\.definition': missing required field"):
        load_taxonomy(write(tmp_path, raw))


def test_bad_regex_names_the_cue(tmp_path, raw):
    raw["techniques"][3]["cues"].append("(unclosed")
    index = len(raw["techniques"][3]["cues"]) - 1
    with pytest.raises(InputError) as err:
        load_taxonomy(write(tmp_path, raw))
    assert err.value.field == f"techniques[3].cues[{index}]"
    assert err.value.source == str(tmp_path / "taxonomy.json")
    assert "invalid regular expression" in str(err.value)


def test_wrong_type_and_bad_enum(tmp_path, raw):
    bad = copy.deepcopy(raw)
    bad["techniques"][0]["examples"] = "하나"
    with pytest.raises(InputError, match=r"techniques\[0\]\.examples': expected a list, got str"):
        load_taxonomy(write(tmp_path, bad))
    bad = copy.deepcopy(raw)
    bad["intent_deviation"]["severity"].append("critical")
    with pytest.raises(InputError, match=r"intent_deviation\.severity\[3\]'"):
        load_taxonomy(write(tmp_path, bad))


def test_stage_order_is_enforced(tmp_path, raw):
    raw["stages"][0]["order"], raw["stages"][1]["order"] = 2, 1
    with pytest.raises(InputError, match="field 'stages'"):
        load_taxonomy(write(tmp_path, raw))


def test_bad_json_reports_line(tmp_path):
    path = tmp_path / "taxonomy.json"
    path.write_text('{\n "version": "x",\n "stages": [,]\n}', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_taxonomy(path)
    assert err.value.line == 3
    assert "line 3" in str(err.value) and "invalid JSON" in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_taxonomy(tmp_path / "nope.json")


# --------------------------------------------------------------------------- counselor banks & profiles

@pytest.fixture(scope="module")
def banks():
    return json.loads((DATASETS / "counselor_banks.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def profiles():
    return json.loads((DATASETS / "counselor_profiles.json").read_text(encoding="utf-8"))


def test_banks_cover_every_technique_and_required_stages(tax, banks):
    utterances = banks["utterances"]
    assert set(utterances) == set(tax.technique_codes()) - {"other"}
    all_four = {"direct_guidance", "information", "interpretation", "challenge"}
    for code, by_stage in utterances.items():
        assert set(by_stage) <= set(STAGE_ORDER), code
        required = set(STAGE_ORDER) if code in all_four else {"라포", "탐색"}
        assert required <= set(by_stage), code
        for stage, lines in by_stage.items():
            assert len(lines) >= 4, (code, stage)
            assert len(set(lines)) == len(lines), (code, stage)
            for line in lines:
                leftover = line.replace("{topic}", "").replace("{feeling}", "")
                assert "{" not in leftover and "}" not in leftover, line


def test_bank_utterances_are_distinct_across_the_file(banks):
    lines = [line for by_stage in banks["utterances"].values()
             for stage_lines in by_stage.values() for line in stage_lines]
    assert len(lines) == len(set(lines))


def test_cues_recover_most_bank_techniques(tax, banks):
    total = hits = 0
    for code, by_stage in banks["utterances"].items():
        for lines in by_stage.values():
            for line in lines:
                filled = line.replace("{topic}", "친구 관계").replace("{feeling}", "서운함")
                total += 1
                hits += code in tax.tag_techniques(filled)
    assert total >= 150
    assert hits / total >= 0.75, f"{hits}/{total}"


def test_profiles_are_valid(tax, profiles, banks):
    names = set(profiles["profiles"])
    assert {"skilled", "novice", "advice-jumper"} <= names
    codes = set(tax.technique_codes())
    for name, prof in profiles["profiles"].items():
        assert prof["label"] and prof["description"]
        assert set(prof["weights"]) == set(STAGE_ORDER), name
        for stage, weights in prof["weights"].items():
            assert weights and sum(weights.values()) > 0
            for code, weight in weights.items():
                assert code in codes, (name, code)
                assert weight >= 0, (name, stage, code)
                # the engine can only say what the bank holds for this stage
                assert stage in banks["utterances"][code], (name, stage, code)
    progression = profiles["profiles"]["improving"]["progression"]
    assert progression["from"] in names and progression["to"] in names
    assert progression["sessions_to_target"] >= 2


def _share(weights, codes):
    return sum(weights.get(c, 0) for c in codes) / sum(weights.values())


def test_profiles_differ_as_described(profiles):
    p = profiles["profiles"]
    empathic = ("reflection_feelings", "open_question", "restatement", "validation")
    advice = ("direct_guidance", "information")
    for stage in ("라포", "탐색"):
        assert _share(p["skilled"]["weights"][stage], empathic) > 0.7
        assert _share(p["skilled"]["weights"][stage], advice) < 0.1
        assert p["novice"]["weights"][stage]["closed_question"] == max(p["novice"]["weights"][stage].values())
    for stage in STAGE_ORDER:
        assert _share(p["advice-jumper"]["weights"][stage], advice) > 0.6
        assert p["advice-jumper"]["weights"][stage].get("challenge", 0) > 0


def test_taxonomy_is_immutable(tax):
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        tax.version = "x"
    with pytest.raises(TypeError):
        tax.guidelines["general"] = ()
    assert isinstance(tax.guidelines["borderline_cases"], tuple)
    assert isinstance(tax.techniques[0].cues, tuple)
