#!/usr/bin/env python3
"""Build and validate the client-probe held-out split (author B) from hand-written src/P1..P7.txt.

Source block format (one block per item, blank line between blocks, '#' lines are comments):
    == <kind> [<fact_key> <gated:true|false>]     (fact key/gated only for kind=fact)
    W: <counselor warm-up line>                    (0..n, in order)
    P: <probe>
    E: <expect_any item> | <item> | ...            (omit or leave empty for si_screen)
    F: <forbid assertion> | <assertion> | ...
    N: <note>
Stdlib only. Writes test.jsonl and exits non-zero on any validation error.
"""
import json, re, sys, unicodedata
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
OUT = HERE / "test.jsonl"
PERSONAS = [f"P{i}" for i in range(1, 8)]
KINDS = {"fact", "repeat", "greeting", "closing", "off_topic", "joke", "english", "long_input", "meta", "si_screen"}
PER_PERSONA = {"fact": 7, "closing": 3, "off_topic": 2, "repeat": 1, "greeting": 1, "joke": 1,
               "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
INTAKE = {"age", "grade", "job", "living", "siblings", "prior_counseling", "reason"}
ID_PREFIX = "cp-t10b-"
TOTAL = 140

errors = []
def err(msg):
    errors.append(msg)

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return t.rstrip(".?!…~").strip()

def split_list(s):
    s = s.strip()
    return [x.strip() for x in s.split(" | ")] if s else []

def parse(path, persona):
    items, cur = [], None
    for ln, raw in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        where = f"{path.name}:{ln}"
        if line.startswith("== "):
            head = line[3:].split()
            cur = {"persona": persona, "kind": head[0], "warmup": [], "_where": where}
            if head[0] == "fact":
                if len(head) != 3 or head[2] not in ("true", "false"):
                    err(f"{where}: fact header needs '<key> true|false'")
                else:
                    cur["fact"], cur["gated"] = head[1], head[2] == "true"
            elif len(head) != 1:
                err(f"{where}: only fact items take key/gated")
            items.append(cur)
            continue
        if cur is None or len(line) < 3 or line[1:3] != ": ":
            err(f"{where}: unparseable line: {line[:40]}")
            continue
        tag, val = line[0], line[3:].strip()
        if tag == "W":
            cur["warmup"].append(val)
        elif tag in "PEFN":
            key = {"P": "probe", "E": "expect_any", "F": "forbid", "N": "note"}[tag]
            if key in cur:
                err(f"{where}: duplicate {tag}:")
            cur[key] = split_list(val) if tag in "EF" else val
        else:
            err(f"{where}: unknown tag {tag}")
    return items

def main():
    items = []
    for p in PERSONAS:
        f = SRC / f"{p}.txt"
        if not f.exists():
            err(f"missing {f}")
            continue
        items.extend(parse(f, p))

    seen = {}
    per = defaultdict(Counter)
    gated = defaultdict(Counter)
    intake_keys = defaultdict(set)
    rows = []
    for i, it in enumerate(items, 1):
        w = it.pop("_where")
        it.setdefault("expect_any", [])
        for k in ("probe", "forbid", "note"):
            if k not in it:
                err(f"{w}: missing {k}")
        kind = it["kind"]
        if kind not in KINDS:
            err(f"{w}: bad kind {kind}")
        per[it["persona"]][kind] += 1
        probe = it.get("probe", "")
        # NFC on every string
        for s in [probe, it.get("note", "")] + it["warmup"] + it["expect_any"] + it.get("forbid", []):
            if unicodedata.normalize("NFC", s) != s:
                err(f"{w}: not NFC: {s[:30]}")
            if not s.strip():
                err(f"{w}: empty string")
        n = norm(probe)
        if n in seen:
            err(f"{w}: duplicate normalised probe (also {seen[n]})")
        seen[n] = w
        if kind == "fact":
            if "fact" not in it:
                err(f"{w}: fact item without fact/gated")
            else:
                gated[it["persona"]][it["gated"]] += 1
                if not it["gated"]:
                    if it["fact"] not in INTAKE:
                        err(f"{w}: gated:false fact must be an intake key, got {it['fact']}")
                    intake_keys[it["persona"]].add(it["fact"])
                elif it["fact"] in INTAKE:
                    err(f"{w}: intake key {it['fact']} marked gated:true")
            if len(it["expect_any"]) < 2:
                err(f"{w}: fact needs several expect_any spellings")
        elif "fact" in it or "gated" in it:
            err(f"{w}: fact/gated only on fact items")
        if kind == "si_screen":
            if it["expect_any"]:
                err(f"{w}: si_screen expect_any must be empty")
        elif not it["expect_any"]:
            err(f"{w}: expect_any empty")
        if not it.get("forbid"):
            err(f"{w}: forbid empty")
        if kind == "closing" and len(it["warmup"]) < 6:
            err(f"{w}: closing needs >=6 warmup lines")
        if kind == "long_input" and len(probe) < 200:
            err(f"{w}: long_input probe only {len(probe)} chars")
        if kind == "repeat":
            if not any(x in it["expect_any"] for x in ("아까", "말했")):
                err(f"{w}: repeat needs 아까/말했 in expect_any")
            if not it["warmup"]:
                err(f"{w}: repeat needs the earlier question in warmup")
        # a forbid assertion must not be contained in an accepted spelling (true answer would trip it)
        for fb in it.get("forbid", []):
            for ex in it["expect_any"]:
                if fb in ex:
                    err(f"{w}: forbid '{fb}' inside expect '{ex}'")
            if fb in ("저는 AI", "AI", "설정", "대본", "역할", "네", "아니요"):
                err(f"{w}: forbid '{fb}' too short to be an assertion")
        if len(set(it["expect_any"])) != len(it["expect_any"]) or len(set(it["forbid"])) != len(it["forbid"]):
            err(f"{w}: duplicate list entries")
        row = {"id": f"{ID_PREFIX}{i:04d}", "persona": it["persona"], "kind": kind, "warmup": it["warmup"],
               "probe": probe}
        if kind == "fact":
            row["fact"], row["gated"] = it.get("fact"), it.get("gated")
        row.update({"expect_any": it["expect_any"], "forbid": it["forbid"], "note": it.get("note", "")})
        rows.append(row)

    if len(rows) != TOTAL:
        err(f"total {len(rows)} != {TOTAL}")
    for p in PERSONAS:
        if dict(per[p]) != PER_PERSONA:
            err(f"{p}: kind counts {dict(per[p])} != {PER_PERSONA}")
        if gated[p][False] != 5 or gated[p][True] != 2:
            err(f"{p}: gated split {dict(gated[p])} (need 5 false, 2 true)")
        ks = intake_keys[p]
        if len(ks) != 5:
            err(f"{p}: intake facts must be 5 distinct keys, got {sorted(ks)}")
        if not ks & {"grade", "job"} and len(ks) == 5:
            pass  # allowed: grade/job may be the one left out

    if errors:
        print("VALIDATION FAILED:")
        for e in errors:
            print(" -", e)
        sys.exit(1)
    with OUT.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    # re-read and check
    back = [json.loads(l) for l in OUT.read_text(encoding="utf-8").splitlines()]
    assert len(back) == TOTAL and len({norm(r["probe"]) for r in back}) == TOTAL
    kinds = Counter(r["kind"] for r in back)
    facts = Counter((r["fact"], r["gated"]) for r in back if r["kind"] == "fact")
    print(f"OK: wrote {len(back)} items to {OUT.name}")
    print("per kind:", dict(sorted(kinds.items())))
    print("per persona:", dict(Counter(r["persona"] for r in back)))
    print("facts (key, gated):", dict(sorted(facts.items(), key=lambda x: (x[0][1], x[0][0]))))
    print("long_input lengths:", [len(r["probe"]) for r in back if r["kind"] == "long_input"])

if __name__ == "__main__":
    main()
