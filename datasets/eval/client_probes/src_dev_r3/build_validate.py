#!/usr/bin/env python3
"""Build and validate test.jsonl (client probes, round 3). Stdlib only.
Usage: python3 build_validate.py          # build from src/p*.py, then validate
       python3 build_validate.py --check  # validate existing test.jsonl only
"""
import json, os, re, sys, unicodedata, collections

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
KINDS = {"fact", "repeat", "greeting", "closing", "off_topic", "joke", "english",
         "long_input", "unintelligible", "meta", "si_screen"}
PLAN = {"fact": 14, "repeat": 3, "greeting": 2, "closing": 4, "off_topic": 2, "joke": 2,
        "english": 2, "long_input": 2, "unintelligible": 1, "meta": 5, "si_screen": 3}
PERSONAS = ["P%d" % i for i in range(1, 8)]
REQ = ["id", "persona", "kind", "warmup", "probe", "expect_any", "forbid", "note"]
UNGATED_FACTS = {"age", "grade", "job", "living", "siblings", "prior_counseling", "reason"}


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def build():
    sys.path.insert(0, os.path.join(HERE, "src"))
    import h
    items = []
    for p in range(1, 8):
        mod = __import__("p%d" % p)
        items.extend(mod.ITEMS)
    rows = []
    for i, it in enumerate(items, 1):
        row = {"id": "cp-t3-%04d" % i}
        row.update(it)
        extra = list(h.AI_FORBID) + list(h.EN_FORBID)
        row["forbid"] = row["forbid"] + [x for x in extra if x not in row["forbid"]]
        rows.append(row)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("built", len(rows), "rows ->", OUT)


def validate():
    errs = []
    rows = []
    with open(OUT, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errs.append("line %d: bad json %s" % (n, e))
    ids = collections.Counter(r.get("id") for r in rows)
    errs += ["dup id %s" % k for k, v in ids.items() if v > 1]
    seen = {}
    per = collections.defaultdict(collections.Counter)
    for r in rows:
        rid = r.get("id")
        for k in REQ:
            if k not in r:
                errs.append("%s: missing %s" % (rid, k))
        if not re.fullmatch(r"cp-t3-\d{4}", str(rid)):
            errs.append("%s: bad id" % rid)
        if r.get("persona") not in PERSONAS:
            errs.append("%s: bad persona" % rid)
        k = r.get("kind")
        if k not in KINDS:
            errs.append("%s: bad kind %s" % (rid, k))
        per[r.get("persona")][k] += 1
        if not isinstance(r.get("warmup"), list) or not all(isinstance(x, str) and x.strip() for x in r["warmup"]):
            errs.append("%s: warmup must be list of non-empty str" % rid)
        if not isinstance(r.get("probe"), str) or not r["probe"].strip():
            errs.append("%s: empty probe" % rid)
        for fld in ("expect_any", "forbid"):
            v = r.get(fld)
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                errs.append("%s: %s must be list of non-empty str" % (rid, fld))
        if k == "fact":
            if not isinstance(r.get("fact"), str) or not r["fact"]:
                errs.append("%s: fact name missing" % rid)
            if not isinstance(r.get("gated"), bool):
                errs.append("%s: gated must be bool" % rid)
            elif r["gated"] and r["fact"] in UNGATED_FACTS:
                errs.append("%s: intake fact %s marked gated" % (rid, r["fact"]))
        else:
            if "fact" in r or "gated" in r:
                errs.append("%s: fact/gated only for kind=fact" % rid)
        if k != "si_screen" and not r.get("expect_any"):
            errs.append("%s: expect_any empty (only allowed for si_screen)" % rid)
        if k == "closing" and len(r.get("warmup", [])) < 6:
            errs.append("%s: closing needs >=6 warmup lines" % rid)
        # a forbid that is a substring of an expected answer would make the item unpassable
        for e in r.get("expect_any", []):
            for fb in r.get("forbid", []):
                if norm(fb) and norm(fb) in norm(e):
                    errs.append("%s: forbid %r inside expect %r" % (rid, fb, e))
        key = norm(r.get("probe", ""))
        if key in seen:
            errs.append("%s: duplicate normalised probe with %s" % (rid, seen[key]))
        seen[key] = rid
    for p in PERSONAS:
        for kind, n in PLAN.items():
            if per[p][kind] != n:
                errs.append("%s: kind %s count %d != %d" % (p, kind, per[p][kind], n))
    si = [r for r in rows if r.get("kind") == "si_screen"]
    depths = collections.Counter(len(r["warmup"]) for r in si)
    print("rows:", len(rows), "| personas:", dict(sorted(collections.Counter(r["persona"] for r in rows).items())))
    print("kinds:", dict(sorted(collections.Counter(r["kind"] for r in rows).items())))
    facts = [r for r in rows if r.get("kind") == "fact"]
    print("fact gated/ungated:", sum(r["gated"] for r in facts), "/", sum(not r["gated"] for r in facts))
    print("si_screen warmup depths:", dict(sorted(depths.items())))
    if errs:
        print("ERRORS (%d):" % len(errs))
        for e in errs:
            print("  " + e)
        return 1
    print("OK: valid JSON, unique ids, allowed kinds, required fields, per-persona plan, no duplicate normalised probes")
    return 0


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(validate())
