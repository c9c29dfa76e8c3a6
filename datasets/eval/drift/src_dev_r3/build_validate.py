#!/usr/bin/env python3
"""Build test.jsonl from src_*.txt (persona|register|meta(0/1)|text|note) and validate it. stdlib only.
Usage: python3 build_validate.py          # build + validate
       python3 build_validate.py --check  # validate existing test.jsonl only
"""
import json, os, re, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
SRC = ["src_p1.txt", "src_p2.txt", "src_p3.txt", "src_p4.txt", "src_p5.txt", "src_p6.txt", "src_p7.txt", "src_mix.txt"]
REGS = {"hapsyo", "haeyo", "banmal", "none"}
PERSONAS = {"P%d" % i for i in range(1, 8)}
REQ = {"id": str, "persona": str, "text": str, "register": str, "meta": bool, "note": str}


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def build():
    items, seen, errs = [], {}, []
    for fn in SRC:
        with open(os.path.join(HERE, fn), encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                parts = line.split("|")
                if len(parts) != 5:
                    errs.append("%s:%d: expected 5 fields, got %d" % (fn, ln, len(parts)))
                    continue
                p, reg, m, text, note = [x.strip() for x in parts]
                text = unicodedata.normalize("NFC", text)
                k = norm(text)
                if k in seen:
                    print("skip duplicate %s:%d (= %s)" % (fn, ln, seen[k]))
                    continue
                seen[k] = "%s:%d" % (fn, ln)
                if m not in ("0", "1"):
                    errs.append("%s:%d: meta must be 0/1" % (fn, ln))
                items.append({"id": None, "persona": p, "text": text, "register": reg,
                              "meta": m == "1", "note": note or ("meta disclosure" if m == "1" else "in-character line")})
    for i, it in enumerate(items, 1):
        it["id"] = "dr-t3-%04d" % i
    with open(OUT, "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    return errs


def validate():
    errs, ids, norms = [], set(), {}
    rows = []
    with open(OUT, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                o = json.loads(line)
            except ValueError as e:
                errs.append("line %d: invalid JSON (%s)" % (ln, e)); continue
            rows.append(o)
            for k, ty in REQ.items():
                if k not in o or not isinstance(o[k], ty):
                    errs.append("line %d: field %s missing or not %s" % (ln, k, ty.__name__))
            extra = set(o) - set(REQ)
            if extra:
                errs.append("line %d: unexpected fields %s" % (ln, sorted(extra)))
            i = o.get("id")
            if not re.fullmatch(r"dr-t3-\d{4}", str(i)):
                errs.append("line %d: bad id %r" % (ln, i))
            if i in ids:
                errs.append("line %d: duplicate id %s" % (ln, i))
            ids.add(i)
            if o.get("persona") not in PERSONAS:
                errs.append("line %d: bad persona %r" % (ln, o.get("persona")))
            if o.get("register") not in REGS:
                errs.append("line %d: bad register %r" % (ln, o.get("register")))
            t = o.get("text", "")
            if not t.strip() or "\n" in t:
                errs.append("line %d: empty or multi-line text" % ln)
            if t != unicodedata.normalize("NFC", t):
                errs.append("line %d: text not NFC" % ln)
            k = norm(t)
            if k in norms:
                errs.append("line %d: duplicate normalised text (also line %d)" % (ln, norms[k]))
            norms[k] = ln
    return errs, rows


if __name__ == "__main__":
    errs = [] if "--check" in sys.argv else build()
    verrs, rows = validate()
    errs += verrs
    from collections import Counter
    print("items:", len(rows))
    print("meta true: %d (%.1f%%)" % (sum(r["meta"] for r in rows), 100.0 * sum(r["meta"] for r in rows) / max(1, len(rows))))
    print("register:", dict(sorted(Counter(r["register"] for r in rows).items())))
    print("persona:", dict(sorted(Counter(r["persona"] for r in rows).items())))
    print("register x meta:", dict(sorted(Counter("%s/%s" % (r["register"], r["meta"]) for r in rows).items())))
    for e in errs:
        print("ERROR", e)
    print("VALID" if not errs else "INVALID (%d errors)" % len(errs))
    sys.exit(1 if errs else 0)
