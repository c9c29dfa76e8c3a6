#!/usr/bin/env python3
"""Build and validate test.jsonl for the drift set (round 7, drift round 5). stdlib only.

Usage:  python3 build_validate.py          # build test.jsonl from items_*.txt, then validate
        python3 build_validate.py --check  # validate an existing test.jsonl only
Source lines: persona|register|meta(0/1)|text|note   ('#' starts a comment line)
"""
import glob, json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
PERSONAS = {"P%d" % i for i in range(1, 8)}
REGISTERS = {"hapsyo", "haeyo", "banmal", "none"}
FIELDS = ["id", "persona", "text", "register", "meta", "note"]


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def build():
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "items_*.txt"))):
        for ln, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("|")
            if len(parts) not in (4, 5):
                sys.exit("%s:%d: expected 4-5 fields, got %d" % (path, ln, len(parts)))
            persona, reg, meta, text = (p.strip() for p in parts[:4])
            note = parts[4].strip() if len(parts) == 5 else ""
            if meta not in ("0", "1"):
                sys.exit("%s:%d: meta must be 0/1" % (path, ln))
            meta = meta == "1"
            if not note:
                note = ("meta: simulation/meta disclosure" if meta else "in character") + \
                       "; final predicate → " + reg
            rows.append({"persona": persona, "text": unicodedata.normalize("NFC", text),
                         "register": reg, "meta": meta, "note": note})
    with open(OUT, "w", encoding="utf-8") as f:
        for i, r in enumerate(rows, 1):
            obj = {"id": "dr-t5-%04d" % i, **r}
            f.write(json.dumps({k: obj[k] for k in FIELDS}, ensure_ascii=False) + "\n")
    print("built %d items -> %s" % (len(rows), OUT))


TAIL = re.compile(r"[\s.?!…~;:)^(ㅋㅎㅠㅜ]+$")


def lint(text, reg):
    """Soft consistency hints (not errors): Korean ending vs. label."""
    t = TAIL.sub("", text)
    if re.search(r"[a-zA-Z]$", t):
        return None
    if re.search(r"(니다|니까|십시오|소|오)$", t) and reg not in ("hapsyo",) and not re.search(r"(하니까|니까)$", t):
        return "ends like 하십시오/하오체 but labelled %s" % reg
    if re.search(r"(요|용|여|죠|오)$", t) and reg in ("banmal",):
        return "ends like 요/죠 but labelled banmal"
    return None


def validate():
    errs, hints = [], []
    ids, norms = set(), {}
    rows = []
    for ln, line in enumerate(open(OUT, encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append("line %d: invalid JSON (%s)" % (ln, e)); continue
        rows.append(o)
        for k in FIELDS:
            if k not in o:
                errs.append("line %d: missing %s" % (ln, k))
        if set(o) - set(FIELDS):
            errs.append("line %d: extra keys %s" % (ln, set(o) - set(FIELDS)))
        if not re.fullmatch(r"dr-t5-\d{4}", str(o.get("id", ""))):
            errs.append("line %d: bad id %r" % (ln, o.get("id")))
        if o.get("id") in ids:
            errs.append("line %d: duplicate id %s" % (ln, o.get("id")))
        ids.add(o.get("id"))
        if o.get("persona") not in PERSONAS:
            errs.append("line %d: bad persona %r" % (ln, o.get("persona")))
        if o.get("register") not in REGISTERS:
            errs.append("line %d: bad register %r" % (ln, o.get("register")))
        if not isinstance(o.get("meta"), bool):
            errs.append("line %d: meta not bool" % ln)
        txt = o.get("text")
        if not isinstance(txt, str) or not norm(txt):
            errs.append("line %d: empty text" % ln); continue
        if txt != unicodedata.normalize("NFC", txt):
            errs.append("line %d: text not NFC" % ln)
        if not isinstance(o.get("note"), str) or not o["note"].strip():
            errs.append("line %d: empty note" % ln)
        n = norm(txt)
        if n in norms:
            errs.append("line %d: duplicate normalised text with line %d: %s" % (ln, norms[n], txt))
        norms[n] = ln
        h = lint(txt, o.get("register"))
        if h:
            hints.append("%s: %s | %s" % (o["id"], h, txt))
    n = len(rows)
    meta = sum(1 for r in rows if r.get("meta") is True)
    print("items: %d  meta=true: %d (%.1f%%)" % (n, meta, 100.0 * meta / max(n, 1)))
    print("register:", dict(sorted(Counter(r.get("register") for r in rows).items())))
    print("persona:", dict(sorted(Counter(r.get("persona") for r in rows).items())))
    print("meta by persona:", dict(sorted(Counter(r["persona"] for r in rows if r.get("meta") is True).items())))
    print("register x meta:", dict(sorted(Counter("%s/%s" % (r.get("register"), r.get("meta")) for r in rows).items())))
    for h in hints:
        print("hint:", h)
    if errs:
        for e in errs:
            print("ERROR:", e)
        print("VALIDATION FAILED (%d errors)" % len(errs)); return 1
    print("VALIDATION OK (%d hints)" % len(hints)); return 0


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(validate())
