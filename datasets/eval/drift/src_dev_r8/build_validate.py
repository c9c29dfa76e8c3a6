#!/usr/bin/env python3
"""Build and validate the drift held-out split (test.jsonl) from hand-written src/P*.txt.

Source line format (one client chat line per line; '//' lines and blank lines are ignored):
    <reg><meta> <text>[ ## <note>]
  reg  : h=haeyo  b=banmal  p=hapsyo  n=none
  meta : 1 = meta (simulation-only disclosure), 0 = not meta
Ids are assigned in file order P1..P7: dr-t8-0001 ...
Stdlib only.
"""
import json, re, sys, unicodedata, collections, pathlib

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE / "src"
OUT = HERE / "test.jsonl"
REG = {"h": "haeyo", "b": "banmal", "p": "hapsyo", "n": "none"}
PERSONAS = [f"P{i}" for i in range(1, 8)]
LINE = re.compile(r"^([hbpn])([01]) (.+?)(?:\s+##\s*(.*))?$")
TRAIL = ".?!…~"


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return t.rstrip(TRAIL).strip()


def lint(reg, text):
    """Soft consistency hints (warnings only): does the label fit the surface ending?"""
    core = re.sub(r"[\sㅋㅎㅠㅜ.?!…~\"'’”)\]]+$", "", text)
    warn = []
    if reg == "hapsyo" and not re.search(r"(니다|니까|십시오|니더|니꺼)", core):
        warn.append("hapsyo without -ㅂ니다/-ㅂ니까/-십시오")
    if reg == "haeyo" and not re.search(r"(요|유|예|라우|죠|쵸)", core[-6:]):
        warn.append("haeyo without 요/유/예/라우 near the end")
    if reg == "banmal" and re.search(r"(요|니다|[습입]니까)$", core):
        warn.append("banmal but ends in 요/니다")
    return warn


def main():
    errors, warnings, rows = [], [], []
    for p in PERSONAS:
        f = SRC / f"{p}.txt"
        if not f.exists():
            errors.append(f"missing {f}")
            continue
        for ln, raw in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            s = raw.rstrip("\n")
            if not s.strip() or s.startswith("//"):
                continue
            m = LINE.match(s)
            if not m:
                errors.append(f"{p}:{ln}: bad line: {s!r}")
                continue
            reg = REG[m.group(1)]
            text = unicodedata.normalize("NFC", m.group(3).strip())
            note = (m.group(4) or "").strip()
            rows.append(dict(persona=p, text=text, register=reg, meta=m.group(2) == "1",
                             note=note, _where=f"{p}:{ln}"))
    # uniqueness on normalised text
    seen = {}
    for r in rows:
        n = norm(r["text"])
        if not n:
            errors.append(f"{r['_where']}: empty normalised text")
        if n in seen:
            errors.append(f"{r['_where']}: duplicate normalised text with {seen[n]}: {n!r}")
        seen[n] = r["_where"]
        if "\t" in r["text"] or "\n" in r["text"]:
            errors.append(f"{r['_where']}: control char in text")
        for w in lint(r["register"], r["text"]):
            if "lint-ok" not in r["note"]:
                warnings.append(f"{r['_where']}: {w}: {r['text']}")
    out = []
    for i, r in enumerate(rows, 1):
        o = {"id": f"dr-t8-{i:04d}", "persona": r["persona"], "text": r["text"],
             "register": r["register"], "meta": r["meta"], "note": r["note"]}
        # schema checks
        assert set(o) == {"id", "persona", "text", "register", "meta", "note"}
        if o["register"] not in {"haeyo", "banmal", "hapsyo", "none"}:
            errors.append(f"bad register {o}")
        if o["persona"] not in PERSONAS or not isinstance(o["meta"], bool):
            errors.append(f"bad persona/meta {o}")
        if unicodedata.normalize("NFC", o["text"]) != o["text"]:
            errors.append(f"not NFC {o['id']}")
        out.append(o)
    n = len(out)
    nmeta = sum(o["meta"] for o in out)
    if not (450 <= n <= 650):
        errors.append(f"total {n} outside about-500 range")
    if not (0.22 <= nmeta / max(n, 1) <= 0.30):
        errors.append(f"meta share {nmeta}/{n} = {nmeta/max(n,1):.3f} not about a quarter")
    for p in PERSONAS:
        if sum(o["persona"] == p for o in out) < 50:
            errors.append(f"{p} has fewer than 50 items")
    for reg in REG.values():
        if sum(o["register"] == reg for o in out) < 20:
            errors.append(f"register {reg} has fewer than 20 items")
    OUT.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in out), encoding="utf-8")
    # re-read and check
    back = [json.loads(l) for l in OUT.read_text(encoding="utf-8").splitlines()]
    assert back == out
    # report
    print(f"total {n}  meta {nmeta} ({nmeta/n:.1%})")
    c = collections.Counter((o["persona"], o["meta"]) for o in out)
    for p in PERSONAS:
        print(f"  {p}: {c[(p, False)] + c[(p, True)]:3d}  meta {c[(p, True)]:2d}")
    rc = collections.Counter((o["register"], o["meta"]) for o in out)
    for reg in REG.values():
        print(f"  register {reg:6s}: {rc[(reg, False)] + rc[(reg, True)]:3d}  (meta {rc[(reg, True)]})")
    for w in warnings:
        print("WARN", w)
    for e in errors:
        print("ERROR", e)
    if errors:
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
