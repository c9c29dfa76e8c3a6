#!/usr/bin/env python3
"""Build test.jsonl from src_*.txt (pipe-delimited, hand-written) and validate it.
Line format: persona|stage|register|client_prev|counselor|techs|appr|dev|crisis|note
Tech abbreviations are mapped to taxonomy codes. stdlib only."""
import json, glob, os, re, sys, unicodedata, collections
HERE = os.path.dirname(os.path.abspath(__file__))
TAX = "/work/main/datasets/taxonomy.json"
T = {"ar":"approval_reassurance","cq":"closed_question","oq":"open_question","rs":"restatement",
     "rf":"reflection_feelings","ch":"challenge","in":"interpretation","sd":"self_disclosure",
     "im":"immediacy","inf":"information","dg":"direct_guidance","va":"validation","ot":"other"}
D = {"sf":"stage_fit","fo":"focus","pa":"pacing","th":"theory_fit","sa":"safety"}
A = {"p":"pos","pos":"pos","w":"warn","warn":"warn","n":"neutral","neutral":"neutral"}

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def build():
    items = []
    for f in sorted(glob.glob(os.path.join(HERE, "src_*.txt"))):
        for ln, line in enumerate(open(f, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            p = line.split("|")
            if len(p) != 10:
                sys.exit(f"{os.path.basename(f)}:{ln}: {len(p)} fields")
            per, st, reg, cp, co, te, ap, dv, cr, note = [x.strip() for x in p]
            items.append({"persona": per, "stage": st, "register": reg,
                "client_prev": unicodedata.normalize("NFC", cp), "counselor": unicodedata.normalize("NFC", co),
                "techniques": [T.get(x.strip(), x.strip()) for x in te.split(",") if x.strip()],
                "appropriateness": A.get(ap, ap),
                "deviation": [D.get(x.strip(), x.strip()) for x in dv.split(",") if x.strip()],
                "crisis_context": cr == "1", "note": note,
                "_src": f"{os.path.basename(f)}:{ln}"})
    for i, it in enumerate(items, 1):
        it["id"] = f"ev-t5b-{i:04d}"
    return items

def validate(items):
    tax = json.load(open(TAX, encoding="utf-8"))
    techs = {t["code"] for t in tax["techniques"]}
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    errs = []; ids = set(); seen = {}
    req = ["id","persona","stage","register","client_prev","counselor","techniques",
           "appropriateness","deviation","crisis_context","note"]
    for it in items:
        w = it.get("_src", it["id"])
        for k in req:
            if k not in it: errs.append(f"{w}: missing {k}")
        if it["id"] in ids: errs.append(f"{w}: dup id")
        ids.add(it["id"])
        if it["persona"] not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{w}: persona")
        if it["stage"] not in stages: errs.append(f"{w}: stage {it['stage']}")
        if it["register"] not in {"formal","haeyo","banmal"}: errs.append(f"{w}: register")
        if not it["client_prev"] or not it["counselor"]: errs.append(f"{w}: empty text")
        if not it["techniques"] or any(t not in techs for t in it["techniques"]): errs.append(f"{w}: techniques {it['techniques']}")
        if len(set(it["techniques"])) != len(it["techniques"]): errs.append(f"{w}: repeated technique")
        if it["appropriateness"] not in {"pos","warn","neutral"}: errs.append(f"{w}: appr")
        if any(d not in devs for d in it["deviation"]): errs.append(f"{w}: deviation {it['deviation']}")
        if it["appropriateness"] == "warn" and not it["deviation"]: errs.append(f"{w}: warn without deviation")
        if it["appropriateness"] == "pos" and it["deviation"]: errs.append(f"{w}: pos with deviation")
        if "safety" in it["deviation"] and not it["crisis_context"]: errs.append(f"{w}: safety outside crisis")
        n = norm(it["counselor"])
        if n in seen: errs.append(f"{w}: duplicate counselor text with {seen[n]}")
        seen[n] = w
    return errs

def stats(items):
    c = collections.Counter
    print("items:", len(items))
    print("appropriateness:", dict(c(i["appropriateness"] for i in items)))
    print("persona:", dict(sorted(c(i["persona"] for i in items).items())))
    print("stage:", dict(c(i["stage"] for i in items)))
    print("register:", dict(c(i["register"] for i in items)))
    cr = [i for i in items if i["crisis_context"]]
    print("crisis_context:", len(cr), dict(c(i["appropriateness"] for i in cr)),
          "| warn+safety:", sum(1 for i in cr if "safety" in i["deviation"]))
    print("multi-label:", sum(1 for i in items if len(i["techniques"]) > 1))
    print("techniques:", dict(c(t for i in items for t in i["techniques"]).most_common()))

if __name__ == "__main__":
    items = build()
    errs = validate(items)
    out = os.path.join(HERE, "test.jsonl")
    if not errs:
        with open(out, "w", encoding="utf-8") as fh:
            for it in items:
                o = {k: it[k] for k in ["id","persona","stage","register","client_prev","counselor",
                     "techniques","appropriateness","deviation","crisis_context","note"]}
                fh.write(json.dumps(o, ensure_ascii=False) + "\n")
        # re-read written file and validate again
        back = [json.loads(l) for l in open(out, encoding="utf-8")]
        errs = validate(back)
    stats(items)
    print("errors:", len(errs))
    for e in errs[:30]: print("  ", e)
    sys.exit(1 if errs else 0)
