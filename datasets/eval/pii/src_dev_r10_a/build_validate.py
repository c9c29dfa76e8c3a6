#!/usr/bin/env python3
"""Build test.jsonl / clean_test.jsonl from hand-written src/*.txt and validate (stdlib only).

Source line format:  code|text with [[value]] marks|optional note
  PII files  (src/pii_*.txt):  code in CATS; every [[...]] becomes an entry of "pii" (marks removed from text).
  Clean files (src/clean_*.txt): code in GROUPS; no [[...]] allowed.
Lines starting with '#' and blank lines are ignored.
"""
import glob, json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"nm": "person_name", "rrn": "rrn", "ph": "phone", "em": "email", "ac": "account", "cd": "card",
        "fi": "foreigner_id", "pp": "passport", "car": "car_plate", "sc": "school_class", "sns": "sns_id",
        "bd": "birthday", "ad": "address"}
GROUPS = {"ev": "everyday", "sy": "syllable_trap", "sn": "surname_syllable_word", "nn": "namelike_noun",
          "nu": "non_pii_number", "hl": "helpline", "cu": "cue_no_value"}
MIN_CAT = {c: 10 for c in CATS.values()}
MIN_CAT["person_name"] = 55
MIN_TEST, MIN_CLEAN = 185, 340
MARK = re.compile(r"\[\[(.+?)\]\]")
errors = []

def err(msg):
    errors.append(msg)

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def read(pattern):
    rows = []
    for fn in sorted(glob.glob(os.path.join(HERE, "src", pattern))):
        with open(fn, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                where = f"{os.path.basename(fn)}:{ln}"
                if unicodedata.normalize("NFC", line) != line:
                    err(f"{where}: source not NFC")
                parts = line.split("|", 2)
                if len(parts) < 2:
                    err(f"{where}: bad line"); continue
                code, body = parts[0].strip(), parts[1]
                note = parts[2].strip() if len(parts) == 3 else ""
                rows.append((where, code, body, note))
    return rows

# ---- PII test set
test = []
for where, code, body, note in read("pii_*.txt"):
    if code not in CATS:
        err(f"{where}: unknown category code {code!r}"); continue
    pii = MARK.findall(body)
    text = MARK.sub(lambda m: m.group(1), body)
    if "[[" in text or "]]" in text:
        err(f"{where}: unbalanced marks")
    if not pii:
        err(f"{where}: PII item without marked value")
    for v in pii:
        if v not in text or v != v.strip() or not v:
            err(f"{where}: pii value {v!r} not an exact trimmed substring")
    cat = CATS[code]
    test.append({"id": None, "category": cat, "text": text, "pii": pii,
                 "note": note or cat, "_where": where})

# ---- clean set
clean = []
for where, code, body, note in read("clean_*.txt"):
    if code not in GROUPS:
        err(f"{where}: unknown clean group {code!r}"); continue
    if "[[" in body or "]]" in body:
        err(f"{where}: marks in clean item")
    g = GROUPS[code]
    clean.append({"id": None, "text": body, "note": g + (f": {note}" if note else ""), "_where": where})

# sanity: clean items must not look like obvious PII values
SUSPECT = [re.compile(p) for p in [
    r"01[016789][-. ]?\d{3,4}[-. ]?\d{4}", r"\d{6}\s*-\s*\d{7}", r"[\w.]+@[\w-]+\.\w+", r"\d{4}[- ]\d{4}[- ]\d{4}[- ]\d{4}",
    r"\d{2,3}\s?[가나다라마바사아자거너더러머버서어저고노도로모보소오조구누두루무부수우주하허호배]\s?\d{4}", r"\b[A-Z]\d{8}\b", r"생일\s*(은|이|:)?\s*\d", r"@\w{3,}"]]
for r in clean:
    for p in SUSPECT:
        if p.search(r["text"]):
            err(f"{r['_where']}: clean text matches PII-like pattern {p.pattern!r}: {r['text']}")

# uniqueness (within each file and across both)
seen = {}
for r in test + clean:
    k = norm(r["text"])
    if k in seen:
        err(f"{r['_where']}: duplicate normalised text (also {seen[k]})")
    seen[k] = r["_where"]
    if not r["text"].strip():
        err(f"{r['_where']}: empty text")

for i, r in enumerate(test, 1):
    r["id"] = f"pii-t9a-{i:04d}"
for i, r in enumerate(clean, 1):
    r["id"] = f"clean-t9a-{i:04d}"

cc = Counter(r["category"] for r in test)
for c, m in MIN_CAT.items():
    if cc[c] < m:
        err(f"category {c}: {cc[c]} < {m}")
if len(test) < MIN_TEST:
    err(f"test items {len(test)} < {MIN_TEST}")
if len(clean) < MIN_CLEAN:
    err(f"clean items {len(clean)} < {MIN_CLEAN}")
gc = Counter(r["note"].split(":")[0] for r in clean)
for g in GROUPS.values():
    if gc[g] < 1:
        err(f"clean group {g} empty")

def dump(rows, fn, keys):
    path = os.path.join(HERE, fn)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({k: r[k] for k in keys}, ensure_ascii=False) + "\n")
    # re-read check
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            o = json.loads(line)
            if set(o) != set(keys):
                err(f"{fn}:{ln}: bad keys")
            for k in ("text", "note"):
                if unicodedata.normalize("NFC", o[k]) != o[k]:
                    err(f"{fn}:{ln}: {k} not NFC")
            if "pii" in o:
                if not isinstance(o["pii"], list) or not all(isinstance(v, str) and v in o["text"] for v in o["pii"]):
                    err(f"{fn}:{ln}: pii not exact substrings")
                if o["category"] not in CATS.values():
                    err(f"{fn}:{ln}: bad category")

dump(test, "test.jsonl", ["id", "category", "text", "pii", "note"])
dump(clean, "clean_test.jsonl", ["id", "text", "note"])

print(f"test.jsonl: {len(test)} items, {sum(len(r['pii']) for r in test)} pii values")
for c in CATS.values():
    print(f"  {c:14s} {cc[c]:4d}  (min {MIN_CAT[c]})")
print(f"clean_test.jsonl: {len(clean)} items")
for g in GROUPS.values():
    print(f"  {g:22s} {gc[g]:4d}")
for e in errors:
    print("ERROR:", e)
print("VALID, 0 errors" if not errors else f"INVALID, {len(errors)} errors")
sys.exit(1 if errors else 0)
