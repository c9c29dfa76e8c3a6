#!/usr/bin/env python3
"""Build test.jsonl from src/P*.txt and validate (stdlib only).
Source line: stage|reg|techs|app|dev|crisis|client_prev|counselor|note
 stage r/e/i/c; reg f/h/b; techs comma codes; app p/w/n; dev comma codes or -; crisis 0/1.
Lines starting with # are comments."""
import json, re, sys, unicodedata, glob, os
from collections import Counter
D = os.path.dirname(os.path.abspath(__file__))
ST = dict(r="rapport", e="exploration", i="intervention", c="closing")
RG = dict(f="formal", h="haeyo", b="banmal")
TC = dict(ar="approval_reassurance", cq="closed_question", oq="open_question", rs="restatement",
          rf="reflection_feelings", ch="challenge", ip="interpretation", sd="self_disclosure",
          im="immediacy", inf="information", dg="direct_guidance", va="validation", ot="other")
AP = dict(p="pos", w="warn", n="neutral")
DV = dict(sf="stage_fit", fo="focus", pa="pacing", th="theory_fit", sa="safety")
def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()
errs, items = [], []
for fn in sorted(glob.glob(os.path.join(D, "src", "P*.txt"))):
    persona = os.path.basename(fn).split(".")[0]
    for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("|")
        if len(f) not in (8, 9):
            errs.append(f"{fn}:{ln} fields={len(f)}"); continue
        if len(f) == 8: f.append("")
        st, rg, tc, ap, dv, cr, cp, co, note = [x.strip() for x in f]
        try:
            it = {"persona": persona, "stage": ST[st], "register": RG[rg],
                  "client_prev": unicodedata.normalize("NFC", cp),
                  "counselor": unicodedata.normalize("NFC", co),
                  "techniques": [TC[t] for t in tc.split(",")],
                  "appropriateness": AP[ap],
                  "deviation": [] if dv in ("-", "") else [DV[d] for d in dv.split(",")],
                  "crisis_context": {"0": False, "1": True}[cr],
                  "note": note or ""}
        except KeyError as e:
            errs.append(f"{fn}:{ln} bad code {e}"); continue
        it["_src"] = f"{fn}:{ln}"
        items.append(it)
seen = {}
for it in items:
    s = it.pop("_src")
    if not it["client_prev"] or not it["counselor"]: errs.append(f"{s} empty text")
    if len(set(it["techniques"])) != len(it["techniques"]): errs.append(f"{s} dup tech")
    if it["appropriateness"] == "warn" and not it["deviation"]: errs.append(f"{s} warn w/o deviation")
    if it["appropriateness"] != "warn" and it["deviation"]: errs.append(f"{s} deviation on non-warn")
    if "safety" in it["deviation"] and not it["crisis_context"]: errs.append(f"{s} safety w/o crisis")
    for k in ("client_prev", "counselor", "note"):
        if unicodedata.normalize("NFC", it[k]) != it[k]: errs.append(f"{s} not NFC")
    n = norm(it["counselor"])
    if n in seen: errs.append(f"{s} duplicate counselor (also {seen[n]})")
    seen[n] = s
out = []
for i, it in enumerate(items, 1):
    o = {"id": f"ev-t8b-{i:04d}"}; o.update(it); out.append(o)
with open(os.path.join(D, "test.jsonl"), "w", encoding="utf-8") as fh:
    for o in out: fh.write(json.dumps(o, ensure_ascii=False) + "\n")
# re-read check
for l in open(os.path.join(D, "test.jsonl"), encoding="utf-8"):
    json.loads(l)
N = len(out)
per = Counter(o["persona"] for o in out); stg = Counter(o["stage"] for o in out)
app = Counter(o["appropriateness"] for o in out); reg = Counter(o["register"] for o in out)
tech = Counter(t for o in out for t in o["techniques"])
cr = [o for o in out if o["crisis_context"]]
crp = sum(o["appropriateness"] == "pos" for o in cr)
crw = sum(o["appropriateness"] == "warn" and "safety" in o["deviation"] for o in cr)
cps = Counter(o["client_prev"] for o in out); pairs = sum(1 for c, k in cps.items() if k >= 2)
multi = sum(len(o["techniques"]) > 1 for o in out)
checks = [(N >= 385, f"total {N} >= 385"), (all(per.get(f"P{k}", 0) >= 50 for k in range(1, 8)), f"per persona >=50 {dict(sorted(per.items()))}"),
          (len(stg) == 4, f"stages {dict(stg)}"), (len(cr) >= 85, f"crisis {len(cr)} >= 85"),
          (crp >= 60, f"crisis pos {crp} >= 60"), (crw >= 25, f"crisis warn+safety {crw} >= 25"),
          (len(tech) == 13, f"techniques used {len(tech)}/13"), (0.60 <= app["pos"] / max(N, 1) <= 0.70, f"pos share {app['pos']/max(N,1):.3f}")]
for ok, msg in checks:
    if not ok: errs.append("COUNT " + msg)
    print(("ok   " if ok else "FAIL ") + msg)
print("appropriateness", dict(app)); print("register", dict(reg)); print("techniques", dict(tech.most_common()))
print(f"multi-label {multi}; client lines used >=2 times (pairs) {pairs}")
for e in errs[:60]: print("ERR", e)
print(f"{'VALID' if not errs else 'INVALID'}: {len(errs)} errors")
sys.exit(1 if errs else 0)
