#!/usr/bin/env python3
"""Build test.jsonl from items_src.txt and validate it (stdlib only).

items_src.txt: one item per line, `persona|reg|meta|text|note`
  reg: s=hapsyo h=haeyo b=banmal n=none ; meta: 1/0 ; '#' lines are comments.
Usage: python3 build_validate.py          (build + validate)
       python3 build_validate.py --check  (validate existing test.jsonl only)
"""
import json, os, re, sys, unicodedata, collections

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "items_src.txt")
OUT = os.path.join(HERE, "test.jsonl")
REG = {"s": "hapsyo", "h": "haeyo", "b": "banmal", "n": "none"}
PERSONAS = {"P%d" % i for i in range(1, 8)}
REQUIRED = ["id", "persona", "text", "register", "meta", "note"]
ID_RE = re.compile(r"^dr-t4-\d{4}$")


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def build():
    items, errs = [], []
    with open(SRC, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("|")
            if len(parts) != 5:
                errs.append("src line %d: expected 5 fields, got %d" % (ln, len(parts)))
                continue
            p, r, m, text, note = parts
            if r not in REG or m not in ("0", "1"):
                errs.append("src line %d: bad reg/meta %r %r" % (ln, r, m))
                continue
            items.append({"id": "dr-t4-%04d" % (len(items) + 1), "persona": p, "text": text.strip(),
                          "register": REG[r], "meta": m == "1", "note": note.strip()})
    if errs:
        print("\n".join(errs)); sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")


def validate():
    errs, ids, seen = [], set(), {}
    rows = []
    with open(OUT, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                o = json.loads(line)
            except ValueError as e:
                errs.append("line %d: invalid JSON (%s)" % (ln, e)); continue
            rows.append(o)
            for k in REQUIRED:
                if k not in o:
                    errs.append("line %d: missing %s" % (ln, k))
            if set(o) - set(REQUIRED):
                errs.append("line %d: extra keys %s" % (ln, set(o) - set(REQUIRED)))
            if not ID_RE.match(str(o.get("id", ""))):
                errs.append("line %d: bad id %r" % (ln, o.get("id")))
            if o.get("id") in ids:
                errs.append("line %d: duplicate id %s" % (ln, o.get("id")))
            ids.add(o.get("id"))
            if o.get("persona") not in PERSONAS:
                errs.append("line %d: bad persona" % ln)
            if o.get("register") not in REG.values():
                errs.append("line %d: bad register" % ln)
            if not isinstance(o.get("meta"), bool):
                errs.append("line %d: meta not bool" % ln)
            if not isinstance(o.get("text"), str) or not o["text"].strip():
                errs.append("line %d: empty text" % ln)
            if not isinstance(o.get("note"), str):
                errs.append("line %d: note not str" % ln)
            n = norm(o.get("text", ""))
            if n in seen:
                errs.append("line %d: duplicate normalised text with %s" % (ln, seen[n]))
            seen[n] = o.get("id")
    print("items:", len(rows))
    print("meta true: %d (%.1f%%)" % (sum(o["meta"] for o in rows), 100.0 * sum(o["meta"] for o in rows) / max(1, len(rows))))
    print("register:", dict(collections.Counter(o["register"] for o in rows)))
    print("persona:", dict(sorted(collections.Counter(o["persona"] for o in rows).items())))
    mr = collections.Counter((o["register"], o["meta"]) for o in rows)
    print("register x meta:", {"%s/%s" % (k[0], "T" if k[1] else "F"): v for k, v in sorted(mr.items())})
    if errs:
        print("ERRORS (%d):" % len(errs)); print("\n".join(errs[:50])); sys.exit(1)
    print("VALID: json ok, ids unique, codes allowed, fields present, no duplicate normalised text")


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    validate()
