#!/usr/bin/env python3
"""Build test.jsonl / clean_test.jsonl from pii_src.txt / clean_src.txt and validate (stdlib only)."""
import json, re, sys, unicodedata, os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id", "passport",
        "car_plate", "school_class", "sns_id", "birthday", "address"]
MIN_CAT = {c: 10 for c in CATS}; MIN_CAT["person_name"] = 55
MIN_PII, MIN_CLEAN = 185, 340
GROUPS = {"everyday", "syllable", "surname", "namenoun", "number", "helpline", "cue"}
errors = []

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return t.rstrip(".?!…~").strip()

def read_src(name):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            out.append((n, [x.strip() for x in line.split("@@")]))
    return out

def nfc(s): return unicodedata.normalize("NFC", s)

# ---- PII ----
pii_rows, seen = [], {}
for n, f in read_src("pii_src.txt"):
    if len(f) != 4:
        errors.append(f"pii_src:{n}: expected 4 fields, got {len(f)}"); continue
    cat, text, vals, note = f
    text = nfc(text)
    if cat not in CATS: errors.append(f"pii_src:{n}: bad category {cat}")
    pieces = [nfc(v.strip()) for v in vals.split("&&") if v.strip()]
    if not pieces: errors.append(f"pii_src:{n}: empty pii list")
    for v in pieces:
        if v not in text: errors.append(f"pii_src:{n}: pii {v!r} not a substring of text")
    if len(set(pieces)) != len(pieces): errors.append(f"pii_src:{n}: duplicate pii piece")
    k = norm(text)
    if k in seen: errors.append(f"pii_src:{n}: duplicate normalised text (also line {seen[k]})")
    seen[k] = n
    pii_rows.append({"id": f"pii-t9b-{len(pii_rows)+1:04d}", "category": cat, "text": text,
                     "pii": pieces, "note": note})

# ---- clean ----
clean_rows, cseen = [], {}
SUSPECT = [(r"\d{6,}", "6+ digit run"), (r"[\w.]+@[\w-]+\.\w", "email-like"),
           (r"01[016789][-. ]?\d{3,4}[-. ]?\d{4}", "mobile-like"), (r"\d{2,3}[가-힣]\s?\d{4}", "plate-like"),
           (r"\d+동\s?\d+호", "unit-like"), (r"(로|길|리)\s?\d+(-\d+)?(번지)?\b", "road/lot-like")]
for n, f in read_src("clean_src.txt"):
    if len(f) != 3:
        errors.append(f"clean_src:{n}: expected 3 fields, got {len(f)}"); continue
    grp, text, note = f
    text = nfc(text)
    if grp not in GROUPS: errors.append(f"clean_src:{n}: bad group {grp}")
    for rx, why in SUSPECT:
        if re.search(rx, text): errors.append(f"clean_src:{n}: looks like PII ({why}): {text}")
    k = norm(text)
    if k in cseen: errors.append(f"clean_src:{n}: duplicate normalised text (also line {cseen[k]})")
    if k in seen: errors.append(f"clean_src:{n}: same normalised text as a PII item")
    cseen[k] = n
    clean_rows.append({"id": f"clean-t9b-{len(clean_rows)+1:04d}", "text": text,
                       "note": f"{grp}: {note}" if note else grp, "_g": grp})

# ---- counts ----
cc = Counter(r["category"] for r in pii_rows)
for c, m in MIN_CAT.items():
    if cc[c] < m: errors.append(f"category {c}: {cc[c]} < {m}")
if len(pii_rows) < MIN_PII: errors.append(f"pii items {len(pii_rows)} < {MIN_PII}")
if len(clean_rows) < MIN_CLEAN: errors.append(f"clean items {len(clean_rows)} < {MIN_CLEAN}")
gc = Counter(r.pop("_g") for r in clean_rows)

# ---- write + re-read check ----
for name, rows in (("test.jsonl", pii_rows), ("clean_test.jsonl", clean_rows)):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try: o = json.loads(line)
            except Exception as e: errors.append(f"{name}:{i}: invalid JSON {e}"); continue
            keys = {"id", "category", "text", "pii", "note"} if name == "test.jsonl" else {"id", "text", "note"}
            if set(o) != keys: errors.append(f"{name}:{i}: fields {sorted(o)}")
            if unicodedata.normalize("NFC", line) != line: errors.append(f"{name}:{i}: not NFC")

print("PII items:", len(pii_rows))
for c in CATS: print(f"  {c:13s} {cc[c]}")
print("clean items:", len(clean_rows))
for g in sorted(gc): print(f"  {g:13s} {gc[g]}")
print("pii substrings total:", sum(len(r['pii']) for r in pii_rows))
for e in errors: print("ERROR:", e)
print("VALID" if not errors else "INVALID", f"({len(errors)} errors)")
sys.exit(1 if errors else 0)
