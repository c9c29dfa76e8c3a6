#!/usr/bin/env python3
"""Build and validate ev_b/test.jsonl from hand-written src/P1..P7.txt (stdlib only).

Source line format (one item per line, '#' = comment):
  stage|register|crisis|techniques|appropriateness|deviation|client_prev|counselor|note
  stage: r/e/i/c   register: f/h/b   crisis: y/n
  techniques/deviation: comma-separated short codes (see maps below)
  appropriateness: pos/warn/neu
"""
import json, re, sys, unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
OUT = HERE / "test.jsonl"
PERSONAS = [f"P{i}" for i in range(1, 8)]
STAGE = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
REG = {"f": "formal", "h": "haeyo", "b": "banmal"}
APPR = {"pos": "pos", "warn": "warn", "neu": "neutral"}
TECH = {"AR": "approval_reassurance", "CQ": "closed_question", "OQ": "open_question",
        "RS": "restatement", "RF": "reflection_feelings", "CH": "challenge",
        "IN": "interpretation", "SD": "self_disclosure", "IM": "immediacy",
        "INF": "information", "DG": "direct_guidance", "VA": "validation", "OT": "other"}
TECH_ORDER = list(TECH.values())   # taxonomy order
DEV = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
DEV_ORDER = list(DEV.values())
ADULT = {"P2", "P3"}               # no banmal to adult clients
START = "(세션 시작)"               # marker for session-opening lines -> client_prev ""


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()


def main():
    errs, items, seen = [], [], {}
    for p in PERSONAS:
        f = SRC / f"{p}.txt"
        for ln, raw in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            line = unicodedata.normalize("NFC", raw.rstrip("\n"))
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = f"{f.name}:{ln}"
            parts = line.split("|")
            if len(parts) == 8:
                parts.append("")
            if len(parts) != 9:
                errs.append(f"{where}: expected 9 fields, got {len(parts)}"); continue
            st, rg, cr, te, ap, dv, prev, couns, note = [x.strip() for x in parts]
            if st not in STAGE: errs.append(f"{where}: bad stage {st}")
            if rg not in REG: errs.append(f"{where}: bad register {rg}")
            if cr not in ("y", "n"): errs.append(f"{where}: bad crisis {cr}")
            if ap not in APPR: errs.append(f"{where}: bad appropriateness {ap}")
            tl = [t for t in te.split(",") if t]
            dl = [d for d in dv.split(",") if d]
            for t in tl:
                if t not in TECH: errs.append(f"{where}: bad technique {t}")
            for d in dl:
                if d not in DEV: errs.append(f"{where}: bad deviation {d}")
            if not tl: errs.append(f"{where}: no technique")
            if len(set(tl)) != len(tl): errs.append(f"{where}: duplicate technique")
            if ap == "warn" and not dl: errs.append(f"{where}: warn without deviation")
            if ap != "warn" and dl: errs.append(f"{where}: deviation on non-warn")
            if cr == "y" and ap == "warn" and "sa" not in dl:
                errs.append(f"{where}: crisis warn without safety (author rule)")
            if cr == "n" and "sa" in dl:
                errs.append(f"{where}: safety deviation without crisis context")
            if rg == "b" and p in ADULT: errs.append(f"{where}: banmal to adult client")
            if not couns: errs.append(f"{where}: empty counselor")
            if not prev: errs.append(f"{where}: empty client_prev (use {START})")
            if "\t" in line: errs.append(f"{where}: tab in line")
            n = norm(couns)
            if n in seen: errs.append(f"{where}: duplicate normalised counselor (also {seen[n]})")
            seen[n] = where
            if st not in STAGE or rg not in REG or ap not in APPR or cr not in ("y", "n"):
                continue
            items.append({
                "persona": p, "stage": STAGE[st], "register": REG[rg],
                "client_prev": "" if prev == START else prev,
                "counselor": couns,
                "techniques": [t for t in TECH_ORDER if t in {TECH.get(x) for x in tl}],
                "appropriateness": APPR[ap],
                "deviation": [d for d in DEV_ORDER if d in {DEV.get(x) for x in dl}],
                "crisis_context": cr == "y",
                "note": note,
            })
    # coverage checks
    ps = Counter((i["persona"], i["stage"]) for i in items)
    for p in PERSONAS:
        for s in STAGE.values():
            if ps[(p, s)] == 0: errs.append(f"coverage: {p} has no {s} item")
    for r in REG.values():
        if not any(i["register"] == r for i in items): errs.append(f"coverage: no {r}")
    n = len(items)
    if not 380 <= n <= 440: errs.append(f"count {n} outside 380-440")
    cr_share = sum(i["crisis_context"] for i in items) / max(n, 1)
    if not 0.30 <= cr_share <= 0.40: errs.append(f"crisis share {cr_share:.3f} outside 0.30-0.40")

    if errs:
        print("\n".join(errs)); print(f"FAILED: {len(errs)} error(s)"); sys.exit(1)

    with OUT.open("w", encoding="utf-8") as fo:
        for k, it in enumerate(items, 1):
            rec = {"id": f"ev-t10b-{k:04d}", **it}
            fo.write(json.dumps(rec, ensure_ascii=False) + "\n")

    # re-read and validate the written file
    keys = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
            "appropriateness", "deviation", "crisis_context", "note"]
    rows = [json.loads(l) for l in OUT.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [f"ev-t10b-{k:04d}" for k in range(1, len(rows) + 1)]
    assert len({norm(r["counselor"]) for r in rows}) == len(rows)
    for r in rows:
        assert list(r) == keys, r["id"]
        assert set(r["techniques"]) <= set(TECH_ORDER) and r["techniques"]
        assert set(r["deviation"]) <= set(DEV_ORDER)
        assert (r["appropriateness"] == "warn") == bool(r["deviation"])
        assert unicodedata.normalize("NFC", r["counselor"]) == r["counselor"]

    print(f"OK: {len(rows)} items -> {OUT.name}")
    print(f"crisis_context=true: {sum(r['crisis_context'] for r in rows)} ({cr_share:.1%})")
    for key in ("persona", "stage", "register", "appropriateness"):
        print(key, dict(sorted(Counter(r[key] for r in rows).items())))
    print("crisis x appropriateness", dict(Counter((r["crisis_context"], r["appropriateness"]) for r in rows)))
    print("techniques", dict(Counter(t for r in rows for t in r["techniques"]).most_common()))
    print("deviation", dict(Counter(d for r in rows for d in r["deviation"]).most_common()))
    print("multi-label items", sum(len(r["techniques"]) > 1 for r in rows))


if __name__ == "__main__":
    main()
