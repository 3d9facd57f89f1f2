#!/usr/bin/env python3
"""Seeds fuzz/corpus/ from tests/vectors/: each claims object, prefixed for
claims_agree by the byte that picks its type (the order of claims_agree.rs)."""
import glob, json, os

OBJECTS = ['offer', 'mandate', 'sd_jwt_mandate', 'receipt', 'booking', 'booking_response',
           'hold', 'proposal', 'meeting_contract', 'acceptance', 'rule', 'attestation']
here = os.path.dirname(os.path.abspath(__file__))
for d in ('claims_agree', 'consent_offer', 'parsers'):
    os.makedirs(os.path.join(here, 'corpus', d), exist_ok=True)
n = 0
for i, name in enumerate(OBJECTS):
    for path in sorted(glob.glob(os.path.join(here, '..', 'tests', 'vectors', name, '*', '*.json'))):
        claims = json.load(open(path)).get('claims')
        if claims is None:
            continue
        text = json.dumps(claims, separators=(',', ':')).encode()
        open(os.path.join(here, 'corpus', 'claims_agree', f'{name}-{n}'), 'wb').write(bytes([i]) + text)
        if name == 'offer':
            open(os.path.join(here, 'corpus', 'consent_offer', f'{n}'), 'wb').write(text)
        n += 1
for i, s in enumerate(['PT1H30M', 'P365D', '2026-10-15T13:00:00-04:00', '89.27 CAD', '12.5',
                       'eyJhbGciOiJFZERTQSJ9.e30.AA', 'WyJzYWx0IiwibmFtZSIsInZhbHVlIl0']):
    open(os.path.join(here, 'corpus', 'parsers', f'seed-{i}'), 'w').write(s)
print(f'{n} claims seeds')
