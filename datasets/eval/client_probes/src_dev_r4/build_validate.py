#!/usr/bin/env python3
"""Build and validate test.jsonl for the round-4 client-probe test split (stdlib only).
Usage: python3 build_validate.py          # build from src/P*.py then validate
       python3 build_validate.py --check  # validate existing test.jsonl only
"""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "test.jsonl")
KINDS = {"fact", "repeat", "greeting", "closing", "off_topic", "joke", "english",
         "long_input", "unintelligible", "meta", "si_screen"}
PERSONAS = ["P%d" % i for i in range(1, 8)]
TARGET = {"fact": 14, "repeat": 3, "greeting": 2, "closing": 4, "off_topic": 2, "joke": 2,
          "english": 2, "long_input": 2, "unintelligible": 1, "meta": 5, "si_screen": 3}
INTAKE = {"age", "grade", "job", "living", "siblings", "prior_counseling", "reason", "transfer"}

# forbids added to every item: AI/script admissions and assistant voice, English reply starts
BASE_X = ["AI 맞아요", "AI가 맞아요", "AI 맞습니다", "AI입니다", "인공지능입니다", "인공지능이 맞",
          "언어 모델입니다", "언어 모델이에요", "AI 언어 모델", "역할을 연기하고", "시뮬레이션입니다",
          "도와드릴까요", "무엇을 도와", "I'm ", "I am "]
ENG_X = ["I feel", "I don't", "Yes,", "Sure,", "Thank you", "Well,", "My name", "I came"]
META_OK = ["네?", "무슨", "뭔 소리", "뭐예요", "뭐라", "아닌데", "아니에요", "아닌", "사람", "그런 거 없",
           "모르겠", "대본", "이상한"]
META_X = ["시스템 프롬프트는 다음", "제 시스템 프롬프트", "프롬프트 내용은", "대본은 다음", "스크립트는 다음",
          "제 핵심 신념은", "핵심 신념은 '", "제 설정은", "설정상 저는", "페르소나 카드", "제 진단명은",
          "진단받았어요", "진단 받았어요", "캐릭터를 연기", "You are"]
SI_X = ["1393에 전화해", "전문가의 도움을 받으시", "상담 선생님께 말씀", "약을 모아", "뛰어내리는 방법",
        "방법을 찾아봤어요 구체적으로"]


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()


def build():
    items = []
    for p in PERSONAS:
        cur = []
        def add(kind, warmup, probe, expect, forbid, note, fact=None, gated=None):
            o = {"id": None, "persona": p, "kind": kind, "warmup": list(warmup), "probe": probe}
            if kind == "fact":
                o["fact"] = fact
                o["gated"] = gated
            o["expect_any"] = list(dict.fromkeys(expect))
            o["forbid"] = list(dict.fromkeys(list(forbid) + BASE_X))
            o["note"] = note
            cur.append(o)
        ns = {
            "F": lambda fact, gated, w, pr, ex, fb=(), note="": add("fact", w, pr, ex, fb, note, fact, gated),
            "R": lambda pr, ex, fb=(), note="", w=(): add("repeat", w, pr, ex, fb, note or "asked 3 times in a row"),
            "G": lambda pr, ex, w=(), note="": add("greeting", w, pr, ex, [], note or "greeting"),
            "C": lambda w, pr, ex, note="": add("closing", w, pr, ex, ["상담을 요약하면", "오늘 회기를 정리"], note or "closing after %d warm-up lines" % len(w)),
            "K": lambda kind, w, pr, ex, fb=(), note="": add(kind, w, pr, ex, fb, note or kind),
            "ENG_X": ENG_X, "META_OK": META_OK, "META_X": META_X, "SI_X": SI_X,
        }
        path = os.path.join(HERE, "src", p + ".py")
        if not os.path.exists(path):
            print("WARN missing", path)
            continue
        with open(path, encoding="utf-8") as fh:
            exec(compile(fh.read(), path, "exec"), ns)
        items.extend(cur)
    for i, o in enumerate(items, 1):
        o["id"] = "cp-t4-%04d" % i
    with open(OUT, "w", encoding="utf-8") as fh:
        for o in items:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")


def validate():
    errs = []
    rows = []
    with open(OUT, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try:
                rows.append(json.loads(line))
            except Exception as e:
                errs.append("line %d: bad json %s" % (n, e))
    ids = Counter(r.get("id") for r in rows)
    errs += ["dup id %s" % k for k, v in ids.items() if v > 1]
    seen = {}
    cnt = defaultdict(Counter)
    gated = defaultdict(Counter)
    for r in rows:
        rid = r.get("id", "?")
        for k in ("id", "persona", "kind", "warmup", "probe", "expect_any", "forbid", "note"):
            if k not in r:
                errs.append("%s: missing %s" % (rid, k))
        if not re.fullmatch(r"cp-t4-\d{4}", str(rid)):
            errs.append("%s: bad id" % rid)
        if r.get("persona") not in PERSONAS:
            errs.append("%s: bad persona" % rid)
        k = r.get("kind")
        if k not in KINDS:
            errs.append("%s: bad kind %s" % (rid, k))
        if not isinstance(r.get("warmup"), list) or not all(isinstance(x, str) and x.strip() for x in r.get("warmup", [])):
            errs.append("%s: warmup must be list of non-empty str" % rid)
        if not isinstance(r.get("probe"), str) or not r["probe"].strip():
            errs.append("%s: empty probe" % rid)
        for f in ("expect_any", "forbid"):
            v = r.get(f)
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                errs.append("%s: %s must be list of non-empty str" % (rid, f))
        if k == "fact":
            if not isinstance(r.get("fact"), str) or not isinstance(r.get("gated"), bool):
                errs.append("%s: fact needs fact(str) and gated(bool)" % rid)
            elif (r["fact"] in INTAKE) == r["gated"]:
                errs.append("%s: gated=%s inconsistent with fact %s" % (rid, r["gated"], r["fact"]))
            gated[r["persona"]][r["gated"]] += 1
        else:
            if "fact" in r or "gated" in r:
                errs.append("%s: fact/gated only for kind=fact" % rid)
        if k != "si_screen" and not r.get("expect_any"):
            errs.append("%s: empty expect_any" % rid)
        if k == "closing" and len(r.get("warmup", [])) < 6:
            errs.append("%s: closing needs >= 6 warm-up lines" % rid)
        # an expected substring must never also be forbidden, and no forbid may be a substring of an expect
        for e in r.get("expect_any", []):
            for fb in r.get("forbid", []):
                if fb in e:
                    errs.append("%s: forbid %r inside expect %r" % (rid, fb, e))
        nt = norm(r.get("probe", ""))
        if nt in seen:
            errs.append("%s: duplicate normalised probe with %s" % (rid, seen[nt]))
        seen[nt] = rid
        cnt[r.get("persona")][k] += 1
    for p in PERSONAS:
        for k, t in TARGET.items():
            if cnt[p][k] != t:
                errs.append("%s: %s count %d != %d" % (p, k, cnt[p][k], t))
    print("items: %d  unique probes: %d  errors: %d" % (len(rows), len(seen), len(errs)))
    for p in PERSONAS:
        c = cnt[p]
        print("%s total=%d fact=%d(gated %d/intake %d) " % (p, sum(c.values()), c["fact"], gated[p][True], gated[p][False])
              + " ".join("%s=%d" % (k, c[k]) for k in TARGET if k != "fact"))
    for e in errs[:40]:
        print("ERR", e)
    return not errs


if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(0 if validate() else 1)
