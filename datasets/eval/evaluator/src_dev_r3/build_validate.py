#!/usr/bin/env python3
"""Build test.jsonl from items_*.txt (compact hand-written source) and validate it. stdlib only.
Source line: PERSONA STAGE REG | client_prev | counselor | tech+tech | appr | dev+dev or - | crisis 0/1 | note
STAGE r/e/i/c, REG f/h/b. Lines starting with # are comments."""
import json, re, sys, unicodedata, glob, os, collections
HERE = os.path.dirname(os.path.abspath(__file__))
TAX = "/work/main/datasets/taxonomy.json"
T = {"ar": "approval_reassurance", "cq": "closed_question", "oq": "open_question", "rs": "restatement",
     "rf": "reflection_feelings", "ch": "challenge", "it": "interpretation", "sd": "self_disclosure",
     "im": "immediacy", "inf": "information", "dg": "direct_guidance", "va": "validation", "ot": "other"}
D = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
S = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
R = {"f": "formal", "h": "haeyo", "b": "banmal"}
A = {"pos", "warn", "neutral"}

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    out, n = [], 0
    for fn in sorted(glob.glob(os.path.join(HERE, "items_*.txt"))):
        for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in (line + " ").split(" | ")]
            if len(parts) != 8:
                sys.exit(f"{fn}:{ln}: expected 8 fields, got {len(parts)}")
            head, cp, co, te, ap, dv, cr, note = parts
            pe, st, rg = head.split()
            n += 1
            out.append({"id": f"ev-t3-{n:04d}", "persona": pe, "stage": S[st], "register": R[rg],
                        "client_prev": cp, "counselor": co,
                        "techniques": [T.get(t, t) for t in te.split("+")], "appropriateness": ap,
                        "deviation": [] if dv == "-" else [D.get(d, d) for d in dv.split("+")],
                        "crisis_context": cr == "1", "note": note})
    with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")

def validate():
    tax = json.load(open(TAX, encoding="utf-8"))
    tech = {t["code"] for t in tax["techniques"]}
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    req = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
           "appropriateness", "deviation", "crisis_context", "note"]
    errs, ids, seen = [], set(), {}
    rows = []
    for i, line in enumerate(open(os.path.join(HERE, "test.jsonl"), encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f"line {i}: bad json {e}"); continue
        rows.append(o)
        for k in req:
            if k not in o: errs.append(f"{i}: missing {k}")
        if o["id"] in ids: errs.append(f"{i}: dup id")
        ids.add(o["id"])
        if o["persona"] not in {f"P{k}" for k in range(1, 8)}: errs.append(f"{i}: persona")
        if o["stage"] not in stages: errs.append(f"{i}: stage")
        if o["register"] not in R.values(): errs.append(f"{i}: register")
        if not o["techniques"] or not set(o["techniques"]) <= tech: errs.append(f"{i}: techniques")
        if len(set(o["techniques"])) != len(o["techniques"]): errs.append(f"{i}: dup technique")
        if o["appropriateness"] not in A: errs.append(f"{i}: appr")
        if not set(o["deviation"]) <= devs: errs.append(f"{i}: deviation")
        if o["appropriateness"] == "pos" and o["deviation"]: errs.append(f"{i}: pos with deviation")
        if o["appropriateness"] == "warn" and not o["deviation"]: errs.append(f"{i}: warn without deviation")
        if not isinstance(o["crisis_context"], bool): errs.append(f"{i}: crisis bool")
        if not o["client_prev"].strip() or not o["counselor"].strip(): errs.append(f"{i}: empty text")
        k = norm(o["counselor"])
        if k in seen: errs.append(f"{i}: duplicate normalised counselor text (= line {seen[k]})")
        seen[k] = i
    c = collections.Counter
    print("items:", len(rows))
    print("persona:", dict(sorted(c(o["persona"] for o in rows).items())))
    print("stage:", dict(c(o["stage"] for o in rows)))
    print("register:", dict(c(o["register"] for o in rows)))
    ap = c(o["appropriateness"] for o in rows)
    print("appropriateness:", {k: f"{v} ({100*v/len(rows):.0f}%)" for k, v in ap.items()})
    print("techniques:", dict(c(t for o in rows for t in o["techniques"]).most_common()))
    print("multi-label items:", sum(len(o["techniques"]) > 1 for o in rows))
    print("deviation:", dict(c(d for o in rows for d in o["deviation"])))
    cr = [o for o in rows if o["crisis_context"]]
    print("crisis_context:", len(cr), "| pos:", sum(o["appropriateness"] == "pos" for o in cr),
          "| warn+safety:", sum("safety" in o["deviation"] for o in cr))
    print("errors:", len(errs))
    for e in errs[:30]: print("  ", e)
    return not errs

if __name__ == "__main__":
    build()
    sys.exit(0 if validate() else 1)
