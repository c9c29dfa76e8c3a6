#!/usr/bin/env python3
"""Build test.jsonl from src/*.txt (hand-written compact lines) and validate it. stdlib only.
Line format:  P# STAGE REG APP CRISIS CODES [DEVS] ;; client_prev ;; counselor ;; note
  STAGE r/e/i/c, REG f/h/b, APP p/w/n, CRISIS 0/1, CODES = comma list of short technique codes,
  optionally followed by deviation codes (sf,fo,pa,th,sa) in the same list or a 7th field.
Usage: python3 build_validate.py          (build + validate)
       python3 build_validate.py --check  (validate existing test.jsonl only)"""
import glob, json, os, re, sys, unicodedata
from collections import Counter
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
TAX = "/work/main/datasets/taxonomy.json"
T = dict(ar="approval_reassurance", cq="closed_question", oq="open_question", rs="restatement",
         rf="reflection_feelings", ch="challenge", ip="interpretation", sd="self_disclosure",
         im="immediacy", inf="information", dg="direct_guidance", va="validation", ot="other")
D = dict(sf="stage_fit", fo="focus", pa="pacing", th="theory_fit", sa="safety")
S = dict(r="rapport", e="exploration", i="intervention", c="closing")
R = dict(f="formal", h="haeyo", b="banmal")
A = dict(p="pos", w="warn", n="neutral")

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    items = []
    for fn in sorted(glob.glob(os.path.join(HERE, "src", "*.txt"))):
        for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(";;")]
            if len(parts) != 4:
                sys.exit(f"{fn}:{ln}: expected 4 ';;' fields, got {len(parts)}")
            h = parts[0].split()
            if len(h) == 6:
                h = h + ["-"]
            if len(h) != 7:
                sys.exit(f"{fn}:{ln}: bad header {parts[0]!r}")
            p, st, rg, ap, cr, te, de = h
            # deviation codes may also be written in the technique list
            toks = te.split(",") + ([] if de == "-" else de.split(","))
            te = ",".join(x for x in toks if x in T)
            de = ",".join(x for x in toks if x in D) or "-"
            bad = [x for x in toks if x not in T and x not in D]
            if bad:
                sys.exit(f"{fn}:{ln}: unknown code(s) {bad}")
            items.append({
                "persona": p, "stage": S[st], "register": R[rg],
                "client_prev": unicodedata.normalize("NFC", parts[1]),
                "counselor": unicodedata.normalize("NFC", parts[2]),
                "techniques": [T[x] for x in te.split(",")],
                "appropriateness": A[ap],
                "deviation": [] if de == "-" else [D[x] for x in de.split(",")],
                "crisis_context": cr == "1", "note": parts[3]})
    with open(OUT, "w", encoding="utf-8") as f:
        for i, it in enumerate(items, 1):
            f.write(json.dumps({"id": f"ev-t6a-{i:04d}", **it}, ensure_ascii=False) + "\n")

def validate():
    tax = json.load(open(TAX, encoding="utf-8"))
    techs = {t["code"] for t in tax["techniques"]}
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    req = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
           "appropriateness", "deviation", "crisis_context", "note"]
    errs, ids, seen = [], set(), {}
    rows = []
    for n, line in enumerate(open(OUT, encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f"line {n}: bad json {e}"); continue
        rows.append(o)
        for k in req:
            if k not in o: errs.append(f"{n}: missing {k}")
        if o["id"] in ids: errs.append(f"{n}: dup id")
        ids.add(o["id"])
        if not re.fullmatch(r"ev-t6a-\d{4}", o["id"]): errs.append(f"{n}: id format")
        if o["persona"] not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{n}: persona")
        if o["stage"] not in stages: errs.append(f"{n}: stage")
        if o["register"] not in {"formal", "haeyo", "banmal"}: errs.append(f"{n}: register")
        if not o["techniques"] or any(t not in techs for t in o["techniques"]): errs.append(f"{n}: techniques")
        if len(set(o["techniques"])) != len(o["techniques"]): errs.append(f"{n}: dup technique")
        if o["appropriateness"] not in {"pos", "warn", "neutral"}: errs.append(f"{n}: appropriateness")
        if any(d not in devs for d in o["deviation"]): errs.append(f"{n}: deviation code")
        if o["appropriateness"] == "warn" and not o["deviation"]: errs.append(f"{n}: warn without deviation")
        if o["appropriateness"] != "warn" and o["deviation"]: errs.append(f"{n}: deviation on non-warn")
        if not isinstance(o["crisis_context"], bool): errs.append(f"{n}: crisis bool")
        if not o["client_prev"].strip() or not o["counselor"].strip(): errs.append(f"{n}: empty text")
        k = norm(o["counselor"])
        if k in seen: errs.append(f"{n}: duplicate normalised counselor text (= line {seen[k]})")
        seen[k] = n
    c = Counter
    print("items:", len(rows), "| errors:", len(errs))
    for e in errs[:30]: print("  ERR", e)
    print("persona:", dict(sorted(c(r["persona"] for r in rows).items())))
    print("stage:", dict(c(r["stage"] for r in rows)))
    print("register:", dict(c(r["register"] for r in rows)))
    ap = c(r["appropriateness"] for r in rows)
    print("appropriateness:", {k: f"{v} ({100*v/len(rows):.0f}%)" for k, v in ap.items()})
    print("techniques:", dict(c(t for r in rows for t in r["techniques"]).most_common()))
    print("deviation:", dict(c(d for r in rows for d in r["deviation"]).most_common()))
    cr = [r for r in rows if r["crisis_context"]]
    print("crisis_context:", len(cr), "| pos:", sum(r["appropriateness"] == "pos" for r in cr),
          "| warn+safety:", sum(r["appropriateness"] == "warn" and "safety" in r["deviation"] for r in cr))
    print("multi-label:", sum(len(r["techniques"]) > 1 for r in rows))
    return not errs

if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
