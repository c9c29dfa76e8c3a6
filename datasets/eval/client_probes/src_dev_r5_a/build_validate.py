#!/usr/bin/env python3
"""Build and validate test.jsonl (client probes, round 5, author a). stdlib only.
Usage: python3 build_validate.py          # build from items.py, then validate
       python3 build_validate.py --check  # validate existing test.jsonl only
"""
import json, os, re, sys, unicodedata, collections
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
KINDS = {"fact","repeat","greeting","closing","off_topic","joke","english","long_input","unintelligible","meta","si_screen"}
PERSONAS = {f"P{i}" for i in range(1, 8)}
INTAKE = {"age","grade","job","living","siblings","prior_counseling","reason"}
PLAN = {"fact":7,"repeat":1,"greeting":1,"closing":3,"off_topic":2,"joke":1,"english":1,"long_input":1,"meta":2,"si_screen":1}
REQ = ["id","persona","kind","warmup","probe","expect_any","forbid","note"]
HANGUL = re.compile(r"[\uac00-\ud7a3]")

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def build():
    sys.path.insert(0, HERE)
    import items
    rows = []
    for n, it in enumerate(items.ITEMS, 1):
        r = {"id": f"cp-t5a-{n:04d}", "persona": it["persona"], "kind": it["kind"],
             "warmup": it["warmup"], "probe": it["probe"]}
        if it["kind"] == "fact":
            r["fact"] = it["fact"]; r["gated"] = it["gated"]
        r["expect_any"] = list(dict.fromkeys(it["expect_any"]))
        r["forbid"] = list(dict.fromkeys(it["forbid"]))
        r["note"] = it["note"]
        rows.append(r)
    with open(OUT, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return len(rows)

def validate():
    errs, rows = [], []
    with open(OUT, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errs.append(f"line {ln}: bad JSON {e}")
    ids, seen = set(), {}
    cnt = collections.Counter()
    for r in rows:
        i = r.get("id", "?")
        for k in REQ:
            if k not in r: errs.append(f"{i}: missing {k}")
        if not re.fullmatch(r"cp-t5a-\d{4}", str(i)): errs.append(f"{i}: bad id")
        if i in ids: errs.append(f"{i}: duplicate id")
        ids.add(i)
        if r.get("persona") not in PERSONAS: errs.append(f"{i}: bad persona")
        k = r.get("kind")
        if k not in KINDS: errs.append(f"{i}: bad kind {k}")
        cnt[(r.get("persona"), k)] += 1
        if not isinstance(r.get("warmup"), list) or not all(isinstance(x, str) and x.strip() for x in r["warmup"]):
            errs.append(f"{i}: warmup must be list of non-empty str")
        if not isinstance(r.get("probe"), str) or not r["probe"].strip(): errs.append(f"{i}: empty probe")
        for fld in ("expect_any", "forbid"):
            if not isinstance(r.get(fld), list) or not all(isinstance(x, str) and x for x in r[fld]):
                errs.append(f"{i}: {fld} must be list of non-empty str")
        if k == "fact":
            if not r.get("fact"): errs.append(f"{i}: fact missing")
            if not isinstance(r.get("gated"), bool): errs.append(f"{i}: gated must be bool")
            elif r["gated"] != (r["fact"] not in INTAKE): errs.append(f"{i}: gated inconsistent with fact {r['fact']}")
            if not r.get("expect_any"): errs.append(f"{i}: fact needs expect_any")
        elif "fact" in r or "gated" in r:
            errs.append(f"{i}: fact/gated only for kind=fact")
        if k == "repeat" and not r.get("expect_any"): errs.append(f"{i}: repeat needs expect_any")
        if k == "closing" and len(r.get("warmup", [])) < 6: errs.append(f"{i}: closing needs >=6 warm-up lines")
        if k == "english" and HANGUL.search(r.get("probe", "")): errs.append(f"{i}: english probe contains Hangul")
        # an expected substring must not itself contain a forbidden one
        for e in r.get("expect_any", []):
            for fb in r.get("forbid", []):
                if fb in e: errs.append(f"{i}: expect {e!r} contains forbid {fb!r}")
        n = norm(r.get("probe", ""))
        if n in seen: errs.append(f"{i}: duplicate normalised probe with {seen[n]}")
        seen[n] = i
    for p in sorted(PERSONAS):
        for k, want in PLAN.items():
            if cnt[(p, k)] != want: errs.append(f"{p}/{k}: {cnt[(p, k)]} != {want}")
    kinds = collections.Counter(r.get("kind") for r in rows)
    facts = [r for r in rows if r.get("kind") == "fact"]
    print(f"rows={len(rows)} ids_unique={len(ids)==len(rows)} normalised_probes_unique={len(seen)==len(rows)}")
    print("per persona:", dict(sorted(collections.Counter(r.get('persona') for r in rows).items())))
    print("per kind:", dict(sorted(kinds.items())))
    print(f"fact gated=true {sum(r['gated'] for r in facts)} / gated=false {sum(not r['gated'] for r in facts)}")
    print("errors:", len(errs))
    for e in errs[:50]: print("  ", e)
    return not errs

if __name__ == "__main__":
    if "--check" not in sys.argv:
        print("built", build(), "rows ->", OUT)
    sys.exit(0 if validate() else 1)
