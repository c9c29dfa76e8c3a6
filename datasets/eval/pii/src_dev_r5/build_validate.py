#!/usr/bin/env python3
"""Build and validate the round-4 PII test split (stdlib only).

Sources (hand-written): src/pii_*.txt  ->  test.jsonl
    line format:  CAT || text || pii1 ;; pii2 || note
                  src/clean_*.txt ->  clean_test.jsonl
    line format:  text            (note is derived)
Usage: python3 build_validate.py          # build + validate
       python3 build_validate.py --check  # validate existing JSONL only
"""
import glob, json, os, re, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"nm": "person_name", "rrn": "rrn", "ph": "phone", "em": "email", "ac": "account",
        "cd": "card", "fid": "foreigner_id", "pp": "passport", "car": "car_plate",
        "sc": "school_class", "sns": "sns_id", "bd": "birthday", "ad": "address"}
ALLOWED = set(CATS.values())
MINS = {c: 16 for c in ALLOWED}
MINS["person_name"] = 45
MIN_PII, MIN_CLEAN = 260, 500
HELPLINES = ["1577-0199", "1588-9191", "1577-1389", "1393", "1388", "1366", "1350", "109", "119", "112", "129", "120"]
CUES = ["주민번호", "카톡", "생일", "생신", "전화번호", "계좌", "카드", "여권", "주소", "외국인등록증",
        "차 번호", "이메일", "인스타", "아이디", "비밀번호", "이름", "학교 이름", "학번"]
NOUNS = ["하늘", "바다", "보람", "은혜", "사랑", "민주주의", "지혜", "슬기", "소망", "희망", "기쁨",
         "다솜", "별이", "봄이", "한결", "나래", "가람", "진주", "장미", "미래", "정의", "한빛", "은하수", "햇살", "구름"]
HARD = {
    "다솜이라는 말이 사랑이라는 뜻이래요": "hard: 다솜 is a common given name, used here as a word",
    "한빛이 들어오는 창가 자리를 좋아해요": "hard: 한빛 (name-like) used as noun 'bright light'",
    "가람이라는 단어 강이라는 뜻인 거 알아?": "hard: 가람 is a given name, used as a word",
    "2학년 3반 애들이 다 알아": "hard: grade+class without a school name is not PII",
    "3학년 2반 교실 앞을 지나가기도 싫어": "hard: grade+class without a school name is not PII",
    "씨발 진짜 못 참겠어요 아 죄송해요": "hard: profanity starting with 씨, not an honorific",
    "2월 14일에 고백했다가 차였어": "hard: date without birthday context",
    "3월 14일에 사탕 하나도 못 받음ㅋㅋ": "hard: date without birthday context",
    "생일 축하 메시지가 하나도 안 왔어": "cue word 생일 with no date",
}

def norm(t):
    t = unicodedata.normalize("NFC", t).lower()
    t = re.sub(r"\s+", " ", t).strip()
    return re.sub(r"[.?!…~]+$", "", t).strip()

def clean_note(t):
    if t in HARD:
        return HARD[t]
    tags = []
    if any(re.search(r"(?<![\d-])" + re.escape(h) + r"(?![\d-])", t) for h in HELPLINES):
        tags.append("public help line")
    elif re.search(r"[0-9０-９]", t):
        tags.append("non-PII number (time/date/score/money/count/rank/route)")
    if any(c in t for c in CUES):
        tags.append("cue word without a value")
    if any(n in t for n in NOUNS):
        tags.append("name-like common noun used as a noun")
    return "; ".join(tags) or "ordinary counseling talk"

def build():
    pii, clean = [], []
    for fn in sorted(glob.glob(os.path.join(HERE, "src", "pii_*.txt"))):
        for ln, line in enumerate(open(fn, encoding="utf-8"), 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" || ")]
            if len(parts) != 4:
                sys.exit(f"{fn}:{ln}: expected 4 fields, got {len(parts)}")
            cat, text, vals, note = parts
            if cat not in CATS:
                sys.exit(f"{fn}:{ln}: unknown category {cat}")
            pii.append({"category": CATS[cat], "text": unicodedata.normalize("NFC", text),
                        "pii": [unicodedata.normalize("NFC", v.strip()) for v in vals.split(" ;; ")],
                        "note": note})
    for fn in sorted(glob.glob(os.path.join(HERE, "src", "clean_*.txt"))):
        for line in open(fn, encoding="utf-8"):
            t = unicodedata.normalize("NFC", line.strip())
            if t:
                clean.append({"text": t, "note": clean_note(t)})
    # drop exact normalised duplicates (keep first), then number
    seen, out_p, out_c, dropped = set(), [], [], 0
    for r in pii:
        k = norm(r["text"])
        if k in seen: dropped += 1; continue
        seen.add(k); out_p.append(r)
    for r in clean:
        k = norm(r["text"])
        if k in seen: dropped += 1; continue
        seen.add(k); out_c.append(r)
    with open(os.path.join(HERE, "test.jsonl"), "w", encoding="utf-8") as f:
        for i, r in enumerate(out_p, 1):
            f.write(json.dumps({"id": f"pii-t4-{i:04d}", **r}, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "clean_test.jsonl"), "w", encoding="utf-8") as f:
        for i, r in enumerate(out_c, 1):
            f.write(json.dumps({"id": f"clean-t4-{i:04d}", **r}, ensure_ascii=False) + "\n")
    print(f"built: {len(out_p)} pii, {len(out_c)} clean, {dropped} duplicates dropped")

def validate():
    errs, ids, seen = [], set(), {}
    counts = {c: 0 for c in sorted(ALLOWED)}
    def load(fn):
        rows = []
        for ln, line in enumerate(open(os.path.join(HERE, fn), encoding="utf-8"), 1):
            try:
                rows.append((ln, json.loads(line)))
            except Exception as e:
                errs.append(f"{fn}:{ln}: invalid JSON ({e})")
        return rows
    P, C = load("test.jsonl"), load("clean_test.jsonl")
    for fn, rows, kind in (("test.jsonl", P, "pii"), ("clean_test.jsonl", C, "clean")):
        req = ["id", "category", "text", "pii", "note"] if kind == "pii" else ["id", "text", "note"]
        for ln, r in rows:
            where = f"{fn}:{ln}"
            miss = [k for k in req if k not in r]
            extra = [k for k in r if k not in req]
            if miss or extra:
                errs.append(f"{where}: missing {miss} extra {extra}"); continue
            if not all(isinstance(r[k], str) and r[k].strip() for k in req if k != "pii"):
                errs.append(f"{where}: empty/non-string field")
            pat = r"^pii-t4-\d{4}$" if kind == "pii" else r"^clean-t4-\d{4}$"
            if not re.match(pat, r["id"]): errs.append(f"{where}: bad id {r['id']}")
            if r["id"] in ids: errs.append(f"{where}: duplicate id {r['id']}")
            ids.add(r["id"])
            if r["text"] != unicodedata.normalize("NFC", r["text"]): errs.append(f"{where}: text not NFC")
            k = norm(r["text"])
            if k in seen: errs.append(f"{where}: duplicate normalised text (also {seen[k]})")
            seen[k] = r["id"]
            if kind == "pii":
                if r["category"] not in ALLOWED: errs.append(f"{where}: bad category {r['category']}")
                else: counts[r["category"]] += 1
                if not isinstance(r["pii"], list) or not r["pii"]:
                    errs.append(f"{where}: pii must be a non-empty list")
                else:
                    for v in r["pii"]:
                        if not isinstance(v, str) or not v.strip(): errs.append(f"{where}: empty pii value")
                        elif v not in r["text"]: errs.append(f"{where}: pii {v!r} not a substring of text")
                    if len(set(r["pii"])) != len(r["pii"]): errs.append(f"{where}: repeated pii value")
            else:
                if re.search(r"[0-9０-９]{7,}", r["text"]) or "@" in r["text"]:
                    errs.append(f"{where}: clean sentence looks like it holds an identifier")
    for c, m in MINS.items():
        if counts[c] < m: errs.append(f"category {c}: {counts[c]} < {m}")
    if len(P) < MIN_PII: errs.append(f"pii cases {len(P)} < {MIN_PII}")
    if len(C) < MIN_CLEAN: errs.append(f"clean sentences {len(C)} < {MIN_CLEAN}")
    print(f"test.jsonl: {len(P)} cases; clean_test.jsonl: {len(C)} sentences")
    print("per category: " + ", ".join(f"{c}={n}" for c, n in counts.items()))
    if errs:
        print(f"FAIL: {len(errs)} problem(s)"); [print("  " + e) for e in errs[:40]]
        return 1
    print("OK: valid JSON, unique ids, allowed categories, required fields, pii substrings present, no duplicate normalised text")
    return 0

if __name__ == "__main__":
    if "--check" not in sys.argv:
        build()
    sys.exit(validate())
