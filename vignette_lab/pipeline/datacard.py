"""The data card (``README.md``) written into every golden-set export.

The card follows the Hugging Face dataset-card layout: YAML front matter (``pretty_name``,
``language``, ``license``, ``tags``, ``size_categories`` and ``configs`` / ``data_files``
pointing at ``items.parquet``) so that ``datasets.load_dataset(<export dir>)`` reads the
Parquet rows, then a Markdown body in Korean for the people who reuse the set: what the data
is, how it was made, the label scheme, the agreement behind it, how it was masked, the licence
and — when any reviewer or adjudicator was simulated — a warning that the labels are not human
judgements. Pure: it renders from the manifest and the scheme; :func:`export_golden` writes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

__all__ = ["SIMULATED_WARNING", "render_card", "size_category"]

#: the card's warning when a source round had simulated reviewers (shown first in the body)
SIMULATED_WARNING = ("⚠️ **시뮬레이션 검토자 — 사람의 판단이 아닙니다.** 이 골든셋의 2차 검토자 또는 판정자는 "
                     "시뮬레이션(`sim-*`)입니다. 라벨은 파이프라인을 시험하려고 만든 것이며, 연구 근거나 모델 "
                     "평가의 정답으로 쓰지 마세요. (Simulated reviewers: these labels are not human judgements.)")


def size_category(n: int) -> str:
    """Hugging Face ``size_categories`` bucket of ``n`` rows (``n<1K``, ``1K<n<10K`` …)."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def _yaml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _front_matter(manifest: Mapping[str, Any], *, license_id: str, simulated: bool) -> list[str]:
    name = (manifest.get("dataset") or {}).get("name") or "golden set"
    tags = ["counseling", "korean", "helping-skills", "golden-set", "vignette-lab"]
    if simulated:
        tags.append("simulated-annotations")
    title = f"{name} v{manifest.get('version')}"
    lines = ["---", f"pretty_name: {_yaml_str(title)}",
             "language:", "- ko", f"license: {_yaml_str(license_id)}", "tags:"]
    lines += [f"- {t}" for t in tags]
    lines += ["task_categories:", "- text-classification", "size_categories:",
              f"- {size_category(int(manifest['counts']['items']))}",
              "configs:", "- config_name: default", "  data_files:", "  - split: train",
              "    path: items.parquet", "---"]
    return lines


_OUTCOME_KO = {"pass": "통과", "fail": "미달", "inconclusive": "판단 보류", "no_data": "자료 없음"}
_DECISION_KO = {"pass": "통과", "fail": "미통과", "inconclusive": "판단 보류"}


def _num(v: Any) -> str:
    return "—" if v is None else f"{float(v):.3f}"


def _gate_table(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> list[str]:
    """One row per gated field: the coefficient the gate decided on, with CI, threshold and outcome."""
    from vignette_lab.core.labels import coefficient_label

    out = ["| 항목 | 게이트 계수 | 값 | 95% CI | 기준 | 판정 |", "|---|---|---|---|---|---|"]
    for f in rows:
        name = str(f.get("field"))
        label = names.get(name, name)
        coef = str(f.get("coefficient") or "")
        coef_ko = coefficient_label(coef)
        ci = ("—" if f.get("ci_low") is None or f.get("ci_high") is None
              else f"[{_num(f['ci_low'])}, {_num(f['ci_high'])}]")
        thr = "—" if f.get("threshold") is None else f"≥ {float(f['threshold']):g}"
        weakest = f" · 가장 낮은 범주 `{f['category']}`" if f.get("category") else ""
        out.append(f"| {label} (`{name}`) | {coef_ko} (`{coef}`){weakest} | {_num(f.get('value'))} | {ci} | "
                   f"{thr} | {_OUTCOME_KO.get(str(f.get('outcome')), str(f.get('outcome')))} |")
    return out


def _agreement_lines(agreement: Mapping[str, Any] | None, gate: Mapping[str, Any] | None,
                     names: Mapping[str, str] | None = None) -> list[str]:
    """The card's agreement section: first the gate's own per-field figures, then labelled extras."""
    from vignette_lab.core.labels import icc_label, rule_label

    if not agreement:
        return ["게이트 결정이 없는 골든셋입니다(가져온 세트 등): 합의도 수치가 없습니다."]
    names = names or {}
    lines = []
    decision = agreement.get("decision")
    if gate is not None:
        verdict = (_DECISION_KO.get(str(decision), str(decision)) if decision
                   else "통과" if gate.get("passed") else "미통과")
        rule = agreement.get("rule") or (gate.get("thresholds") or {}).get("rule")
        lines.append(f"- 게이트 판정: **{verdict}**" + (f" (규칙: {rule_label(rule)} `{rule}`)" if rule else "")
                     + (f"; 예외 사유: {gate['override_reason']}" if gate.get("override_reason") else ""))
    if agreement.get("n_overlap_items") is not None:
        lines.append(f"- 중복 검토 문항 수: {agreement['n_overlap_items']}")
    gated = agreement.get("gate_fields")
    if gated:
        lines += ["", "게이트가 판정에 쓴 계수 (항목별):", "", *_gate_table(gated, names)]
    elif "fields" in agreement:  # a manifest written before gate_fields: its per-field rows
        fields = agreement.get("fields") or []
        rows = [f for f in (fields.values() if isinstance(fields, Mapping) else fields) if isinstance(f, Mapping)]
        lines += ["", "게이트가 판정에 쓴 계수 (항목별):", "", *_gate_table(rows, names)]
    extras = []
    keys = (("techniques_macro_kappa", "기법 macro κ (라벨별 이진 κ의 평균)"),
            ("techniques_macro_alpha", "기법 macro α (라벨별 α의 평균)"),
            ("client_state_macro_kappa", "내담자 상태 macro κ"),
            ("appropriateness_kappa", "적절성 κ (중복 검토 문항만)"),
            ("appropriateness_alpha", "적절성 α (중복 검토 문항만)"))
    for key, label in keys:
        if agreement.get(key) is not None:
            extras.append(f"- {label}: {float(agreement[key]):.3f}")
    if agreement.get("icc") and not gated:  # older manifests: the score ICCs had no gate rows
        icc = ", ".join(f"{names.get(d, d)} {float(v):.3f}" for d, v in agreement["icc"].items() if v is not None)
        extras.append(f"- 점수 {icc_label(agreement.get('icc_type'))} (`{agreement.get('icc_type')}`): {icc}")
    if extras:
        lines += ["", "참고 수치 (게이트 판정에 쓰이지 않음; 신뢰구간 없음):", "", *extras]
    return lines


def _scheme_lines(scheme: Any, ref: Mapping[str, Any] | None) -> list[str]:
    head = (f"`{ref.get('name')}` v{ref.get('version')} (sha256 `{str(ref.get('sha256'))[:12]}…`)"
            if ref else "기본 상담 기법 분류 체계")
    lines = [f"라벨 체계: {head}."]
    if scheme is None:
        return lines
    for f in scheme.fields:
        cats = ", ".join(f"`{c.code}` {c.label_ko}" for c in f.categories[:12])
        more = f" 외 {len(f.categories) - 12}개" if len(f.categories) > 12 else ""
        rng = f" 범위 {f.range[0]:g}–{f.range[1]:g}" if f.kind == "score" and f.range else ""
        lines.append(f"- `{f.name}` ({f.label_ko or f.name}, {f.kind}{rng}){': ' + cats + more if cats else ''}")
    return lines


def render_card(manifest: Mapping[str, Any], *, scheme: Any = None, license_id: str | None = None,
                simulated: bool = False, files: Sequence[str] = ("items.jsonl", "items.parquet")) -> str:
    """The ``README.md`` of an export: YAML front matter + a Korean data card.

    Parameters
    ----------
    manifest : mapping
        The export manifest (``vignette-lab/golden-manifest/v1``) without its own file entry
        for ``README.md``.
    scheme : Scheme, default=None
        The label scheme, to list its fields and Korean category labels.
    license_id : str, default=None
        Licence of the data (an SPDX id such as ``cc-by-nc-4.0``); None writes ``unknown``
        and says that no licence was chosen.
    simulated : bool, default=False
        Any source round had simulated reviewers or adjudicators: the card opens with
        :data:`SIMULATED_WARNING` and tags the set ``simulated-annotations``.
    files : sequence of str, default=("items.jsonl", "items.parquet")
        Data files of the export, listed with their sha256 from the manifest.

    Returns
    -------
    str
        Markdown text ending in a newline.

    Examples
    --------
    >>> card = render_card({"dataset": {"name": "demo"}, "version": 1,
    ...                     "counts": {"items": 3, "agreed": 2, "adjudicated": 1}, "files": {}})
    >>> card.splitlines()[0], "path: items.parquet" in card
    ('---', True)
    """
    counts = manifest["counts"]
    licence = license_id or "unknown"
    name = (manifest.get("dataset") or {}).get("name") or "golden set"
    out = _front_matter(manifest, license_id=licence, simulated=simulated)
    out += ["", f"# {name} — 골든셋 v{manifest.get('version')}", ""]
    if simulated:
        out += [SIMULATED_WARNING, ""]
    out += ["## 데이터 개요", "",
            f"Vignette 상담 시뮬레이션에서 나온 발화 {counts['items']}개의 합의 라벨(골든셋)입니다. 한 줄이 한 "
            f"문항이며, 앞선 대화 맥락(`context`), 상담자 발화(`counselor_text`), 내담자 응답(`client_reply`)과 "
            f"확정 라벨(`labels`)을 담습니다. 합의로 확정 {counts['agreed']}개, 판정(adjudication)으로 확정 "
            f"{counts['adjudicated']}개. 상담 세션은 AI 내담자(합성 페르소나)와의 연습 또는 자기대국(self-play)이며 "
            "실제 내담자의 기록이 아닙니다.", "",
            "## 만든 방법", "",
            "세션 → 데이터셋 문항 → 1차 AI 자동 주석(제안) → 2차 사람 검토(두 명 이상, 중복 문항) → 합의도 "
            "게이트 → 불일치 판정 → 골든셋 → 내보내기. AI가 제안한 라벨은 사람이 확인한 뒤에만 골든셋에 들어갑니다.", "",
            f"- 데이터셋: `{(manifest.get('dataset') or {}).get('dataset_id', '')}`; 골든셋 id `{manifest.get('golden_id')}`",
            f"- 분류 체계 버전: {manifest.get('taxonomy_version') or '—'}; 고정 시각 {manifest.get('frozen_at') or '—'}",
            f"- 원천 주석 라운드: {', '.join(f'`{r}`' for r in manifest.get('source_rounds') or []) or '—'}",
            f"- 도구: {(manifest.get('tool') or {}).get('name', 'vignette-lab')} "
            f"{(manifest.get('tool') or {}).get('version', '')}; 내보낸 시각 {manifest.get('created_at', '')}", ""]
    out += ["## 라벨 체계", "", *_scheme_lines(scheme, manifest.get("scheme")), ""]
    names = {f.name: f.label_ko or f.name for f in scheme.fields} if scheme is not None else {}
    out += ["## 합의도", "", *_agreement_lines(manifest.get("agreement"), manifest.get("gate"), names), ""]
    out += ["## 개인정보 마스킹", "",
            "모든 자유 텍스트는 저장 전에 개인정보 게이트를 지났습니다: 주민·외국인등록번호, 전화번호, 이메일, 카드·"
            "계좌번호, 주소, 학교·반, SNS 아이디, 생일, 사람 이름(형태소 분석으로 확인)을 `[NAME]`·`[PHONE]` 같은 "
            "표지로 바꾸고, 상담자·내담자 신원은 `[COUNSELOR]`·`[CLIENT]`로 적습니다. 마스킹은 자동이며 완전하지 "
            "않을 수 있습니다(측정치는 저장소의 `bench/RESULTS.md`).", ""]
    out += ["## 라이선스", "",
            (f"`{licence}`." if license_id else
             "라이선스가 지정되지 않았습니다(`unknown`). 공유하기 전에 `vignette-lab export --license …`로 정하세요."), ""]
    if manifest.get("notes"):
        out += ["## 메모", "", *[f"- {n}" for n in manifest["notes"]], ""]
    out += ["## 파일", "", "| 파일 | sha256 |", "|---|---|"]
    for fname in files:
        info = (manifest.get("files") or {}).get(fname) or {}
        out.append(f"| `{fname}` | `{info.get('sha256', '—')}` |")
    out += ["| `manifest.json` | 개수, 파일 해시, 합의도, 게이트 기준 |", ""]
    # the reader's how-to-load snippet (pandas, DuckDB, datasets) is a text template, not code we run
    out += (Path(__file__).parent / "templates" / "datacard_usage.md").read_text(encoding="utf-8").rstrip("\n").split("\n")
    return "\n".join(out) + "\n"
