#!/usr/bin/env python3
"""Build + validate the PII held-out split (round 11, author B). Stdlib only.

Sources (src/):
  pii_*.txt   one item per line:   category :: text with [[pii]] marked :: note
  clean_*.txt one item per line:   text :: note
Blank lines and lines starting with '#' are ignored.  Files are read in sorted
name order, lines in file order; ids are assigned in that order.
The [[...]] markers are removed from the text; each marked span becomes one
entry of `pii` (in order of first appearance, exact duplicates listed once).
"""
import json, re, sys, unicodedata, glob, os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
        "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
MIN_PER_CAT = 12
MIN_NAME = 50
MARK = re.compile(r"\[\[(.+?)\]\]")
errors = []

def err(msg):
    errors.append(msg)

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"[.?!…~]+$", "", t).strip()
    return t

def parse_pii(path):
    items = []
    for ln, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = unicodedata.normalize("NFC", raw.rstrip("\n"))
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(" :: ")
        where = f"{os.path.basename(path)}:{ln}"
        if len(parts) != 3:
            err(f"{where}: expected 'category :: text :: note', got {len(parts)} fields"); continue
        cat, marked, note = (p.strip() for p in parts)
        if cat not in CATS:
            err(f"{where}: bad category {cat!r}"); continue
        pii = []
        for m in MARK.finditer(marked):
            v = m.group(1)
            if v != v.strip():
                err(f"{where}: pii span has outer whitespace {v!r}")
            if v not in pii:
                pii.append(v)
        text = MARK.sub(lambda m: m.group(1), marked)
        if "[[" in text or "]]" in text:
            err(f"{where}: unbalanced marker")
        if not pii:
            err(f"{where}: no [[pii]] marked")
        if not note:
            err(f"{where}: empty note")
        items.append({"_where": where, "category": cat, "text": text, "pii": pii, "note": note})
    return items

def parse_clean(path):
    items = []
    for ln, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = unicodedata.normalize("NFC", raw.rstrip("\n"))
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(" :: ")
        where = f"{os.path.basename(path)}:{ln}"
        if len(parts) != 2:
            err(f"{where}: expected 'text :: note', got {len(parts)} fields"); continue
        text, note = (p.strip() for p in parts)
        if "[[" in text or "]]" in text:
            err(f"{where}: pii marker in a clean item")
        if not note:
            err(f"{where}: empty note")
        items.append({"_where": where, "text": text, "note": note})
    return items

# Sanity regexes: shapes that must never appear in a clean item.
CLEAN_FORBID = [
    (re.compile(r"\d{6}\s*-\s*\d{7}"), "rrn/foreigner-id shape"),
    (re.compile(r"01[016789][- .]?\d{3,4}[- .]?\d{4}"), "mobile number"),
    (re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"), "email"),
    (re.compile(r"\d{4}[- ]\d{4}[- ]\d{4}[- ]\d{4}"), "card number"),
    (re.compile(r"\d{2,3}\s?[가-힣]\s?\d{4}(?!\d)"), "car plate shape"),
    (re.compile(r"\d+동\s?\d+호"), "apartment dong/ho"),
    (re.compile(r"[가-힣]+(?:리|동|로|길)\s?\d+-\d+(?:번지)?"), "lot number"),
    (re.compile(r"공일공"), "010 read aloud"),
]
HELPLINES_OK = re.compile(r"1577-0199|1577-1366|1577-1389|1899-9988|1588-9191")

def main():
    pii_items, clean_items = [], []
    for p in sorted(glob.glob(os.path.join(HERE, "src", "pii_*.txt"))):
        pii_items += parse_pii(p)
    for p in sorted(glob.glob(os.path.join(HERE, "src", "clean_*.txt"))):
        clean_items += parse_clean(p)

    out_pii, out_clean = [], []
    seen = {}
    for i, it in enumerate(pii_items, 1):
        rec = {"id": f"pii-t11b-{i:04d}", "category": it["category"], "text": it["text"],
               "pii": it["pii"], "note": it["note"]}
        for v in rec["pii"]:
            if v not in rec["text"]:
                err(f"{it['_where']}: pii {v!r} not a substring")
        n = norm(rec["text"])
        if n in seen:
            err(f"{it['_where']}: duplicate normalised text (also {seen[n]})")
        seen[n] = it["_where"]
        out_pii.append(rec)
    seen_c = {}
    for i, it in enumerate(clean_items, 1):
        rec = {"id": f"clean-t11b-{i:04d}", "text": it["text"], "note": it["note"]}
        n = norm(rec["text"])
        if n in seen_c:
            err(f"{it['_where']}: duplicate normalised clean text (also {seen_c[n]})")
        if n in seen:
            err(f"{it['_where']}: clean text equals a PII item text ({seen[n]})")
        seen_c[n] = it["_where"]
        scrub = HELPLINES_OK.sub(" ", rec["text"])
        for rx, what in CLEAN_FORBID:
            m = rx.search(scrub)
            if m:
                err(f"{it['_where']}: clean item looks like PII ({what}): {m.group(0)!r}")
        out_clean.append(rec)

    # schema / NFC checks on the final records
    for rec in out_pii:
        assert set(rec) == {"id", "category", "text", "pii", "note"}
        for k in ("text", "note"):
            if unicodedata.normalize("NFC", rec[k]) != rec[k]:
                err(f"{rec['id']}: {k} not NFC")
        if not isinstance(rec["pii"], list) or not all(isinstance(v, str) and v for v in rec["pii"]):
            err(f"{rec['id']}: bad pii list")
    for rec in out_clean:
        assert set(rec) == {"id", "text", "note"}

    cc = Counter(r["category"] for r in out_pii)
    final = "--partial" not in sys.argv
    if final:
        for c in CATS:
            need = MIN_NAME if c == "person_name" else MIN_PER_CAT
            if cc[c] < need:
                err(f"category {c}: {cc[c]} items < {need}")

    with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as f:
        for r in out_pii:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "clean_test.jsonl"), "w", encoding="utf-8") as f:
        for r in out_clean:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")

    # re-read what was written and check ids / json round-trip
    for fn, prefix in (("test.jsonl", "pii-t11b-"), ("clean_test.jsonl", "clean-t11b-")):
        ids = []
        for line in open(os.path.join(HERE, fn), encoding="utf-8"):
            ids.append(json.loads(line)["id"])
        want = [f"{prefix}{i:04d}" for i in range(1, len(ids) + 1)]
        if ids != want:
            err(f"{fn}: ids not sequential")

    print(f"PII items: {len(out_pii)}  clean items: {len(out_clean)}")
    for c in CATS:
        print(f"  {c:13s} {cc[c]}")
    print(f"  pii spans total: {sum(len(r['pii']) for r in out_pii)}")
    if errors:
        print(f"\n{len(errors)} ERROR(S):")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("OK")

if __name__ == "__main__":
    main()
