// Every JetBrains Faker name sling knows (faker-names.ts) makes a value with @faker-js/faker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAKER_NAMES, fakerCall } from '../../src/sources/http/faker-names.js';
import { fakerValue } from '../../src/sources/http/faker.js';
import { checkDynamic } from '../../src/sources/http/dynamic.js';

test('faker: every name sling knows gives a non-empty text value', () => {
  let n = 0;
  for (const [category, methods] of Object.entries(FAKER_NAMES)) {
    for (const method of Object.keys(methods)) {
      const name = `random.${category}.${method}`;
      const v = fakerValue(name);
      assert.equal(typeof v, 'string', name);
      assert.ok(v!.length > 0 && !/undefined|\[object /.test(v!), `${name}: ${v}`);
      assert.equal(checkDynamic(name, []), null, name);
      n++;
    }
  }
  assert.ok(n > 80, `${n} names`);
});

test('faker: unknown categories and methods, and arguments, are refused by name', () => {
  assert.match(checkDynamic('random.address.town', [])!, /the Faker category 'address' has no 'town'/);
  assert.match(checkDynamic('random.nope.city', [])!, /no Faker category 'nope'/);
  assert.match(checkDynamic('random.address.city', ['1'])!, /takes no arguments/);
  assert.ok('problem' in fakerCall('random.address.toString'), 'own names only');
  assert.ok('problem' in fakerCall('random.constructor.name'));
  assert.equal(fakerValue('random.address.hasOwnProperty'), undefined);
});
