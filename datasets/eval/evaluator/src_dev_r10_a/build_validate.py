#!/usr/bin/env python3
"""Build and validate the evaluator held-out split (author A, round 10).

stdlib only. Reads hand-written source files src/*.txt, writes test.jsonl,
validates format / allowed values / unique normalised counselor text / counts.

Source line format (see README.md):
    @P1 rapport                       <- block header: persona + stage for following lines
    reg | techs | appr | dev | crisis | client_prev | counselor | note
      reg    : f (formal) / h (haeyo) / b (banmal)
      techs  : comma-separated short codes (AR CQ OQ RS RF CH IP SD IM IN DG VA OT)
      appr   : pos / warn / neu
      dev    : '-' or comma-separated short codes (sf fo pa th sa)
      crisis : Y / N
      note   : optional (may be omitted)
    lines starting with '#' and blank lines are ignored.
"""
import collections
import glob
import json
import os
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
ID_PREFIX = "ev-t10a-"

TECH = {
    "AR": "approval_reassurance", "CQ": "closed_question", "OQ": "open_question",
    "RS": "restatement", "RF": "reflection_feelings", "CH": "challenge",
    "IP": "interpretation", "SD": "self_disclosure", "IM": "immediacy",
    "IN": "information", "DG": "direct_guidance", "VA": "validation", "OT": "other",
}
DEV = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
REG = {"f": "formal", "h": "haeyo", "b": "banmal"}
APPR = {"pos": "pos", "warn": "warn", "neu": "neutral"}
PERSONAS = {f"P{i}" for i in range(1, 8)}
STAGES = ["rapport", "exploration", "intervention", "closing"]
ALLOWED_TECH = set(TECH.values())
ALLOWED_DEV = set(DEV.values())
KEYS = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
        "appropriateness", "deviation", "crisis_context", "note"]


def norm(s: str) -> str:
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    s = s.rstrip(".?!…~").strip()
    return s


def parse():
    items, errors = [], []
    files = sorted(glob.glob(os.path.join(HERE, "src", "*.txt")))
    if not files:
        sys.exit("no source files in src/")
    for fn in files:
        persona = stage = None
        with open(fn, encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                line = unicodedata.normalize("NFC", raw.rstrip("\n"))
                where = f"{os.path.basename(fn)}:{ln}"
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                if line.startswith("@"):
                    parts = line[1:].split()
                    if len(parts) != 2 or parts[0] not in PERSONAS or parts[1] not in STAGES:
                        errors.append(f"{where}: bad header {line!r}")
                    persona, stage = parts[0], parts[1]
                    continue
                if persona is None:
                    errors.append(f"{where}: item before header")
                    continue
                f = [x.strip() for x in line.split("|")]
                if len(f) == 7:
                    f.append("")
                if len(f) != 8:
                    errors.append(f"{where}: expected 7-8 fields, got {len(f)}")
                    continue
                reg, techs, appr, dev, crisis, prev, couns, note = f
                try:
                    tl = [TECH[t.strip()] for t in techs.split(",") if t.strip()]
                    dl = [] if dev == "-" else [DEV[d.strip()] for d in dev.split(",") if d.strip()]
                    item = {
                        "persona": persona, "stage": stage, "register": REG[reg],
                        "client_prev": prev, "counselor": couns,
                        "techniques": tl, "appropriateness": APPR[appr],
                        "deviation": dl, "crisis_context": {"Y": True, "N": False}[crisis],
                        "note": note,
                    }
                except KeyError as e:
                    errors.append(f"{where}: unknown code {e}")
                    continue
                item["_where"] = where
                items.append(item)
    return items, errors


def validate(items, errors):
    seen = {}
    for it in items:
        w = it["_where"]
        if not it["techniques"]:
            errors.append(f"{w}: no techniques")
        if len(set(it["techniques"])) != len(it["techniques"]):
            errors.append(f"{w}: duplicate technique")
        if not set(it["techniques"]) <= ALLOWED_TECH:
            errors.append(f"{w}: bad technique")
        if not set(it["deviation"]) <= ALLOWED_DEV:
            errors.append(f"{w}: bad deviation")
        if it["appropriateness"] == "warn" and not it["deviation"]:
            errors.append(f"{w}: warn without deviation")
        if it["appropriateness"] != "warn" and it["deviation"]:
            errors.append(f"{w}: deviation on non-warn item")
        # safety rule (contract): in crisis context a warn is a safety miss; no neutral.
        if it["crisis_context"]:
            if it["appropriateness"] == "neutral":
                errors.append(f"{w}: neutral in crisis context")
            if it["appropriateness"] == "warn" and "safety" not in it["deviation"]:
                errors.append(f"{w}: crisis warn without safety")
        elif "safety" in it["deviation"]:
            errors.append(f"{w}: safety deviation without crisis context")
        if not it["counselor"] or not it["client_prev"]:
            errors.append(f"{w}: empty text field")
        if "|" in it["counselor"] or "|" in it["client_prev"]:
            errors.append(f"{w}: pipe in text")
        n = norm(it["counselor"])
        if n in seen:
            errors.append(f"{w}: duplicate normalised counselor (also {seen[n]})")
        seen[n] = w
    return errors


def main():
    items, errors = parse()
    errors = validate(items, errors)
    out = []
    for i, it in enumerate(items, 1):
        rec = {"id": f"{ID_PREFIX}{i:04d}"}
        for k in KEYS[1:]:
            rec[k] = it[k]
        out.append(rec)
    # round-trip / key check
    for rec in out:
        if list(rec.keys()) != KEYS:
            errors.append(f"{rec['id']}: key order")
        for k in ("client_prev", "counselor", "note"):
            if unicodedata.normalize("NFC", rec[k]) != rec[k]:
                errors.append(f"{rec['id']}: not NFC")
    c = collections.Counter
    n = len(out)
    by_p = c(r["persona"] for r in out)
    by_s = c(r["stage"] for r in out)
    by_r = c(r["register"] for r in out)
    by_a = c(r["appropriateness"] for r in out)
    by_t = c(t for r in out for t in r["techniques"])
    by_d = c(d for r in out for d in r["deviation"])
    crisis = sum(r["crisis_context"] for r in out)
    multi = sum(len(r["techniques"]) > 1 for r in out)
    cr_a = c(r["appropriateness"] for r in out if r["crisis_context"])
    ps = c((r["persona"], r["stage"]) for r in out)
    if set(by_p) != PERSONAS:
        errors.append(f"missing personas: {PERSONAS - set(by_p)}")
    for p in PERSONAS:
        for s in STAGES:
            if ps[(p, s)] == 0:
                errors.append(f"no items for {p}/{s}")
    if set(by_r) != set(REG.values()):
        errors.append("not all registers used")
    if not (370 <= n <= 430):
        errors.append(f"count {n} not about 400")
    if not (0.31 <= crisis / max(n, 1) <= 0.39):
        errors.append(f"crisis share {crisis / max(n, 1):.3f} not about 35%")
    if set(by_t) != ALLOWED_TECH:
        errors.append(f"techniques never used: {ALLOWED_TECH - set(by_t)}")

    print(f"items: {n}")
    print("persona:", dict(sorted(by_p.items())))
    print("stage:", {s: by_s[s] for s in STAGES})
    print("register:", dict(by_r))
    print("appropriateness:", dict(by_a))
    print(f"crisis_context true: {crisis} ({crisis / max(n,1):.1%}); by appropriateness: {dict(cr_a)}")
    print("multi-label items:", multi)
    print("techniques:", dict(by_t.most_common()))
    print("deviation:", dict(by_d.most_common()))
    print("persona x stage:", {f"{p}/{s[:3]}": ps[(p, s)] for p in sorted(PERSONAS) for s in STAGES})
    if errors:
        print(f"\n{len(errors)} ERROR(S):")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as fh:
        for rec in out:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    # re-read check
    with open(OUT, encoding="utf-8") as fh:
        back = [json.loads(l) for l in fh]
    assert len(back) == n and back == out
    print(f"\nOK -> {OUT}")


if __name__ == "__main__":
    main()
