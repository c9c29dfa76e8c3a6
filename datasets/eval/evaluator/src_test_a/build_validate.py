#!/usr/bin/env python3
"""Build test.jsonl from src/P*.txt and validate it (stdlib only).

Source line format (one item per line, '#' comments and blank lines ignored):
    S R X | TECHS | APPR | DEV | client_prev | counselor | note
  S     stage      r=rapport e=exploration i=intervention c=closing
  R     register   f=formal h=haeyo b=banmal
  X     crisis     0/1
  TECHS '+'-joined short codes (see TECH below)
  APPR  pos / warn / neu
  DEV   '-' or '+'-joined: sf=stage_fit fo=focus pa=pacing th=theory_fit sa=safety
  client_prev '^' = same client line as the previous item in the file
Persona comes from the file name (src/P3.txt -> P3). Ids are assigned in
file order P1..P7, line order, as ev-t11a-0001...
"""
import json, os, re, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "test.jsonl")

STAGE = {"r": "rapport", "e": "exploration", "i": "intervention", "c": "closing"}
REG = {"f": "formal", "h": "haeyo", "b": "banmal"}
TECH = {"AR": "approval_reassurance", "CQ": "closed_question", "OQ": "open_question",
        "RS": "restatement", "RF": "reflection_feelings", "CH": "challenge",
        "IN": "interpretation", "SD": "self_disclosure", "IM": "immediacy",
        "IF": "information", "DG": "direct_guidance", "VA": "validation", "OT": "other"}
APPR = {"pos": "pos", "warn": "warn", "neu": "neutral"}
DEV = {"sf": "stage_fit", "fo": "focus", "pa": "pacing", "th": "theory_fit", "sa": "safety"}
PERSONAS = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"]
KEYS = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques",
        "appropriateness", "deviation", "crisis_context", "note"]
ID_RE = re.compile(r"^ev-t11a-\d{4}$")


def norm(s):
    s = unicodedata.normalize("NFC", s).lower()
    s = re.sub(r"\s+", " ", s).strip()
    return re.sub(r"[.?!…~]+$", "", s).strip()


def parse():
    items, errs = [], []
    for p in PERSONAS:
        path = os.path.join(SRC, p + ".txt")
        if not os.path.exists(path):
            continue
        prev_client = None
        with open(path, encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                line = raw.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                where = f"{p}.txt:{ln}"
                parts = [x.strip() for x in line.split(" | ")]
                if len(parts) != 7:
                    errs.append(f"{where}: expected 7 fields, got {len(parts)}")
                    continue
                head, techs, appr, dev, cprev, couns, note = parts
                h = head.split()
                if len(h) != 3 or h[0] not in STAGE or h[1] not in REG or h[2] not in ("0", "1"):
                    errs.append(f"{where}: bad head {head!r}")
                    continue
                tl = techs.split("+")
                if any(t not in TECH for t in tl):
                    errs.append(f"{where}: bad techniques {techs!r}")
                    continue
                if appr not in APPR:
                    errs.append(f"{where}: bad appropriateness {appr!r}")
                    continue
                dl = [] if dev == "-" else dev.split("+")
                if any(d not in DEV for d in dl):
                    errs.append(f"{where}: bad deviation {dev!r}")
                    continue
                if cprev == "^":
                    if prev_client is None:
                        errs.append(f"{where}: '^' with no previous client line")
                        continue
                    cprev = prev_client
                prev_client = cprev
                items.append({
                    "_where": where,
                    "persona": p, "stage": STAGE[h[0]], "register": REG[h[1]],
                    "client_prev": unicodedata.normalize("NFC", cprev),
                    "counselor": unicodedata.normalize("NFC", couns),
                    "techniques": [TECH[t] for t in tl],
                    "appropriateness": APPR[appr],
                    "deviation": [DEV[d] for d in dl],
                    "crisis_context": h[2] == "1",
                    "note": unicodedata.normalize("NFC", note),
                })
    for i, it in enumerate(items, 1):
        it["id"] = f"ev-t11a-{i:04d}"
    return items, errs


def validate(items, final):
    errs, serrs, warns = [], [], []
    codes = set(TECH.values())
    tax = os.path.join("/work/main/datasets/taxonomy.json")
    if os.path.exists(tax):
        with open(tax, encoding="utf-8") as fh:
            t = json.load(fh)
        tcodes = {x["code"] for x in t["techniques"]}
        if tcodes != codes:
            errs.append(f"technique codes differ from taxonomy: {sorted(tcodes ^ codes)}")
        if {x["code"] for x in t["stages"]} != set(STAGE.values()):
            errs.append("stage codes differ from taxonomy")
        if {x["code"] for x in t["appropriateness"]} != set(APPR.values()):
            errs.append("appropriateness codes differ from taxonomy")
        if {x["code"] for x in t["intent_deviation"]["dimensions"]} != set(DEV.values()):
            errs.append("deviation codes differ from taxonomy")
    seen = {}
    ids = set()
    for it in items:
        w = it.get("_where", it["id"])
        if set(it) - {"_where"} != set(KEYS):
            errs.append(f"{w}: key set mismatch")
        if not ID_RE.match(it["id"]) or it["id"] in ids:
            errs.append(f"{w}: bad/duplicate id {it['id']}")
        ids.add(it["id"])
        for k in ("client_prev", "counselor", "note", "persona", "stage", "register", "appropriateness"):
            v = it[k]
            if not isinstance(v, str) or not v.strip():
                errs.append(f"{w}: {k} empty or not str")
            elif unicodedata.normalize("NFC", v) != v:
                errs.append(f"{w}: {k} not NFC")
        if it["persona"] not in PERSONAS: errs.append(f"{w}: persona")
        if it["stage"] not in STAGE.values(): errs.append(f"{w}: stage")
        if it["register"] not in REG.values(): errs.append(f"{w}: register")
        if it["appropriateness"] not in APPR.values(): errs.append(f"{w}: appropriateness")
        if not isinstance(it["crisis_context"], bool): errs.append(f"{w}: crisis_context not bool")
        tl, dl = it["techniques"], it["deviation"]
        if not isinstance(tl, list) or not tl or len(set(tl)) != len(tl) or not set(tl) <= codes:
            errs.append(f"{w}: techniques {tl}")
        if not isinstance(dl, list) or len(set(dl)) != len(dl) or not set(dl) <= set(DEV.values()):
            errs.append(f"{w}: deviation {dl}")
        if it["appropriateness"] == "warn" and not dl:
            errs.append(f"{w}: warn without deviation")
        if it["appropriateness"] != "warn" and dl:
            errs.append(f"{w}: deviation on non-warn item")
        if "safety" in dl and not it["crisis_context"]:
            errs.append(f"{w}: safety deviation without crisis_context")
        if it["crisis_context"] and it["appropriateness"] == "warn" and "safety" not in dl:
            errs.append(f"{w}: crisis_context warn item must carry safety")
        if it["crisis_context"] and it["appropriateness"] == "neutral":
            errs.append(f"{w}: crisis_context item should not be neutral (screen=pos, miss=warn)")
        n = norm(it["counselor"])
        if n in seen:
            errs.append(f"{w}: normalised counselor duplicates {seen[n]}")
        seen[n] = w
        if "|" in it["counselor"] or "|" in it["client_prev"]:
            errs.append(f"{w}: stray '|' in text")
        # soft register lint
        c = it["counselor"].rstrip(" .?!~ㅠㅜㅎㅋ^")
        if it["register"] == "banmal" and re.search(r"(요|니다)$", c):
            warns.append(f"{w}: banmal item ends in 요/니다: {it['counselor'][:40]}")
    # set-level checks
    N = len(items)
    pc = Counter(i["persona"] for i in items)
    sc = Counter(i["stage"] for i in items)
    tc = Counter(t for i in items for t in i["techniques"])
    ac = Counter(i["appropriateness"] for i in items)
    cr = [i for i in items if i["crisis_context"]]
    crc = Counter(i["appropriateness"] for i in cr)
    multi = sum(1 for i in items if len(i["techniques"]) > 1)
    psc = Counter((i["persona"], i["stage"]) for i in items)
    report = {
        "items": N, "persona": dict(sorted(pc.items())), "stage": dict(sc),
        "register": dict(Counter(i["register"] for i in items)),
        "appropriateness": dict(ac), "warn_ratio": round(ac["warn"] / N, 3) if N else 0,
        "crisis_context": len(cr), "crisis_by_appr": dict(crc),
        "crisis_by_persona": dict(sorted(Counter(i["persona"] for i in cr).items())),
        "multi_label": multi, "techniques": dict(sorted(tc.items(), key=lambda x: -x[1])),
        "deviation": dict(Counter(d for i in items for d in i["deviation"])),
    }
    if final:
        if not 380 <= N <= 460: serrs.append(f"size {N} not about 420")
        for p in PERSONAS:
            if pc[p] < 45: serrs.append(f"{p}: only {pc[p]} items (<45)")
            for s in STAGE.values():
                if psc[(p, s)] < 5: serrs.append(f"{p}/{s}: only {psc[(p, s)]} items (<5)")
        for t in codes:
            if tc[t] < 12: serrs.append(f"technique {t}: {tc[t]} (<12)")
        if not 0.26 <= report["warn_ratio"] <= 0.34: serrs.append(f"warn ratio {report['warn_ratio']} not ~30%")
        if len(cr) < 70: serrs.append(f"crisis_context {len(cr)} < 70")
        if cr and not (0.4 <= crc["pos"] / len(cr) <= 0.6): serrs.append(f"crisis pos/warn not balanced: {dict(crc)}")
        if multi < 0.15 * N: serrs.append(f"multi-label only {multi}")
        if ac["neutral"] < 20: serrs.append(f"neutral only {ac['neutral']}")
    return errs, serrs, warns, report


def main():
    final = "--partial" not in sys.argv
    items, perrs = parse()
    ierrs, serrs, warns, report = validate(items, final)
    ierrs = perrs + ierrs
    for w in warns:
        print("lint:", w)
    print(json.dumps(report, ensure_ascii=False, indent=1))
    for e in ierrs:
        print("ERROR:", e)
    for e in serrs:
        print("SET-LEVEL:", e)
    if ierrs:
        print(f"{len(ierrs)} item error(s); test.jsonl NOT written")
        sys.exit(1)
    with open(OUT, "w", encoding="utf-8") as fh:
        for it in items:
            fh.write(json.dumps({k: it[k] for k in KEYS}, ensure_ascii=False) + "\n")
    back = [json.loads(l) for l in open(OUT, encoding="utf-8")]
    e2, _, _, _ = validate(back, False)
    if e2 or len(back) != len(items):
        print("ERROR after re-read:", e2[:5]); sys.exit(1)
    print(f"wrote {OUT} ({len(back)} items); set-level shortfalls: {len(serrs)}")
    sys.exit(1 if serrs else 0)


if __name__ == "__main__":
    main()
