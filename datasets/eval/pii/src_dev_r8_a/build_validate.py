#!/usr/bin/env python3
"""Build and validate the round-7 author-A PII test split (stdlib only).

Sources (hand-written):
  src_pii.txt   : `category ¦ text ¦ pii1 ‖ pii2 ¦ note`  ('#' lines are comments)
  src_clean.txt : one sentence per line; '#: note' sets the note for following lines
Outputs:
  test.jsonl, clean_test.jsonl
Usage:
  python3 build_validate.py            # build + validate
  python3 build_validate.py --check    # validate existing jsonl only
"""
import json
import os
import re
import sys
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MIN_PER_CAT = {c: 9 for c in CATS}
MIN_PER_CAT["person_name"] = 35
MIN_PII, MIN_CLEAN = 150, 300
PII_ID = re.compile(r"^pii-t7a-\d{4}$")
CLEAN_ID = re.compile(r"^clean-t7a-\d{4}$")


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()


def build():
    pii_rows, clean_rows = [], []
    with open(os.path.join(HERE, "src_pii.txt"), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" ¦ ")]
            if len(parts) != 4:
                sys.exit(f"src_pii.txt:{ln}: expected 4 fields, got {len(parts)}")
            cat, text, pii, note = parts
            pii_rows.append({"id": f"pii-t7a-{len(pii_rows) + 1:04d}", "category": cat,
                             "text": text, "pii": [p.strip() for p in pii.split("‖")],
                             "note": note})
    note = ""
    with open(os.path.join(HERE, "src_clean.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#:"):
                note = line[2:].strip()
                continue
            if not line.strip() or line.startswith("#"):
                continue
            clean_rows.append({"id": f"clean-t7a-{len(clean_rows) + 1:04d}",
                               "text": line.strip(), "note": note})
    for name, rows in (("test.jsonl", pii_rows), ("clean_test.jsonl", clean_rows)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as out:
            for r in rows:
                out.write(json.dumps(r, ensure_ascii=False) + "\n")


def load(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                ERR.append(f"{name}:{ln}: invalid JSON ({e})")
    return rows


ERR = []


def validate():
    pii = load("test.jsonl")
    clean = load("clean_test.jsonl")
    ids, seen = set(), {}
    cats = Counter()
    for r in pii:
        rid = r.get("id", "?")
        if set(r) != {"id", "category", "text", "pii", "note"}:
            ERR.append(f"{rid}: fields {sorted(r)}")
        if not PII_ID.match(rid):
            ERR.append(f"{rid}: bad id")
        if r.get("category") not in CATS:
            ERR.append(f"{rid}: bad category {r.get('category')}")
        cats[r.get("category")] += 1
        t = r.get("text", "")
        if not isinstance(r.get("pii"), list) or not r["pii"]:
            ERR.append(f"{rid}: empty pii")
        for p in r.get("pii") or []:
            if not p or p not in t:
                ERR.append(f"{rid}: pii {p!r} not a substring of text")
        if not r.get("note"):
            ERR.append(f"{rid}: empty note")
    for r in clean:
        rid = r.get("id", "?")
        if set(r) != {"id", "text", "note"}:
            ERR.append(f"{rid}: fields {sorted(r)}")
        if not CLEAN_ID.match(rid):
            ERR.append(f"{rid}: bad id")
        if not r.get("text"):
            ERR.append(f"{rid}: empty text")
    for r in pii + clean:
        rid = r.get("id", "?")
        if rid in ids:
            ERR.append(f"{rid}: duplicate id")
        ids.add(rid)
        n = norm(r.get("text", ""))
        if n in seen:
            ERR.append(f"{rid}: duplicate normalised text with {seen[n]}")
        seen[n] = rid
        if unicodedata.normalize("NFC", r.get("text", "")) != r.get("text", ""):
            ERR.append(f"{rid}: text not NFC")
    for c, m in MIN_PER_CAT.items():
        if cats[c] < m:
            ERR.append(f"category {c}: {cats[c]} < {m}")
    if len(pii) < MIN_PII:
        ERR.append(f"pii cases {len(pii)} < {MIN_PII}")
    if len(clean) < MIN_CLEAN:
        ERR.append(f"clean sentences {len(clean)} < {MIN_CLEAN}")
    print(f"test.jsonl: {len(pii)} PII cases; clean_test.jsonl: {len(clean)} clean sentences")
    print("per category: " + ", ".join(f"{c}={cats[c]}" for c in CATS))
    notes = Counter(r.get("note") for r in clean)
    print(f"clean note groups: {len(notes)}")
    if ERR:
        print(f"FAIL: {len(ERR)} problem(s)")
        for e in ERR:
            print("  " + e)
        return 1
    print("OK: valid JSON, unique ids, allowed categories, required fields, "
          "pii substrings present, no duplicate normalised text")
    return 0


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(validate())
