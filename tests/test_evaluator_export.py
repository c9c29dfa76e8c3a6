"""The offline evaluator's exported models: shipped files equal a rebuild, runtime equals scikit-learn.

Training uses the evaluator dev splits and the counselor banks only (``utterance_tagger.DEV_SPLITS``);
no ``test*`` file is read. The scikit-learn models are fitted once for the module (≈ 25 s CPU each).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.engines import appropriateness as ap
from vignette_lab.engines import linear_runtime as lr
from vignette_lab.engines import utterance_tagger as ut

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


@pytest.fixture(scope="module")
def built():
    import build_evaluator_models as b
    t_doc, t_model = b.build_technique()
    a_doc, a_model = b.build_appropriateness()
    c_doc, c_model = b.build_crisis_cue()
    e_doc, _ = b.build_engagement()
    return {"t_doc": t_doc, "t_model": t_model, "a_doc": a_doc, "a_model": a_model, "c_doc": c_doc, "c_model": c_model,
            "e_doc": e_doc}


@pytest.fixture(scope="module")
def dev_items():
    items = [it for split in ut.DEV_SPLITS for it in ut.dev_items(split=split)]
    assert len(items) > 1000
    return items


def _shipped(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_shipped_files_equal_a_rebuild(built):
    from vignette_lab.engines import crisis_engagement as ce
    from vignette_lab.engines import crisis_model as cm
    for doc, path in ((built["t_doc"], ut.TECHNIQUE_EXPORT), (built["a_doc"], ap.APPROPRIATENESS_EXPORT),
                      (built["c_doc"], cm.CRISIS_EXPORT), (built["e_doc"], ce.ENGAGEMENT_EXPORT)):
        shipped = _shipped(path)
        assert shipped["training_hash"] == doc["training_hash"], f"{path.name}: run bench/build_evaluator_models.py"
        assert shipped == json.loads(json.dumps(doc, ensure_ascii=False)), path.name


def test_default_models_are_the_exported_runtime(monkeypatch):
    monkeypatch.delenv("VIGNETTE_EVALUATOR_MODEL", raising=False)
    monkeypatch.delenv("VIGNETTE_APPROPRIATENESS", raising=False)
    ut.default_model.cache_clear()
    ap.default_appropriateness_model.cache_clear()
    t, a = ut.default_model(), ap.default_appropriateness_model()
    assert isinstance(t, lr.ExportedTechniqueModel) and t.meta["version"] == ut.technique_export_version()
    assert isinstance(a, lr.ExportedAppropriatenessModel) and a.meta["version"] == ap.APPROPRIATENESS_VERSION


def test_technique_probabilities_and_tags_equal_scikit_learn_on_every_dev_item(built, dev_items):
    sk = built["t_model"]
    ex = lr.load_technique(json.loads(json.dumps(built["t_doc"])))
    texts = [it["counselor"] for it in dev_items]
    x = sk._matrix(sk.char_vectoriser, sk.morph_vectoriser, texts, sk.use_rules, sk.rule_weight)
    for i, text in enumerate(texts):  # the feature row itself, bit for bit
        cols = ex._features(text)
        assert [j for j, _ in cols] == x[i].indices.tolist() and [v for _, v in cols] == x[i].data.tolist(), text
    for k, c in enumerate(ut.TECHNIQUES):  # unrounded probabilities, bit for bit
        p_sk = sk.classifiers[c].predict_proba(x)[:, 1].tolist()
        z = [float((lr._dot(ex._features(t), ex.weights) + ex.intercepts)[k]) for t in texts]
        assert [1.0 / (1.0 + math.exp(-v)) for v in z] == p_sk, c
    assert ex.predict_proba(texts) == sk.predict_proba(texts)
    assert ex.predict(texts) == sk.predict(texts)


def test_appropriateness_and_verdicts_equal_scikit_learn_on_every_dev_item(built, dev_items):
    sk = built["a_model"]
    ex = lr.load_appropriateness(json.loads(json.dumps(built["a_doc"])))
    rows = ap.training_rows(dev_items)
    assert ex.predict(rows) == sk.predict(rows)
    tagger = lr.load_technique(json.loads(json.dumps(built["t_doc"])))
    for it in dev_items:
        kw = {"client_prev": it.get("client_prev", ""), "stage": it["stage"],
              "crisis_context": bool(it.get("crisis_context")), "persona_code": it.get("persona")}
        tags = tagger.predict([it["counselor"]])[0]
        assert ut.judge(it["counselor"], tags, model=ex, **kw) == ut.judge(it["counselor"], tags, model=sk, **kw)


def test_a_fresh_process_evaluates_without_scikit_learn():
    code = ("import sys\nfrom vignette_lab.engines import utterance_tagger as ut\n"
            "t = ut.tag('많이 속상했겠다. 그때 어떤 마음이었어?')\n"
            "v = ut.judge('많이 속상했겠다. 그때 어떤 마음이었어?', t, client_prev='시험 망쳤어', stage='exploration')\n"
            "assert t and v['appropriateness'] in ('pos', 'warn', 'neutral')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'joblib', 'scipy')))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("VIGNETTE_EVALUATOR_MODEL", "VIGNETTE_APPROPRIATENESS")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    assert "training it with scikit-learn" not in out.stderr


def test_an_unreadable_or_foreign_export_is_ignored(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{not json", encoding="utf-8")
    assert lr.read_export(bad, model="technique") is None
    assert lr.read_export(tmp_path / "missing.json", model="technique") is None
    assert lr.read_export(ap.APPROPRIATENESS_EXPORT, model="technique") is None
    assert lr.read_export(ut.TECHNIQUE_EXPORT, model="technique")["model"] == "technique"


def test_char_wb_ngrams_match_scikit_learn():
    from sklearn.feature_extraction.text import TfidfVectorizer
    docs = ["^그때  마음이 어땠어$", "A  b\tC 운동을 해 봐", "^ㅋ$", "가"]
    vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), sublinear_tf=True).fit(docs)
    table = lr.TfidfTable.from_sklearn(vec)
    x = vec.transform(docs)
    for i, d in enumerate(docs):
        idx, data = table.row(d)
        assert idx == x[i].indices.tolist() and data.tolist() == x[i].data.tolist(), d


def test_crisis_cue_probabilities_equal_scikit_learn_on_every_dev_client_line(built):
    """The shipped crisis-cue reader (pure numpy/python) gives scikit-learn's probabilities."""
    from vignette_lab.engines import crisis_model as cm
    from vignette_lab.engines import technique_stack as ts

    lines = [t for t, _ in cm.training_lines()]
    runtime = lr.load_technique(json.loads(json.dumps(built["c_doc"], ensure_ascii=False)))
    model = built["c_model"]
    x = ts.StackedTechniqueModel._matrix(model.char_vectoriser, model.morph_vectoriser, lines, False, 1.0)
    expected = model.classifiers["crisis"].predict_proba(x)[:, 1]
    got = [p["crisis"] for p in runtime.predict_proba(lines)]
    assert max(abs(round(float(e), 4) - g) for e, g in zip(expected, got)) < 1e-9
