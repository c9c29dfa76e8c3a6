#!/usr/bin/env python3
"""Build test.jsonl from src/P*.txt and validate it (stdlib only).

Source format (one file per persona, src/P1.txt ... src/P7.txt):
  lines starting with '//' are comments, blank lines separate nothing special.
  @ <kind> [<fact_key> gated=<true|false>]   starts a new item
  W <text>     warm-up counselor line (repeatable, order kept)
  Q <text>     the probe (exactly one; may be continued with '  ' lines? no: one line)
  + <text>     expect_any entry
  - <text>     forbid entry
  N <text>     note
The persona is taken from the file name. Ids are assigned in file order P1..P7.
"""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
PERSONAS = ["P%d" % i for i in range(1, 8)]
KINDS = ["fact", "repeat", "greeting", "closing", "off_topic", "joke", "english",
         "long_input", "meta", "si_screen"]
# target per persona (brief): 7 fact, 2 repeat, 1 greeting, 1 closing, 2 off_topic,
# 2 joke, 1 english, 1 long_input, 2 meta, 1 si_screen = 20
TARGET = {"fact": 7, "repeat": 2, "greeting": 1, "closing": 1, "off_topic": 2, "joke": 2,
          "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
UNGATED_KEYS = {"age", "grade", "job", "living", "siblings", "children", "prior_counseling", "prior_help", "reason"}
KEYS = ["id", "persona", "kind", "warmup", "probe", "fact", "gated", "expect_any", "forbid", "note"]
ID_RE = re.compile(r"^cp-t11b-(\d{4})$")


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return s.rstrip(".?!…~").strip()


def parse(path, persona):
    items, cur = [], None
    with open(path, encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("//"):
                continue
            tag, _, rest = line.partition(" ")
            rest = unicodedata.normalize("NFC", rest.strip())
            where = "%s:%d" % (os.path.basename(path), ln)
            if tag == "@":
                parts = rest.split()
                cur = {"persona": persona, "kind": parts[0], "warmup": [], "probe": None,
                       "expect_any": [], "forbid": [], "note": "", "_where": where}
                if parts[0] == "fact":
                    if len(parts) != 3 or not parts[2].startswith("gated="):
                        sys.exit("%s: fact header needs '<key> gated=..'" % where)
                    cur["fact"] = parts[1]
                    g = parts[2][6:]
                    if g not in ("true", "false"):
                        sys.exit("%s: gated must be true/false" % where)
                    cur["gated"] = g == "true"
                elif len(parts) != 1:
                    sys.exit("%s: only fact items take extra header fields" % where)
                items.append(cur)
            elif cur is None:
                sys.exit("%s: line before first '@'" % where)
            elif tag == "W":
                cur["warmup"].append(rest)
            elif tag == "Q":
                if cur["probe"] is not None:
                    sys.exit("%s: second Q line" % where)
                cur["probe"] = rest
            elif tag == "+":
                cur["expect_any"].append(rest)
            elif tag == "-":
                cur["forbid"].append(rest)
            elif tag == "N":
                cur["note"] = (cur["note"] + " " + rest).strip()
            else:
                sys.exit("%s: unknown tag %r" % (where, tag))
    return items


def build():
    items = []
    for p in PERSONAS:
        path = os.path.join(SRC, p + ".txt")
        if os.path.exists(path):
            items.extend(parse(path, p))
    out = []
    for i, it in enumerate(items, 1):
        rec = {"id": "cp-t11b-%04d" % i, "persona": it["persona"], "kind": it["kind"],
               "warmup": it["warmup"], "probe": it["probe"]}
        if "fact" in it:
            rec["fact"] = it["fact"]
            rec["gated"] = it["gated"]
        rec["expect_any"] = it["expect_any"]
        rec["forbid"] = it["forbid"]
        rec["note"] = it["note"]
        out.append((rec, it["_where"]))
    return out


def validate(recs):
    errs = []
    seen_norm, seen_ids = {}, set()
    counts = defaultdict(Counter)
    for n, (r, where) in enumerate(recs, 1):
        def E(msg):
            errs.append("%s %s: %s" % (r.get("id"), where, msg))
        m = ID_RE.match(r["id"])
        if not m or int(m.group(1)) != n or r["id"] in seen_ids:
            E("bad/duplicate/non-sequential id")
        seen_ids.add(r["id"])
        for k in r:
            if k not in KEYS:
                E("unknown key %s" % k)
        if r["persona"] not in PERSONAS:
            E("bad persona")
        k = r["kind"]
        if k not in KINDS:
            E("bad kind %r" % k)
        counts[r["persona"]][k] += 1
        # strings, NFC
        strs = [r["probe"] or "", r["note"]] + r["warmup"] + r["expect_any"] + r["forbid"]
        for s in strs:
            if not isinstance(s, str):
                E("non-string value")
            elif unicodedata.normalize("NFC", s) != s:
                E("not NFC: %r" % s)
            elif s != s.strip() or "\t" in s:
                E("untrimmed/tab: %r" % s)
        if not r["probe"]:
            E("missing probe")
        else:
            np_ = norm(r["probe"])
            if np_ in seen_norm:
                E("normalised probe duplicates %s" % seen_norm[np_])
            seen_norm[np_] = r["id"]
        if not r["note"]:
            E("missing note")
        if any(not w for w in r["warmup"]):
            E("empty warmup line")
        if len(set(map(norm, r["warmup"]))) != len(r["warmup"]):
            E("duplicate warmup line inside item")
        if r["probe"] and norm(r["probe"]) in map(norm, r["warmup"]):
            E("probe identical to a warmup line")
        # fact / gated only on fact items
        if k == "fact":
            if not isinstance(r.get("gated"), bool) or not r.get("fact"):
                E("fact item needs fact + gated")
            elif not re.fullmatch(r"[a-z_]+", r["fact"]):
                E("fact key must be a short snake_case key")
            elif r["fact"] in UNGATED_KEYS and r["gated"]:
                E("intake fact %s must be gated=false" % r["fact"])
            elif r["fact"] not in UNGATED_KEYS and not r["gated"]:
                E("personal fact %s should be gated=true" % r["fact"])
        elif "fact" in r or "gated" in r:
            E("fact/gated only allowed on fact items")
        # expect / forbid
        if k == "si_screen":
            if r["expect_any"]:
                E("si_screen expect_any must be empty")
        elif len(r["expect_any"]) < 2:
            E("expect_any needs several spellings (>=2)")
        if len(r["forbid"]) < 2:
            E("forbid needs >=2 assertions")
        for f in r["forbid"]:
            if len(f.replace(" ", "")) < 4:
                E("forbid entry too short to be an assertion: %r" % f)
        if len(set(map(norm, r["expect_any"]))) != len(r["expect_any"]):
            E("duplicate expect_any")
        if len(set(map(norm, r["forbid"]))) != len(r["forbid"]):
            E("duplicate forbid")
        for e in r["expect_any"]:
            for f in r["forbid"]:
                if norm(f) in norm(e):
                    E("expect %r contains forbid %r (self-contradicting)" % (e, f))
        # kind-specific
        if k == "repeat":
            if not (4 <= len(r["warmup"]) <= 6):
                E("repeat needs original question + 3-5 unrelated warm-up lines")
            if "아까" not in r["expect_any"] or "말했" not in r["expect_any"]:
                E("repeat expect_any must hold 아까 and 말했")
            if len(r["expect_any"]) < 4:
                E("repeat expect_any needs true-answer spellings too")
            if r["warmup"] and "?" not in r["warmup"][0]:
                E("repeat warmup[0] should be the original question")
        if k == "closing" and len(r["warmup"]) < 6:
            E("closing needs >= 6 warm-up lines")
        if k == "greeting" and len(r["warmup"]) < 2:
            E("mid-session greeting needs >= 2 warm-up lines")
        if k == "long_input" and len(r["probe"] or "") < 200:
            E("long_input probe < 200 chars (%d)" % len(r["probe"] or ""))
        if k == "english":
            p = r["probe"] or ""
            if re.search(r"[\uac00-\ud7a3]", p) or len(p.split()) < 5:
                E("english probe must be a full English sentence without Hangul")
        if k != "long_input" and len(r["probe"] or "") > 400:
            E("very long probe outside long_input")
    return errs, counts


def main():
    recs = build()
    errs, counts = validate(recs)
    # per-persona totals (only enforced for personas whose file exists and is marked complete)
    for p in PERSONAS:
        c = counts.get(p)
        if not c:
            continue
        total = sum(c.values())
        if total > 20:
            errs.append("%s: %d items > 20" % (p, total))
        for kk, want in TARGET.items():
            if c[kk] > want:
                errs.append("%s: %s has %d > %d" % (p, kk, c[kk], want))
        if total == 20 and dict(c) != {kk: v for kk, v in TARGET.items()}:
            errs.append("%s: complete persona but kind mix %s != target" % (p, dict(c)))
    if errs:
        print("\n".join(errs))
        print("FAILED: %d errors" % len(errs))
        sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as f:
        for r, _ in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    # reread check
    with open(OUT, encoding="utf-8") as f:
        back = [json.loads(l) for l in f]
    assert [b["id"] for b in back] == [r["id"] for r, _ in recs]
    print("OK: %d items written to test.jsonl" % len(back))
    kinds = Counter(r["kind"] for r, _ in recs)
    print("per persona:", {p: sum(counts[p].values()) for p in PERSONAS if p in counts})
    print("per kind:", dict(kinds))
    fk = Counter((r["fact"], r["gated"]) for r, _ in recs if r["kind"] == "fact")
    print("fact keys:", dict(fk))
    print("gated true/false:", Counter(r["gated"] for r, _ in recs if r["kind"] == "fact"))
    full = all(sum(counts[p].values()) == 20 for p in PERSONAS)
    print("COMPLETE (140)" if full and len(back) == 140 else "PARTIAL")


if __name__ == "__main__":
    main()
