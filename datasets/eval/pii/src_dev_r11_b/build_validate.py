#!/usr/bin/env python3
"""Build test.jsonl / clean_test.jsonl from hand-written src/*.txt and validate them (stdlib only)."""
import json, re, sys, unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATS = ["person_name", "rrn", "phone", "email", "account", "card", "foreigner_id", "passport",
        "car_plate", "school_class", "sns_id", "birthday", "address"]
SPEAKERS = {"T": "teen", "C": "counsellor", "P": "parent", "H": "teacher"}
CLEAN_TAGS = ["everyday", "syllable", "surname", "namelike", "number", "class", "helpline", "cue"]
errors = []

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return s.rstrip(".?!…~").strip()

def lines(path):
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip() and not raw.lstrip().startswith("#"):
            yield n, unicodedata.normalize("NFC", raw)

def build_pii():
    out = []
    for n, raw in lines(HERE / "src" / "pii.txt"):
        parts = [p.strip() for p in raw.split("|")]
        if len(parts) != 5:
            errors.append(f"pii.txt:{n}: expected 5 fields, got {len(parts)}"); continue
        cat, spk, text, pii, note = parts
        if cat not in CATS: errors.append(f"pii.txt:{n}: bad category {cat}")
        if spk not in SPEAKERS: errors.append(f"pii.txt:{n}: bad speaker {spk}")
        vals = [v.strip() for v in pii.split(" ; ") if v.strip()]
        if not vals: errors.append(f"pii.txt:{n}: empty pii")
        for v in vals:
            if v not in text: errors.append(f"pii.txt:{n}: pii {v!r} not an exact substring")
        if len(set(vals)) != len(vals): errors.append(f"pii.txt:{n}: duplicate pii value")
        full = f"{SPEAKERS[spk]}; " + (note if note else cat)
        out.append({"id": None, "category": cat, "text": text, "pii": vals, "note": full, "_spk": spk})
    for i, o in enumerate(out, 1):
        o["id"] = f"pii-t10b-{i:04d}"
    return out

# shapes that must not appear in the clean set (sanity only)
CLEAN_BAD = [
    (r"\d{6}\s?-\s?\d{7}", "rrn-like"), (r"01[016789][-. ]?\d{3,4}[-. ]?\d{4}", "phone-like"),
    (r"[\w.]+@[\w.]+", "email/handle"), (r"\d{4}[- .]\d{4}[- .]\d{4}[- .]\d{4}", "card-like"),
    (r"\d{2,3}[가-힣] ?\d{4}", "plate-like"), (r"\d+동 ?\d+호", "dong-ho"),
    (r"[가-힣]+(중|고|초|여고|여중|중학교|고등학교)\s?\d학년", "school+grade"),
    (r"생일[은이]?\s*\d", "birthday value"), (r"[가-힣]+(로|길)\s?\d+", "road+number"),
]

def build_clean():
    out = []
    for n, raw in lines(HERE / "src" / "clean.txt"):
        parts = [p.strip() for p in raw.split("|")]
        if len(parts) != 4:
            errors.append(f"clean.txt:{n}: expected 4 fields, got {len(parts)}"); continue
        tag, spk, text, note = parts
        if tag not in CLEAN_TAGS: errors.append(f"clean.txt:{n}: bad tag {tag}")
        if spk not in SPEAKERS: errors.append(f"clean.txt:{n}: bad speaker {spk}")
        for rx, what in CLEAN_BAD:
            if tag == "helpline" and what == "plate-like":
                continue  # "109나 1388" is a deliberate plate-shaped hard negative
            if re.search(rx, text): errors.append(f"clean.txt:{n}: looks like PII ({what}): {text}")
        full = f"{tag}; {SPEAKERS[spk]}" + (f"; {note}" if note else "")
        out.append({"id": None, "text": text, "note": full, "_tag": tag, "_spk": spk})
    for i, o in enumerate(out, 1):
        o["id"] = f"clean-t10b-{i:04d}"
    return out

def uniq(rows, name):
    seen = {}
    for r in rows:
        k = norm(r["text"])
        if k in seen: errors.append(f"{name}: duplicate normalised text {r['id']} = {seen[k]}: {r['text']}")
        seen[k] = r["id"]
    return set(seen)

def check_values(rows):
    for r in rows:
        t = r["text"]
        if t != unicodedata.normalize("NFC", t): errors.append(f"{r['id']}: not NFC")
        if r["category"] == "card":
            for v in r["pii"]:
                d = re.sub(r"\D", "", v)
                if d and len(r["pii"]) == 1 and len(d) not in (15, 16):
                    errors.append(f"{r['id']}: card digits {len(d)}")
        if r["category"] in ("rrn", "foreigner_id") and len(r["pii"]) == 1 and re.search(r"\d", r["pii"][0]):
            d = re.sub(r"\D", "", r["pii"][0])
            if len(d) != 13 and not (r["category"] == "rrn" and len(d) == 6):
                errors.append(f"{r['id']}: id digits {len(d)}")
        if r["category"] == "foreigner_id":
            for v in r["pii"]:
                d = re.sub(r"\D", "", v)
                if len(d) == 13 and d[6] not in "5678": errors.append(f"{r['id']}: foreigner 7th digit")
        if r["category"] == "rrn":
            for v in r["pii"]:
                d = re.sub(r"\D", "", v)
                if len(d) == 13 and d[6] not in "1234": errors.append(f"{r['id']}: rrn 7th digit")

def main():
    pii, clean = build_pii(), build_clean()
    check_values(pii)
    a, b = uniq(pii, "test"), uniq(clean, "clean_test")
    for k in a & b: errors.append(f"text in both files: {k}")
    cc = Counter(r["category"] for r in pii)
    if cc["person_name"] < 60: errors.append(f"person_name only {cc['person_name']}")
    for c in CATS:
        if c != "person_name" and cc[c] < 11: errors.append(f"{c} only {cc[c]}")
    if not 190 <= len(pii) <= 215: errors.append(f"test.jsonl size {len(pii)}")
    if not 330 <= len(clean) <= 380: errors.append(f"clean_test.jsonl size {len(clean)}")
    if errors:
        print("\n".join(errors)); print(f"FAILED: {len(errors)} problem(s)"); sys.exit(1)
    with open(HERE / "test.jsonl", "w", encoding="utf-8") as f:
        for r in pii:
            f.write(json.dumps({k: r[k] for k in ("id", "category", "text", "pii", "note")}, ensure_ascii=False) + "\n")
    with open(HERE / "clean_test.jsonl", "w", encoding="utf-8") as f:
        for r in clean:
            f.write(json.dumps({k: r[k] for k in ("id", "text", "note")}, ensure_ascii=False) + "\n")
    # re-read and check the written files
    for fn, keys in (("test.jsonl", ["id", "category", "text", "pii", "note"]), ("clean_test.jsonl", ["id", "text", "note"])):
        for ln in (HERE / fn).read_text(encoding="utf-8").splitlines():
            o = json.loads(ln); assert list(o) == keys, (fn, o)
    print(f"OK test.jsonl {len(pii)} items; clean_test.jsonl {len(clean)} items")
    print("categories:", dict(sorted(cc.items())))
    print("pii values:", sum(len(r["pii"]) for r in pii))
    print("test speakers:", dict(Counter(SPEAKERS[r["_spk"]] for r in pii)))
    print("clean tags:", dict(Counter(r["_tag"] for r in clean)))
    print("clean speakers:", dict(Counter(SPEAKERS[r["_spk"]] for r in clean)))

if __name__ == "__main__":
    main()
