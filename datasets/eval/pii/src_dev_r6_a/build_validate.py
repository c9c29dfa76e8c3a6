#!/usr/bin/env python3
"""Build and validate the round-5 (author a) PII test split. Stdlib only.
Sources: pii_src.txt  (category ## text ## pii1 ;; pii2 ## note)
         clean_src.txt (text ## note)
Outputs: test.jsonl, clean_test.jsonl  (format per formats.md, PII section)
Usage: python3 build_validate.py          # build + validate
       python3 build_validate.py --check  # validate existing jsonl only
"""
import json, re, sys, unicodedata, collections, os

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MINS = {c: 9 for c in CATS}; MINS["person_name"] = 35
MIN_PII, MIN_CLEAN = 150, 300

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def build():
    cases = []
    for ln in open(os.path.join(HERE, "pii_src.txt"), encoding="utf-8"):
        ln = ln.rstrip("\n")
        if not ln.strip():
            continue
        cat, text, pii, note = [p.strip() for p in ln.split(" ## ")]
        cases.append({"category": cat, "text": unicodedata.normalize("NFC", text),
                      "pii": [unicodedata.normalize("NFC", p.strip()) for p in pii.split(";;")],
                      "note": note})
    order = {c: i for i, c in enumerate(CATS)}
    cases.sort(key=lambda r: order.get(r["category"], 99))  # stable: grouped by category
    with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as f:
        for i, r in enumerate(cases, 1):
            r = {"id": "pii-t5a-%04d" % i, **r}
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    clean = []
    for ln in open(os.path.join(HERE, "clean_src.txt"), encoding="utf-8"):
        ln = ln.rstrip("\n")
        if not ln.strip():
            continue
        text, note = [p.strip() for p in ln.split(" ## ")]
        clean.append({"text": unicodedata.normalize("NFC", text), "note": note})
    with open(os.path.join(HERE, "clean_test.jsonl"), "w", encoding="utf-8") as f:
        for i, r in enumerate(clean, 1):
            f.write(json.dumps({"id": "clean-t5a-%04d" % i, **r}, ensure_ascii=False) + "\n")

def load(name):
    rows = []
    for n, ln in enumerate(open(os.path.join(HERE, name), encoding="utf-8"), 1):
        try:
            rows.append(json.loads(ln))
        except json.JSONDecodeError as e:
            err("%s:%d invalid JSON: %s" % (name, n, e))
    return rows

ERRS = []
def err(m): ERRS.append(m)

def validate():
    pii, clean = load("test.jsonl"), load("clean_test.jsonl")
    ids, seen = set(), {}
    for r in pii:
        for k in ("id", "category", "text", "pii", "note"):
            if k not in r: err("%s missing %s" % (r.get("id"), k))
        if not re.fullmatch(r"pii-t5a-\d{4}", r["id"]): err("bad id " + r["id"])
        if r["category"] not in CATS: err("%s bad category %s" % (r["id"], r["category"]))
        if not isinstance(r["pii"], list) or not r["pii"]: err(r["id"] + " empty pii")
        for p in r["pii"]:
            if not p or p not in r["text"]: err("%s pii %r not a substring" % (r["id"], p))
        if unicodedata.normalize("NFC", r["text"]) != r["text"]: err(r["id"] + " not NFC")
    for r in clean:
        for k in ("id", "text", "note"):
            if k not in r: err("%s missing %s" % (r.get("id"), k))
        if not re.fullmatch(r"clean-t5a-\d{4}", r["id"]): err("bad id " + r["id"])
        if unicodedata.normalize("NFC", r["text"]) != r["text"]: err(r["id"] + " not NFC")
    for r in pii + clean:
        if r["id"] in ids: err("duplicate id " + r["id"])
        ids.add(r["id"])
        k = norm(r["text"])
        if k in seen: err("duplicate normalised text: %s / %s" % (seen[k], r["id"]))
        seen[k] = r["id"]
    # a clean sentence must not contain any of the PII values of the PII set
    allpii = {p for r in pii for p in r["pii"] if len(p) >= 3}
    for r in clean:
        for p in allpii:
            if p in r["text"]: err("%s contains pii value %r" % (r["id"], p))
    cnt = collections.Counter(r["category"] for r in pii)
    for c in CATS:
        if cnt[c] < MINS[c]: err("category %s has %d < %d" % (c, cnt[c], MINS[c]))
    if len(pii) < MIN_PII: err("pii cases %d < %d" % (len(pii), MIN_PII))
    if len(clean) < MIN_CLEAN: err("clean sentences %d < %d" % (len(clean), MIN_CLEAN))
    print("test.jsonl: %d cases | clean_test.jsonl: %d sentences" % (len(pii), len(clean)))
    print("per category: " + ", ".join("%s=%d" % (c, cnt[c]) for c in CATS))
    if ERRS:
        print("VALIDATION FAILED (%d):" % len(ERRS)); [print("  " + e) for e in ERRS]
        return 1
    print("VALIDATION OK: valid JSON, unique ids, allowed categories, required fields, "
          "pii substrings present, no duplicate normalised text, minimum counts met")
    return 0

if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(validate())
