#!/usr/bin/env python3
"""Build test.jsonl from src_*.txt. Line format: P<n>|<reg h/b/s/n>|<meta 0/1>|<note code or free>|<text>"""
import json, unicodedata, re, glob, sys, collections
REG = {'h':'haeyo','b':'banmal','s':'hapsyo','n':'none'}
def norm(t):
    t = unicodedata.normalize('NFC', t).lower()
    t = re.sub(r'\s+', ' ', t).strip()
    return re.sub(r'[.?!…~]+$', '', t).strip()
items, errs, seen = [], [], {}
for f in sorted(glob.glob('src_*.txt')):
    for ln, raw in enumerate(open(f, encoding='utf-8'), 1):
        raw = raw.rstrip('\n')
        if not raw.strip() or raw.startswith('#'): continue
        parts = raw.split('|', 4)
        if len(parts) != 5: errs.append(f'{f}:{ln} bad fields'); continue
        p, r, m, note, text = parts
        text = unicodedata.normalize('NFC', text.strip())
        if p not in {f'P{i}' for i in range(1,8)}: errs.append(f'{f}:{ln} persona {p}')
        if r not in REG: errs.append(f'{f}:{ln} reg {r}')
        if m not in '01' or len(m)!=1: errs.append(f'{f}:{ln} meta {m}')
        if not text: errs.append(f'{f}:{ln} empty')
        k = norm(text)
        if k in seen: errs.append(f'{f}:{ln} dup of {seen[k]}')
        seen[k] = f'{f}:{ln}'
        note = {'HN':'hard negative: not meta'}.get(note, note) if not note.startswith('HN ') else 'hard negative: ' + note[3:]
        items.append({'persona':p,'text':text,'register':REG.get(r,r),'meta':m=='1','note':note})
out = []
for i, it in enumerate(items, 1):
    out.append(dict(id=f'dr-t6-{i:04d}', **it))
with open('test.jsonl','w',encoding='utf-8') as fo:
    for o in out:
        s = json.dumps(o, ensure_ascii=False); json.loads(s)
        if unicodedata.normalize('NFC', s) != s: errs.append(o['id']+' not NFC')
        fo.write(s+'\n')
n=len(out); meta=sum(o['meta'] for o in out); hn=sum('hard negative' in o['note'] for o in out)
pc=collections.Counter(o['persona'] for o in out); rc=collections.Counter(o['register'] for o in out)
print('total',n,'meta',meta,'hard_neg',hn); print('persona',dict(sorted(pc.items()))); print('register',dict(rc))
for req,val,name in [(470,n,'total'),(115,meta,'meta'),(70,hn,'hard_neg')]:
    if val<req: errs.append(f'min count {name}: {val} < {req}')
for p in [f'P{i}' for i in range(1,8)]:
    if pc[p]<60: errs.append(f'min count {p}: {pc[p]} < 60')
print('errors',len(errs)); [print(' ',e) for e in errs[:40]]
print('VALID' if not errs else 'INVALID')
