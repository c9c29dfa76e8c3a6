#!/usr/bin/env python3
"""Build test.jsonl for the Drift held-out split (round 11, author: drift) from src/P*.txt and validate it.

Stdlib only.  Usage:  python3 build_validate.py        (build + validate, exit 1 on any error)
Source line format (one client chat line per source line):
    <REG><META> | <text> | <note>
      REG  : h = haeyo, b = banmal, p = hapsyo, n = none
      META : 1 = meta true, 0 = meta false
      note : free text (may be empty, the second ' | ' may then be omitted)
    Lines that are blank or start with '#' are ignored.  Persona = file name (src/P3.txt -> P3).
"""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
REG = {"h": "haeyo", "b": "banmal", "p": "hapsyo", "n": "none"}
PERSONAS = ["P%d" % i for i in range(1, 8)]
KEYS = ["id", "persona", "text", "register", "meta", "note"]
ID_RE = re.compile(r"^dr-t9-\d{4}$")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
JAMO_ONLY = re.compile(r"^[\u3131-\u318e\s.?!~…^;:,ㅋㅎㅠㅜ\u2600-\u27bf\U0001F000-\U0001FAFF\u200d\ufe0f]+$")
# words that are meta when used about the simulation and hard negatives otherwise
TRAP = re.compile(r"(AI|ai|인공지능|챗봇|작가|대본|씬|설정|캐릭터|프롬프트|시뮬레이션|시나리오|턴|점수|평가|역할|리셋|"
                  r"연기|모델|프로그램|스크립트|페르소나|각본|배역|NPC|npc|핵심신념|자동적 사고|회기|주호소)")

errors, warnings = [], []


def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()


def lint_register(text):
    """Very rough guess of the final predicate's level; only used to print review warnings."""
    t = re.sub(r"[\sㅋㅎㅠㅜ.?!~…^;:,)\]\"'”’♡❤️😭😂🙃😅🥲👍💀ㅡ-]+$", "", text)
    if not HANGUL.search(text):
        return "none"
    if re.search(r"(습니다|습니까|ㅂ니다|니다|니까|십시오|심더|니더|습니당|니당|니닷|습니닷)$", t) and not re.search(r"(으니까|니까요|하니까|다니까|라니까|잖니까|거니까|이니까|있으니까|없으니까|가니까|되니까|오니까)$", t):
        return "hapsyo"
    if re.search(r"(요|여|영|욬|용|욥|염|예|유|죠|죵|쥬|슈)$", t):
        return "haeyo"
    if re.search(r"(음|함|임|됨|없음|했음|았음|었음|듯|ㅇㅇ|ㄴㄴ|ㅇㅋ|네|넹|넵|응|웅|ㅇ)$", t):
        return "none?"
    return "banmal?"


def main():
    rows = []
    if not os.path.isdir(SRC):
        print("no src/"); return 1
    files = sorted(f for f in os.listdir(SRC) if re.match(r"^P[1-7]\.txt$", f))
    for fn in files:
        persona = fn[:-4]
        with open(os.path.join(SRC, fn), encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                line = raw.rstrip("\n").rstrip("\r")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                m = re.match(r"^([hbpn])([01]) \| (.+?)(?: \| (.*))?$", line)
                if not m:
                    errors.append(f"{fn}:{ln}: bad source line: {line!r}"); continue
                reg, meta, text, note = m.group(1), m.group(2) == "1", m.group(3), (m.group(4) or "")
                if " | " in text:
                    errors.append(f"{fn}:{ln}: ' | ' inside text")
                text = unicodedata.normalize("NFC", text.strip())
                note = unicodedata.normalize("NFC", note.strip())
                rows.append({"persona": persona, "text": text, "register": REG[reg], "meta": meta,
                             "note": note, "_src": f"{fn}:{ln}"})
    # ids in file order P1..P7
    out = []
    for i, r in enumerate(rows, 1):
        o = {"id": "dr-t9-%04d" % i, "persona": r["persona"], "text": r["text"],
             "register": r["register"], "meta": r["meta"], "note": r["note"]}
        out.append((o, r["_src"]))
    with open(OUT, "w", encoding="utf-8") as fh:
        for o, _ in out:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")
    # ---- validate the written file (re-read) ----
    seen_norm, seen_id = {}, set()
    with open(OUT, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    recs = []
    for k, l in enumerate(lines):
        src = out[k][1] if k < len(out) else "?"
        try:
            o = json.loads(l)
        except Exception as e:
            errors.append(f"line {k+1}: bad json {e}"); continue
        recs.append(o)
        if list(o.keys()) != KEYS:
            errors.append(f"{src}: keys {list(o.keys())}")
        if not ID_RE.match(o["id"]) or o["id"] in seen_id:
            errors.append(f"{src}: bad/dup id {o['id']}")
        seen_id.add(o["id"])
        if o["id"] != "dr-t9-%04d" % (k + 1):
            errors.append(f"{src}: id not sequential")
        if o["persona"] not in PERSONAS:
            errors.append(f"{src}: persona {o['persona']}")
        if o["register"] not in REG.values():
            errors.append(f"{src}: register {o['register']}")
        if not isinstance(o["meta"], bool):
            errors.append(f"{src}: meta not bool")
        for f in ("text", "note"):
            if not isinstance(o[f], str) or unicodedata.normalize("NFC", o[f]) != o[f]:
                errors.append(f"{src}: {f} not NFC str")
        t = o["text"]
        if not t or "\n" in t or "\t" in t or t != t.strip():
            errors.append(f"{src}: text empty/multiline/untrimmed")
        n = norm(t)
        if not n:
            errors.append(f"{src}: empty normalised text")
        if n in seen_norm:
            errors.append(f"{src}: duplicate normalised text with {seen_norm[n]}: {t!r}")
        seen_norm[n] = src
        # set-specific hard checks
        if not HANGUL.search(t) and o["register"] != "none":
            errors.append(f"{src}: no Hangul syllables (English/emoji/jamo only) must be register none")
        if JAMO_ONLY.match(t) and o["register"] != "none":
            errors.append(f"{src}: jamo/emoji-only line must be none")
        if re.search(r"(ai|인공지능|bot|language model|프로그램)", t.lower()) and o["meta"] and not o["note"]:
            errors.append(f"{src}: meta AI line needs a note")
        g = lint_register(t)
        if g.rstrip("?") != o["register"]:
            warnings.append(f"{src}: lint guess {g} vs label {o['register']}: {t}")
    # distribution checks
    N = len(recs)
    per = Counter(o["persona"] for o in recs)
    metas = sum(o["meta"] for o in recs)
    hardneg = [o for o in recs if not o["meta"] and TRAP.search(o["text"])]
    final = "--final" in sys.argv
    if final:
        if not 480 <= N <= 560:
            errors.append(f"total {N} outside 480..560")
        for p in PERSONAS:
            if not 65 <= per[p] <= 85:
                errors.append(f"{p}: {per[p]} lines outside 65..85")
        if N and not 0.20 <= metas / N <= 0.30:
            errors.append(f"meta share {metas/N:.3f} outside 0.20..0.30")
        if len(hardneg) < 60:
            errors.append(f"only {len(hardneg)} hard negatives (meta=false with trap words), need >= 60")
        for p in PERSONAS:
            regs = Counter(o["register"] for o in recs if o["persona"] == p)
            for r in REG.values():
                if regs[r] < 3:
                    errors.append(f"{p}: register {r} only {regs[r]}")
            pm = sum(o["meta"] for o in recs if o["persona"] == p)
            if per[p] and not 0.15 <= pm / per[p] <= 0.35:
                errors.append(f"{p}: meta share {pm}/{per[p]} outside 0.15..0.35")
    # report
    print(f"rows {N}  meta {metas} ({(metas/N if N else 0):.1%})  hard negatives {len(hardneg)}")
    for p in PERSONAS:
        regs = Counter(o["register"] for o in recs if o["persona"] == p)
        pm = sum(o["meta"] for o in recs if o["persona"] == p)
        print(f"  {p}: {per[p]:3d}  meta {pm:3d}  " + "  ".join(f"{r} {regs[r]}" for r in REG.values()))
    tot = Counter(o["register"] for o in recs)
    print("  all: " + "  ".join(f"{r} {tot[r]}" for r in REG.values()))
    mr = Counter((o["register"], o["meta"]) for o in recs)
    print("  register x meta: " + "  ".join(f"{r}/{m}:{mr[(r, m)]}" for r in REG.values() for m in (True, False)))
    if "-v" in sys.argv:
        for w in warnings:
            print("WARN", w)
    else:
        print(f"  {len(warnings)} lint warnings (review with -v)")
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"FAILED ({len(errors)} errors)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
