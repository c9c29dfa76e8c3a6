#!/usr/bin/env python3
"""Build test.jsonl from src_*.txt (hand-written, one item per line) and validate it. stdlib only.
Source line: P|S|R|client_prev|counselor|techs|A|devs|C|note
  S: r=rapport e=exploration i=intervention c=closing ; R: f=formal h=haeyo b=banmal
  techs: comma list of short codes (see TECH) ; A: p/w/n ; devs: comma list or '-' ; C: 1/0
Usage: python3 build_validate.py          (build + validate)
       python3 build_validate.py --check  (validate existing test.jsonl only)
"""
import json, sys, re, glob, os, unicodedata, collections
HERE = os.path.dirname(os.path.abspath(__file__))
TECH = {"ar": "approval_reassurance", "cq": "closed_question", "oq": "open_question", "rs": "restatement",
        "rf": "reflection_feelings", "ch": "challenge", "ip": "interpretation", "sd": "self_disclosure",
        "im": "immediacy", "in": "information", "dg": "direct_guidance", "va": "validation", "ot": "other"}
DEV = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
STAGE = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
REG = {"f": "formal", "h": "haeyo", "b": "banmal"}
APP = {"p": "pos", "w": "warn", "n": "neutral"}
TAX = "/work/main/datasets/taxonomy.json"

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    items = []
    for fn in sorted(glob.glob(os.path.join(HERE, "src_*.txt"))):
        for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            f = line.split("|")
            if len(f) != 10:
                sys.exit(f"{fn}:{ln}: expected 10 fields, got {len(f)}: {line[:80]}")
            p, s, r, cp, co, te, a, dv, c, note = [x.strip() for x in f]
            try:
                items.append({"persona": p, "stage": STAGE[s], "register": REG[r],
                              "client_prev": unicodedata.normalize("NFC", cp),
                              "counselor": unicodedata.normalize("NFC", co),
                              "techniques": [TECH[t.strip()] for t in te.split(",")],
                              "appropriateness": APP[a],
                              "deviation": [] if dv == "-" else [DEV[d.strip()] for d in dv.split(",")],
                              "crisis_context": {"1": True, "0": False}[c], "note": note})
            except KeyError as e:
                sys.exit(f"{fn}:{ln}: bad code {e}")
    with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as out:
        for i, it in enumerate(items, 1):
            out.write(json.dumps({"id": f"ev-t4b-{i:04d}", **it}, ensure_ascii=False) + "\n")

def validate():
    tax = json.load(open(TAX, encoding="utf-8")) if os.path.exists(TAX) else None
    techs = {t["code"] for t in tax["techniques"]} if tax else set(TECH.values())
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]} if tax else set(DEV.values())
    req = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
           "appropriateness", "deviation", "crisis_context", "note"]
    errs, rows, ids, seen = [], [], set(), {}
    for ln, line in enumerate(open(os.path.join(HERE, "test.jsonl"), encoding="utf-8"), 1):
        try:
            d = json.loads(line)
        except Exception as e:
            errs.append(f"line {ln}: invalid JSON {e}"); continue
        for k in req:
            if k not in d: errs.append(f"{ln}: missing {k}")
        if d.get("id") in ids: errs.append(f"{ln}: dup id {d.get('id')}")
        ids.add(d.get("id"))
        if not re.fullmatch(r"ev-t4b-\d{4}", d.get("id", "")): errs.append(f"{ln}: bad id")
        if d.get("persona") not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{ln}: persona")
        if d.get("stage") not in STAGE.values(): errs.append(f"{ln}: stage")
        if d.get("register") not in REG.values(): errs.append(f"{ln}: register")
        if d.get("appropriateness") not in APP.values(): errs.append(f"{ln}: appropriateness")
        t = d.get("techniques", [])
        if not t or any(x not in techs for x in t) or len(set(t)) != len(t): errs.append(f"{ln}: techniques {t}")
        if any(x not in devs for x in d.get("deviation", [])): errs.append(f"{ln}: deviation")
        if d.get("appropriateness") == "warn" and not d.get("deviation"): errs.append(f"{ln}: warn without deviation")
        if d.get("appropriateness") == "pos" and d.get("deviation"): errs.append(f"{ln}: pos with deviation")
        if not isinstance(d.get("crisis_context"), bool): errs.append(f"{ln}: crisis_context type")
        if not d.get("client_prev", "").strip() or not d.get("counselor", "").strip(): errs.append(f"{ln}: empty text")
        n = norm(d.get("counselor", ""))
        if n in seen: errs.append(f"{ln}: duplicate normalised counselor text (= line {seen[n]})")
        seen[n] = ln
        rows.append(d)
    return rows, errs

def report(rows, errs):
    C = collections.Counter
    print(f"items: {len(rows)}  errors: {len(errs)}")
    for e in errs[:30]: print("  ERR", e)
    print("persona:", dict(sorted(C(r["persona"] for r in rows).items())))
    print("stage:", dict(C(r["stage"] for r in rows)))
    print("register:", dict(C(r["register"] for r in rows)))
    ap = C(r["appropriateness"] for r in rows)
    print("appropriateness:", {k: f"{v} ({100*v/len(rows):.0f}%)" for k, v in ap.items()})
    print("techniques:", dict(C(t for r in rows for t in r["techniques"]).most_common()))
    print("multi-label items:", sum(len(r["techniques"]) > 1 for r in rows))
    print("deviation:", dict(C(x for r in rows for x in r["deviation"]).most_common()))
    cr = [r for r in rows if r["crisis_context"]]
    print("crisis_context true:", len(cr), " by appr:", dict(C(r["appropriateness"] for r in cr)),
          " warn+safety:", sum("safety" in r["deviation"] for r in cr))
    print("persona x stage:", {p: [sum(1 for r in rows if r["persona"] == p and r["stage"] == s) for s in STAGE.values()]
                               for p in sorted({r["persona"] for r in rows})})
    return 1 if errs else 0

if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    rows, errs = validate()
    sys.exit(report(rows, errs))
