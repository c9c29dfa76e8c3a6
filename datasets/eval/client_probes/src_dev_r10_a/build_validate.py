#!/usr/bin/env python3
"""Build test.jsonl (client probes, author A) from hand-written src/P*.txt and validate it. stdlib only."""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
PERSONAS = [f"P{i}" for i in range(1, 8)]
KINDS = {"fact", "repeat", "greeting", "closing", "off_topic", "joke", "english", "long_input", "meta", "si_screen"}
PER_PERSONA = {"fact": 7, "closing": 3, "off_topic": 2, "repeat": 1, "greeting": 1, "joke": 1,
               "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
INTAKE = {"age", "grade", "job", "living", "siblings", "prior_counseling", "reason"}
TOTAL = 140
errors = []

def err(msg):
    errors.append(msg)

def nfc(s):
    return unicodedata.normalize("NFC", s)

def norm(s):
    s = nfc(s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return s.rstrip(".?!…~").strip()

def load_macros():
    macros = {}
    for ln in open(os.path.join(SRC, "macros.txt"), encoding="utf-8"):
        ln = ln.strip()
        if not ln or ln.startswith("#"):
            continue
        name, _, body = ln.partition(" = ")
        macros[name.strip()] = [x.strip() for x in body.split(";;") if x.strip()]
    return macros

def split_list(field, macros, where):
    field = field.strip()
    if field in ("", "-"):
        return []
    out = []
    for tok in (t.strip() for t in field.split(";;")):
        if not tok:
            err(f"{where}: empty list token")
        elif tok.startswith("@"):
            if tok not in macros:
                err(f"{where}: unknown macro {tok}")
            out.extend(macros.get(tok, []))
        else:
            out.append(tok)
    seen, dedup = set(), []
    for t in out:
        if t not in seen:
            seen.add(t); dedup.append(t)
    return dedup

def main():
    macros = load_macros()
    items = []
    for p in PERSONAS:
        path = os.path.join(SRC, f"{p}.txt")
        for ln_no, raw in enumerate(open(path, encoding="utf-8"), 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = f"{p}.txt:{ln_no}"
            if nfc(line) != line:
                err(f"{where}: source not NFC")
            f = [x.strip() for x in line.split(" | ")]
            if len(f) != 8:
                err(f"{where}: expected 8 fields, got {len(f)}"); continue
            kind, fact, gated, warm, probe, exp, forb, note = f
            it = {"persona": p, "kind": kind}
            it["warmup"] = [] if warm == "-" else [w.strip() for w in warm.split(" // ")]
            it["probe"] = probe
            if kind == "fact":
                it["fact"] = fact
                if gated not in ("true", "false"):
                    err(f"{where}: gated must be true/false")
                it["gated"] = gated == "true"
            elif fact != "-" or gated != "-":
                err(f"{where}: fact/gated only on fact items")
            it["expect_any"] = split_list(exp, macros, where)
            it["forbid"] = split_list(forb, macros, where)
            it["note"] = note
            it["_where"] = where
            items.append(it)

    # ids + per-item checks
    seen_probe = {}
    for n, it in enumerate(items, 1):
        it["id"] = f"cp-t10a-{n:04d}"
        w = it["_where"]
        if it["kind"] not in KINDS:
            err(f"{w}: bad kind {it['kind']}")
        for s in [it["probe"], it["note"], *it["warmup"], *it["expect_any"], *it["forbid"]]:
            if not s or s != s.strip():
                err(f"{w}: empty or unstripped string {s!r}")
            if "|" in s:
                err(f"{w}: stray '|' in {s!r}")
        if not it["note"]:
            err(f"{w}: note missing")
        k = norm(it["probe"])
        if k in seen_probe:
            err(f"{w}: duplicate normalised probe with {seen_probe[k]}")
        seen_probe[k] = w
        if it["kind"] == "si_screen":
            if it["expect_any"]:
                err(f"{w}: si_screen expect_any must be empty")
        elif not it["expect_any"]:
            err(f"{w}: expect_any empty")
        if not it["forbid"]:
            err(f"{w}: forbid empty")
        if it["kind"] == "closing" and len(it["warmup"]) < 6:
            err(f"{w}: closing needs >= 6 warm-up lines (has {len(it['warmup'])})")
        if it["kind"] == "long_input" and len(it["probe"]) < 200:
            err(f"{w}: long_input probe only {len(it['probe'])} chars")
        if it["kind"] == "repeat":
            if "아까" not in it["expect_any"] or not any("말했" in e for e in it["expect_any"]):
                err(f"{w}: repeat expect_any needs 아까 and 말했")
            if not it["warmup"]:
                err(f"{w}: repeat needs the earlier question in warmup")
        if it["kind"] == "english" and re.search(r"[가-힣]", it["probe"]):
            err(f"{w}: english probe contains Hangul")
        if it["kind"] == "fact" and not re.fullmatch(r"[a-z_]+", it.get("fact", "")):
            err(f"{w}: fact key must be a short lower-case key")
        # a forbid assertion must not be contained in an accepted answer string (self-contradiction)
        for fb in it["forbid"]:
            for e in it["expect_any"]:
                if fb in e:
                    err(f"{w}: forbid {fb!r} is inside expect {e!r}")

    # counts
    if len(items) != TOTAL:
        err(f"total {len(items)} != {TOTAL}")
    by_p = defaultdict(list)
    for it in items:
        by_p[it["persona"]].append(it)
    for p in PERSONAS:
        c = Counter(it["kind"] for it in by_p[p])
        for kind, want in PER_PERSONA.items():
            if c[kind] != want:
                err(f"{p}: {kind} = {c[kind]}, want {want}")
        facts = [it for it in by_p[p] if it["kind"] == "fact"]
        free = [it["fact"] for it in facts if not it["gated"]]
        gated = [it["fact"] for it in facts if it["gated"]]
        if len(free) != 5 or len(gated) != 2:
            err(f"{p}: gated split {len(free)}/{len(gated)}, want 5/2")
        if not set(free) <= INTAKE or len(set(free)) != 5:
            err(f"{p}: gated:false keys must be 5 distinct intake keys, got {free}")
        if set(gated) & INTAKE or len(set(gated)) != 2:
            err(f"{p}: gated:true keys must be 2 distinct personal keys, got {gated}")

    if errors:
        print("VALIDATION FAILED")
        for e in errors:
            print(" -", e)
        sys.exit(1)

    order = ["id", "persona", "kind", "warmup", "probe", "fact", "gated", "expect_any", "forbid", "note"]
    with open(OUT, "w", encoding="utf-8") as fo:
        for it in items:
            obj = {k: (nfc(it[k]) if isinstance(it[k], str) else
                       [nfc(x) for x in it[k]] if isinstance(it[k], list) else it[k])
                   for k in order if k in it}
            fo.write(json.dumps(obj, ensure_ascii=False) + "\n")

    # re-read and re-check the written file
    rows = [json.loads(l) for l in open(OUT, encoding="utf-8")]
    assert len(rows) == TOTAL
    assert len({norm(r["probe"]) for r in rows}) == TOTAL
    assert all(("fact" in r) == (r["kind"] == "fact") == ("gated" in r) for r in rows)
    kinds = Counter(r["kind"] for r in rows)
    facts = Counter((r["fact"], r["gated"]) for r in rows if r["kind"] == "fact")
    print(f"OK: wrote {len(rows)} items to {OUT}")
    print("per kind:", dict(sorted(kinds.items())))
    print("per persona:", dict(sorted(Counter(r["persona"] for r in rows).items())))
    print("fact keys (key, gated):", dict(sorted(facts.items())))
    print("min closing warm-up:", min(len(r["warmup"]) for r in rows if r["kind"] == "closing"),
          "| min long_input chars:", min(len(r["probe"]) for r in rows if r["kind"] == "long_input"))

if __name__ == "__main__":
    main()
