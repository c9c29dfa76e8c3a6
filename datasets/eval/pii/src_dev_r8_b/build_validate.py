#!/usr/bin/env python3
"""Build and validate the PII round-7 (author b) test split. stdlib only.

Sources (hand-written):
  src/pii.txt   - '@category default note' headers; item lines mark each PII value
                  inline as {{value}}; optional ' ## note' at end of line.
  src/clean.txt - '@default note' headers; one clean sentence per line; optional ' ## note'.
Outputs: test.jsonl, clean_test.jsonl (overwritten on build).
Usage: python3 build_validate.py          # build + validate
       python3 build_validate.py --check  # validate existing JSONL only
"""
import json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MIN = {c: 9 for c in CATS}
MIN["person_name"] = 35
MIN_PII, MIN_CLEAN = 150, 300
MARK = re.compile(r"\{\{(.+?)\}\}")


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def split_note(line):
    if " ## " in line:
        a, b = line.split(" ## ", 1)
        return a.rstrip(), b.strip()
    return line.rstrip(), None


def read_src(name):
    with open(os.path.join(HERE, "src", name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield n, line


def build():
    pii, cat, dnote = [], None, ""
    for n, line in read_src("pii.txt"):
        if line.startswith("@"):
            parts = line[1:].split(" ", 1)
            cat, dnote = parts[0], (parts[1] if len(parts) > 1 else "")
            continue
        body, note = split_note(line)
        vals = []
        for v in MARK.findall(body):
            if v not in vals:
                vals.append(v)
        text = MARK.sub(lambda m: m.group(1), body)
        pii.append({"id": "pii-t7b-%04d" % (len(pii) + 1), "category": cat, "text": text,
                    "pii": vals, "note": note or dnote, "_line": n})
    clean, dnote = [], ""
    for n, line in read_src("clean.txt"):
        if line.startswith("@"):
            dnote = line[1:].strip()
            continue
        body, note = split_note(line)
        clean.append({"id": "clean-t7b-%04d" % (len(clean) + 1), "text": body,
                      "note": note or dnote, "_line": n})
    for fn, rows in (("test.jsonl", pii), ("clean_test.jsonl", clean)):
        with open(os.path.join(HERE, fn), "w", encoding="utf-8") as f:
            for r in rows:
                r = {k: v for k, v in r.items() if k != "_line"}
                f.write(json.dumps(r, ensure_ascii=False) + "\n")


def load(fn, errs):
    rows = []
    with open(os.path.join(HERE, fn), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errs.append("%s:%d invalid JSON: %s" % (fn, i, e))
    return rows


def validate():
    errs = []
    pii = load("test.jsonl", errs)
    clean = load("clean_test.jsonl", errs)
    ids, seen = set(), {}
    for r in pii:
        for k in ("id", "category", "text", "pii", "note"):
            if k not in r:
                errs.append("%s missing %s" % (r.get("id"), k))
        if not re.fullmatch(r"pii-t7b-\d{4}", r.get("id", "")):
            errs.append("bad id %r" % r.get("id"))
        if r.get("category") not in CATS:
            errs.append("%s bad category %r" % (r["id"], r.get("category")))
        if not r.get("pii") or not isinstance(r["pii"], list):
            errs.append("%s empty pii" % r["id"])
        for v in r.get("pii", []):
            if not v or v not in r["text"]:
                errs.append("%s pii %r not a substring" % (r["id"], v))
        if "{{" in r["text"] or "}}" in r["text"]:
            errs.append("%s leftover marker" % r["id"])
    for r in clean:
        for k in ("id", "text", "note"):
            if k not in r:
                errs.append("%s missing %s" % (r.get("id"), k))
        if not re.fullmatch(r"clean-t7b-\d{4}", r.get("id", "")):
            errs.append("bad id %r" % r.get("id"))
        if "{{" in r["text"] or "}}" in r["text"]:
            errs.append("%s marker in clean text" % r["id"])
    for r in pii + clean:
        if r["id"] in ids:
            errs.append("duplicate id %s" % r["id"])
        ids.add(r["id"])
        k = norm(r["text"])
        if k in seen:
            errs.append("duplicate normalised text: %s / %s" % (seen[k], r["id"]))
        seen[k] = r["id"]
    # a clean sentence must not contain any PII value from the PII split
    # (birthday values are context-dependent: the same date is clean without a birthday cue)
    vals = {v for r in pii if r.get("category") != "birthday" for v in r["pii"] if len(v) >= 3}
    for r in clean:
        for v in vals:
            if v in r["text"]:
                errs.append("%s contains PII value %r" % (r["id"], v))
    cnt = Counter(r.get("category") for r in pii)
    for c in CATS:
        if cnt[c] < MIN[c]:
            errs.append("category %s: %d < %d" % (c, cnt[c], MIN[c]))
    if len(pii) < MIN_PII:
        errs.append("pii cases %d < %d" % (len(pii), MIN_PII))
    if len(clean) < MIN_CLEAN:
        errs.append("clean sentences %d < %d" % (len(clean), MIN_CLEAN))
    print("pii cases: %d  clean: %d" % (len(pii), len(clean)))
    print("per category: " + ", ".join("%s=%d" % (c, cnt[c]) for c in CATS))
    print("pii values total: %d" % sum(len(r["pii"]) for r in pii))
    if errs:
        print("ERRORS (%d):" % len(errs))
        for e in errs[:60]:
            print("  " + e)
        return 1
    print("OK: valid JSON, unique ids, allowed categories, required fields, "
          "pii substrings present, no duplicate normalised text")
    return 0


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(validate())
