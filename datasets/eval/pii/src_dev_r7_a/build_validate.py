#!/usr/bin/env python3
"""Build and validate the round-6 author-A PII held-out set (stdlib only).

Sources (hand-written, one item per line, '|'-separated) live in ./src/:
  pii_*.txt   : category|text|pii1;;pii2|note
  clean*.txt  : text|note
Outputs: test.jsonl, clean_test.jsonl.  Usage: python3 build_validate.py [--check-only]
"""
import json, os, re, sys, unicodedata, glob
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MINS = {c: 9 for c in CATS}
MINS["person_name"] = 35
MIN_PII, MIN_CLEAN = 150, 300
PII_ORDER = ["pii_names.txt", "pii_ids.txt", "pii_mixed.txt"]


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def build():
    pii, clean = [], []
    for fn in PII_ORDER:
        for ln, line in enumerate(open(os.path.join(HERE, "src", fn), encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("|")
            if len(parts) != 4:
                sys.exit(f"{fn}:{ln}: expected 4 fields, got {len(parts)}")
            cat, text, vals, note = parts
            pii.append({"id": f"pii-t6a-{len(pii)+1:04d}", "category": cat, "text": text,
                        "pii": [v for v in vals.split(";;")], "note": note})
    for fn in sorted(glob.glob(os.path.join(HERE, "src", "clean*.txt"))):
        for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("|")
            if len(parts) != 2:
                sys.exit(f"{os.path.basename(fn)}:{ln}: expected 2 fields, got {len(parts)}")
            clean.append({"id": f"clean-t6a-{len(clean)+1:04d}", "text": parts[0], "note": parts[1]})
    for name, rows in (("test.jsonl", pii), ("clean_test.jsonl", clean)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")


def load(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                errs.append(f"{name}:{i}: invalid JSON ({e})")
    return rows


errs = []


def validate():
    pii, clean = load("test.jsonl"), load("clean_test.jsonl")
    ids, seen = set(), {}
    for r in pii:
        for k in ("id", "category", "text", "pii", "note"):
            if k not in r:
                errs.append(f"{r.get('id')}: missing {k}")
        if not re.fullmatch(r"pii-t6a-\d{4}", r.get("id", "")):
            errs.append(f"{r.get('id')}: bad id")
        if r.get("category") not in CATS:
            errs.append(f"{r['id']}: bad category {r.get('category')}")
        if not isinstance(r.get("pii"), list) or not r["pii"]:
            errs.append(f"{r['id']}: empty pii")
        for v in r.get("pii", []):
            if not v.strip() or v not in r["text"]:
                errs.append(f"{r['id']}: pii {v!r} not a substring of text")
    for r in clean:
        for k in ("id", "text", "note"):
            if k not in r:
                errs.append(f"{r.get('id')}: missing {k}")
        if not re.fullmatch(r"clean-t6a-\d{4}", r.get("id", "")):
            errs.append(f"{r.get('id')}: bad id")
    for r in pii + clean:
        if r["id"] in ids:
            errs.append(f"duplicate id {r['id']}")
        ids.add(r["id"])
        n = norm(r["text"])
        if n in seen:
            errs.append(f"duplicate normalised text: {r['id']} vs {seen[n]}")
        seen[n] = r["id"]
        if r["text"] != r["text"].strip():
            errs.append(f"{r['id']}: leading/trailing whitespace")
    # no PII value of the case set may appear inside a clean sentence
    vals = {v for r in pii for v in r["pii"] if len(v) >= 2}
    for r in clean:
        for v in vals:
            if v in r["text"] and len(v) >= 3:
                errs.append(f"{r['id']}: clean text contains PII value {v!r}")
    cnt = Counter(r["category"] for r in pii)
    for c, m in MINS.items():
        if cnt[c] < m:
            errs.append(f"category {c}: {cnt[c]} < {m}")
    if len(pii) < MIN_PII:
        errs.append(f"PII cases {len(pii)} < {MIN_PII}")
    if len(clean) < MIN_CLEAN:
        errs.append(f"clean sentences {len(clean)} < {MIN_CLEAN}")
    print(f"test.jsonl: {len(pii)} PII cases, {sum(len(r['pii']) for r in pii)} pii substrings")
    print("  " + ", ".join(f"{c}={cnt[c]}" for c in CATS))
    print(f"clean_test.jsonl: {len(clean)} clean sentences")
    print("VALIDATION: " + ("OK" if not errs else f"{len(errs)} error(s)"))
    for e in errs:
        print("  " + e)
    return not errs


if __name__ == "__main__":
    if "--check-only" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
