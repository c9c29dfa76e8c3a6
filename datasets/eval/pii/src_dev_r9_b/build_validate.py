#!/usr/bin/env python3
"""Build test.jsonl / clean_test.jsonl from hand-written sources and validate (stdlib only).
Source line format:  category @@ text @@ pii1 ;; pii2 @@ note   (PII)
                     group @@ text                             (clean)
"""
import json, re, sys, unicodedata, os
from collections import Counter
HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name","rrn","phone","email","account","card","foreigner_id","passport",
        "car_plate","school_class","sns_id","birthday","address"]
MIN = {c: 10 for c in CATS}; MIN["person_name"] = 55
CLEAN_GROUPS = ["everyday","syllable_trap","surname_start","name_noun","number","helpline","cue_no_value"]
PII_SRC = ["pii_names.txt","pii_ids.txt","pii_misc.txt"]
CLEAN_SRC = ["clean_a.txt","clean_b.txt","clean_c.txt"]
errors = []
def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()
def lines(fn):
    with open(os.path.join(HERE, fn), encoding="utf-8") as f:
        for i, l in enumerate(f, 1):
            l = l.rstrip("\n")
            if l.strip() and not l.startswith("#"):
                yield fn, i, unicodedata.normalize("NFC", l)
pii = []
for fn, i, l in (x for f in PII_SRC for x in lines(f)):
    p = [s.strip() for s in l.split("@@")]
    if len(p) != 4: errors.append(f"{fn}:{i} expected 4 fields"); continue
    cat, text, vals, note = p
    vals = [v.strip() for v in vals.split(";;") if v.strip()]
    if cat not in CATS: errors.append(f"{fn}:{i} bad category {cat}")
    if not vals: errors.append(f"{fn}:{i} empty pii")
    for v in vals:
        if v not in text: errors.append(f"{fn}:{i} pii not substring: {v!r}")
    pii.append({"id": f"pii-t8b-{len(pii)+1:04d}", "category": cat, "text": text, "pii": vals, "note": note})
clean = []
for fn, i, l in (x for f in CLEAN_SRC for x in lines(f)):
    p = [s.strip() for s in l.split("@@")]
    if len(p) != 2: errors.append(f"{fn}:{i} expected 2 fields"); continue
    g, text = p
    if g not in CLEAN_GROUPS: errors.append(f"{fn}:{i} bad group {g}")
    clean.append({"id": f"clean-t8b-{len(clean)+1:04d}", "text": text, "note": f"group={g}"})
for name, rows in (("test", pii), ("clean_test", clean)):
    seen = {}
    for r in rows:
        n = norm(r["text"])
        if n in seen: errors.append(f"{name}: duplicate normalised text {r['id']} = {seen[n]}")
        seen[n] = r["id"]
        if not r["text"]: errors.append(f"{r['id']} empty text")
# cross-file duplicates
ct = {norm(r["text"]) for r in clean}
for r in pii:
    if norm(r["text"]) in ct: errors.append(f"{r['id']} text also in clean set")
cc = Counter(r["category"] for r in pii)
for c, m in MIN.items():
    if cc[c] < m: errors.append(f"category {c}: {cc[c]} < {m}")
if len(pii) < 185: errors.append(f"pii total {len(pii)} < 185")
if len(clean) < 340: errors.append(f"clean total {len(clean)} < 340")
def dump(fn, rows):
    with open(os.path.join(HERE, fn), "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(r, ensure_ascii=False) + "\n")
dump("test.jsonl", pii); dump("clean_test.jsonl", clean)
# re-read and check
for fn, keys in (("test.jsonl", {"id","category","text","pii","note"}), ("clean_test.jsonl", {"id","text","note"})):
    with open(os.path.join(HERE, fn), encoding="utf-8") as f:
        for k, l in enumerate(f, 1):
            o = json.loads(l)
            if set(o) != keys: errors.append(f"{fn}:{k} fields {sorted(o)}")
            for v in [o["text"], o["note"]] + o.get("pii", []):
                if unicodedata.normalize("NFC", v) != v: errors.append(f"{fn}:{k} not NFC")
            for v in o.get("pii", []):
                if v not in o["text"]: errors.append(f"{fn}:{k} pii not substring")
print("PII items:", len(pii))
for c in CATS: print(f"  {c:13s} {cc[c]}")
gc = Counter(r["note"][6:] for r in clean)
print("clean items:", len(clean))
for g in CLEAN_GROUPS: print(f"  {g:13s} {gc[g]}")
for e in errors: print("ERROR:", e)
print("errors:", len(errors)); print("VALID" if not errors else "INVALID")
sys.exit(1 if errors else 0)
