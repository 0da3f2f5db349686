#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Convert the JSON vector files next to this script into the one-record-per-line
format that the C tests read (tests/lib/testutil.h: '#' comments, fields
separated by spaces, '-' for an empty field).

Run once after replacing a JSON file:  python3 convert.py
The JSON files are kept unchanged beside the output so the conversion can be
checked and repeated.
"""
import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def h(s):
    return s if s else '-'


def header(out, src, what, fields):
    with open(os.path.join(HERE, src), 'rb') as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    out.write('# %s\n' % what)
    out.write('# Converted by convert.py from %s (sha256 %s).\n' % (src, digest))
    out.write('# Fields: %s\n' % fields)


def wycheproof_aead(src, dst, name):
    with open(os.path.join(HERE, src)) as f:
        d = json.load(f)
    with open(os.path.join(HERE, dst), 'w') as out:
        header(out, src,
               '%s test vectors from Project Wycheproof (C2SP/wycheproof, '
               'testvectors_v1), Apache License 2.0.' % name,
               'tcId result key iv aad msg ct tag  (result: valid|invalid)')
        for g in d['testGroups']:
            out.write('# group: ivSize %d keySize %d tagSize %d\n'
                      % (g['ivSize'], g['keySize'], g['tagSize']))
            for t in g['tests']:
                out.write(' '.join([str(t['tcId']), t['result'], h(t['key']), h(t['iv']),
                                    h(t['aad']), h(t['msg']), h(t['ct']), h(t['tag'])]) + '\n')


def wycheproof_x25519(src, dst):
    with open(os.path.join(HERE, src)) as f:
        d = json.load(f)
    with open(os.path.join(HERE, dst), 'w') as out:
        header(out, src,
               'X25519 test vectors from Project Wycheproof (C2SP/wycheproof, '
               'testvectors_v1), Apache License 2.0.',
               'tcId result private public shared  (result: valid|acceptable|invalid)')
        for g in d['testGroups']:
            assert g['curve'] == 'curve25519'
            for t in g['tests']:
                out.write(' '.join([str(t['tcId']), t['result'], t['private'],
                                    t['public'], t['shared']]) + '\n')


def blake2s_kat(src, dst):
    with open(os.path.join(HERE, src)) as f:
        d = json.load(f)
    with open(os.path.join(HERE, dst), 'w') as out:
        header(out, src,
               'BLAKE2s (RFC 7693) known answers: ' + d['source'] + '.',
               'in key out  (the output length is the length of out)')
        for t in d['tests']:
            out.write(' '.join([h(t['in']), h(t['key']), t['out']]) + '\n')


def main():
    wycheproof_aead('wycheproof_chacha20_poly1305_test.json', 'chacha20_poly1305.txt',
                    'ChaCha20-Poly1305')
    wycheproof_aead('wycheproof_xchacha20_poly1305_test.json', 'xchacha20_poly1305.txt',
                    'XChaCha20-Poly1305')
    wycheproof_x25519('wycheproof_x25519_test.json', 'x25519.txt')
    blake2s_kat('blake2s_kat.json', 'blake2s_kat.txt')


if __name__ == '__main__':
    main()
