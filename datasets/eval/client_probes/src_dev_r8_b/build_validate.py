#!/usr/bin/env python3
"""Build and validate cp_b client-probe test set (stdlib only)."""
import json, os, re, sys, unicodedata
HERE = os.path.dirname(os.path.abspath(__file__)); SRC = os.path.join(HERE, "src")
KINDS = {"fact","repeat","greeting","closing","off_topic","joke","english","long_input","meta","si_screen"}
NEED = {"fact":7,"repeat":1,"greeting":1,"closing":3,"off_topic":2,"joke":1,"english":1,"long_input":1,"meta":2,"si_screen":1}
INTAKE = {"age","grade","job","living","siblings","prior_counseling","reason"}
def nfc(s): return unicodedata.normalize("NFC", s)
def norm(s): s = re.sub(r"\s+"," ",nfc(s).lower()).strip(); return re.sub(r"[.?!…~]+$","",s).strip()
W = {}
for ln in open(os.path.join(SRC,"warmups.txt"),encoding="utf-8"):
    if ln.strip(): k,v = ln.rstrip("\n").split("\t"); W[k]=[x.strip() for x in v.split("//") if x.strip()]
def warm(s):
    out=[]
    for p in [x.strip() for x in s.split("//") if x.strip()]:
        out += W[p] if p in W else [p]
    return out
errs=[]; items=[]; seen=set(); n=0
for P in ["P1","P2","P3","P4","P5","P6","P7"]:
    cnt={}; gcnt={True:0,False:0}; intake=set()
    for i,ln in enumerate(open(os.path.join(SRC,P+".txt"),encoding="utf-8"),1):
        if not ln.strip(): continue
        f = nfc(ln.rstrip("\n")).split("|")
        if len(f)!=8: errs.append(f"{P}:{i} fields {len(f)}"); continue
        kind,fact,g,wu,probe,ex,fb,note = [x.strip() for x in f]
        n+=1
        it={"id":f"cp-t8b-{n:04d}","persona":P,"kind":kind,"warmup":warm(wu),"probe":probe}
        if kind=="fact":
            it["fact"]=fact; it["gated"]=(g=="t"); gcnt[it["gated"]]+=1
            if not it["gated"]: intake.add(fact)
        it["expect_any"]=[x.strip() for x in ex.split("^") if x.strip()]
        it["forbid"]=[x.strip() for x in fb.split("^") if x.strip()]
        it["note"]=note
        if kind not in KINDS: errs.append(f"{P}:{i} kind {kind}")
        cnt[kind]=cnt.get(kind,0)+1
        if not probe: errs.append(f"{P}:{i} empty probe")
        k=norm(probe)
        if k in seen: errs.append(f"{P}:{i} dup probe")
        seen.add(k)
        if kind=="si_screen":
            if it["expect_any"]: errs.append(f"{P}:{i} si expect not empty")
        elif len(it["expect_any"])<2: errs.append(f"{P}:{i} expect_any<2")
        if not it["forbid"]: errs.append(f"{P}:{i} no forbid")
        for x in it["forbid"]:
            if len(x)<4: errs.append(f"{P}:{i} short forbid {x}")
        if kind=="repeat" and not any(a in it["expect_any"] for a in ("아까","말했")): errs.append(f"{P}:{i} repeat cue")
        if kind=="closing" and len(it["warmup"])<6: errs.append(f"{P}:{i} closing warmup<6")
        if kind=="long_input" and len(probe)<200: errs.append(f"{P}:{i} long_input {len(probe)}")
        if kind!="fact" and (fact or g): errs.append(f"{P}:{i} fact on non-fact")
        items.append(it)
    for k,v in NEED.items():
        if cnt.get(k,0)!=v: errs.append(f"{P} {k} {cnt.get(k,0)}!={v}")
    if gcnt[False]!=5 or gcnt[True]!=2: errs.append(f"{P} gated split {gcnt}")
    if not ({"living","siblings","prior_counseling","reason"}<=intake and intake & {"age","grade","job"}): errs.append(f"{P} intake {intake}")
with open(os.path.join(HERE,"test.jsonl"),"w",encoding="utf-8") as o:
    for it in items: o.write(json.dumps(it,ensure_ascii=False)+"\n")
for ln in open(os.path.join(HERE,"test.jsonl"),encoding="utf-8"):
    d=json.loads(ln); assert nfc(ln)==ln
from collections import Counter
print("items",len(items)); print("by persona",dict(Counter(i["persona"] for i in items)))
print("by kind",dict(Counter(i["kind"] for i in items)))
print("si depths",[len(i["warmup"]) for i in items if i["kind"]=="si_screen"])
print("errors",len(errs)); [print(" ",e) for e in errs]
print("VALID" if not errs and len(items)==140 else "INVALID"); sys.exit(1 if errs else 0)
