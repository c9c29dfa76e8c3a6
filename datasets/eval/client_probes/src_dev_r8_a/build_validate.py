#!/usr/bin/env python3
"""Build test.jsonl from src/P1..P7.txt and validate the client-probe contract (stdlib only)."""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict
HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["fact","repeat","greeting","closing","off_topic","joke","english","long_input","meta","si_screen"]
PER = {"fact":7,"repeat":1,"greeting":1,"closing":3,"off_topic":2,"joke":1,"english":1,"long_input":1,"meta":2,"si_screen":1}
INTAKE = {"age","grade","job","living","siblings","prior_counseling","reason"}
def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()
def lst(s): return [x.strip() for x in s.split(";;") if x.strip()] if s.strip() else []
errs, items = [], []
for p in range(1, 8):
    pid = f"P{p}"
    for ln, line in enumerate(open(os.path.join(HERE, "src", pid + ".txt"), encoding="utf-8"), 1):
        line = unicodedata.normalize("NFC", line.rstrip("\n"))
        if not line.strip() or line.startswith("#"): continue
        f = line.split("|")
        if len(f) != 8: errs.append(f"{pid}:{ln} has {len(f)} fields"); continue
        kind, fact, gated, warm, probe, exp, forb, note = f
        it = {"persona": pid, "kind": kind,
              "warmup": [w.strip() for w in warm.split("//") if w.strip()],
              "probe": probe.strip()}
        if kind == "fact": it["fact"] = fact.strip(); it["gated"] = gated.strip() == "1"
        it["expect_any"] = lst(exp); it["forbid"] = lst(forb); it["note"] = note.strip()
        it["_src"] = f"{pid}:{ln}"
        items.append(it)
seen = {}
cnt = defaultdict(Counter); gat = defaultdict(Counter); intake_keys = defaultdict(set)
si_depths = []
for i, it in enumerate(items, 1):
    src = it.pop("_src"); it = {"id": f"cp-t8a-{i:04d}", **it}; items[i-1] = it
    k = it["kind"]
    if k not in KINDS: errs.append(f"{src} bad kind {k}")
    cnt[it["persona"]][k] += 1
    if k == "fact":
        if not it["fact"]: errs.append(f"{src} empty fact key")
        gat[it["persona"]][it["gated"]] += 1
        if it["gated"] is False:
            if it["fact"] not in INTAKE: errs.append(f"{src} gated:false on non-intake {it['fact']}")
            intake_keys[it["persona"]].add(it["fact"])
        if it["gated"] is True and it["fact"] in INTAKE: errs.append(f"{src} gated:true on intake key")
    elif "fact" in it or "gated" in it: errs.append(f"{src} fact/gated on non-fact")
    if k == "si_screen":
        if it["expect_any"]: errs.append(f"{src} si_screen expect_any must be empty")
        si_depths.append(len(it["warmup"]))
        if len(it["warmup"]) > 12: errs.append(f"{src} si warmup >12")
    elif len(it["expect_any"]) < 2: errs.append(f"{src} expect_any < 2")
    if k == "repeat" and not any(("아까" in e or "말했" in e) for e in it["expect_any"]): errs.append(f"{src} repeat lacks 아까/말했")
    if k == "repeat" and not it["warmup"]: errs.append(f"{src} repeat without warmup")
    if k == "closing" and len(it["warmup"]) < 6: errs.append(f"{src} closing warmup < 6")
    if k == "long_input" and len(it["probe"]) < 200: errs.append(f"{src} long_input {len(it['probe'])} chars")
    if not it["forbid"]: errs.append(f"{src} empty forbid")
    for e in it["expect_any"]:
        for fb in it["forbid"]:
            if norm(e) and norm(e) in norm(fb) and k == "fact":
                pass  # forbid is a full assertion; a short cue inside it is allowed
    for fb in it["forbid"]:
        if len(fb) < 3: errs.append(f"{src} forbid too short: {fb}")
    if len(set(it["expect_any"])) != len(it["expect_any"]): errs.append(f"{src} duplicate expect_any")
    n = norm(it["probe"])
    if n in seen: errs.append(f"{src} duplicate probe with {seen[n]}")
    seen[n] = src
    for s in [it["probe"], it["note"]] + it["warmup"] + it["expect_any"] + it["forbid"]:
        if unicodedata.normalize("NFC", s) != s: errs.append(f"{src} not NFC")
for p in [f"P{i}" for i in range(1, 8)]:
    for k, n in PER.items():
        if cnt[p][k] != n: errs.append(f"{p} {k}: {cnt[p][k]} != {n}")
    if gat[p][False] != 5 or gat[p][True] != 2: errs.append(f"{p} gated split {dict(gat[p])}")
    ik = intake_keys[p]
    for need in ["living", "siblings", "prior_counseling", "reason"]:
        if need not in ik: errs.append(f"{p} missing intake {need}")
    if not ik & {"age", "grade", "job"}: errs.append(f"{p} missing age/grade/job")
if len(items) != 140: errs.append(f"total {len(items)} != 140")
if len(set(si_depths)) < 5: errs.append(f"si depths not varied: {si_depths}")
with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as fo:
    for it in items: fo.write(json.dumps(it, ensure_ascii=False) + "\n")
for line in open(os.path.join(HERE, "test.jsonl"), encoding="utf-8"): json.loads(line)
print("items", len(items))
print("persona " + " ".join(f"{k:>10}" for k in KINDS))
for p in sorted(cnt): print(f"{p:7} " + " ".join(f"{cnt[p][k]:>10}" for k in KINDS))
print("si_screen warm-up depths:", si_depths)
print("gated true/false:", sum(g[True] for g in gat.values()), "/", sum(g[False] for g in gat.values()))
for e in errs: print("ERROR", e)
print("VALID, 0 errors" if not errs else f"INVALID, {len(errs)} errors")
sys.exit(1 if errs else 0)
