#!/usr/bin/env python3
"""Build and validate test.jsonl (drift round 2) from items_src.txt. Stdlib only.
Source lines: '@P1' sets persona; 'CODE text [|| note]', CODE = register letter
(S=hapsyo, H=haeyo, B=banmal, N=none) + meta digit (1/0).
Usage: python3 build_validate.py            # build + validate
       python3 build_validate.py --check    # validate existing test.jsonl only
       add --lint to list items whose surface ending disagrees with a naive ending rule (for review)."""
import json, re, sys, unicodedata, os
from collections import Counter
HERE = os.path.dirname(os.path.abspath(__file__))
SRC, OUT = os.path.join(HERE, 'items_src.txt'), os.path.join(HERE, 'test.jsonl')
REG = {'S': 'hapsyo', 'H': 'haeyo', 'B': 'banmal', 'N': 'none'}
PERSONAS = {f'P{i}' for i in range(1, 8)}
FIELDS = ['id', 'persona', 'text', 'register', 'meta', 'note']

def norm(t):
    t = unicodedata.normalize('NFC', t).lower()
    t = re.sub(r'\s+', ' ', t).strip()
    return re.sub(r'[.?!…~]+$', '', t).strip()

def build():
    items, persona = [], None
    for ln, line in enumerate(open(SRC, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'):
            continue
        if line.startswith('@'):
            persona = line[1:].strip(); continue
        m = re.match(r'^([SHBN])([01]) (.+)$', line)
        if not m:
            sys.exit(f'bad source line {ln}: {line!r}')
        body, _, note = m.group(3).partition(' || ')
        reg, meta = REG[m.group(1)], m.group(2) == '1'
        note = note.strip() or ('meta disclosure' if meta else 'in-character') + f'; final predicate = {reg}'
        items.append({'persona': persona, 'text': body.strip(), 'register': reg, 'meta': meta, 'note': note})
    with open(OUT, 'w', encoding='utf-8') as f:
        for i, it in enumerate(items, 1):
            f.write(json.dumps({'id': f'dr-t2-{i:04d}', **it}, ensure_ascii=False) + '\n')

def validate():
    errs, seen_id, seen_txt, rows = [], set(), {}, []
    for ln, line in enumerate(open(OUT, encoding='utf-8'), 1):
        try:
            o = json.loads(line)
        except Exception as e:
            errs.append(f'line {ln}: invalid JSON {e}'); continue
        if sorted(o) != sorted(FIELDS): errs.append(f'line {ln}: fields {sorted(o)}')
        if not re.fullmatch(r'dr-t2-\d{4}', str(o.get('id'))): errs.append(f'line {ln}: bad id')
        if o.get('id') in seen_id: errs.append(f'line {ln}: dup id {o.get("id")}')
        seen_id.add(o.get('id'))
        if o.get('persona') not in PERSONAS: errs.append(f'line {ln}: persona')
        if o.get('register') not in REG.values(): errs.append(f'line {ln}: register')
        if not isinstance(o.get('meta'), bool): errs.append(f'line {ln}: meta not bool')
        for k in ('text', 'note'):
            if not isinstance(o.get(k), str) or not o[k].strip(): errs.append(f'line {ln}: empty {k}')
        n = norm(o.get('text', ''))
        if n in seen_txt: errs.append(f'line {ln}: dup normalised text with {seen_txt[n]}')
        seen_txt[n] = o.get('id')
        rows.append(o)
    return errs, rows

SUFFIX = [('hapsyo', r'(니다|니까|십시오|옵니다|소)$'), ('haeyo', r'(요|여|용|욤|죠|쵸|세요)$'),
          ('banmal', r'(다|어|아|야|지|냐|니|거든|잖아|걸|데|네|래|대|라고|고|서|까|가|해|돼|나|마|봐|와|자|더라|니까|물어|워|줘|남)$')]
def lint(rows):
    for o in rows:
        t = re.sub(r'[\s.?!…~ㅋㅎㅠㅜㅡ^"\'’]+$', '', o['text'])
        guess = 'none'
        if re.search(r'[A-Za-z]$', t): guess = 'none'
        else:
            for r, pat in SUFFIX:
                if re.search(pat, t): guess = r; break
        if guess != o['register']:
            print('LINT', o['id'], o['register'], 'naive=' + guess, o['text'])

if __name__ == '__main__':
    if '--check' not in sys.argv: build()
    errs, rows = validate()
    c = Counter
    print(f'items: {len(rows)}')
    print('persona:', dict(sorted(c(o["persona"] for o in rows).items())))
    print('register:', dict(c(o['register'] for o in rows).most_common()))
    mt = c(o['meta'] for o in rows); print(f'meta true: {mt[True]} ({100*mt[True]/max(1,len(rows)):.1f}%), false: {mt[False]}')
    print('persona x meta_true:', dict(sorted(c(o['persona'] for o in rows if o['meta']).items())))
    print('register x meta_true:', dict(c(o['register'] for o in rows if o['meta']).most_common()))
    if '--lint' in sys.argv: lint(rows)
    print('errors:', len(errs)); [print(' ', e) for e in errs[:20]]
    sys.exit(1 if errs else 0)
