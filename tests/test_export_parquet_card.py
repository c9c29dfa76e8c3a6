"""Issue 16 item 6: exports also carry Parquet (same rows) and a data card that pandas, DuckDB
and Hugging Face ``datasets`` users recognise; ``import`` takes the folder as written and says
where the export is when pointed at the folder above it."""

from __future__ import annotations

import json

import pytest
import yaml

from test_pipeline_export import _fresh_duck, _golden
from vignette_lab.errors import InputError
from vignette_lab.pipeline.datacard import SIMULATED_WARNING, size_category
from vignette_lab.pipeline.demo import SIMULATION_NOTE
from vignette_lab.pipeline.export import export_golden, import_export


def _front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    head, _, _ = text[4:].partition("\n---\n")
    return yaml.safe_load(head)


def _jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_parquet_holds_the_same_rows_as_the_jsonl(duck_db, tmp_path):
    pd = pytest.importorskip("pandas")
    _, _, _, gs = _golden(duck_db)
    m = export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    rows = _jsonl(tmp_path / "e" / "items.jsonl")
    df = pd.read_parquet(tmp_path / "e" / "items.parquet")
    assert m["files"]["items.parquet"]["rows"] == len(df) == len(rows) == 12
    assert list(df["item_id"]) == [r["item_id"] for r in rows]  # same order
    # every field, nested ones included, round-trips to the JSONL's values
    back = json.loads(df.to_json(orient="records", force_ascii=False))
    for got, want in zip(back, rows):
        assert set(got) == set(want)
        for key in ("counselor_text", "client_reply", "seq", "source", "source_annotations", "context"):
            assert got[key] == want[key], key
        assert got["labels"]["techniques"] == want["labels"]["techniques"]
        assert got["labels"]["appropriateness"] == want["labels"]["appropriateness"]
        assert {k: v for k, v in (got["labels"]["scores"] or {}).items() if v is not None} == \
            {k: v for k, v in (want["labels"]["scores"] or {}).items() if v is not None}


def test_data_card_front_matter_and_body(duck_db, tmp_path):
    _, _, _, gs = _golden(duck_db)
    m = export_golden(duck_db, gs["golden_id"], tmp_path / "e", license_id="cc-by-nc-4.0", notes=["unit test"])
    card = (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    meta = _front_matter(card)
    assert meta["configs"] == [{"config_name": "default", "data_files": [{"split": "train", "path": "items.parquet"}]}]
    assert meta["license"] == "cc-by-nc-4.0" and meta["language"] == ["ko"]
    assert meta["size_categories"] == [size_category(12)] == ["n<1K"]
    for heading in ("## 데이터 개요", "## 만든 방법", "## 라벨 체계", "## 합의도", "## 개인정보 마스킹", "## 라이선스"):
        assert heading in card
    assert f"{m['agreement']['techniques_macro_kappa']:.3f}" in card  # the gate's numbers, not placeholders
    assert m["files"]["items.parquet"]["sha256"] in card
    assert SIMULATED_WARNING not in card and "simulated-annotations" not in meta["tags"]
    assert m["files"]["README.md"]["sha256"] and m["simulated_reviewers"] is False


def test_simulated_reviewers_put_the_warning_on_the_card(duck_db, tmp_path):
    _, _, _, gs = _golden(duck_db)
    export_golden(duck_db, gs["golden_id"], tmp_path / "e", notes=[SIMULATION_NOTE])
    card = (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    body = card.split("\n---\n", 1)[1]
    assert body.lstrip().split("\n\n")[1] == SIMULATED_WARNING  # right under the title
    assert "simulated-annotations" in _front_matter(card)["tags"]
    assert _front_matter(card)["license"] == "unknown" and "라이선스가 지정되지 않았습니다" in card


def test_hugging_face_datasets_loads_the_export_folder(duck_db, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _, _, _, gs = _golden(duck_db)
    export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    ds = datasets.load_dataset(str(tmp_path / "e"), cache_dir=str(tmp_path / "hf-cache"))
    rows = _jsonl(tmp_path / "e" / "items.jsonl")
    assert list(ds) == ["train"] and ds["train"].num_rows == len(rows)
    assert ds["train"]["item_id"] == [r["item_id"] for r in rows]
    assert ds["train"][0]["labels"]["techniques"] == rows[0]["labels"]["techniques"]


def test_import_takes_the_folder_as_written_and_points_at_it_from_above(duck_db, tmp_path):
    _, _, _, gs = _golden(duck_db)
    export_golden(duck_db, gs["golden_id"], tmp_path / "run" / "export")
    fresh = _fresh_duck(tmp_path)
    with pytest.raises(InputError, match="export is in") as err:
        import_export(fresh, tmp_path / "run")
    assert str(tmp_path / "run" / "export") in str(err.value)
    assert fresh.scalar("SELECT count(*) FROM ds.golden_set") == 0
    assert import_export(fresh, tmp_path / "run" / "export")["item_count"] == 12


def test_edited_card_or_parquet_is_refused_by_name(duck_db, tmp_path):
    _, _, _, gs = _golden(duck_db)
    export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    fresh = _fresh_duck(tmp_path)
    card = tmp_path / "e" / "README.md"
    original = card.read_text(encoding="utf-8")
    card.write_text(original.replace("unknown", "cc0-1.0", 1), encoding="utf-8")
    with pytest.raises(InputError, match="sha256") as err:
        import_export(fresh, tmp_path / "e")
    assert err.value.source.endswith("README.md")
    card.write_text(original, encoding="utf-8")
    (tmp_path / "e" / "items.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(InputError) as err:
        import_export(fresh, tmp_path / "e")
    assert err.value.source.endswith("items.parquet")
    assert fresh.scalar("SELECT count(*) FROM ds.golden_set") == 0
