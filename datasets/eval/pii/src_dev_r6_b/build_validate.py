#!/usr/bin/env python3
"""Build and validate the round-5 PII test split (author b). stdlib only.

Sources (hand-written, tab-separated):
  src_pii.tsv   : category <TAB> text <TAB> pii1;;pii2 <TAB> note
  src_clean.tsv : text <TAB> note
Outputs: test.jsonl (pii-t5b-NNNN), clean_test.jsonl (clean-t5b-NNNN).
Usage: python3 build_validate.py [--check-only]
"""
import json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MINS = {c: 9 for c in CATS}
MINS["person_name"] = 35
MIN_PII, MIN_CLEAN = 150, 300


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def read_tsv(name, ncols):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != ncols:
                sys.exit(f"{name}:{ln}: expected {ncols} columns, got {len(parts)}")
            rows.append(parts)
    return rows


def build():
    pii = []
    for i, (cat, text, vals, note) in enumerate(read_tsv("src_pii.tsv", 4), 1):
        pii.append({"id": f"pii-t5b-{i:04d}", "category": cat, "text": text,
                    "pii": [v for v in vals.split(";;") if v], "note": note})
    clean = []
    for i, (text, note) in enumerate(read_tsv("src_clean.tsv", 2), 1):
        clean.append({"id": f"clean-t5b-{i:04d}", "text": text, "note": note})
    for name, rows in (("test.jsonl", pii), ("clean_test.jsonl", clean)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")


def load(name):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                errs.append(f"{name}:{ln}: invalid JSON: {e}")
    return out


errs = []


def validate():
    pii, clean = load("test.jsonl"), load("clean_test.jsonl")
    ids, seen = set(), {}
    for r in pii:
        for k in ("id", "category", "text", "pii", "note"):
            if k not in r:
                errs.append(f"{r.get('id')}: missing {k}")
        if set(r) - {"id", "category", "text", "pii", "note"}:
            errs.append(f"{r['id']}: extra keys")
        if not re.fullmatch(r"pii-t5b-\d{4}", r["id"]):
            errs.append(f"{r['id']}: bad id")
        if r["category"] not in CATS:
            errs.append(f"{r['id']}: bad category {r['category']}")
        if not isinstance(r["pii"], list) or not r["pii"]:
            errs.append(f"{r['id']}: empty pii")
        for v in r["pii"]:
            if not v.strip() or v not in r["text"]:
                errs.append(f"{r['id']}: pii {v!r} not an exact substring")
    for r in clean:
        for k in ("id", "text", "note"):
            if k not in r:
                errs.append(f"{r.get('id')}: missing {k}")
        if set(r) - {"id", "text", "note"}:
            errs.append(f"{r['id']}: extra keys")
        if not re.fullmatch(r"clean-t5b-\d{4}", r["id"]):
            errs.append(f"{r['id']}: bad id")
    for r in pii + clean:
        if r["id"] in ids:
            errs.append(f"duplicate id {r['id']}")
        ids.add(r["id"])
        if r["text"] != unicodedata.normalize("NFC", r["text"]):
            errs.append(f"{r['id']}: text not NFC")
        n = norm(r["text"])
        if n in seen:
            errs.append(f"duplicate normalised text: {r['id']} = {seen[n]}")
        seen[n] = r["id"]
    # no PII value from the PII set may appear inside a clean sentence
    vals = {v for r in pii for v in r["pii"] if len(v) >= 3}
    for r in clean:
        for v in vals:
            if v in r["text"]:
                errs.append(f"{r['id']}: clean text contains PII value {v!r}")
    cc = Counter(r["category"] for r in pii)
    for c, m in MINS.items():
        if cc[c] < m:
            errs.append(f"category {c}: {cc[c]} < {m}")
    if len(pii) < MIN_PII:
        errs.append(f"pii cases {len(pii)} < {MIN_PII}")
    if len(clean) < MIN_CLEAN:
        errs.append(f"clean sentences {len(clean)} < {MIN_CLEAN}")
    print(f"test.jsonl: {len(pii)} PII cases; clean_test.jsonl: {len(clean)} clean sentences")
    print("per category: " + ", ".join(f"{c}={cc[c]}" for c in CATS))
    if errs:
        print(f"FAIL: {len(errs)} problem(s)")
        for e in errs[:50]:
            print("  " + e)
        return 1
    print("OK: valid JSON, unique ids, allowed categories, required fields, pii substrings exact, "
          "no duplicate normalised text")
    return 0


if __name__ == "__main__":
    if "--check-only" not in sys.argv:
        build()
    sys.exit(validate())
