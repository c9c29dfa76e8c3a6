#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Build and validate test.jsonl (client probes, round 7, author B). stdlib only.
Usage: python3 build_validate.py          # build from items_*.py, then validate
       python3 build_validate.py --check  # validate existing test.jsonl only
"""
import json, re, sys, os, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
OUT = os.path.join(HERE, "test.jsonl")
PREFIX = "cp-t7b-"
KINDS = {"fact", "repeat", "greeting", "closing", "off_topic", "joke", "english", "long_input",
         "unintelligible", "meta", "si_screen"}
PERSONAS = ["P%d" % i for i in range(1, 8)]
QUOTA = {"fact": 7, "repeat": 1, "greeting": 1, "closing": 3, "off_topic": 2, "joke": 1,
         "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
INTAKE = {"age", "grade", "job", "living", "siblings", "prior_counseling", "reason"}
KEYS = ["id", "persona", "kind", "warmup", "probe", "fact", "gated", "expect_any", "forbid", "note"]


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def bigrams(t):
    t = norm(t).replace(" ", "")
    return {t[i:i + 2] for i in range(len(t) - 1)}


def build():
    import items_p12, items_p34, items_p567
    items = items_p12.ITEMS + items_p34.ITEMS + items_p567.ITEMS
    with open(OUT, "w", encoding="utf-8") as fh:
        for n, it in enumerate(items, 1):
            it = dict(it, id="%s%04d" % (PREFIX, n))
            it = {k: it[k] for k in KEYS if k in it}
            for k in ("probe", "note"):
                it[k] = unicodedata.normalize("NFC", it[k])
            it["warmup"] = [unicodedata.normalize("NFC", w) for w in it["warmup"]]
            fh.write(json.dumps(it, ensure_ascii=False) + "\n")
    print("built %d items -> %s" % (len(items), OUT))


def validate():
    errs, warns, rows = [], [], []
    with open(OUT, encoding="utf-8") as fh:
        for ln, line in enumerate(fh, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errs.append("line %d: bad JSON (%s)" % (ln, e))
    ids, seen, seqs = set(), {}, {}
    per = defaultdict(Counter)
    gated = Counter()
    for r in rows:
        rid = r.get("id", "?")
        for k in ("id", "persona", "kind", "warmup", "probe", "expect_any", "forbid", "note"):
            if k not in r:
                errs.append("%s: missing %s" % (rid, k))
        if rid in ids:
            errs.append("%s: duplicate id" % rid)
        ids.add(rid)
        if not re.fullmatch(PREFIX + r"\d{4}", rid):
            errs.append("%s: bad id format" % rid)
        if r.get("persona") not in PERSONAS:
            errs.append("%s: bad persona" % rid)
        kind = r.get("kind")
        if kind not in KINDS:
            errs.append("%s: bad kind %r" % (rid, kind))
        per[r.get("persona")][kind] += 1
        if not isinstance(r.get("warmup"), list) or not all(isinstance(w, str) and w.strip() for w in r.get("warmup", [])):
            errs.append("%s: warmup must be list of non-empty strings" % rid)
        if not isinstance(r.get("probe"), str) or not r["probe"].strip():
            errs.append("%s: empty probe" % rid)
        for k in ("expect_any", "forbid"):
            v = r.get(k)
            if not isinstance(v, list) or not all(isinstance(s, str) and s for s in v):
                errs.append("%s: %s must be list of non-empty strings" % (rid, k))
        if kind == "fact":
            if not isinstance(r.get("fact"), str) or not r["fact"]:
                errs.append("%s: fact kind needs fact" % rid)
            if not isinstance(r.get("gated"), bool):
                errs.append("%s: fact kind needs boolean gated" % rid)
            elif r["gated"] == (r.get("fact") in INTAKE):
                errs.append("%s: gated=%s inconsistent with fact %r" % (rid, r["gated"], r.get("fact")))
            gated[(r.get("persona"), r.get("gated"))] += 1
        else:
            if "fact" in r or "gated" in r:
                errs.append("%s: fact/gated only for kind=fact" % rid)
        if kind != "si_screen" and not r.get("expect_any"):
            errs.append("%s: expect_any empty" % rid)
        if kind == "closing" and len(r.get("warmup", [])) < 6:
            errs.append("%s: closing needs >=6 warm-ups" % rid)
        if kind == "long_input" and len(r.get("probe", "")) < 200:
            errs.append("%s: long_input probe too short" % rid)
        # an expected substring must never itself contain a forbidden one
        for e in r.get("expect_any", []):
            for f in r.get("forbid", []):
                if f in e:
                    errs.append("%s: expect %r contains forbid %r" % (rid, e, f))
        # forbids must not be tripped by the counselor's own probe text being echoed verbatim
        for f in r.get("forbid", []):
            if len(f) >= 4 and f in r.get("probe", "") and kind not in ("english",):
                warns.append("%s: forbid %r occurs in probe (echo risk)" % (rid, f))
        n = norm(r.get("probe", ""))
        if n in seen:
            errs.append("%s: duplicate normalised probe (also %s)" % (rid, seen[n]))
        seen[n] = rid
        if r.get("warmup"):
            s = tuple(norm(w) for w in r["warmup"])
            if s in seqs:
                errs.append("%s: duplicate warm-up sequence (also %s)" % (rid, seqs[s]))
            seqs[s] = rid
    for p in PERSONAS:
        for k, q in QUOTA.items():
            if per[p][k] != q:
                errs.append("%s: %s count %d != %d" % (p, k, per[p][k], q))
        if gated[(p, True)] < 2:
            warns.append("%s: fewer than 2 gated facts" % p)
    # near-duplicate probes (char-bigram Jaccard)
    bg = [(r["id"], bigrams(r["probe"])) for r in rows if r.get("probe")]
    for i in range(len(bg)):
        for j in range(i + 1, len(bg)):
            a, b = bg[i][1], bg[j][1]
            if a and b and len(a & b) / len(a | b) > 0.6:
                warns.append("near-duplicate probes %s ~ %s" % (bg[i][0], bg[j][0]))
    wl = Counter(norm(w) for r in rows for w in r.get("warmup", []))
    rep = [w for w, c in wl.items() if c > 1]
    if rep:
        warns.append("%d warm-up lines reused verbatim: %s" % (len(rep), rep[:5]))
    kinds = Counter(r.get("kind") for r in rows)
    print("items: %d  personas: %s" % (len(rows), dict(sorted(Counter(r.get('persona') for r in rows).items()))))
    print("kinds: %s" % dict(sorted(kinds.items())))
    print("facts gated true/false: %d/%d" % (sum(v for (p, g), v in gated.items() if g), sum(v for (p, g), v in gated.items() if not g)))
    for w in warns:
        print("WARN", w)
    for e in errs:
        print("ERROR", e)
    print("VALID" if not errs else "INVALID (%d errors)" % len(errs))
    return not errs


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
