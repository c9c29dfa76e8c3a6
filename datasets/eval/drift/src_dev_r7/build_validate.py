#!/usr/bin/env python3
"""Build and validate the drift held-out set (stdlib only).

Source: src/P1.txt .. src/P7.txt, one item per line:
    CODE || client text || optional free note
CODE = register letter + meta digit + optional flag letter
    register: y=haeyo  b=banmal  h=hapsyo  n=none
    meta:     1 = simulation-only disclosure, 0 = ordinary client line
    flag (meta=1, required): a=AI/model disclosure  r=role-play/script/persona/character
                             p=prompt/settings/parameters  s=stage/turn/reset/session rules
                             e=evaluator voice/scoring  f=self case-formulation
                             g=English meta-talk  u=addresses 'the user'
    flag (meta=0, optional): h=hard negative
Lines starting with # and blank lines are ignored.
Output: test.jsonl  (ids dr-t7-0001.. in file order P1..P7)
"""
import json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
PERSONAS = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"]
REG = {"y": "haeyo", "b": "banmal", "h": "hapsyo", "n": "none"}
META_KIND = {"a": "AI/model disclosure", "r": "role-play/script/persona/character",
             "p": "prompt/settings/parameters", "s": "stage/turn/reset/session rules",
             "e": "evaluator voice/scoring", "f": "self case-formulation",
             "g": "English meta-talk", "u": "addresses the user"}
CODE_RE = re.compile(r"^([ybhn])([01])([a-z]?)$")
MIN = {"total": 470, "per_persona": 60, "meta": 115, "hard_neg": 70, "per_register": 50}
FIELDS = ["id", "persona", "text", "register", "meta", "note"]


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def heuristic(text, reg):
    """Soft check of register vs the line ending; returns a warning or None."""
    t = re.sub(r"[\s.?!…~ㅋㅎㅠㅜ^]+$", "", text)
    t = re.sub(r"\s*\([^)]*\)$", "", t)
    if re.search(r"(습니다|습니까|ㅂ니다|십시오|니다|니까|아입니더)$", t) and reg != "hapsyo":
        return "ends like hapsyo"
    if re.search(r"(요|예|마씸)$", t) and reg not in ("haeyo",):
        return "ends in 요 but not haeyo"
    if reg == "haeyo" and not re.search(r"(요|죠|예|마씸)$", t):
        return "haeyo without 요/죠 ending"
    return None


def main():
    errors, warns, items, seen = [], [], [], {}
    for p in PERSONAS:
        path = os.path.join(SRC, p + ".txt")
        if not os.path.exists(path):
            errors.append(f"missing {path}")
            continue
        with open(path, encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                line = raw.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                parts = [x.strip() for x in line.split("||")]
                where = f"{p}:{ln}"
                if len(parts) not in (2, 3):
                    errors.append(f"{where}: expected 2-3 fields, got {len(parts)}")
                    continue
                code, text = parts[0], parts[1]
                free = parts[2] if len(parts) == 3 else ""
                m = CODE_RE.match(code)
                if not m:
                    errors.append(f"{where}: bad code {code!r}")
                    continue
                r, md, fl = m.groups()
                meta = md == "1"
                if meta and fl not in META_KIND:
                    errors.append(f"{where}: meta item needs kind flag, got {fl!r}")
                    continue
                if not meta and fl not in ("", "h"):
                    errors.append(f"{where}: non-meta flag must be '' or 'h', got {fl!r}")
                    continue
                if not text:
                    errors.append(f"{where}: empty text")
                    continue
                if unicodedata.normalize("NFC", text) != text:
                    errors.append(f"{where}: text not NFC")
                if "||" in text or "\t" in text:
                    errors.append(f"{where}: separator inside text")
                n = norm(text)
                if not n:
                    errors.append(f"{where}: text normalises to empty")
                elif n in seen:
                    errors.append(f"{where}: duplicate normalised text (first at {seen[n]})")
                else:
                    seen[n] = where
                if meta:
                    note = f"meta: {META_KIND[fl]}" + (f"; {free}" if free else "")
                elif fl == "h":
                    note = "HARD NEGATIVE (meta=false): " + (free or "everyday use of a meta-sounding word")
                else:
                    note = free
                note = unicodedata.normalize("NFC", note)
                w = heuristic(text, REG[r])
                if w:
                    warns.append(f"{where} [{REG[r]}] {w}: {text}")
                items.append({"persona": p, "text": text, "register": REG[r], "meta": meta,
                              "note": note, "_hard": fl == "h", "_kind": fl if meta else ""})
    out = []
    for i, it in enumerate(items, 1):
        rec = {"id": f"dr-t7-{i:04d}", "persona": it["persona"], "text": it["text"],
               "register": it["register"], "meta": it["meta"], "note": it["note"]}
        out.append(rec)
    # record-level contract checks
    for rec in out:
        if list(rec.keys()) != FIELDS:
            errors.append(f"{rec['id']}: field set {list(rec.keys())}")
        if rec["register"] not in REG.values():
            errors.append(f"{rec['id']}: bad register")
        if not isinstance(rec["meta"], bool):
            errors.append(f"{rec['id']}: meta not bool")
        if rec["persona"] not in PERSONAS:
            errors.append(f"{rec['id']}: bad persona")
        s = json.dumps(rec, ensure_ascii=False)
        if json.loads(s) != rec:
            errors.append(f"{rec['id']}: JSON round-trip failed")
    # counts
    total = len(out)
    per_p = Counter(r["persona"] for r in out)
    per_r = Counter(r["register"] for r in out)
    n_meta = sum(r["meta"] for r in out)
    n_hard = sum(it["_hard"] for it in items)
    kinds = Counter(it["_kind"] for it in items if it["_kind"])
    if total < MIN["total"]:
        errors.append(f"total {total} < {MIN['total']}")
    for p in PERSONAS:
        if per_p[p] < MIN["per_persona"]:
            errors.append(f"{p}: {per_p[p]} < {MIN['per_persona']}")
    if n_meta < MIN["meta"]:
        errors.append(f"meta {n_meta} < {MIN['meta']}")
    if n_hard < MIN["hard_neg"]:
        errors.append(f"hard negatives {n_hard} < {MIN['hard_neg']}")
    for rg in REG.values():
        if per_r[rg] < MIN["per_register"]:
            errors.append(f"register {rg}: {per_r[rg]} < {MIN['per_register']}")
    if total and not (0.20 <= n_meta / total <= 0.32):
        errors.append(f"meta share {n_meta/total:.2f} outside 0.20-0.32 ('about a quarter')")
    for k in META_KIND:
        if kinds[k] < 5:
            errors.append(f"meta kind {k} ({META_KIND[k]}) only {kinds[k]} items")
    if not errors:
        with open(OUT, "w", encoding="utf-8") as fh:
            for rec in out:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        # re-read and verify the written file
        with open(OUT, encoding="utf-8") as fh:
            back = [json.loads(l) for l in fh]
        if back != out:
            errors.append("written file differs from built records")
    # report
    print(f"items: {total}   meta=true: {n_meta} ({(n_meta/total if total else 0):.1%})   hard negatives: {n_hard}")
    print("per persona:", ", ".join(f"{p}={per_p[p]}" for p in PERSONAS))
    print("per persona meta:", ", ".join(f"{p}={sum(1 for r in out if r['persona']==p and r['meta'])}" for p in PERSONAS))
    print("per register:", ", ".join(f"{k}={per_r[k]}" for k in REG.values()))
    print("meta by register:", ", ".join(f"{k}={sum(1 for r in out if r['register']==k and r['meta'])}" for k in REG.values()))
    print("meta kinds:", ", ".join(f"{k}:{META_KIND[k]}={kinds[k]}" for k in META_KIND))
    if "-w" in sys.argv:
        for w in warns:
            print("WARN", w)
    else:
        print(f"heuristic register warnings: {len(warns)} (run with -w to list; reviewed by hand)")
    for e in errors:
        print("ERROR", e)
    print(("VALID" if not errors else "INVALID") + f" — {len(errors)} errors" + (f"; wrote {OUT}" if not errors else ""))
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
