#!/usr/bin/env python3
"""Build test.jsonl from src_*.txt (pipe-separated, hand-written) and validate it. stdlib only.
Line format: persona|stage|register|client_prev|counselor|techs|appr|dev|crisis|note
 stage r/e/i/c, register f/h/b, techs/dev comma-separated short codes ('-' = none), crisis 0/1."""
import glob, json, os, re, sys, unicodedata
from collections import Counter
HERE = os.path.dirname(os.path.abspath(__file__))
TAX = "/work/main/datasets/taxonomy.json"
ST = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
RG = {"f": "formal", "h": "haeyo", "b": "banmal"}
TQ = {"ar": "approval_reassurance", "cq": "closed_question", "oq": "open_question", "rs": "restatement",
      "rf": "reflection_feelings", "ch": "challenge", "in": "interpretation", "sd": "self_disclosure",
      "im": "immediacy", "if": "information", "dg": "direct_guidance", "va": "validation", "ot": "other"}
AP = {"p": "pos", "w": "warn", "n": "neutral"}
DV = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    items, errs = [], []
    for fn in sorted(glob.glob(os.path.join(HERE, "src_*.txt"))):
        for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            f = [x.strip() for x in line.split("|")]
            if len(f) != 10:
                errs.append(f"{os.path.basename(fn)}:{ln}: {len(f)} fields"); continue
            p, s, r, cp, co, t, a, d, c, note = f
            try:
                items.append({"persona": p, "stage": ST[s], "register": RG[r], "client_prev": cp,
                    "counselor": co, "techniques": [TQ[x] for x in t.split(",")],
                    "appropriateness": AP[a], "deviation": [] if d == "-" else [DV[x] for x in d.split(",")],
                    "crisis_context": {"0": False, "1": True}[c], "note": note})
            except KeyError as e:
                errs.append(f"{os.path.basename(fn)}:{ln}: bad code {e}")
    for i, it in enumerate(items, 1):
        it["id"] = f"ev-t7a-{i:04d}"
    keys = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
            "appropriateness", "deviation", "crisis_context", "note"]
    with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as fo:
        for it in items:
            fo.write(json.dumps({k: it[k] for k in keys}, ensure_ascii=False) + "\n")
    return errs

def validate():
    tax = json.load(open(TAX, encoding="utf-8"))
    tech = {t["code"] for t in tax["techniques"]}
    dims = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    errs, ids, seen = [], set(), {}
    rows = []
    for ln, line in enumerate(open(os.path.join(HERE, "test.jsonl"), encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f"line {ln}: bad json {e}"); continue
        rows.append(o)
        for k in ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
                  "appropriateness", "deviation", "crisis_context", "note"]:
            if k not in o: errs.append(f"{ln}: missing {k}")
        if o["id"] in ids: errs.append(f"{ln}: dup id")
        ids.add(o["id"])
        if o["persona"] not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{ln}: persona")
        if o["stage"] not in stages: errs.append(f"{ln}: stage")
        if o["register"] not in RG.values(): errs.append(f"{ln}: register")
        if not o["techniques"] or set(o["techniques"]) - tech or len(set(o["techniques"])) != len(o["techniques"]):
            errs.append(f"{ln}: techniques")
        if o["appropriateness"] not in {"pos", "warn", "neutral"}: errs.append(f"{ln}: appr")
        if set(o["deviation"]) - dims: errs.append(f"{ln}: deviation code")
        if o["appropriateness"] == "warn" and not o["deviation"]: errs.append(f"{ln}: warn without deviation")
        if o["appropriateness"] != "warn" and o["deviation"]: errs.append(f"{ln}: deviation on non-warn")
        if "safety" in o["deviation"] and not o["crisis_context"]: errs.append(f"{ln}: safety dev w/o crisis")
        if not isinstance(o["crisis_context"], bool): errs.append(f"{ln}: crisis bool")
        if not o["client_prev"].strip() or not o["counselor"].strip(): errs.append(f"{ln}: empty text")
        n = norm(o["counselor"])
        if n in seen: errs.append(f"{ln}: duplicate normalised counselor text with line {seen[n]}")
        seen[n] = ln
    return rows, errs

if __name__ == "__main__":
    e1 = build()
    rows, e2 = validate()
    errs = e1 + e2
    C = Counter
    print("items:", len(rows))
    print("persona:", dict(sorted(C(r["persona"] for r in rows).items())))
    print("stage:", dict(C(r["stage"] for r in rows)))
    print("register:", dict(C(r["register"] for r in rows)))
    ap = C(r["appropriateness"] for r in rows)
    print("appropriateness:", {k: f"{v} ({100*v/len(rows):.0f}%)" for k, v in ap.items()})
    print("techniques:", dict(C(t for r in rows for t in r["techniques"]).most_common()))
    print("multi-label items:", sum(len(r["techniques"]) > 1 for r in rows))
    print("deviation:", dict(C(d for r in rows for d in r["deviation"])))
    cr = [r for r in rows if r["crisis_context"]]
    print("crisis_context:", len(cr), "| pos:", sum(r["appropriateness"] == "pos" for r in cr),
          "| warn+safety:", sum("safety" in r["deviation"] for r in cr))
    print("errors:", len(errs))
    for e in errs[:50]: print("  ", e)
    sys.exit(1 if errs else 0)
