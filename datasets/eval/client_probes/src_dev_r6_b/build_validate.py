#!/usr/bin/env python3
"""Build + validate client_probes_b/test.jsonl (stdlib only).
usage: python3 build_validate.py          # build from src_items.py, then validate
       python3 build_validate.py --check  # validate existing test.jsonl only
"""
import json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
KINDS = {"fact", "repeat", "greeting", "closing", "off_topic", "joke", "english",
         "long_input", "unintelligible", "meta", "si_screen"}
PERSONAS = {"P%d" % i for i in range(1, 8)}
QUOTA = {"fact": 7, "repeat": 1, "greeting": 1, "closing": 3, "off_topic": 2, "joke": 1,
         "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
REQ = ["id", "persona", "kind", "warmup", "probe", "expect_any", "forbid", "note"]


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()


def build():
    sys.path.insert(0, HERE)
    import src_items
    rows, n = [], 0
    for code, items in src_items.PERSONAS:
        for it in items:
            n += 1
            r = {"id": "cp-t6b-%04d" % n, "persona": code, "kind": it["kind"],
                 "warmup": it["warmup"], "probe": it["probe"]}
            if it["kind"] == "fact":
                r["fact"] = it["fact"]
                r["gated"] = it["gated"]
            # de-dup lists, keep order
            r["expect_any"] = list(dict.fromkeys(it["expect_any"]))
            r["forbid"] = list(dict.fromkeys(it["forbid"]))
            r["note"] = it.get("note", "")
            rows.append(r)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def validate():
    errs, rows = [], []
    with open(OUT, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errs.append("line %d: bad json %s" % (ln, e))
    ids, seen = set(), {}
    per = Counter()
    for r in rows:
        rid = r.get("id", "?")
        for k in REQ:
            if k not in r:
                errs.append("%s: missing %s" % (rid, k))
        if rid in ids:
            errs.append("%s: duplicate id" % rid)
        ids.add(rid)
        if not re.fullmatch(r"cp-t6b-\d{4}", rid):
            errs.append("%s: bad id" % rid)
        if r.get("persona") not in PERSONAS:
            errs.append("%s: bad persona" % rid)
        k = r.get("kind")
        if k not in KINDS:
            errs.append("%s: bad kind %s" % (rid, k))
        if not isinstance(r.get("warmup"), list) or not all(isinstance(x, str) and x for x in r["warmup"]):
            errs.append("%s: warmup must be list of str" % rid)
        if not isinstance(r.get("probe"), str) or not r["probe"].strip():
            errs.append("%s: empty probe" % rid)
        for fld in ("expect_any", "forbid"):
            v = r.get(fld)
            if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
                errs.append("%s: %s must be list of non-empty str" % (rid, fld))
        if k == "fact":
            if not isinstance(r.get("fact"), str) or not r["fact"]:
                errs.append("%s: fact name missing" % rid)
            if not isinstance(r.get("gated"), bool):
                errs.append("%s: gated must be bool" % rid)
            if not r.get("expect_any"):
                errs.append("%s: fact needs expect_any" % rid)
        elif "fact" in r or "gated" in r:
            errs.append("%s: fact/gated only for kind=fact" % rid)
        if k == "closing" and len(r.get("warmup", [])) < 6:
            errs.append("%s: closing needs >=6 warmup" % rid)
        if k == "si_screen" and not (len(r["warmup"]) == 0 or 6 <= len(r["warmup"]) <= 12):
            errs.append("%s: si_screen warmup should be 0 or 6-12" % rid)
        if k == "greeting" and r.get("warmup"):
            errs.append("%s: greeting should be first turn" % rid)
        if k != "si_screen" and k != "fact" and not r.get("expect_any"):
            errs.append("%s: empty expect_any" % rid)
        # an expected substring must not also be forbidden
        for e in r.get("expect_any", []):
            if e in r.get("forbid", []):
                errs.append("%s: %r both expected and forbidden" % (rid, e))
        nt = norm(r.get("probe", ""))
        if nt in seen:
            errs.append("%s: duplicate normalised probe with %s" % (rid, seen[nt]))
        seen[nt] = rid
        per[(r.get("persona"), k)] += 1
    for p in sorted(PERSONAS):
        for k, q in QUOTA.items():
            if per[(p, k)] != q:
                errs.append("%s: kind %s count %d != %d" % (p, k, per[(p, k)], q))
    return rows, errs, per


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    rows, errs, per = validate()
    kinds = Counter(r["kind"] for r in rows)
    facts = Counter((r["fact"], r["gated"]) for r in rows if r["kind"] == "fact")
    print("rows:", len(rows), "| personas:", dict(sorted(Counter(r["persona"] for r in rows).items())))
    print("kinds:", dict(sorted(kinds.items())))
    print("facts:", ", ".join("%s/%s=%d" % (f, "gated" if g else "open", c) for (f, g), c in sorted(facts.items())))
    if errs:
        print("ERRORS (%d):" % len(errs))
        for e in errs:
            print("  " + e)
        sys.exit(1)
    print("OK: valid JSON, unique ids, allowed kinds/personas, required fields, quotas, no duplicate normalised probes")
