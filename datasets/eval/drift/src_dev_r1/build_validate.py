#!/usr/bin/env python3
"""Build dev.jsonl / test.jsonl from src/*.txt and validate them (stdlib only).
Source line format: PERSONA|REG|META|TEXT|NOTE
  REG: s=hapsyo y=haeyo b=banmal n=none ; META: 1/0
Usage: python3 build_validate.py [--validate-only]
"""
import glob, json, os, re, sys, unicodedata, collections

HERE = os.path.dirname(os.path.abspath(__file__))
REG = {"s": "hapsyo", "y": "haeyo", "b": "banmal", "n": "none"}
ALLOWED_REG = set(REG.values())
PERSONAS = {f"P{i}" for i in range(1, 8)}
REQ = ("id", "persona", "text", "register", "meta", "note")

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def build():
    items = []
    for f in sorted(glob.glob(os.path.join(HERE, "src", "*.txt"))):
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            p = line.split("|")
            if len(p) < 4:
                sys.exit(f"{f}:{n}: bad line")
            note = p[4].strip() if len(p) > 4 else ""
            items.append({"persona": p[0], "text": unicodedata.normalize("NFC", p[3]),
                          "register": REG[p[1]], "meta": p[2] == "1", "note": note})
    dev, test = [], []
    for i, it in enumerate(items):
        (dev if i % 3 == 1 else test).append(it)
    for name, rows, pre in (("dev", dev, "dr-d"), ("test", test, "dr-t")):
        with open(os.path.join(HERE, f"{name}.jsonl"), "w", encoding="utf-8") as o:
            for k, it in enumerate(rows, 1):
                rec = {"id": f"{pre}-{k:04d}", **it}
                o.write(json.dumps(rec, ensure_ascii=False) + "\n")

def validate():
    ok = True
    seen_ids, seen_norm = set(), {}
    for name, pre in (("dev", "dr-d-"), ("test", "dr-t-")):
        path = os.path.join(HERE, f"{name}.jsonl")
        c_reg, c_meta, c_p = collections.Counter(), collections.Counter(), collections.Counter()
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            try:
                r = json.loads(line)
            except Exception as e:
                print(f"{name}:{n} invalid JSON {e}"); ok = False; continue
            miss = [k for k in REQ if k not in r]
            if miss: print(f"{name}:{n} missing {miss}"); ok = False; continue
            if not re.fullmatch(re.escape(pre) + r"\d{4}", r["id"]): print(f"{name}:{n} bad id {r['id']}"); ok = False
            if r["id"] in seen_ids: print(f"dup id {r['id']}"); ok = False
            seen_ids.add(r["id"])
            if r["persona"] not in PERSONAS: print(f"{r['id']} bad persona"); ok = False
            if r["register"] not in ALLOWED_REG: print(f"{r['id']} bad register"); ok = False
            if not isinstance(r["meta"], bool): print(f"{r['id']} meta not bool"); ok = False
            if not isinstance(r["text"], str) or not r["text"].strip(): print(f"{r['id']} empty text"); ok = False
            k = norm(r["text"])
            if k in seen_norm: print(f"dup normalised text {r['id']} ~ {seen_norm[k]}: {r['text']}"); ok = False
            seen_norm[k] = r["id"]
            c_reg[r["register"]] += 1; c_meta[r["meta"]] += 1; c_p[r["persona"]] += 1
        tot = sum(c_p.values())
        print(f"{name}: {tot} items | register {dict(sorted(c_reg.items()))} | meta true {c_meta[True]} ({100*c_meta[True]/max(tot,1):.1f}%) | personas {dict(sorted(c_p.items()))}")
    print("VALID" if ok else "INVALID")
    return ok

if __name__ == "__main__":
    if "--validate-only" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
