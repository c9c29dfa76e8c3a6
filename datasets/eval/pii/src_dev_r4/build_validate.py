#!/usr/bin/env python3
"""Build test.jsonl / clean_test.jsonl from the hand-written sources and validate them.
Stdlib only. Usage: python3 build_validate.py            (build + validate)
                    python3 build_validate.py --check    (validate existing JSONL only)
Source format (one item a line, '#' lines are comments):
  pii_src.txt   : category | text | pii1;;pii2 | note
  clean_src.txt : text | note
"""
import json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MINS = {c: 16 for c in CATS}
MINS["person_name"] = 45
MIN_PII, MIN_CLEAN = 260, 500

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def read_src(name, nfields):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != nfields:
                sys.exit(f"{name}:{ln}: expected {nfields} fields, got {len(parts)}: {line}")
            rows.append(parts)
    return rows

def build():
    pii = []
    for i, (cat, text, vals, note) in enumerate(read_src("pii_src.txt", 4), 1):
        pii.append({"id": f"pii-t3-{i:04d}", "category": cat, "text": text,
                    "pii": [v.strip() for v in vals.split(";;") if v.strip()], "note": note})
    clean = [{"id": f"clean-t3-{i:04d}", "text": t, "note": n}
             for i, (t, n) in enumerate(read_src("clean_src.txt", 2), 1)]
    for fn, rows in (("test.jsonl", pii), ("clean_test.jsonl", clean)):
        with open(os.path.join(HERE, fn), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

def load(fn):
    rows = []
    with open(os.path.join(HERE, fn), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                errs.append(f"{fn}:{ln}: invalid JSON: {e}")
    return rows

errs, warns = [], []

def validate():
    pii, clean = load("test.jsonl"), load("clean_test.jsonl")
    ids, seen = set(), {}
    for r in pii:
        rid = r.get("id", "?")
        for k in ("id", "category", "text", "pii", "note"):
            if k not in r:
                errs.append(f"{rid}: missing field {k}")
        if not re.fullmatch(r"pii-t3-\d{4}", rid): errs.append(f"{rid}: bad id")
        if r.get("category") not in CATS: errs.append(f"{rid}: bad category {r.get('category')}")
        if not isinstance(r.get("pii"), list) or not r["pii"]: errs.append(f"{rid}: pii must be non-empty list")
        for v in r.get("pii", []):
            if v not in r["text"]: errs.append(f"{rid}: pii {v!r} not a substring of text")
    for r in clean:
        rid = r.get("id", "?")
        for k in ("id", "text", "note"):
            if k not in r: errs.append(f"{rid}: missing field {k}")
        if not re.fullmatch(r"clean-t3-\d{4}", rid): errs.append(f"{rid}: bad id")
        # lint: long digit runs in clean text look like leaked identifiers
        digits = re.sub(r"[\s\-.,]", "", re.sub(r"15\d\d-\d{4}", "", r["text"]))
        if re.search(r"\d{7,}", digits) and "1,250,000" not in r["text"]:
            warns.append(f"{rid}: long digit run in clean text: {r['text']}")
        if re.search(r"\S+@\S+\.\S+", r["text"]): errs.append(f"{rid}: email-like string in clean text")
    for r in pii + clean:
        rid = r.get("id", "?")
        if rid in ids: errs.append(f"duplicate id {rid}")
        ids.add(rid)
        t = r.get("text", "")
        if not t.strip(): errs.append(f"{rid}: empty text")
        if unicodedata.normalize("NFC", t) != t: errs.append(f"{rid}: text not NFC")
        n = norm(t)
        if not n: errs.append(f"{rid}: empty normalised text")
        if n in seen: errs.append(f"{rid}: duplicate normalised text with {seen[n]}")
        seen[n] = rid
    cnt = Counter(r.get("category") for r in pii)
    for c in CATS:
        if cnt[c] < MINS[c]: errs.append(f"category {c}: {cnt[c]} < {MINS[c]}")
    if len(pii) < MIN_PII: errs.append(f"pii cases {len(pii)} < {MIN_PII}")
    if len(clean) < MIN_CLEAN: errs.append(f"clean sentences {len(clean)} < {MIN_CLEAN}")
    print(f"test.jsonl: {len(pii)} PII cases; clean_test.jsonl: {len(clean)} clean sentences")
    print("per category: " + ", ".join(f"{c}={cnt[c]}" for c in CATS))
    for w in warns: print("WARN", w)
    for e in errs: print("ERROR", e)
    print("VALID" if not errs else f"INVALID ({len(errs)} errors)")
    return not errs

if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
