#!/usr/bin/env python3
"""Build test.jsonl from src/*.txt (stdlib only). Line: P|stage|reg|techs|appr|dev|crisis|client_prev|counselor|note"""
import json, re, sys, unicodedata, glob, os, collections
H = os.path.dirname(os.path.abspath(__file__))
T0 = {'ar':'approval_reassurance','cq':'closed_question','oq':'open_question','rs':'restatement','rf':'reflection_feelings',
     'ch':'challenge','in':'interpretation','sd':'self_disclosure','im':'immediacy','if':'information','dg':'direct_guidance',
     'va':'validation','ot':'other'}
T = dict(T0); T.update({v: v for v in T0.values()})
S = {'r':'rapport','e':'exploration','i':'intervention','c':'closing'}
R = {'f':'formal','h':'haeyo','b':'banmal'}
A = {'p':'pos','w':'warn','n':'neutral'}
D = {'sf':'stage_fit','fo':'focus','pa':'pacing','th':'theory_fit','sa':'safety'}
def norm(s):
    s = unicodedata.normalize('NFC', s).lower(); s = re.sub(r'\s+', ' ', s).strip()
    return re.sub(r'[.?!…~]+$', '', s).strip()
errs = []; out = []; seen = {}
for f in sorted(glob.glob(os.path.join(H, 'src', '*.txt'))):
    for n, line in enumerate(open(f, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'): continue
        p = line.split('|')
        where = f'{os.path.basename(f)}:{n}'
        if len(p) != 10: errs.append(f'{where}: {len(p)} fields'); continue
        per, st, rg, te, ap, dv, cr, cp, co, no = [x.strip() for x in p]
        try:
            techs = [T[x] for x in te.split(',') if x]
            devs = [D[x] for x in dv.split(',') if x]
            rec = {'persona': 'P' + per, 'stage': S[st], 'register': R[rg], 'client_prev': cp, 'counselor': co,
                   'techniques': techs, 'appropriateness': A[ap], 'deviation': devs, 'crisis_context': cr == '1', 'note': no}
        except KeyError as e:
            errs.append(f'{where}: bad code {e}'); continue
        if rec['persona'] not in {f'P{i}' for i in range(1, 8)}: errs.append(f'{where}: persona')
        if cr not in '01': errs.append(f'{where}: crisis flag')
        if not techs or len(set(techs)) != len(techs): errs.append(f'{where}: techniques')
        if (ap == 'w') != bool(devs): errs.append(f'{where}: deviation must be non-empty iff warn')
        if not cp or not co: errs.append(f'{where}: empty text')
        k = norm(co)
        if k in seen: errs.append(f'{where}: duplicate counselor of {seen[k]}')
        seen[k] = where
        out.append(rec)
for i, r in enumerate(out, 1):
    r2 = {'id': f'ev-t8a-{i:04d}'}; r2.update(r); out[i-1] = r2
    for k in ('client_prev', 'counselor', 'note'):
        r2[k] = unicodedata.normalize('NFC', r2[k])
c = collections.Counter
per = c(r['persona'] for r in out); stg = c(r['stage'] for r in out); ap = c(r['appropriateness'] for r in out)
cr = [r for r in out if r['crisis_context']]
crp = sum(r['appropriateness'] == 'pos' for r in cr); crw = sum(r['appropriateness'] == 'warn' and 'safety' in r['deviation'] for r in cr)
tech = c(t for r in out for t in r['techniques'])
if len(out) < 385: errs.append(f'total {len(out)} < 385')
for p_ in (f'P{i}' for i in range(1, 8)):
    if per[p_] < 50: errs.append(f'{p_} has {per[p_]} < 50')
for s_ in S.values():
    if not stg[s_]: errs.append(f'stage {s_} missing')
if len(cr) < 85: errs.append(f'crisis {len(cr)} < 85')
if crp < 60: errs.append(f'crisis pos {crp} < 60')
if crw < 25: errs.append(f'crisis warn+safety {crw} < 25')
for t_ in T0.values():
    if not tech[t_]: errs.append(f'technique {t_} missing')
# pairs: same client line, one pos and one warn
by = collections.defaultdict(set)
for r in out: by[norm(r['client_prev'])].add(r['appropriateness'])
pairs = sum(1 for v in by.values() if {'pos', 'warn'} <= v)
with open(os.path.join(H, 'test.jsonl'), 'w', encoding='utf-8') as fh:
    for r in out: fh.write(json.dumps(r, ensure_ascii=False) + '\n')
for line in open(os.path.join(H, 'test.jsonl'), encoding='utf-8'): json.loads(line)
print('items', len(out)); print('persona', dict(sorted(per.items()))); print('stage', dict(stg)); print('appr', dict(ap),
      f"pos%={100*ap['pos']/max(1,len(out)):.1f}")
print('register', dict(c(r['register'] for r in out)))
print('crisis', len(cr), 'pos', crp, 'warn+safety', crw); print('pairs(client lines with pos+warn)', pairs)
print('techniques', dict(tech)); print('deviation', dict(c(d for r in out for d in r['deviation'])))
print('errors', len(errs)); [print(' ', e) for e in errs[:40]]
print('VALID' if not errs else 'INVALID'); sys.exit(1 if errs else 0)
