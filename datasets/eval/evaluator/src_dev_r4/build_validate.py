#!/usr/bin/env python3
"""Build test.jsonl from src/p*.txt (pipe format) and validate it. stdlib only.
src line: stage|reg|appr|techs|deviation|crisis|client_prev|counselor|note
  stage r/e/i/c, reg f/h/b, appr p/w/n, techs = comma list of short codes,
  deviation = comma list of full taxonomy codes, crisis 1 or empty.
Usage: python3 build_validate.py [--validate-only]
"""
import json, os, re, sys, unicodedata, glob, collections
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
TAX = "/work/main/datasets/taxonomy.json"
T = {"ar": "approval_reassurance", "cq": "closed_question", "oq": "open_question",
     "rs": "restatement", "rf": "reflection_feelings", "ch": "challenge",
     "ip": "interpretation", "sd": "self_disclosure", "im": "immediacy",
     "inf": "information", "dg": "direct_guidance", "va": "validation", "ot": "other"}
ST = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
RG = {"f": "formal", "h": "haeyo", "b": "banmal"}
AP = {"p": "pos", "w": "warn", "n": "neutral"}
REQ = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
       "appropriateness", "deviation", "crisis_context", "note"]

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    items = []
    for path in sorted(glob.glob(os.path.join(HERE, "src", "p*.txt"))):
        persona = "P" + os.path.basename(path)[1]
        for ln, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            f = line.split("|")
            if len(f) != 9:
                sys.exit(f"{path}:{ln}: expected 9 fields, got {len(f)}")
            st, rg, ap, te, dv, cr, prev, co, note = f
            techs = []
            for t in te.split(","):
                t = T[t.strip()]
                if t not in techs:
                    techs.append(t)
            dev = []
            for d in [x.strip() for x in dv.split(",") if x.strip()]:
                if d not in dev:
                    dev.append(d)
            items.append({"persona": persona, "stage": ST[st], "register": RG[rg],
                          "client_prev": prev.strip(), "counselor": co.strip(),
                          "techniques": techs, "appropriateness": AP[ap], "deviation": dev,
                          "crisis_context": cr.strip() == "1", "note": note.strip()})
    for i, it in enumerate(items, 1):
        it["id"] = f"ev-t4-{i:04d}"
    with open(OUT, "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps({k: it[k] for k in REQ}, ensure_ascii=False) + "\n")

def validate():
    tax = json.load(open(TAX, encoding="utf-8"))
    techs = {t["code"] for t in tax["techniques"]}
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    errs, ids, seen = [], set(), {}
    rows = []
    for n, line in enumerate(open(OUT, encoding="utf-8"), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f"line {n}: bad json {e}"); continue
        rows.append(o)
        for k in REQ:
            if k not in o:
                errs.append(f"{o.get('id')}: missing {k}")
        if o["id"] in ids: errs.append(f"dup id {o['id']}")
        ids.add(o["id"])
        if not re.fullmatch(r"ev-t4-\d{4}", o["id"]): errs.append(f"bad id {o['id']}")
        if o["persona"] not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{o['id']}: persona")
        if o["stage"] not in stages: errs.append(f"{o['id']}: stage")
        if o["register"] not in {"formal", "haeyo", "banmal"}: errs.append(f"{o['id']}: register")
        if not o["techniques"] or any(t not in techs for t in o["techniques"]): errs.append(f"{o['id']}: techniques")
        if o["appropriateness"] not in {"pos", "warn", "neutral"}: errs.append(f"{o['id']}: appr")
        if any(d not in devs for d in o["deviation"]): errs.append(f"{o['id']}: deviation code")
        if o["appropriateness"] == "warn" and not o["deviation"]: errs.append(f"{o['id']}: warn without deviation")
        if o["appropriateness"] != "warn" and o["deviation"]: errs.append(f"{o['id']}: deviation on non-warn")
        if o["crisis_context"] and o["appropriateness"] == "warn" and "safety" not in o["deviation"]:
            errs.append(f"{o['id']}: crisis warn without safety")
        if not isinstance(o["crisis_context"], bool): errs.append(f"{o['id']}: crisis bool")
        if not o["client_prev"] or not o["counselor"]: errs.append(f"{o['id']}: empty text")
        k = norm(o["counselor"])
        if k in seen: errs.append(f"{o['id']}: duplicate normalised counselor text of {seen[k]}")
        seen[k] = o["id"]
    C = collections.Counter
    print(f"items: {len(rows)}  errors: {len(errs)}")
    for e in errs[:30]: print("  ERR", e)
    print("persona:", dict(sorted(C(r["persona"] for r in rows).items())))
    print("stage:", dict(C(r["stage"] for r in rows)))
    print("register:", dict(C(r["register"] for r in rows)))
    print("appropriateness:", dict(C(r["appropriateness"] for r in rows)))
    print("techniques:", dict(C(t for r in rows for t in r["techniques"]).most_common()))
    print("multi-label:", sum(len(r["techniques"]) > 1 for r in rows))
    print("deviation:", dict(C(d for r in rows for d in r["deviation"]).most_common()))
    cr = [r for r in rows if r["crisis_context"]]
    print("crisis_context:", len(cr), "| crisis pos:", sum(r["appropriateness"] == "pos" for r in cr),
          "| crisis warn(safety):", sum("safety" in r["deviation"] for r in cr))
    return not errs

if __name__ == "__main__":
    if "--validate-only" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
