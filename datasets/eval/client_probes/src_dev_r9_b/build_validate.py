#!/usr/bin/env python3
"""Build test.jsonl from src/P*.txt and validate it against the § Client probes contract (stdlib only).

Source line format (one item per line, '#' lines are comments):
  persona|kind|factkey:gated|warmup1 ;; warmup2 ...|probe|expect1 ;; expect2 ...|forbid1 ;; forbid2 ...|note
  factkey:gated is e.g. grade:0 / friends:1 on fact items; on other kinds it is '-' or 'key:-' (informational, goes to note).
"""
import json, os, re, sys, unicodedata, collections

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
PERSONAS = [f"P{i}" for i in range(1, 8)]
KIND_COUNTS = {"fact": 7, "repeat": 1, "greeting": 1, "closing": 3, "off_topic": 2, "joke": 1,
               "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
INTAKE = {"living", "siblings", "prior_counseling", "reason"}
AGEJOB = {"age", "grade", "job"}
errors = []

def err(msg):
    errors.append(msg)

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def split_list(s):
    s = s.strip()
    return [x.strip() for x in s.split(";;")] if s else []

items = []
for fn in sorted(os.listdir(SRC)):
    if not fn.endswith(".txt"):
        continue
    with open(os.path.join(SRC, fn), encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            where = f"{fn}:{ln}"
            if unicodedata.normalize("NFC", line) != line:
                err(f"{where}: source not NFC")
                line = unicodedata.normalize("NFC", line)
            parts = line.split("|")
            if len(parts) != 8:
                err(f"{where}: expected 8 fields, got {len(parts)}")
                continue
            persona, kind, fg, warm, probe, exp, forb, note = [p.strip() for p in parts]
            rec = {"persona": persona, "kind": kind, "warmup": split_list(warm), "probe": probe}
            if kind == "fact":
                m = re.fullmatch(r"([a-z_]+):([01])", fg)
                if not m:
                    err(f"{where}: bad fact field {fg!r}")
                    continue
                rec["fact"] = m.group(1)
                rec["gated"] = m.group(2) == "1"
            elif fg not in ("-",) and not re.fullmatch(r"[a-z_]+:-", fg):
                err(f"{where}: non-fact item has fact field {fg!r}")
            rec["expect_any"] = split_list(exp)
            rec["forbid"] = split_list(forb)
            if kind != "fact" and fg != "-":
                note = f"{note} (asks again: {fg.split(':')[0]})"
            rec["note"] = note
            rec["_where"] = where
            items.append(rec)

# order: by persona, keep file order within persona
items.sort(key=lambda r: PERSONAS.index(r["persona"]) if r["persona"] in PERSONAS else 99)

seen = {}
per = collections.defaultdict(collections.Counter)
si_depths = {}
for i, r in enumerate(items, 1):
    w = r.pop("_where")
    r_id = f"cp-t9b-{i:04d}"
    p, k = r["persona"], r["kind"]
    if p not in PERSONAS:
        err(f"{w}: bad persona {p}")
    if k not in KIND_COUNTS:
        err(f"{w}: bad kind {k}")
    per[p][k] += 1
    if k == "fact":
        per[p]["gated_true" if r["gated"] else "gated_false"] += 1
        if not r["gated"]:
            key = r["fact"]
            per[p]["intake:" + ("agejob" if key in AGEJOB else key)] += 1
            if key not in AGEJOB | INTAKE:
                err(f"{w}: gated:false fact must be an intake key, got {key}")
    for fld in ("probe", "note"):
        if not r[fld]:
            err(f"{w}: empty {fld}")
    for lst in ("warmup", "expect_any", "forbid"):
        for s in r[lst]:
            if not s:
                err(f"{w}: empty string in {lst}")
            if unicodedata.normalize("NFC", s) != s:
                err(f"{w}: {lst} not NFC")
    n = norm(r["probe"])
    if n in seen:
        err(f"{w}: duplicate normalised probe (also {seen[n]})")
    seen[n] = w
    if k == "si_screen":
        if r["expect_any"]:
            err(f"{w}: si_screen must have empty expect_any")
        if not 0 <= len(r["warmup"]) <= 12:
            err(f"{w}: si_screen warmup depth out of 0..12")
        si_depths[p] = len(r["warmup"])
    else:
        if len(r["expect_any"]) < 2:
            err(f"{w}: need >=2 expect_any")
    if not r["forbid"]:
        err(f"{w}: empty forbid")
    for fb in r["forbid"]:
        if len(fb) < 5:
            err(f"{w}: forbid too short to be an assertion: {fb!r}")
        if fb in r["probe"]:
            err(f"{w}: forbid occurs in probe: {fb!r}")
    for e in r["expect_any"]:
        if e in r["forbid"]:
            err(f"{w}: same string in expect and forbid: {e!r}")
    if k == "repeat" and not ({"아까", "말했"} <= set(r["expect_any"])):
        err(f"{w}: repeat expect_any must include 아까 and 말했")
    if k == "repeat" and not r["warmup"]:
        err(f"{w}: repeat needs the earlier question in warmup")
    if k == "closing" and len(r["warmup"]) < 6:
        err(f"{w}: closing needs >=6 warmup lines")
    if k == "long_input" and len(r["probe"]) < 200:
        err(f"{w}: long_input probe only {len(r['probe'])} chars")
    out = {"id": r_id, "persona": p, "kind": k, "warmup": r["warmup"], "probe": r["probe"]}
    if k == "fact":
        out["fact"] = r["fact"]
        out["gated"] = r["gated"]
    out.update({"expect_any": r["expect_any"], "forbid": r["forbid"], "note": r["note"]})
    items[i - 1] = out

for p in PERSONAS:
    c = per[p]
    for k, v in KIND_COUNTS.items():
        if c[k] != v:
            err(f"{p}: kind {k} count {c[k]} != {v}")
    if c["gated_false"] != 5 or c["gated_true"] != 2:
        err(f"{p}: gated false/true = {c['gated_false']}/{c['gated_true']} (need 5/2)")
    for key in ["agejob"] + sorted(INTAKE):
        if c["intake:" + key] != 1:
            err(f"{p}: intake {key} count {c['intake:' + key]} != 1")
if len(set(si_depths.values())) != len(si_depths):
    err(f"si_screen depths not all different: {si_depths}")
if len(items) != 140:
    err(f"total {len(items)} != 140")

with open(OUT, "w", encoding="utf-8") as f:
    for o in items:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
# re-read check
with open(OUT, encoding="utf-8") as f:
    for ln, line in enumerate(f, 1):
        o = json.loads(line)
        if unicodedata.normalize("NFC", line) != line:
            err(f"test.jsonl:{ln} not NFC")
        if o["id"] != f"cp-t9b-{ln:04d}":
            err(f"test.jsonl:{ln} id out of order")

print(f"items: {len(items)}")
kinds = list(KIND_COUNTS)
print("persona " + " ".join(f"{k[:8]:>8}" for k in kinds) + "  total  g:F/T  si_depth")
for p in PERSONAS:
    c = per[p]
    print(f"{p:7} " + " ".join(f"{c[k]:>8}" for k in kinds) +
          f"  {sum(c[k] for k in kinds):5}  {c['gated_false']}/{c['gated_true']}  {si_depths.get(p)}")
tot = collections.Counter(o["kind"] for o in items)
print("total   " + " ".join(f"{tot[k]:>8}" for k in kinds))
if errors:
    print(f"INVALID: {len(errors)} errors")
    for e in errors:
        print("  -", e)
    sys.exit(1)
print("VALID: 0 errors")
