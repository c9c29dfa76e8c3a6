"""The demo's simulated reviewers are deterministic in the seed and the items' text (issue 12 item 6:
the same command on a fresh database gives the same result). Their noise used to be keyed on the
item id — a fresh uuid per run — so the number of disagreements (and the gate) changed between runs."""

from __future__ import annotations

from pathlib import Path

from vignette_lab.pipeline.adjudicate import disagreements
from vignette_lab.pipeline.demo import simulated_review
from vignette_lab.pipeline.demo import run_demo
from vignette_lab.store import connect, init_db
from vignette_lab.store.catalog import load_catalog


def _run(folder: Path) -> tuple[int, list[tuple[str, str]]]:
    folder.mkdir()
    db = connect(str(folder / "w.duckdb"))
    init_db(db)
    load_catalog(db)
    s = run_demo(db, folder / "demo", sessions=2, turns=3, personas=("P4",), reviewers=2, overlap=1.0,
                 seed=4, echo=None)
    dis = disagreements(db, s["human_round"], include_resolved=True)
    rows = db.fetchall("SELECT i.counselor_text, a.techniques FROM ds.annotation a JOIN ds.dataset_item i"
                       " ON i.item_id = a.item_id WHERE a.round_id = ?", [s["human_round"]])
    db.close()
    return len(dis), sorted((r["counselor_text"], str(r["techniques"])) for r in rows)


def test_the_same_demo_on_two_fresh_databases_gives_the_same_reviews(tmp_path):
    first, second = _run(tmp_path / "a"), _run(tmp_path / "b")
    assert first[1] and first == second


def test_a_simulated_review_does_not_depend_on_the_item_id():
    item = {"persona_code": "P4", "context": [{"speaker": "client", "text": "그냥요"}],
            "counselor_text": "요즘 어때?", "client_reply": "몰라요", "intended_technique": "open_question"}
    labels = {simulated_review({**item, "item_id": i}, None, "sim-reviewer-1", seed=4, noise=0.5)["appropriateness"]
              for i in ("a1", "b2", "c3", "d4", "e5")}
    assert len(labels) == 1
