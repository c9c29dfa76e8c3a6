#!/usr/bin/env python3
"""Build test.jsonl from src_p*.txt (pipe-separated, hand-written) and validate it. stdlib only.
Source line: persona|stage|register|crisis(0/1)|appropriateness|deviations(comma)|techniques(comma)|client_prev|counselor|note
Usage: python3 build_validate.py            (build + validate)
       python3 build_validate.py --check    (validate existing test.jsonl only)"""
import glob, json, os, re, sys, unicodedata
from collections import Counter
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
TAX = "/work/main/datasets/taxonomy.json"
T = {"AR": "approval_reassurance", "CQ": "closed_question", "OQ": "open_question", "RS": "restatement",
     "RF": "reflection_feelings", "CH": "challenge", "IN": "interpretation", "SD": "self_disclosure",
     "IM": "immediacy", "INF": "information", "DG": "direct_guidance", "VA": "validation", "OT": "other"}
D = {"SF": "stage_fit", "FO": "focus", "PA": "pacing", "TF": "theory_fit", "SA": "safety"}
S = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
R = {"f": "formal", "h": "haeyo", "b": "banmal"}
REQ = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
       "appropriateness", "deviation", "crisis_context", "note"]

def norm(s):
    s = re.sub(r"\s+", " ", unicodedata.normalize("NFC", s).lower()).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    items = []
    for f in sorted(glob.glob(os.path.join(HERE, "src_p*.txt"))):
        for ln, line in enumerate(open(f, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            p = line.split("|")
            if len(p) != 10:
                sys.exit(f"{f}:{ln}: expected 10 fields, got {len(p)}")
            per, st, rg, cr, ap, dv, tq, cp, co, note = p
            items.append({"persona": per, "stage": S[st], "register": R[rg], "client_prev": cp.strip(),
                          "counselor": co.strip(), "techniques": [T[x] for x in tq.split(",") if x],
                          "appropriateness": ap, "deviation": [D[x] for x in dv.split(",") if x],
                          "crisis_context": cr == "1", "note": note.strip()})
    with open(OUT, "w", encoding="utf-8") as w:
        for i, it in enumerate(items, 1):
            w.write(json.dumps(dict(id=f"ev-t5a-{i:04d}", **it), ensure_ascii=False) + "\n")

def validate():
    tax = json.load(open(TAX, encoding="utf-8"))
    tech = {t["code"] for t in tax["techniques"]}
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    errs, ids, seen, rows = [], set(), {}, []
    for n, line in enumerate(open(OUT, encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f"line {n}: bad json {e}"); continue
        rows.append(o)
        for k in REQ:
            if k not in o: errs.append(f"{n}: missing {k}")
        if o["id"] in ids: errs.append(f"{n}: dup id")
        ids.add(o["id"])
        if o["persona"] not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{n}: persona")
        if o["stage"] not in stages: errs.append(f"{n}: stage")
        if o["register"] not in {"formal", "haeyo", "banmal"}: errs.append(f"{n}: register")
        if not o["techniques"] or set(o["techniques"]) - tech or len(set(o["techniques"])) != len(o["techniques"]):
            errs.append(f"{n}: techniques {o['techniques']}")
        if set(o["deviation"]) - devs: errs.append(f"{n}: deviation")
        if o["appropriateness"] not in {"pos", "warn", "neutral"}: errs.append(f"{n}: appr")
        if o["appropriateness"] == "warn" and not o["deviation"]: errs.append(f"{n}: warn w/o deviation")
        if o["appropriateness"] != "warn" and o["deviation"]: errs.append(f"{n}: deviation on non-warn")
        if not isinstance(o["crisis_context"], bool): errs.append(f"{n}: crisis bool")
        if not o["client_prev"] or not o["counselor"]: errs.append(f"{n}: empty text")
        if "safety" in o["deviation"] and not o["crisis_context"]: errs.append(f"{n}: safety w/o crisis")
        k = norm(o["counselor"])
        if k in seen: errs.append(f"{n}: dup normalised counselor text with line {seen[k]}")
        seen[k] = n
    N = len(rows)
    ap = Counter(o["appropriateness"] for o in rows)
    cr = [o for o in rows if o["crisis_context"]]
    scr = [o for o in cr if o["appropriateness"] == "pos"]
    miss = [o for o in cr if "safety" in o["deviation"]]
    print(f"items={N} errors={len(errs)}")
    for e in errs[:20]: print("  ", e)
    print("appropriateness:", {k: f"{v} ({100*v/N:.0f}%)" for k, v in sorted(ap.items())})
    print("persona:", dict(sorted(Counter(o["persona"] for o in rows).items())))
    print("stage:", dict(Counter(o["stage"] for o in rows)))
    print("register:", dict(Counter(o["register"] for o in rows)))
    print("techniques:", dict(Counter(t for o in rows for t in o["techniques"]).most_common()))
    print("multi-label items:", sum(len(o["techniques"]) > 1 for o in rows))
    print("deviation:", dict(Counter(d for o in rows for d in o["deviation"]).most_common()))
    print(f"crisis_context={len(cr)} screening/safety pos={len(scr)} missed(safety warn)={len(miss)}")
    pst = Counter((o["persona"], o["stage"]) for o in rows)
    gaps = [f"{p}/{s}" for p in [f"P{i}" for i in range(1, 8)] for s in stages if not pst[(p, s)]]
    print("persona×stage gaps:", gaps or "none")
    ok = not errs and N >= 300 and len(cr) >= 45 and len(scr) >= 25 and len(miss) >= 12 and not gaps
    print("VALID" if ok else "NOT VALID (see above)")
    return ok

if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
