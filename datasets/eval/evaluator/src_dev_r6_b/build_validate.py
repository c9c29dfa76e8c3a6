#!/usr/bin/env python3
"""Build test.jsonl from src/*.txt (pipe-delimited, hand-written) and validate it.
Line format: persona|stage|register|client_prev|counselor|techs|app|deviation|crisis(0/1)|note
stdlib only. Usage: python3 build_validate.py [--check-only]"""
import json, os, random, re, sys, unicodedata, collections

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
TAX = "/work/main/datasets/taxonomy.json"
SRC_ORDER = ["p1.txt", "p7.txt", "p5.txt", "p4.txt", "p6.txt", "p2.txt", "p3.txt", "extra.txt", "extra2.txt"]

T = {"AR": "approval_reassurance", "CQ": "closed_question", "OQ": "open_question", "RS": "restatement",
     "RF": "reflection_feelings", "CH": "challenge", "IN": "interpretation", "SD": "self_disclosure",
     "IM": "immediacy", "INF": "information", "DG": "direct_guidance", "VA": "validation", "OT": "other"}
STAGE = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
REG = {"f": "formal", "h": "haeyo", "b": "banmal"}
APP = {"p": "pos", "w": "warn", "n": "neutral"}
DEV = ["stage_fit", "focus", "pacing", "theory_fit", "safety"]
TECHS = list(T.values())
if os.path.exists(TAX):
    tax = json.load(open(TAX, encoding="utf-8"))
    TECHS = [t["code"] for t in tax["techniques"]]
    DEV = [d["code"] for d in tax["intent_deviation"]["dimensions"]]

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    rows = []
    for fn in SRC_ORDER:
        for ln, line in enumerate(open(os.path.join(HERE, "src", fn), encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            f = line.split("|")
            if len(f) != 10:
                sys.exit(f"{fn}:{ln}: expected 10 fields, got {len(f)}")
            p, st, rg, cp, co, te, ap, dv, cr, note = f
            rows.append({"persona": p, "stage": STAGE[st], "register": REG[rg],
                         "client_prev": unicodedata.normalize("NFC", cp.strip()),
                         "counselor": unicodedata.normalize("NFC", co.strip()),
                         "techniques": [T[x] for x in te.split(",") if x],
                         "appropriateness": APP[ap],
                         "deviation": [x for x in dv.split(",") if x],
                         "crisis_context": cr == "1", "note": note.strip(), "_src": f"{fn}:{ln}"})
    random.Random(20261201).shuffle(rows)
    with open(OUT, "w", encoding="utf-8") as fh:
        for i, r in enumerate(rows, 1):
            r = {"id": f"ev-t6b-{i:04d}", **{k: v for k, v in r.items() if k != "_src"}}
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")

def validate():
    req = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
           "appropriateness", "deviation", "crisis_context", "note"]
    errs, ids, seen = [], set(), {}
    items = []
    for n, line in enumerate(open(OUT, encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f"line {n}: bad json {e}"); continue
        items.append(o)
        for k in req:
            if k not in o: errs.append(f"{n}: missing {k}")
        if o["id"] in ids: errs.append(f"{n}: dup id {o['id']}")
        ids.add(o["id"])
        if not re.fullmatch(r"ev-t6b-\d{4}", o["id"]): errs.append(f"{n}: bad id")
        if o["persona"] not in [f"P{i}" for i in range(1, 8)]: errs.append(f"{n}: persona")
        if o["stage"] not in STAGE.values(): errs.append(f"{n}: stage")
        if o["register"] not in REG.values(): errs.append(f"{n}: register")
        if not o["techniques"] or any(t not in TECHS for t in o["techniques"]): errs.append(f"{n}: techniques")
        if len(set(o["techniques"])) != len(o["techniques"]): errs.append(f"{n}: dup technique")
        if o["appropriateness"] not in APP.values(): errs.append(f"{n}: appropriateness")
        if any(d not in DEV for d in o["deviation"]): errs.append(f"{n}: deviation code")
        if o["appropriateness"] == "warn" and not o["deviation"]: errs.append(f"{n}: warn without deviation")
        if o["appropriateness"] != "warn" and o["deviation"]: errs.append(f"{n}: deviation on non-warn")
        if "safety" in o["deviation"] and not o["crisis_context"]: errs.append(f"{n}: safety w/o crisis")
        if not isinstance(o["crisis_context"], bool): errs.append(f"{n}: crisis type")
        if not o["client_prev"].strip() or not o["counselor"].strip(): errs.append(f"{n}: empty text")
        k = norm(o["counselor"])
        if k in seen: errs.append(f"{n}: duplicate normalised counselor text with {seen[k]}")
        seen[k] = o["id"]
    C = collections.Counter
    print("items:", len(items))
    print("appropriateness:", dict(C(o["appropriateness"] for o in items)))
    print("stage:", dict(C(o["stage"] for o in items)))
    print("persona:", dict(sorted(C(o["persona"] for o in items).items())))
    print("register:", dict(C(o["register"] for o in items)))
    cr = [o for o in items if o["crisis_context"]]
    print("crisis_context:", len(cr), "| crisis pos:", sum(o["appropriateness"] == "pos" for o in cr),
          "| crisis warn+safety:", sum("safety" in o["deviation"] for o in cr))
    print("techniques:", dict(C(t for o in items for t in o["techniques"]).most_common()))
    print("multi-label items:", sum(len(o["techniques"]) > 1 for o in items))
    checks = [len(items) >= 300, len(cr) >= 45, sum(o["appropriateness"] == "pos" for o in cr) >= 25,
              sum("safety" in o["deviation"] for o in cr) >= 12, set(STAGE.values()) <= {o["stage"] for o in items}]
    if not all(checks): errs.append(f"coverage checks failed: {checks}")
    for e in errs: print("ERROR", e)
    print("VALID" if not errs else f"INVALID ({len(errs)} errors)")
    return not errs

if __name__ == "__main__":
    if "--check-only" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
