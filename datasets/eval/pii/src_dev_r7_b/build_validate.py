#!/usr/bin/env python3
"""Build + validate PII round-6 author-b sets (stdlib only).
Sources: src_pii.txt  lines 'category|text with ⟦pii⟧ spans|note'
         src_clean*.txt lines 'text' or 'text|note'
Outputs: test.jsonl, clean_test.jsonl
"""
import json, re, sys, unicodedata, glob, os
HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"person_name","rrn","phone","email","account","card","foreigner_id","passport",
        "car_plate","school_class","sns_id","birthday","address"}
MIN = {c: 9 for c in CATS}; MIN["person_name"] = 35
def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()
errs = []
def src_lines(pattern):
    for fn in sorted(glob.glob(os.path.join(HERE, pattern))):
        for i, ln in enumerate(open(fn, encoding="utf-8"), 1):
            ln = ln.rstrip("\n")
            if ln.strip() and not ln.startswith("#"):
                yield os.path.basename(fn), i, ln
pii, clean = [], []
for fn, i, ln in src_lines("src_pii.txt"):
    parts = ln.split("|")
    if len(parts) != 3: errs.append(f"{fn}:{i} bad field count"); continue
    cat, raw, note = parts
    spans = re.findall(r"⟦(.*?)⟧", raw)
    text = raw.replace("⟦", "").replace("⟧", "")
    if cat not in CATS: errs.append(f"{fn}:{i} bad cat {cat}")
    if not spans: errs.append(f"{fn}:{i} no pii span")
    pii.append({"id": f"pii-t6b-{len(pii)+1:04d}", "category": cat, "text": text,
                "pii": list(dict.fromkeys(spans)), "note": note or f"{cat} case"})
for fn, i, ln in src_lines("src_clean*.txt"):
    text, _, note = ln.partition("|")
    if "⟦" in text: errs.append(f"{fn}:{i} marker in clean")
    clean.append({"id": f"clean-t6b-{len(clean)+1:04d}", "text": text, "note": note or "clean counseling talk"})
with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as f:
    for o in pii: f.write(json.dumps(o, ensure_ascii=False) + "\n")
with open(os.path.join(HERE, "clean_test.jsonl"), "w", encoding="utf-8") as f:
    for o in clean: f.write(json.dumps(o, ensure_ascii=False) + "\n")
# ---- validate from the written files ----
seen_ids, seen_norm, counts = set(), {}, {}
for fn, req in (("test.jsonl", ("id","category","text","pii","note")), ("clean_test.jsonl", ("id","text","note"))):
    for i, ln in enumerate(open(os.path.join(HERE, fn), encoding="utf-8"), 1):
        try: o = json.loads(ln)
        except Exception as e: errs.append(f"{fn}:{i} invalid json {e}"); continue
        for k in req:
            if k not in o or o[k] in ("", None, []): errs.append(f"{fn}:{i} missing {k}")
        if o.get("id") in seen_ids: errs.append(f"{fn}:{i} dup id {o.get('id')}")
        seen_ids.add(o.get("id"))
        if not o["text"].strip() or o["text"] != o["text"].strip(): errs.append(f"{fn}:{i} whitespace at ends")
        n = norm(o["text"])
        if n in seen_norm: errs.append(f"{fn}:{i} dup normalised text with {seen_norm[n]}")
        seen_norm[n] = o["id"]
        if fn == "test.jsonl":
            if o["category"] not in CATS: errs.append(f"{fn}:{i} bad category")
            counts[o["category"]] = counts.get(o["category"], 0) + 1
            for s in o["pii"]:
                if s not in o["text"]: errs.append(f"{fn}:{i} pii not substring: {s}")
                if s != s.strip(): errs.append(f"{fn}:{i} pii span has edge whitespace: {s!r}")
for c in sorted(CATS):
    if counts.get(c, 0) < MIN[c]: errs.append(f"category {c}: {counts.get(c,0)} < {MIN[c]}")
if len(clean) < 300: errs.append(f"clean: {len(clean)} < 300")
print(f"pii cases: {len(pii)}  clean: {len(clean)}")
print("per category: " + ", ".join(f"{c}={counts.get(c,0)}" for c in sorted(CATS)))
if errs:
    print(f"VALIDATION FAILED ({len(errs)} errors)"); [print(" ", e) for e in errs[:60]]; sys.exit(1)
print("VALIDATION OK: valid JSON, unique ids, allowed codes, required fields, pii substrings present, no duplicate normalised text")
