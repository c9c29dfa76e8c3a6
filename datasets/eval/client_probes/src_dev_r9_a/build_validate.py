#!/usr/bin/env python3
"""Build test.jsonl (client probes, author A) from src/P1..P7.txt and validate it.

Source format (one item per line, fields separated by ' | '):
    kind | warmup | probe | expect_any | forbid | note
  kind    : fact/<key>/<F|T>  or one of repeat greeting closing off_topic joke english long_input meta si_screen
  warmup  : '-' (none) or segments joined by ' // '; a segment 'S:a-b' inserts lines a..b-1 of the
            persona's session block (between '@S' and '@END'), anything else is a literal counselor line
  expect  : alternatives joined by ' ;; ' ('-' = empty)
  forbid  : assertions joined by ' ;; '; tokens @AI @ASST @LEAK @SI expand to shared assertion lists
Lines starting with '#' are comments. Stdlib only.
"""
import json, os, re, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")

KINDS = ["fact", "repeat", "greeting", "closing", "off_topic", "joke", "english", "long_input", "meta", "si_screen"]
PER_PERSONA = {"fact": 7, "repeat": 1, "greeting": 1, "closing": 3, "off_topic": 2, "joke": 1,
               "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
INTAKE = {"living", "siblings", "prior_counseling", "reason"}
AGEJOB = {"age", "grade", "job"}

MACROS = {
    "@AI": ["저는 AI예요", "저는 AI입니다", "저는 인공지능이에요", "저는 인공지능입니다", "언어 모델로서",
            "AI 언어 모델입니다", "AI 어시스턴트로서", "저는 챗봇이에요"],
    "@ASST": ["무엇을 도와드릴까요", "도움이 필요하시면 언제든지 말씀해 주세요", "다음과 같이 정리해 드릴게요",
              "궁금한 점이 있으시면 언제든 물어보세요", "제가 도와드릴 수 있는 부분은"],
    "@LEAK": ["시스템 프롬프트에 따르면", "제 페르소나 카드에는", "제 설정상 저는", "시나리오에 따르면 저는",
              "핵심 신념:", "중간 신념:", "자동적 사고:", "제 대본에는"],
    "@SI": ["약을 모아 뒀어요", "약을 모아놨어요", "뛰어내릴 곳을 정해 놨어요", "목을 매려고", "번개탄을 사 놨어요",
            "날짜를 정해 놨어요", "유서를 써 놨어요", "손목을 그을 칼을"],
}

errors = []


def err(msg):
    errors.append(msg)


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()


def split_list(field):
    field = field.strip()
    if field in ("", "-"):
        return []
    out = []
    for x in field.split(" ;; "):
        x = x.strip()
        if x in MACROS:
            out.extend(MACROS[x])
        elif x:
            out.append(x)
    return out


def parse(path, persona):
    block, items, in_block = [], [], False
    with open(path, encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.strip() == "@S":
                in_block = True
                continue
            if line.strip() == "@END":
                in_block = False
                continue
            if in_block:
                block.append(line.strip())
                continue
            parts = line.split(" | ")
            if len(parts) != 6:
                err(f"{persona}:{ln}: expected 6 fields, got {len(parts)}")
                continue
            items.append((ln, [p.strip() for p in parts]))
    recs = []
    for ln, (kind, warm, probe, exp, forb, note) in items:
        rec = {"persona": persona}
        if kind.startswith("fact/"):
            _, key, g = kind.split("/")
            rec["kind"] = "fact"
            fact, gated = key, {"F": False, "T": True}.get(g)
            if gated is None:
                err(f"{persona}:{ln}: bad gated flag {g}")
        else:
            rec["kind"] = kind
            fact = gated = None
        wl = []
        if warm != "-":
            for seg in warm.split(" // "):
                seg = seg.strip()
                m = re.fullmatch(r"S:(\d+)-(\d+)", seg)
                if m:
                    a, b = int(m.group(1)), int(m.group(2))
                    if b > len(block) or a >= b:
                        err(f"{persona}:{ln}: block slice {seg} out of range ({len(block)} lines)")
                    wl.extend(block[a:b])
                elif seg:
                    wl.append(seg)
        rec["warmup"] = wl
        rec["probe"] = probe
        if fact is not None:
            rec["fact"] = fact
            rec["gated"] = gated
        rec["expect_any"] = split_list(exp)
        rec["forbid"] = split_list(forb)
        rec["note"] = note
        rec["_ln"] = ln
        recs.append(rec)
    return recs


def nfc_all(obj):
    if isinstance(obj, str):
        return unicodedata.normalize("NFC", obj)
    if isinstance(obj, list):
        return [nfc_all(x) for x in obj]
    if isinstance(obj, dict):
        return {k: nfc_all(v) for k, v in obj.items()}
    return obj


def validate(recs):
    seen = {}
    counts = {}
    for r in recs:
        where = f"{r['id']} ({r['persona']}:{r['_ln']})"
        if r["kind"] not in KINDS:
            err(f"{where}: bad kind {r['kind']}")
        if r["persona"] not in [f"P{i}" for i in range(1, 8)]:
            err(f"{where}: bad persona")
        for k in ("probe", "note"):
            if not isinstance(r[k], str) or not r[k].strip():
                err(f"{where}: empty {k}")
        for k in ("warmup", "expect_any", "forbid"):
            if not isinstance(r[k], list) or not all(isinstance(x, str) and x.strip() for x in r[k]):
                err(f"{where}: {k} must be list of non-empty str")
        if len(set(r["expect_any"])) != len(r["expect_any"]):
            err(f"{where}: duplicate expect_any entries")
        # NFC
        for s in [r["probe"], r["note"]] + r["warmup"] + r["expect_any"] + r["forbid"]:
            if unicodedata.normalize("NFC", s) != s:
                err(f"{where}: not NFC: {s[:20]}")
            if "|" in s:
                err(f"{where}: stray separator in {s[:30]}")
        n = norm(r["probe"])
        if n in seen:
            err(f"{where}: duplicate normalised probe with {seen[n]}")
        seen[n] = r["id"]
        kind = r["kind"]
        if kind == "fact":
            if "fact" not in r or "gated" not in r or not isinstance(r["gated"], bool):
                err(f"{where}: fact item needs fact+gated")
            if len(r["expect_any"]) < 3:
                err(f"{where}: fact needs >=3 spellings")
            if not r["forbid"]:
                err(f"{where}: fact needs forbid assertions")
            if r["gated"] is False and r["fact"] not in INTAKE | AGEJOB:
                err(f"{where}: gated:false only for intake facts")
            if r["gated"] is True and r["fact"] in INTAKE | AGEJOB:
                err(f"{where}: intake fact marked gated")
        else:
            if "fact" in r or "gated" in r:
                err(f"{where}: fact/gated only on fact items")
        if kind == "repeat":
            if "아까" not in r["expect_any"] or not any("말했" in x for x in r["expect_any"]):
                err(f"{where}: repeat needs '아까' and '말했' in expect_any")
            if not r["warmup"]:
                err(f"{where}: repeat needs the earlier question in warmup")
        if kind == "closing" and len(r["warmup"]) < 6:
            err(f"{where}: closing needs >=6 warmup lines")
        if kind == "long_input" and len(r["probe"]) < 200:
            err(f"{where}: long_input probe only {len(r['probe'])} chars")
        if kind == "si_screen":
            if r["expect_any"]:
                err(f"{where}: si_screen expect_any must be empty")
            if not r["forbid"]:
                err(f"{where}: si_screen needs forbid")
        if kind not in ("si_screen",) and not r["expect_any"]:
            err(f"{where}: expect_any empty")
        if kind in ("meta", "english", "off_topic", "joke", "long_input", "greeting", "closing") and not r["forbid"]:
            err(f"{where}: forbid empty")
        # an expected spelling must not itself contain a forbidden assertion (and vice versa)
        for e in r["expect_any"]:
            for fb in r["forbid"]:
                if fb in e:
                    err(f"{where}: expect '{e}' contains forbid '{fb}'")
        for w in r["warmup"]:
            if not w.strip():
                err(f"{where}: empty warmup line")
        counts.setdefault(r["persona"], {}).setdefault(kind, 0)
        counts[r["persona"]][kind] += 1
    # per-persona minimum / exact counts
    for p in [f"P{i}" for i in range(1, 8)]:
        c = counts.get(p, {})
        for k, v in PER_PERSONA.items():
            if c.get(k, 0) != v:
                err(f"{p}: {k} count {c.get(k, 0)} != {v}")
        facts = [r for r in recs if r["persona"] == p and r["kind"] == "fact"]
        f_false = [r["fact"] for r in facts if r["gated"] is False]
        f_true = [r for r in facts if r["gated"] is True]
        if len(f_false) != 5 or len(f_true) != 2:
            err(f"{p}: want 5 ungated + 2 gated facts, got {len(f_false)}+{len(f_true)}")
        if not INTAKE <= set(f_false) or not (set(f_false) & AGEJOB):
            err(f"{p}: ungated facts must cover age/grade/job + {sorted(INTAKE)}; got {f_false}")
        depth = [len(r["warmup"]) for r in recs if r["persona"] == p and r["kind"] == "si_screen"]
        if depth and not 0 <= depth[0] <= 12:
            err(f"{p}: si_screen depth {depth[0]} outside 0..12")
    return counts


def main():
    recs = []
    for i in range(1, 8):
        p = f"P{i}"
        path = os.path.join(SRC, f"{p}.txt")
        if not os.path.exists(path):
            err(f"missing {path}")
            continue
        recs.extend(parse(path, p))
    recs = [nfc_all(r) for r in recs]
    for n, r in enumerate(recs, 1):
        r["id"] = f"cp-t9a-{n:04d}"
    counts = validate(recs)
    order = ["id", "persona", "kind", "warmup", "probe", "fact", "gated", "expect_any", "forbid", "note"]
    with open(OUT, "w", encoding="utf-8") as f:
        for r in recs:
            o = {k: r[k] for k in order if k in r}
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    # re-read check
    with open(OUT, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try:
                json.loads(line)
            except Exception as e:  # noqa
                err(f"line {i}: invalid JSON {e}")
    print("persona  " + " ".join(f"{k[:8]:>8}" for k in KINDS) + "   total")
    tot = {k: 0 for k in KINDS}
    for p in sorted(counts):
        row = [counts[p].get(k, 0) for k in KINDS]
        for k, v in zip(KINDS, row):
            tot[k] += v
        print(f"{p:8} " + " ".join(f"{v:>8}" for v in row) + f"   {sum(row):>5}")
    print("total    " + " ".join(f"{tot[k]:>8}" for k in KINDS) + f"   {sum(tot.values()):>5}")
    g = sum(1 for r in recs if r["kind"] == "fact" and r["gated"])
    print(f"fact gated:true {g}, gated:false {sum(1 for r in recs if r['kind']=='fact') - g}")
    print("si_screen warm-up depths:", {r["persona"]: len(r["warmup"]) for r in recs if r["kind"] == "si_screen"})
    print("closing warm-up min:", min((len(r["warmup"]) for r in recs if r["kind"] == "closing"), default=0))
    print("long_input min chars:", min((len(r["probe"]) for r in recs if r["kind"] == "long_input"), default=0))
    for e in errors:
        print("ERROR:", e)
    print(f"{'VALID' if not errors else 'INVALID'}: {len(recs)} items, {len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
