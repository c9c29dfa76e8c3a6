#!/usr/bin/env python3
"""Build and validate the PII held-out split (author A, round 10) from hand-written sources.

Stdlib only. Reads src/pii_items.txt and src/clean_items.txt, writes test.jsonl and
clean_test.jsonl, and checks them against the format contract (§ PII).
"""
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
CATEGORIES = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id",
              "passport", "car_plate", "school_class", "sns_id", "birthday", "address"]
PUBLIC_LINES = {"109", "1393", "1577-0199", "119", "112", "1388", "1303"}

errors = []


def err(msg):
    errors.append(msg)


def norm(text):
    t = unicodedata.normalize("NFC", text).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return t.rstrip(".?!…~").strip()


def nfc(s):
    return unicodedata.normalize("NFC", s)


def read_test():
    items = []
    for ln, raw in enumerate((SRC / "pii_items.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) not in (3, 4):
            err(f"pii_items.txt:{ln}: expected 3 or 4 '|' fields, got {len(parts)}")
            continue
        cat, text, pii_field = parts[0], nfc(parts[1]), parts[2]
        note = parts[3] if len(parts) == 4 and parts[3] else f"{cat}: clear case"
        pii = [nfc(p.strip()) for p in pii_field.split(";;") if p.strip()]
        items.append({"category": cat, "text": text, "pii": pii, "note": note, "_ln": ln})
    return items


def read_clean():
    items, note = [], None
    for ln, raw in enumerate((SRC / "clean_items.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("## note:"):
            note = line[len("## note:"):].strip()
            continue
        if line.startswith("#"):
            continue
        if note is None:
            err(f"clean_items.txt:{ln}: no note header before first item")
        items.append({"text": nfc(line), "note": note or "", "_ln": ln})
    return items


# heuristic patterns: a clean line must not contain anything shaped like PII
CLEAN_SUSPECT = [
    (re.compile(r"01[016789][-. ]?\d{3,4}[-. ]?\d{4}"), "mobile number"),
    (re.compile(r"\d{6}\s*-\s*\d{1,7}"), "rrn/arc-like"),
    (re.compile(r"\d{7,}"), "long digit run"),
    (re.compile(r"[\w.]+@[\w.]+"), "email/handle"),
    (re.compile(r"\d{2,3}\s?[가-힣]\s?\d{4}"), "car plate"),
    (re.compile(r"[A-Za-z]\d{7,8}"), "passport-like"),
    (re.compile(r"[가-힣]+(로|길)\s?\d+(-\d+)?(?![\d시분번개명층일년월살])"), "road + number"),
    (re.compile(r"\d+동\s?\d+호"), "동/호"),
    (re.compile(r"(고등학교|중학교|초등학교|여고|대학교)"), "school name?"),
]
CLEAN_ALLOW_SCHOOL = {"대학교 2학년"}


def main():
    test = read_test()
    clean = read_clean()

    # ---- test.jsonl ----
    out_test, seen = [], {}
    for i, it in enumerate(test, 1):
        ln = it["_ln"]
        if it["category"] not in CATEGORIES:
            err(f"pii_items.txt:{ln}: bad category {it['category']!r}")
        if not it["pii"]:
            err(f"pii_items.txt:{ln}: empty pii list")
        for p in it["pii"]:
            if p not in it["text"]:
                err(f"pii_items.txt:{ln}: pii {p!r} is not an exact substring of the text")
            if p in PUBLIC_LINES:
                err(f"pii_items.txt:{ln}: public help line listed as pii: {p!r}")
        if len(set(it["pii"])) != len(it["pii"]):
            err(f"pii_items.txt:{ln}: duplicate pii pieces")
        n = norm(it["text"])
        if n in seen:
            err(f"pii_items.txt:{ln}: duplicate normalised text (also line {seen[n]})")
        seen[n] = ln
        cat = it["category"]
        if cat == "email" and not any("@" in p or "골뱅이" in p for p in it["pii"]):
            err(f"pii_items.txt:{ln}: email item without an address-shaped pii")
        if cat in ("rrn", "phone", "account", "card", "foreigner_id", "car_plate") and \
                not any(re.search(r"\d|[공영일이삼사오육칠팔구]{3}", p) for p in it["pii"]):
            err(f"pii_items.txt:{ln}: {cat} item without a numeric pii")
        out_test.append({"id": f"pii-t10a-{i:04d}", "category": cat, "text": it["text"],
                         "pii": it["pii"], "note": it["note"]})

    # ---- clean_test.jsonl ----
    out_clean, seen_c = [], {}
    for i, it in enumerate(clean, 1):
        ln = it["_ln"]
        n = norm(it["text"])
        if n in seen_c:
            err(f"clean_items.txt:{ln}: duplicate normalised text (also line {seen_c[n]})")
        if n in seen:
            err(f"clean_items.txt:{ln}: same normalised text as a test item")
        seen_c[n] = ln
        if "|" in it["text"]:
            err(f"clean_items.txt:{ln}: stray '|'")
        for rx, what in CLEAN_SUSPECT:
            m = rx.search(it["text"])
            if m and not any(a in it["text"] for a in CLEAN_ALLOW_SCHOOL):
                err(f"clean_items.txt:{ln}: looks like PII ({what}): {m.group(0)!r}")
        out_clean.append({"id": f"clean-t10a-{i:04d}", "text": it["text"], "note": it["note"]})

    # ---- counts ----
    cats = Counter(x["category"] for x in out_test)
    if cats["person_name"] < 60:
        err(f"person_name count {cats['person_name']} < 60")
    for c in CATEGORIES:
        if c != "person_name" and cats[c] < 11:
            err(f"category {c} count {cats[c]} < 11")
    if not 190 <= len(out_test) <= 240:
        err(f"test size {len(out_test)} not about 200")
    if not 330 <= len(out_clean) <= 400:
        err(f"clean size {len(out_clean)} not about 350")

    # ---- write + round-trip ----
    for name, rows in (("test.jsonl", out_test), ("clean_test.jsonl", out_clean)):
        path = HERE / name
        with path.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            obj = json.loads(line)
            if unicodedata.normalize("NFC", line) != line:
                err(f"{name}:{k}: not NFC")
            want = {"id", "category", "text", "pii", "note"} if name == "test.jsonl" else {"id", "text", "note"}
            if set(obj) != want:
                err(f"{name}:{k}: keys {sorted(obj)}")

    print(f"test.jsonl: {len(out_test)} items")
    for c in CATEGORIES:
        print(f"  {c:13s} {cats[c]}")
    print(f"  pii pieces total {sum(len(x['pii']) for x in out_test)}")
    print(f"clean_test.jsonl: {len(out_clean)} items")
    for note, k in Counter(x["note"] for x in out_clean).items():
        print(f"  {k:4d}  {note}")
    if errors:
        print(f"\nFAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        sys.exit(1)
    print("\nOK: all checks passed")


if __name__ == "__main__":
    main()
