#!/usr/bin/env python3
"""Build test.jsonl for client probes (author A, round 11) from src/P*.txt and validate it.

stdlib only.  Usage:  python3 build_validate.py          (build + validate)
                      python3 build_validate.py --check  (validate existing test.jsonl only)

Source format (one file per persona, src/P1.txt ... src/P7.txt):
  lines starting with '#' are comments, blank lines are ignored
  '== KIND'                      starts a new item (non-fact kinds)
  '== fact KEY true|false'       starts a fact item (KEY = fact key, gated flag)
  'w TEXT'                       one warm-up counselor line (repeatable, kept in order)
  'p TEXT'                       the probe (exactly one)
  '+ A | B | C'                  expect_any entries (repeatable; ' | ' separated)
  '- A | B | C'                  forbid entries (repeatable; ' | ' separated)
  'n TEXT'                       note (exactly one)
Items are numbered cp-t11a-0001... in persona order P1..P7, then file order.
"""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")
PERSONAS = ["P%d" % i for i in range(1, 8)]
KINDS = ["fact", "repeat", "greeting", "closing", "off_topic", "joke", "english",
         "long_input", "meta", "si_screen"]
# target per persona (brief: 20 per persona)
TARGET = {"fact": 7, "repeat": 2, "greeting": 1, "closing": 1, "off_topic": 2, "joke": 2,
          "english": 1, "long_input": 1, "meta": 2, "si_screen": 1}
PER_PERSONA = 20
TOTAL = 140
# intake facts any client states -> must be gated false; everything else on a card is gated true
INTAKE_FACTS = {"age", "grade", "job", "living", "siblings", "prior_counseling", "reason"}
ID_RE = re.compile(r"^cp-t11a-\d{4}$")
FACT_KEY_RE = re.compile(r"^[a-z_]+$")
TRAIL = ".?!…~"
KEY_ORDER = ["id", "persona", "kind", "warmup", "probe", "fact", "gated", "expect_any", "forbid", "note"]


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return s.rstrip(TRAIL).strip()


def parse_file(path, persona):
    items, cur = [], None
    errors = []
    with open(path, encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = "%s:%d" % (os.path.basename(path), ln)
            if line.startswith("== "):
                head = line[3:].split()
                cur = {"persona": persona, "kind": head[0], "warmup": [], "probe": None,
                       "expect_any": [], "forbid": [], "note": None, "_where": where}
                if head[0] == "fact":
                    if len(head) != 3 or head[2] not in ("true", "false"):
                        errors.append(where + ": fact header needs KEY true|false")
                    else:
                        cur["fact"] = head[1]
                        cur["gated"] = head[2] == "true"
                elif len(head) != 1:
                    errors.append(where + ": only fact headers take arguments")
                items.append(cur)
                continue
            if cur is None:
                errors.append(where + ": content before first '==' header")
                continue
            tag, _, body = line.partition(" ")
            body = body.strip()
            if tag == "w":
                cur["warmup"].append(body)
            elif tag == "p":
                if cur["probe"] is not None:
                    errors.append(where + ": second probe line")
                cur["probe"] = body
            elif tag == "+":
                cur["expect_any"].extend(x.strip() for x in body.split(" | ") if x.strip())
            elif tag == "-":
                cur["forbid"].extend(x.strip() for x in body.split(" | ") if x.strip())
            elif tag == "n":
                if cur["note"] is not None:
                    errors.append(where + ": second note line")
                cur["note"] = body
            else:
                errors.append(where + ": unknown tag %r" % tag)
    return items, errors


def build():
    rows, errors = [], []
    for p in PERSONAS:
        path = os.path.join(SRC, p + ".txt")
        if not os.path.exists(path):
            continue
        items, errs = parse_file(path, p)
        errors += errs
        rows += items
    out = []
    for i, it in enumerate(rows, 1):
        rec = {"id": "cp-t11a-%04d" % i}
        for k in KEY_ORDER[1:]:
            if k in it:
                v = it[k]
                if isinstance(v, str):
                    v = unicodedata.normalize("NFC", v)
                elif isinstance(v, list):
                    v = [unicodedata.normalize("NFC", x) for x in v]
                rec[k] = v
        rec["_where"] = it["_where"]
        out.append(rec)
    return out, errors


def validate(recs, final=False):
    errs = []
    seen_ids, seen_probe = set(), {}
    per = defaultdict(Counter)
    for r in recs:
        w = r.get("_where", r.get("id", "?"))
        def E(msg):
            errs.append("%s [%s]: %s" % (r.get("id"), w, msg))
        keys = set(r) - {"_where"}
        base = {"id", "persona", "kind", "warmup", "probe", "expect_any", "forbid", "note"}
        if r.get("kind") == "fact":
            need = base | {"fact", "gated"}
        else:
            need = base
        if keys != need:
            E("keys %s != %s" % (sorted(keys), sorted(need)))
        rid = r.get("id", "")
        if not ID_RE.match(rid):
            E("bad id")
        if rid in seen_ids:
            E("duplicate id")
        seen_ids.add(rid)
        if r.get("persona") not in PERSONAS:
            E("bad persona")
        kind = r.get("kind")
        if kind not in KINDS:
            E("bad kind %r" % kind)
        per[r.get("persona")][kind] += 1
        # types
        if not isinstance(r.get("warmup"), list) or not all(isinstance(x, str) and x.strip() for x in r.get("warmup", [])):
            E("warmup must be list of non-empty strings")
        for k in ("probe", "note"):
            if not isinstance(r.get(k), str) or not r.get(k).strip():
                E("%s must be non-empty string" % k)
        for k in ("expect_any", "forbid"):
            v = r.get(k)
            if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
                E("%s must be list of non-empty strings" % k)
            elif len(set(v)) != len(v):
                E("%s has duplicates" % k)
        # NFC everywhere
        strings = [r.get("probe") or "", r.get("note") or ""] + list(r.get("warmup") or []) + \
                  list(r.get("expect_any") or []) + list(r.get("forbid") or [])
        for s in strings:
            if unicodedata.normalize("NFC", s) != s:
                E("not NFC: %r" % s[:30])
            if "|" in s:
                E("stray '|' in %r" % s[:30])
        # uniqueness on normalised probe
        np_ = norm(r.get("probe") or "")
        if np_ in seen_probe:
            E("normalised probe duplicates %s" % seen_probe[np_])
        seen_probe[np_] = rid
        # warm-up lines must not duplicate the probe
        if any(norm(x) == np_ for x in r.get("warmup") or []):
            E("a warm-up line equals the probe")
        ex, fb = r.get("expect_any") or [], r.get("forbid") or []
        # kind-specific checks
        if kind == "fact":
            fk, g = r.get("fact"), r.get("gated")
            if not isinstance(fk, str) or not FACT_KEY_RE.match(fk or ""):
                E("bad fact key")
            if not isinstance(g, bool):
                E("gated must be bool")
            if fk in INTAKE_FACTS and g is not False:
                E("intake fact %s must be gated false" % fk)
            if fk not in INTAKE_FACTS and g is not True:
                E("personal fact %s must be gated true" % fk)
            if len(ex) < 3:
                E("fact needs >=3 expect_any spellings")
            if len(fb) < 2:
                E("fact needs >=2 contradicting forbid assertions")
        if kind == "repeat":
            if not r.get("warmup"):
                E("repeat needs the earlier question in warm-up")
            if not any(("아까" in x) or ("말했" in x) for x in ex):
                E("repeat expect_any must hold 아까/말했")
        if kind == "closing" and len(r.get("warmup") or []) < 6:
            E("closing needs >= 6 warm-up lines")
        if kind == "long_input" and len(r.get("probe") or "") < 200:
            E("long_input probe < 200 chars (%d)" % len(r.get("probe") or ""))
        if kind == "si_screen":
            if ex:
                E("si_screen expect_any must be empty")
            if len(fb) < 3:
                E("si_screen needs method/plan forbids")
        elif not ex:
            E("expect_any empty")
        if kind == "meta" and len(fb) < 3:
            E("meta needs AI-admission / leak forbids")
        if not fb:
            E("forbid empty")
        # forbid entries are assertions, not bare tokens
        for f_ in fb:
            if len(f_.replace(" ", "")) < 4:
                E("forbid %r too short to be an assertion" % f_)
        # a forbid must not be an echo of the counselor's own words (a reply quoting the question must not trip it)
        said = [norm(x) for x in (r.get("warmup") or [])] + [np_]
        for f_ in fb:
            if any(norm(f_) in x for x in said):
                E("forbid %r echoes the probe/warm-up" % f_)
        # fact/repeat answers must not be satisfiable by echoing the counselor's own words
        if kind in ("fact", "repeat"):
            for e_ in ex:
                if any(norm(e_) in x for x in said):
                    E("expect %r echoes the probe/warm-up" % e_)
        # no forbid may be hit by an expected answer
        for f_ in fb:
            for e_ in ex:
                if norm(f_) in norm(e_):
                    E("forbid %r is inside expect %r" % (f_, e_))
    # counts
    for p in PERSONAS:
        c = per.get(p, Counter())
        n = sum(c.values())
        if final:
            if n != PER_PERSONA:
                errs.append("%s has %d items, want %d" % (p, n, PER_PERSONA))
            for k, t in TARGET.items():
                if c[k] != t:
                    errs.append("%s kind %s = %d, want %d" % (p, k, c[k], t))
        else:
            for k, t in TARGET.items():
                if c[k] > t:
                    errs.append("%s kind %s = %d > %d" % (p, k, c[k], t))
    if final and len(recs) != TOTAL:
        errs.append("total %d != %d" % (len(recs), TOTAL))
    return errs, per


def main():
    check_only = "--check" in sys.argv
    if check_only:
        recs = [json.loads(l) for l in open(OUT, encoding="utf-8") if l.strip()]
        perr = []
    else:
        recs, perr = build()
    final = all(os.path.exists(os.path.join(SRC, p + ".txt")) for p in PERSONAS)
    errs, per = validate(recs, final=final)
    errs = perr + errs
    if errs:
        print("INVALID (%d problems)" % len(errs))
        for e in errs:
            print("  " + e)
        sys.exit(1)
    if not check_only:
        with open(OUT, "w", encoding="utf-8") as f:
            for r in recs:
                r = {k: v for k, v in r.items() if k != "_where"}
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        # round-trip check
        back = [json.loads(l) for l in open(OUT, encoding="utf-8")]
        assert len(back) == len(recs)
        errs2, _ = validate(back, final=final)
        if errs2:
            print("INVALID after write:", errs2)
            sys.exit(1)
    print("OK %d items%s" % (len(recs), "" if final else " (partial: not all personas written yet)"))
    tot = Counter()
    for p in PERSONAS:
        c = per.get(p, Counter())
        tot.update(c)
        if c:
            print("  %s %2d  %s" % (p, sum(c.values()), " ".join("%s=%d" % (k, c[k]) for k in KINDS)))
    print("  all    " + " ".join("%s=%d" % (k, tot[k]) for k in KINDS))
    facts = Counter((r["persona"], r["gated"]) for r in recs if r["kind"] == "fact")
    print("  gated fact items: " + " ".join("%s:%d/%d" % (p, facts[(p, True)], facts[(p, True)] + facts[(p, False)]) for p in PERSONAS if per.get(p)))


if __name__ == "__main__":
    main()
