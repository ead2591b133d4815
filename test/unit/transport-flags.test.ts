import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import fc from 'fast-check';
import { isAddress } from '../../src/model/resolve.js';

// --resolve's address check runs on the start-up path, so it does not load node:net: it must
// agree with node:net's isIP (zone ids such as fe80::1%eth0 aside, which --resolve does not take).
const agrees = (text: string) => assert.equal(isAddress(text), isIP(text) !== 0, text);

test('isAddress agrees with node:net isIP on addresses and near misses', () => {
  for (const t of [
    '127.0.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '256.1.1.1',
    '1.2.3',
    '01.2.3.4',
    '1.2.3.4.',
    '::1',
    '::',
    '2001:db8::8a2e:370:7334',
    '::ffff:192.0.2.1',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:9',
    ':::1',
    '1::2::3',
    'fffff::1',
    '[::1]',
    'localhost',
    '',
    'example.org',
    '1.2.3.4:80',
  ])
    agrees(t);
});

test('property: isAddress agrees with node:net isIP on generated addresses and strings', () => {
  const hexChars = fc.constantFrom(...'0123456789abcdefABCDEF:.'.split(''));
  fc.assert(
    fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.string({ unit: hexChars, maxLength: 45 }), fc.string({ maxLength: 20 })), (t) => {
      fc.pre(!t.includes('%'));
      agrees(t);
    }),
    { numRuns: 3000, seed: 29 },
  );
});
