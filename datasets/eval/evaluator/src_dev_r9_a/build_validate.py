#!/usr/bin/env python3
"""Build test.jsonl from src/*.txt and validate the Evaluator contract (stdlib only).
Source line: persona|stage|register|techs|appr|dev|crisis|client_prev|counselor|note
 stage r/e/i/c, register f/h/b, techs comma codes (see TECH), appr p/w/n, dev comma codes or -, crisis 1/0,
 client_prev '^' = same as previous line (paired item). '#' lines and blanks ignored."""
import json, os, re, sys, unicodedata, glob
from collections import Counter
HERE = os.path.dirname(os.path.abspath(__file__))
TECH = {"ar":"approval_reassurance","cq":"closed_question","oq":"open_question","rs":"restatement",
        "rf":"reflection_feelings","ch":"challenge","in":"interpretation","sd":"self_disclosure",
        "im":"immediacy","if":"information","dg":"direct_guidance","va":"validation","ot":"other"}
STAGE = {"r":"rapport","e":"exploration","i":"intervention","c":"closing"}
REG = {"f":"formal","h":"haeyo","b":"banmal"}
APPR = {"p":"pos","w":"warn","n":"neutral"}
DEV = {"sf":"stage_fit","fo":"focus","pa":"pacing","th":"theory_fit","sa":"safety"}
PERS = {f"P{i}" for i in range(1,8)}
def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()
errors = []; items = []; prev_client = None; group = 0
for fn in sorted(glob.glob(os.path.join(HERE, "src", "*.txt"))):
    for ln, raw in enumerate(open(fn, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{os.path.basename(fn)}:{ln}"
        f = line.split("|")
        if len(f) not in (9, 10):
            errors.append(f"{where}: {len(f)} fields"); continue
        if len(f) == 9: f.append("")
        p, st, rg, te, ap, dv, cr, cp, co, note = [x.strip() for x in f]
        if cp == "^":
            if prev_client is None: errors.append(f"{where}: ^ without previous"); continue
            cp = prev_client
        else:
            group += 1
        prev_client = cp
        try:
            techs = [TECH[t] if t in TECH else {v:v for v in TECH.values()}[t] for t in te.split(",") if t]
            devs = [] if dv in ("-", "") else [DEV[d] if d in DEV else {v:v for v in DEV.values()}[d] for d in dv.split(",")]
            it = {"persona": p, "stage": STAGE[st], "register": REG[rg], "client_prev": cp, "counselor": co,
                  "techniques": techs, "appropriateness": APPR[ap], "deviation": devs,
                  "crisis_context": {"1": True, "0": False}[cr], "note": note}
        except KeyError as e:
            errors.append(f"{where}: bad code {e}"); continue
        it = {k: (unicodedata.normalize("NFC", v) if isinstance(v, str) else v) for k, v in it.items()}
        it["_where"] = where; it["_g"] = group
        items.append(it)
gap = {}
for it in items: gap.setdefault(it["_g"], set()).add(it["appropriateness"])
for it in items:
    if {"pos", "warn"} <= gap[it["_g"]]:
        it["note"] = (it["note"] + " " if it["note"] else "") + "[paired]"
    del it["_g"]
seen = {}
for i, it in enumerate(items, 1):
    w = it.pop("_where")
    it_id = f"ev-t9a-{i:04d}"
    if it["persona"] not in PERS: errors.append(f"{w}: persona")
    if not it["techniques"]: errors.append(f"{w}: no technique")
    if len(set(it["techniques"])) != len(it["techniques"]): errors.append(f"{w}: dup tech")
    if it["appropriateness"] == "warn" and not it["deviation"]: errors.append(f"{w}: warn without deviation")
    if it["appropriateness"] != "warn" and it["deviation"]: errors.append(f"{w}: deviation on non-warn")
    if "safety" in it["deviation"] and not it["crisis_context"]: errors.append(f"{w}: safety dev without crisis")
    if not it["client_prev"] or not it["counselor"]: errors.append(f"{w}: empty text")
    n = norm(it["counselor"])
    if n in seen: errors.append(f"{w}: duplicate counselor text (also {seen[n]})")
    seen[n] = w
    items[i-1] = {"id": it_id, **it}
out = os.path.join(HERE, "test.jsonl")
with open(out, "w", encoding="utf-8") as fh:
    for it in items: fh.write(json.dumps(it, ensure_ascii=False) + "\n")
# re-read and check
back = [json.loads(l) for l in open(out, encoding="utf-8")]
KEYS = {"id","persona","stage","register","client_prev","counselor","techniques","appropriateness","deviation","crisis_context","note"}
for it in back:
    if set(it) != KEYS: errors.append(f"{it['id']}: keys")
    for k in ("client_prev","counselor","note"):
        if unicodedata.normalize("NFC", it[k]) != it[k]: errors.append(f"{it['id']}: not NFC")
N = len(back)
per = Counter(i["persona"] for i in back); stg = Counter(i["stage"] for i in back)
ap = Counter(i["appropriateness"] for i in back); tc = Counter(t for i in back for t in i["techniques"])
rg = Counter(i["register"] for i in back)
cr = [i for i in back if i["crisis_context"]]
for i in cr:
    if i["appropriateness"] == "warn" and "safety" not in i["deviation"]: errors.append(f"{i['id']}: crisis warn without safety")
cr_pos = sum(1 for i in cr if i["appropriateness"] == "pos")
cr_miss = sum(1 for i in cr if i["appropriateness"] == "warn" and "safety" in i["deviation"])
paired = sum(1 for i in back if "[paired]" in i["note"])
multi = sum(1 for i in back if len(i["techniques"]) > 1)
if N < 385: errors.append(f"total {N} < 385")
for p in sorted(PERS):
    if per[p] < 50: errors.append(f"{p}: {per[p]} < 50")
for s in STAGE.values():
    if stg[s] == 0: errors.append(f"stage {s} missing")
for t in TECH.values():
    if tc[t] == 0: errors.append(f"technique {t} missing")
if len(cr) < 85: errors.append(f"crisis {len(cr)} < 85")
if cr_pos < 60: errors.append(f"crisis pos {cr_pos} < 60")
if cr_miss < 25: errors.append(f"crisis miss {cr_miss} < 25")
pr = ap["pos"] / N if N else 0
if not (0.60 <= pr <= 0.70): errors.append(f"pos ratio {pr:.3f} outside 0.60-0.70")
print(f"items {N}  pos-ratio {pr:.3f}  paired {paired}  multi-label {multi}")
print("persona", dict(sorted(per.items())))
print("stage", dict(stg)); print("register", dict(rg)); print("appropriateness", dict(ap))
print(f"crisis {len(cr)}  crisis-pos {cr_pos}  crisis-miss(warn+safety) {cr_miss}")
print("techniques", dict(tc.most_common()))
for e in errors: print("ERROR", e)
print("VALID, 0 errors" if not errors else f"INVALID, {len(errors)} errors")
sys.exit(1 if errors else 0)
