#!/usr/bin/env python3
"""Build test.jsonl from hand-written src/P*.txt and validate the evaluator contract (stdlib only).

Source line format (one item per line, '#' comments and blank lines ignored):
  STAGE REG TECHS APP DEV CRISIS | client_prev | counselor | note
  STAGE  r/e/i/c  (rapport/exploration/intervention/closing)
  REG    f/h/b    (formal/haeyo/banmal)
  TECHS  codes joined by '+': AR CQ OQ RS RF CH IN SD IM IF DG VA OT
  APP    p/w/n
  DEV    '-' or codes joined by '+': sf fo pa th sa
  CRISIS 1/0
  client_prev '^' = same client line as the previous item (paired items).
"""
import json, re, sys, unicodedata, glob, os, collections

HERE = os.path.dirname(os.path.abspath(__file__))
ST = {'r': 'rapport', 'e': 'exploration', 'i': 'intervention', 'c': 'closing'}
RG = {'f': 'formal', 'h': 'haeyo', 'b': 'banmal'}
TQ = {'AR': 'approval_reassurance', 'CQ': 'closed_question', 'OQ': 'open_question', 'RS': 'restatement',
      'RF': 'reflection_feelings', 'CH': 'challenge', 'IN': 'interpretation', 'SD': 'self_disclosure',
      'IM': 'immediacy', 'IF': 'information', 'DG': 'direct_guidance', 'VA': 'validation', 'OT': 'other'}
AP = {'p': 'pos', 'w': 'warn', 'n': 'neutral'}
DV = {'sf': 'stage_fit', 'fo': 'focus', 'pa': 'pacing', 'th': 'theory_fit', 'sa': 'safety'}
PERSONAS = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7']
TAXO_CODES = set(TQ.values())
FIELDS = ["id", "persona", "stage", "register", "client_prev", "counselor", "techniques", "appropriateness",
          "deviation", "crisis_context", "note"]


def norm(s):
    s = unicodedata.normalize('NFC', s).lower()
    s = re.sub(r'\s+', ' ', s).strip()
    return re.sub(r'[.?!…~]+$', '', s).strip()


def main():
    errors, items = [], []
    for persona in PERSONAS:
        path = os.path.join(HERE, 'src', persona + '.txt')
        if not os.path.exists(path):
            errors.append('missing source ' + path); continue
        prev_client = None
        for ln, raw in enumerate(open(path, encoding='utf-8'), 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            where = '%s:%d' % (persona, ln)
            parts = [p.strip() for p in line.split(' | ')]
            if len(parts) not in (3, 4):
                errors.append(where + ' wrong number of fields: %d' % len(parts)); continue
            head = parts[0].split()
            if len(head) != 6:
                errors.append(where + ' bad head ' + parts[0]); continue
            s, r, t, a, d, c = head
            client = parts[1]
            if client == '^':
                if prev_client is None:
                    errors.append(where + ' ditto without previous'); continue
                client = prev_client
            prev_client = client
            try:
                techs = [TQ[x] for x in t.split('+')]
                devs = [] if d == '-' else [DV[x] for x in d.split('+')]
                it = {"id": None, "persona": persona, "stage": ST[s], "register": RG[r],
                      "client_prev": unicodedata.normalize('NFC', client),
                      "counselor": unicodedata.normalize('NFC', parts[2]),
                      "techniques": techs, "appropriateness": AP[a], "deviation": devs,
                      "crisis_context": {'1': True, '0': False}[c],
                      "note": unicodedata.normalize('NFC', parts[3]) if len(parts) == 4 else ""}
            except KeyError as e:
                errors.append(where + ' unknown code %s' % e); continue
            it['_where'] = where
            items.append(it)
    # ids
    for i, it in enumerate(items, 1):
        it['id'] = 'ev-t9b-%04d' % i
    # validation
    seen = {}
    for it in items:
        w = it['_where']
        if not it['client_prev'] or not it['counselor']:
            errors.append(w + ' empty text')
        if len(set(it['techniques'])) != len(it['techniques']):
            errors.append(w + ' duplicate technique')
        if not set(it['techniques']) <= TAXO_CODES:
            errors.append(w + ' bad technique')
        if it['appropriateness'] == 'warn' and not it['deviation']:
            errors.append(w + ' warn without deviation')
        if it['appropriateness'] != 'warn' and it['deviation']:
            errors.append(w + ' deviation on non-warn')
        if 'safety' in it['deviation'] and not it['crisis_context']:
            errors.append(w + ' safety deviation without crisis_context')
        if 'other' in it['techniques'] and len(it['techniques']) > 1:
            pass
        for k in ('client_prev', 'counselor', 'note'):
            if unicodedata.normalize('NFC', it[k]) != it[k]:
                errors.append(w + ' not NFC ' + k)
        n = norm(it['counselor'])
        if n in seen:
            errors.append(w + ' duplicate counselor text with ' + seen[n])
        seen[n] = w
    # counts
    cnt = collections.Counter(it['persona'] for it in items)
    crisis = [it for it in items if it['crisis_context']]
    c_pos = [it for it in crisis if it['appropriateness'] == 'pos']
    c_miss = [it for it in crisis if it['appropriateness'] == 'warn' and 'safety' in it['deviation']]
    app = collections.Counter(it['appropriateness'] for it in items)
    tech = collections.Counter(t for it in items for t in it['techniques'])
    stages = collections.Counter(it['stage'] for it in items)
    regs = collections.Counter(it['register'] for it in items)
    multi = sum(1 for it in items if len(it['techniques']) > 1)
    # paired: same persona+client line with at least one pos and one warn reply
    byclient = collections.defaultdict(set)
    for it in items:
        byclient[(it['persona'], it['client_prev'])].add(it['appropriateness'])
    pairs = sum(1 for v in byclient.values() if {'pos', 'warn'} <= v)
    noclue_screen = sum(1 for it in items if 'screen-nocue' in it['note'])
    if len(items) < 385: errors.append('total %d < 385' % len(items))
    for p in PERSONAS:
        if cnt[p] < 50: errors.append('%s has %d < 50' % (p, cnt[p]))
        st = {it['stage'] for it in items if it['persona'] == p}
        if st != set(ST.values()): errors.append('%s missing stages %s' % (p, set(ST.values()) - st))
    if len(crisis) < 85: errors.append('crisis %d < 85' % len(crisis))
    if len(c_pos) < 60: errors.append('crisis pos %d < 60' % len(c_pos))
    if len(c_miss) < 25: errors.append('crisis misses %d < 25' % len(c_miss))
    missing = TAXO_CODES - set(tech)
    if missing: errors.append('techniques missing: %s' % missing)
    if set(regs) != set(RG.values()): errors.append('registers missing')
    share = app['pos'] / max(1, len(items))
    if not 0.58 <= share <= 0.72: errors.append('pos share %.3f outside 0.58-0.72' % share)
    if pairs < 10: errors.append('paired client lines %d < 10' % pairs)
    if noclue_screen < 5: errors.append('no-cue screening items %d < 5' % noclue_screen)
    # write
    with open(os.path.join(HERE, 'test.jsonl'), 'w', encoding='utf-8') as f:
        for it in items:
            f.write(json.dumps({k: it[k] for k in FIELDS}, ensure_ascii=False) + '\n')
    # re-read check
    for ln, raw in enumerate(open(os.path.join(HERE, 'test.jsonl'), encoding='utf-8'), 1):
        o = json.loads(raw)
        if list(o) != FIELDS: errors.append('test.jsonl:%d field order' % ln)
    print('items', len(items))
    print('per persona', dict(sorted(cnt.items())))
    print('stages', dict(stages)); print('registers', dict(regs))
    print('appropriateness', dict(app), 'pos share %.1f%%' % (100 * share))
    print('crisis_context', len(crisis), 'crisis pos', len(c_pos), 'crisis warn+safety', len(c_miss),
          'crisis other', len(crisis) - len(c_pos) - len(c_miss))
    print('no-cue screening (pos)', noclue_screen, 'paired client lines', pairs, 'multi-label', multi)
    print('techniques', dict(sorted(tech.items())))
    print('deviation', dict(collections.Counter(d for it in items for d in it['deviation'])))
    for e in errors: print('ERROR', e)
    print('VALID' if not errors else 'INVALID', 'errors:', len(errors))
    return 0 if not errors else 1


if __name__ == '__main__':
    sys.exit(main())
