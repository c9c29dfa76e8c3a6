#!/usr/bin/env python3
"""Build test.jsonl from src/*.txt (compact hand-written source) and validate it. stdlib only.
Source format: header lines '@P1 rapport haeyo' set persona/stage/register; item lines
'client_prev | counselor | techs | appropriateness | deviations | c | note'
(techs/devs: comma-separated short codes or '-'; 'c' = crisis_context true, '-' = false).
Usage: python3 build_validate.py            (build + validate)
       python3 build_validate.py --check    (validate existing test.jsonl only)"""
import json, re, sys, unicodedata, glob, os, collections
HERE = os.path.dirname(os.path.abspath(__file__))
TAX = "/work/main/datasets/taxonomy.json"
T = {"ar": "approval_reassurance", "cq": "closed_question", "oq": "open_question", "rs": "restatement",
     "rf": "reflection_feelings", "ch": "challenge", "in": "interpretation", "sd": "self_disclosure",
     "im": "immediacy", "if": "information", "dg": "direct_guidance", "va": "validation", "ot": "other"}
D = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
REQ = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
       "appropriateness", "deviation", "crisis_context", "note"]

def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()

def codes(field, table, where):
    if field.strip() in ("", "-"):
        return []
    out = []
    for c in field.split(","):
        c = c.strip()
        if c not in table:
            sys.exit(f"unknown code {c!r} at {where}")
        out.append(table[c])
    return out

def build():
    items, persona, stage, reg = [], None, None, None
    for path in sorted(glob.glob(os.path.join(HERE, "src", "*.txt"))):
        for ln, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{os.path.basename(path)}:{ln}"
            if line.startswith("@"):
                persona, stage, reg = line[1:].split()
                continue
            f = [x.strip() for x in line.split("|")]
            if len(f) != 7:
                sys.exit(f"bad field count {len(f)} at {where}")
            cp, co, te, ap, de, cr, note = f
            items.append({"id": None, "persona": persona, "stage": stage, "register": reg,
                          "client_prev": unicodedata.normalize("NFC", cp),
                          "counselor": unicodedata.normalize("NFC", co),
                          "techniques": codes(te, T, where), "appropriateness": ap,
                          "deviation": codes(de, D, where), "crisis_context": cr == "c",
                          "note": note, "_where": where})
    for i, it in enumerate(items, 1):
        it["id"] = f"ev-t7b-{i:04d}"
    return items

def validate(items):
    tax = json.load(open(TAX, encoding="utf-8"))
    tech = {t["code"] for t in tax["techniques"]}
    devs = {d["code"] for d in tax["intent_deviation"]["dimensions"]}
    stages = {s["code"] for s in tax["stages"]}
    errs, ids, seen = [], set(), {}
    for it in items:
        w = it.get("_where", it.get("id"))
        for k in REQ:
            if k not in it:
                errs.append(f"{w}: missing {k}")
        if it["id"] in ids: errs.append(f"{w}: dup id")
        ids.add(it["id"])
        if not re.fullmatch(r"ev-t7b-\d{4}", it["id"]): errs.append(f"{w}: bad id")
        if it["persona"] not in {f"P{i}" for i in range(1, 8)}: errs.append(f"{w}: persona")
        if it["stage"] not in stages: errs.append(f"{w}: stage")
        if it["register"] not in {"formal", "haeyo", "banmal"}: errs.append(f"{w}: register")
        if not it["client_prev"] or not it["counselor"]: errs.append(f"{w}: empty text")
        if not it["techniques"] or not set(it["techniques"]) <= tech: errs.append(f"{w}: techniques")
        if len(set(it["techniques"])) != len(it["techniques"]): errs.append(f"{w}: repeated technique")
        if it["appropriateness"] not in {"pos", "warn", "neutral"}: errs.append(f"{w}: appropriateness")
        if not set(it["deviation"]) <= devs: errs.append(f"{w}: deviation")
        if it["appropriateness"] == "warn" and not it["deviation"]: errs.append(f"{w}: warn without deviation")
        if it["appropriateness"] == "pos" and it["deviation"]: errs.append(f"{w}: pos with deviation")
        if "safety" in it["deviation"] and not it["crisis_context"]: errs.append(f"{w}: safety dev w/o crisis")
        n = norm(it["counselor"])
        if n in seen: errs.append(f"{w}: duplicate normalised counselor text (= {seen[n]})")
        seen[n] = w
    return errs

def report(items):
    c = collections.Counter
    print("items:", len(items))
    print("persona:", dict(sorted(c(i["persona"] for i in items).items())))
    print("stage:", dict(c(i["stage"] for i in items)))
    print("register:", dict(c(i["register"] for i in items)))
    ap = c(i["appropriateness"] for i in items)
    print("appropriateness:", {k: f"{v} ({100*v/len(items):.0f}%)" for k, v in ap.items()})
    print("techniques:", dict(c(t for i in items for t in i["techniques"]).most_common()))
    print("multi-label items:", sum(len(i["techniques"]) > 1 for i in items))
    print("deviation:", dict(c(d for i in items for d in i["deviation"]).most_common()))
    cr = [i for i in items if i["crisis_context"]]
    print("crisis_context:", len(cr), "| pos:", sum(i["appropriateness"] == "pos" for i in cr),
          "| warn+safety:", sum("safety" in i["deviation"] for i in cr))

if __name__ == "__main__":
    out = os.path.join(HERE, "test.jsonl")
    if "--check" in sys.argv:
        items = []
        for ln, l in enumerate(open(out, encoding="utf-8"), 1):
            try: items.append(json.loads(l))
            except json.JSONDecodeError as e: sys.exit(f"line {ln}: invalid JSON {e}")
    else:
        items = build()
    errs = validate(items)
    if errs:
        print("\n".join(errs)); sys.exit(f"FAILED: {len(errs)} errors")
    if "--check" not in sys.argv:
        with open(out, "w", encoding="utf-8") as fh:
            for it in items:
                it.pop("_where", None)
                fh.write(json.dumps({k: it[k] for k in REQ}, ensure_ascii=False) + "\n")
    report(items)
    print("OK: valid JSON, unique ids, allowed codes, required fields, no duplicate normalised text")
