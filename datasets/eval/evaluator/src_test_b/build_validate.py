#!/usr/bin/env python3
"""Build and validate the ev_b held-out evaluator split (stdlib only).

Reads src/P*.txt (hand-written), writes test.jsonl, validates it, prints counts.
Source line format (see README.md):
    @persona P1                       (header, sets persona for following lines)
    # comment                         (ignored)
    stage | reg | voice | techs | appr[:devs] | crisis | client_prev | counselor | note
Exit code 0 = valid, 1 = errors.
"""
import glob
import json
import os
import re
import sys
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
ID_PREFIX = "ev-t11b-"

STAGES = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
REGS = {"f": "formal", "h": "haeyo", "b": "banmal"}
VOICES = {
    "cbt": "CBT 병원 임상심리사",
    "pc": "인간중심 상담자",
    "fam": "가족체계 치료자",
    "wee": "Wee클래스 교사",
}
TECHS = {
    "ar": "approval_reassurance", "cq": "closed_question", "oq": "open_question",
    "rs": "restatement", "rf": "reflection_feelings", "ch": "challenge",
    "in": "interpretation", "sd": "self_disclosure", "im": "immediacy",
    "if": "information", "dg": "direct_guidance", "va": "validation", "ot": "other",
}
APPR = {"pos": "pos", "warn": "warn", "neu": "neutral"}
DEVS = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
CRISIS = {"y": True, "n": False}
PERSONAS = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"]
TEENS = {"P1", "P4", "P5", "P6", "P7"}
TAXONOMY_CODES = set(TECHS.values())
KEYS = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
        "appropriateness", "deviation", "crisis_context", "note"]


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    while s and s[-1] in ".?!…~":
        s = s[:-1].rstrip()
    return s


def parse():
    items, errors = [], []
    files = sorted(glob.glob(os.path.join(SRC, "P*.txt")))
    for path in files:
        persona = None
        fname = os.path.basename(path)
        with open(path, encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                line = raw.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                where = f"{fname}:{ln}"
                if line.startswith("@persona"):
                    persona = line.split()[1].strip()
                    if persona not in PERSONAS:
                        errors.append(f"{where}: bad persona {persona}")
                    continue
                parts = [p.strip() for p in line.split("|")]
                if len(parts) != 9:
                    errors.append(f"{where}: expected 9 fields, got {len(parts)}")
                    continue
                st, rg, vo, te, ap, cr, prev, coun, note = parts
                if persona is None:
                    errors.append(f"{where}: no @persona header")
                    continue
                if st not in STAGES:
                    errors.append(f"{where}: bad stage {st}"); continue
                if rg not in REGS:
                    errors.append(f"{where}: bad register {rg}"); continue
                if vo not in VOICES:
                    errors.append(f"{where}: bad voice {vo}"); continue
                tl = [t.strip() for t in te.split(",") if t.strip()]
                bad = [t for t in tl if t not in TECHS]
                if bad or not tl:
                    errors.append(f"{where}: bad techniques {te}"); continue
                if len(set(tl)) != len(tl):
                    errors.append(f"{where}: duplicate technique {te}")
                apc, _, devs = ap.partition(":")
                if apc not in APPR:
                    errors.append(f"{where}: bad appropriateness {ap}"); continue
                dl = [d.strip() for d in devs.split(",") if d.strip()]
                badd = [d for d in dl if d not in DEVS]
                if badd:
                    errors.append(f"{where}: bad deviation {devs}"); continue
                if cr not in CRISIS:
                    errors.append(f"{where}: bad crisis flag {cr}"); continue
                if not prev or not coun:
                    errors.append(f"{where}: empty client_prev/counselor"); continue
                nf = lambda s: unicodedata.normalize("NFC", s)
                items.append({
                    "_where": where,
                    "persona": persona,
                    "stage": STAGES[st],
                    "register": REGS[rg],
                    "client_prev": nf(prev),
                    "counselor": nf(coun),
                    "techniques": [TECHS[t] for t in tl],
                    "appropriateness": APPR[apc],
                    "deviation": [DEVS[d] for d in dl],
                    "crisis_context": CRISIS[cr],
                    "note": nf(f"[{VOICES[vo]}] {note}".strip()),
                })
    return items, errors


def final_predicate_tail(s):
    t = re.sub(r"[\s.?!…~,ㅋㅎㅠㅜ^;:)(\"'“”‘’-]+$", "", s)
    return t


def validate(items, errors, warnings):
    seen = {}
    for it in items:
        w = it["_where"]
        n = norm(it["counselor"])
        if n in seen:
            errors.append(f"{w}: duplicate normalised counselor (also {seen[n]})")
        seen[n] = w
        if it["appropriateness"] == "warn" and not it["deviation"]:
            errors.append(f"{w}: warn without deviation")
        if it["appropriateness"] != "warn" and it["deviation"]:
            errors.append(f"{w}: deviation on non-warn item")
        if "safety" in it["deviation"] and not it["crisis_context"]:
            errors.append(f"{w}: safety deviation without crisis_context")
        if it["crisis_context"] and it["appropriateness"] == "warn" and "safety" not in it["deviation"]:
            errors.append(f"{w}: crisis warn item must carry safety")
        if it["crisis_context"] and it["appropriateness"] == "neutral":
            errors.append(f"{w}: crisis item must be pos or warn (guideline)")
        if it["register"] == "banmal" and it["persona"] not in TEENS:
            errors.append(f"{w}: banmal to adult persona")
        if "|" in it["counselor"] or "|" in it["client_prev"]:
            errors.append(f"{w}: pipe in text")
        if re.search(r"01[016789]-?\d{3,4}-?\d{4}|\d{6}-\d{7}|@[a-z]", it["counselor"] + it["client_prev"]):
            errors.append(f"{w}: PII-like value in text")
        tail = final_predicate_tail(it["counselor"])
        reg = it["register"]
        if reg == "haeyo" and not re.search(r"(요|죠|세요)$", tail):
            warnings.append(f"{w}: haeyo but final predicate '{tail[-6:]}'")
        if reg == "formal" and not re.search(r"(니다|니까|시오|십시다|ㅂ시다)$", tail):
            warnings.append(f"{w}: formal but final predicate '{tail[-6:]}'")
        if reg == "banmal" and re.search(r"(요|니다|니까|죠)$", tail):
            warnings.append(f"{w}: banmal but final predicate '{tail[-6:]}'")
        if norm(it["counselor"]) == norm(it["client_prev"]):
            errors.append(f"{w}: counselor equals client_prev")


def set_checks(items, errors, warnings, final):
    """Set-specific targets. Hard errors only when final=True (partial builds allowed)."""
    out = errors if final else warnings
    n = len(items)
    per = Counter(i["persona"] for i in items)
    for p in PERSONAS:
        if per[p] < 45:
            out.append(f"persona {p}: {per[p]} items (< 45)")
        st = {i["stage"] for i in items if i["persona"] == p}
        if per[p] and len(st) < 4:
            out.append(f"persona {p}: missing stages {set(STAGES.values()) - st}")
    tc = Counter(t for i in items for t in i["techniques"])
    for t in sorted(TAXONOMY_CODES):
        if tc[t] < 12:
            out.append(f"technique {t}: {tc[t]} (< 12)")
    if n:
        wshare = sum(i["appropriateness"] == "warn" for i in items) / n
        if not 0.25 <= wshare <= 0.36:
            out.append(f"warn share {wshare:.2%} outside 25–36%")
    cr = [i for i in items if i["crisis_context"]]
    if len(cr) < 70:
        out.append(f"crisis_context items {len(cr)} (< 70)")
    cpos = sum(i["appropriateness"] == "pos" for i in cr)
    cwarn = sum(i["appropriateness"] == "warn" for i in cr)
    if cr and abs(cpos - cwarn) > max(6, 0.15 * len(cr)):
        out.append(f"crisis pos/warn unbalanced: {cpos}/{cwarn}")
    if not 380 <= n <= 460:
        out.append(f"total {n} not about 420")


def main():
    final = "--final" in sys.argv
    items, errors = parse()
    warnings = []
    validate(items, errors, warnings)
    set_checks(items, errors, warnings, final)
    rows = []
    for k, it in enumerate(items, 1):
        row = {"id": f"{ID_PREFIX}{k:04d}"}
        for key in KEYS[1:]:
            row[key] = it[key]
        rows.append(row)
    # schema re-check on built rows
    ids = set()
    for r in rows:
        if list(r.keys()) != KEYS:
            errors.append(f"{r['id']}: key order/schema mismatch")
        if r["id"] in ids:
            errors.append(f"{r['id']}: duplicate id")
        ids.add(r["id"])
        for key in ("client_prev", "counselor", "note"):
            if unicodedata.normalize("NFC", r[key]) != r[key]:
                errors.append(f"{r['id']}: {key} not NFC")
        if not set(r["techniques"]) <= TAXONOMY_CODES:
            errors.append(f"{r['id']}: unknown technique")
        if r["stage"] not in STAGES.values() or r["register"] not in REGS.values():
            errors.append(f"{r['id']}: bad stage/register")
        if r["appropriateness"] not in APPR.values() or not set(r["deviation"]) <= set(DEVS.values()):
            errors.append(f"{r['id']}: bad appropriateness/deviation")
        if not isinstance(r["crisis_context"], bool):
            errors.append(f"{r['id']}: crisis_context not bool")
    with open(OUT, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    # re-read to check round trip
    with open(OUT, encoding="utf-8") as fh:
        back = [json.loads(l) for l in fh]
    if back != rows:
        errors.append("round-trip mismatch")
    # report
    n = len(rows)
    print(f"items: {n}")
    print("per persona:", dict(sorted(Counter(r["persona"] for r in rows).items())))
    print("per stage:", dict(Counter(r["stage"] for r in rows)))
    print("per register:", dict(Counter(r["register"] for r in rows)))
    print("appropriateness:", dict(Counter(r["appropriateness"] for r in rows)))
    print("deviation:", dict(Counter(d for r in rows for d in r["deviation"])))
    cr = [r for r in rows if r["crisis_context"]]
    print(f"crisis_context: {len(cr)} (pos {sum(r['appropriateness']=='pos' for r in cr)}, "
          f"warn {sum(r['appropriateness']=='warn' for r in cr)})")
    print("crisis per persona:", dict(sorted(Counter(r["persona"] for r in cr).items())))
    tc = Counter(t for r in rows for t in r["techniques"])
    print("techniques:", dict(sorted(tc.items(), key=lambda x: -x[1])))
    print("multi-label items:", sum(len(r["techniques"]) > 1 for r in rows))
    print("voices:", dict(Counter(r["note"].split("]")[0][1:] for r in rows)))
    dup_prev = sum(c - 1 for c in Counter(norm(r["client_prev"]) for r in rows).values() if c > 1)
    print("repeated client_prev lines (info):", dup_prev)
    for w in warnings:
        print("WARNING:", w)
    for e in errors:
        print("ERROR:", e)
    print("OK" if not errors else f"FAILED ({len(errors)} errors)")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
