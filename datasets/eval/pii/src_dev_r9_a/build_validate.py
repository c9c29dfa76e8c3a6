#!/usr/bin/env python3
"""Build test.jsonl / clean_test.jsonl from pii_src.txt / clean_src.txt (stdlib only).
pii_src.txt:   CODE<TAB>text with [[pii]] marks[<TAB>note]
clean_src.txt: GROUP<TAB>text[<TAB>note]"""
import json, re, sys, unicodedata, os
D = os.path.dirname(os.path.abspath(__file__))
CAT = {'nm':'person_name','rrn':'rrn','ph':'phone','em':'email','ac':'account','cd':'card','fid':'foreigner_id',
       'pp':'passport','car':'car_plate','sc':'school_class','sns':'sns_id','bd':'birthday','ad':'address'}
GRP = {'ev':'everyday','syl':'syllable trap','sur':'surname-syllable word','nn':'name-like common noun',
       'num':'non-PII number','help':'public help line','cue':'cue word without value'}
MIN = {'person_name':55}
def norm(t):
    t = unicodedata.normalize('NFC', t).lower(); t = re.sub(r'\s+', ' ', t).strip()
    return re.sub(r'[.?!…~]+$', '', t).strip()
errs = []
def rows(fn):
    for i, l in enumerate(open(os.path.join(D, fn), encoding='utf-8'), 1):
        l = l.rstrip('\n')
        if l.strip() and not l.startswith('#'): yield i, l.split('\t')
pii, seen = [], set()
for i, p in rows('pii_src.txt'):
    if len(p) < 2 or p[0] not in CAT: errs.append(f'pii:{i} bad code/line'); continue
    raw = unicodedata.normalize('NFC', p[1]); note = p[2] if len(p) > 2 else CAT[p[0]]
    vals = re.findall(r'\[\[(.+?)\]\]', raw); text = raw.replace('[[', '').replace(']]', '')
    if not vals: errs.append(f'pii:{i} no pii marked')
    if '[' in text or ']' in text: errs.append(f'pii:{i} stray bracket')
    for v in vals:
        if v not in text: errs.append(f'pii:{i} not substring {v}')
    n = norm(text)
    if n in seen: errs.append(f'pii:{i} duplicate')
    seen.add(n)
    pii.append({'id': f'pii-t8a-{len(pii)+1:04d}', 'category': CAT[p[0]], 'text': text, 'pii': vals, 'note': note})
clean, seen = [], set()
for i, p in rows('clean_src.txt'):
    if len(p) < 2 or p[0] not in GRP: errs.append(f'clean:{i} bad group'); continue
    text = unicodedata.normalize('NFC', p[1])
    if '[[' in text: errs.append(f'clean:{i} pii mark in clean')
    n = norm(text)
    if n in seen: errs.append(f'clean:{i} duplicate')
    seen.add(n)
    clean.append({'id': f'clean-t8a-{len(clean)+1:04d}', 'text': text, 'note': GRP[p[0]] + (': ' + p[2] if len(p) > 2 else '')})
cnt = {}
for r in pii: cnt[r['category']] = cnt.get(r['category'], 0) + 1
for c in CAT.values():
    if cnt.get(c, 0) < MIN.get(c, 10): errs.append(f'min count {c}: {cnt.get(c,0)}')
if len(pii) < 185: errs.append(f'pii total {len(pii)} < 185')
if len(clean) < 340: errs.append(f'clean total {len(clean)} < 340')
gc = {}
for r in clean: g = r['note'].split(':')[0]; gc[g] = gc.get(g, 0) + 1
for fn, data in (('test.jsonl', pii), ('clean_test.jsonl', clean)):
    with open(os.path.join(D, fn), 'w', encoding='utf-8') as f:
        for r in data: f.write(json.dumps(r, ensure_ascii=False) + '\n')
for fn in ('test.jsonl', 'clean_test.jsonl'):
    for l in open(os.path.join(D, fn), encoding='utf-8'):
        r = json.loads(l)
        if unicodedata.normalize('NFC', l) != l: errs.append(f'{fn} not NFC {r["id"]}')
print('pii', len(pii), cnt); print('clean', len(clean), gc)
for e in errs: print('ERROR', e)
print('VALID, 0 errors' if not errs else f'INVALID, {len(errs)} errors')
sys.exit(1 if errs else 0)
