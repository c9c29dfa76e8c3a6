#!/usr/bin/env python3
"""Build + validate test.jsonl (author A, round 6). stdlib only.
usage: python3 build_validate.py          # build then validate
       python3 build_validate.py --check  # validate existing test.jsonl only"""
import json, sys, os, re, unicodedata, collections
HERE = os.path.dirname(os.path.abspath(__file__)); sys.path.insert(0, HERE)
OUT = os.path.join(HERE, "test.jsonl")
KINDS = {"fact","repeat","greeting","closing","off_topic","joke","english","long_input","unintelligible","meta","si_screen"}
PERSONAS = {f"P{i}" for i in range(1, 8)}
QUOTA = {"fact":7,"repeat":1,"greeting":1,"closing":3,"off_topic":2,"joke":1,"english":1,"long_input":1,"meta":2,"si_screen":1}
REQ = ["id","persona","kind","warmup","probe","expect_any","forbid","note"]

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def build():
    from items_p1_p2 import p1, p2
    from items_p3_p4 import p3, p4
    from items_p5_p7 import p5, p6, p7
    items = p1 + p2 + p3 + p4 + p5 + p6 + p7
    with open(OUT, "w", encoding="utf-8") as fh:
        for i, it in enumerate(items, 1):
            row = {"id": f"cp-t6a-{i:04d}"}; row.update(it)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(items)

def validate():
    errs, warns = [], []
    rows, ids = [], set()
    for ln, line in enumerate(open(OUT, encoding="utf-8"), 1):
        try: r = json.loads(line)
        except Exception as e: errs.append(f"line {ln}: bad json {e}"); continue
        rows.append(r)
        for k in REQ:
            if k not in r: errs.append(f"{r.get('id')}: missing {k}")
        if r.get("id") in ids: errs.append(f"dup id {r.get('id')}")
        ids.add(r.get("id"))
        if not re.fullmatch(r"cp-t6a-\d{4}", str(r.get("id"))): errs.append(f"bad id {r.get('id')}")
        if r.get("persona") not in PERSONAS: errs.append(f"{r['id']}: persona")
        if r.get("kind") not in KINDS: errs.append(f"{r['id']}: kind")
        if not isinstance(r.get("warmup"), list) or not all(isinstance(x, str) and x.strip() for x in r["warmup"]):
            errs.append(f"{r['id']}: warmup")
        if not isinstance(r.get("probe"), str) or not r["probe"].strip(): errs.append(f"{r['id']}: probe")
        for k in ("expect_any","forbid"):
            if not isinstance(r.get(k), list) or not all(isinstance(x, str) and x for x in r[k]): errs.append(f"{r['id']}: {k}")
        if r.get("kind") == "fact":
            if not r.get("fact"): errs.append(f"{r['id']}: fact missing")
            if not isinstance(r.get("gated"), bool): errs.append(f"{r['id']}: gated not bool")
            if not r.get("expect_any"): errs.append(f"{r['id']}: fact needs expect_any")
        else:
            if "fact" in r or "gated" in r: errs.append(f"{r['id']}: fact/gated on non-fact")
        if r.get("kind") == "closing" and len(r.get("warmup", [])) < 6: errs.append(f"{r['id']}: closing warmup < 6")
        if r.get("kind") == "repeat" and not r.get("expect_any"): errs.append(f"{r['id']}: repeat needs expect_any")
        # a correct answer must not trip a forbid
        for e in r.get("expect_any", []):
            for fb in r.get("forbid", []):
                if fb in e: errs.append(f"{r['id']}: forbid {fb!r} inside expect {e!r}")
    # normalised-text dedup over every counselor line (probe + warmup)
    seen = {}
    for r in rows:
        for where, t in [("probe", r.get("probe",""))] + [("warmup", w) for w in r.get("warmup", [])]:
            n = norm(t)
            if n in seen: errs.append(f"dup text {r['id']}/{where} == {seen[n]}: {t[:30]}")
            else: seen[n] = f"{r['id']}/{where}"
    cnt = collections.Counter((r["persona"], r["kind"]) for r in rows)
    for p in sorted(PERSONAS):
        for k, q in QUOTA.items():
            if cnt[(p, k)] != q: errs.append(f"{p} {k}: {cnt[(p,k)]} != {q}")
    return rows, errs, warns

if __name__ == "__main__":
    if "--check" not in sys.argv: print("built", build(), "items ->", OUT)
    rows, errs, warns = validate()
    byk = collections.Counter(r["kind"] for r in rows); byp = collections.Counter(r["persona"] for r in rows)
    g = collections.Counter(r["gated"] for r in rows if r["kind"] == "fact")
    print("total", len(rows), "| per persona", dict(sorted(byp.items())))
    print("per kind", dict(sorted(byk.items())), "| fact gated", {str(k): v for k, v in g.items()})
    print("unique normalised counselor lines:", sum(1 + len(r["warmup"]) for r in rows))
    for w in warns: print("WARN", w)
    for e in errs: print("ERROR", e)
    print("VALID" if not errs else f"INVALID ({len(errs)} errors)")
    sys.exit(1 if errs else 0)
