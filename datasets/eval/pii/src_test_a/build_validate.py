#!/usr/bin/env python3
"""Build and validate the PII held-out split (author A, round 11).

stdlib only.  Reads hand-written sources from src/:
  src/pii_*.txt    one PII item per line:   category || text || pii1 ;; pii2 ;; ... || note
  src/clean_*.txt  one clean item per line: text || note
Blank lines and lines starting with '#' are ignored.  Files are read in sorted
name order; ids are assigned in that order (pii-t11a-0001..., clean-t11a-0001...).
Writes test.jsonl and clean_test.jsonl next to this script, then validates them.
Exit code 0 = valid, 1 = problems (printed).
"""
import json
import os
import re
import sys
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
CATEGORIES = [
    "person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
    "passport", "car_plate", "school_class", "sns_id", "birthday", "address",
]
MIN_PER_CAT = 12
MIN_PERSON_NAME = 50
PII_KEYS = ["id", "category", "text", "pii", "note"]
CLEAN_KEYS = ["id", "text", "note"]

errors = []


def err(msg):
    errors.append(msg)


def norm(text):
    t = unicodedata.normalize("NFC", text).lower()
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"[.?!…~]+$", "", t).strip()
    return t


def read_lines(prefix):
    out = []
    for fn in sorted(os.listdir(SRC)):
        if not (fn.startswith(prefix) and fn.endswith(".txt")):
            continue
        with open(os.path.join(SRC, fn), encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                line = raw.rstrip("\n").rstrip("\r")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                out.append((fn, ln, line))
    return out


def build():
    pii_items, clean_items = [], []
    for fn, ln, line in read_lines("pii_"):
        parts = [p.strip() for p in line.split(" || ")]
        if len(parts) != 4:
            err(f"{fn}:{ln}: expected 4 fields, got {len(parts)}: {line[:60]}")
            continue
        cat, text, pii, note = parts
        values = [v.strip() for v in pii.split(" ;; ") if v.strip()]
        pii_items.append({
            "id": f"pii-t11a-{len(pii_items) + 1:04d}",
            "category": cat,
            "text": unicodedata.normalize("NFC", text),
            "pii": [unicodedata.normalize("NFC", v) for v in values],
            "note": unicodedata.normalize("NFC", note),
            "_src": f"{fn}:{ln}",
        })
    for fn, ln, line in read_lines("clean_"):
        parts = [p.strip() for p in line.split(" || ")]
        if len(parts) != 2:
            err(f"{fn}:{ln}: expected 2 fields, got {len(parts)}: {line[:60]}")
            continue
        text, note = parts
        clean_items.append({
            "id": f"clean-t11a-{len(clean_items) + 1:04d}",
            "text": unicodedata.normalize("NFC", text),
            "note": unicodedata.normalize("NFC", note),
            "_src": f"{fn}:{ln}",
        })
    return pii_items, clean_items


def write(path, items, keys):
    with open(path, "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps({k: it[k] for k in keys}, ensure_ascii=False) + "\n")


# --- lint patterns: things that must never appear in a clean item -----------
CLEAN_FORBIDDEN = [
    (r"01[016789][-. )]*\d{3,4}[-. ]*\d{4}", "mobile number"),
    (r"\b0\d{1,2}[-)]\s*\d{3,4}-\d{4}\b", "landline number"),
    (r"[\w.+-]+@[\w-]+\.[\w.]+", "email"),
    (r"\d{6}\s*-\s*[1-8]\d{6}", "rrn / foreigner id"),
    (r"\d{4}[- ]\d{4}[- ]\d{4}[- ]\d{4}", "card number"),
    (r"\d{2,3}\s?[가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주바사아자배하허호]\s?\d{4}(?!\d)", "car plate shape"),
    (r"(?<![\w])@[A-Za-z0-9_.]{3,}", "sns handle"),
    (r"\b[A-Z]{1,2}\d{7,8}\b", "passport shape"),
    (r"공일공", "phone in words"),
]
# person_name values must not carry a particle / honorific (contract: names without particle/honorific)
NAME_TAIL = re.compile(r"(씨|님|쌤|선배|선생님|이모|언니|형|누나|오빠|한테|에게|께서)$")
# particles that must not be glued to the end of an email / id value
GLUED = re.compile(r"(이에요|예요|이고|으로|로|이요|입니다|이랑|은|는|을|를|이|가)$")


def validate(pii_items, clean_items):
    seen = {}
    # ---- PII file
    cat_count = Counter()
    for it in pii_items:
        src = it["_src"]
        if it["category"] not in CATEGORIES:
            err(f"{src}: bad category {it['category']!r}")
        cat_count[it["category"]] += 1
        t = it["text"]
        if not t:
            err(f"{src}: empty text")
        if not it["pii"]:
            err(f"{src}: empty pii list")
        if not it["note"]:
            err(f"{src}: empty note")
        for v in it["pii"]:
            if v not in t:
                err(f"{src}: pii {v!r} not a substring of text")
            if v != v.strip():
                err(f"{src}: pii {v!r} has surrounding whitespace")
        if len(set(it["pii"])) != len(it["pii"]):
            err(f"{src}: duplicate pii value")
        if it["category"] == "person_name":
            for v in it["pii"]:
                if re.fullmatch(r"[가-힣]+", v) and NAME_TAIL.search(v) and len(v) > 3:
                    err(f"{src}: name value {v!r} seems to carry an honorific/particle")
        for v in it["pii"]:
            if "@" in v and "." in v and GLUED.search(v):
                err(f"{src}: email {v!r} has a glued particle")
        if it["category"] == "email" and not any("@" in v for v in it["pii"]) and not re.search(
            r"(골뱅이|네이버|지메일|한메일|다음메일|at )", t
        ):
            err(f"{src}: email item without '@' value or a dictated-email cue")
        if it["category"] in ("phone", "rrn", "card", "account", "foreigner_id") and not any(
            re.search(r"\d", v) or re.search(r"[공일이삼사오육칠팔구영]{3,}", v) for v in it["pii"]
        ):
            err(f"{src}: numeric category with no number-like value")
        n = norm(t)
        if n in seen:
            err(f"{src}: duplicate normalised text (also {seen[n]})")
        seen[n] = src
    for c in CATEGORIES:
        need = MIN_PERSON_NAME if c == "person_name" else MIN_PER_CAT
        if cat_count[c] < need:
            err(f"category {c}: {cat_count[c]} items < {need}")
    # ---- clean file
    for it in clean_items:
        src = it["_src"]
        t = it["text"]
        if not t:
            err(f"{src}: empty text")
        if not it["note"]:
            err(f"{src}: empty note")
        for pat, what in CLEAN_FORBIDDEN:
            if re.search(pat, t):
                err(f"{src}: clean text looks like it holds a {what}: {t[:50]}")
        n = norm(t)
        if n in seen:
            err(f"{src}: duplicate normalised text (also {seen[n]})")
        seen[n] = src
    # ---- re-read the written files: schema, ids, NFC
    for fname, keys, prefix in (("test.jsonl", PII_KEYS, "pii-t11a-"), ("clean_test.jsonl", CLEAN_KEYS, "clean-t11a-")):
        path = os.path.join(HERE, fname)
        with open(path, encoding="utf-8") as fh:
            raw = fh.read()
        if unicodedata.normalize("NFC", raw) != raw:
            err(f"{fname}: not NFC")
        for i, line in enumerate(raw.splitlines(), 1):
            obj = json.loads(line)
            if list(obj.keys()) != keys:
                err(f"{fname}:{i}: keys {list(obj.keys())} != {keys}")
            if obj["id"] != f"{prefix}{i:04d}":
                err(f"{fname}:{i}: id {obj['id']} out of sequence")
            for k, v in obj.items():
                if k == "pii":
                    if not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                        err(f"{fname}:{i}: pii must be a list of strings")
                elif not isinstance(v, str):
                    err(f"{fname}:{i}: {k} must be a string")
    return cat_count


def main():
    pii_items, clean_items = build()
    write(os.path.join(HERE, "test.jsonl"), pii_items, PII_KEYS)
    write(os.path.join(HERE, "clean_test.jsonl"), clean_items, CLEAN_KEYS)
    cat_count = validate(pii_items, clean_items)
    print(f"test.jsonl: {len(pii_items)} PII items; clean_test.jsonl: {len(clean_items)} clean items")
    print("per category: " + ", ".join(f"{c}={cat_count[c]}" for c in CATEGORIES))
    print(f"pii values total: {sum(len(i['pii']) for i in pii_items)}")
    if errors:
        print(f"\n{len(errors)} problem(s):")
        for e in errors:
            print("  - " + e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
