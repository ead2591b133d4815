// The one reading of NO_PROXY / --noproxy lists, shared by sling's requests and a curl command's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { noProxyMatches } from '../../src/model/no-proxy.js';

test('no-proxy lists: names, suffixes, wildcards, ports and IPv6 addresses', () => {
  const cases: [string, number, string, boolean][] = [
    ['example.com', 80, 'example.com', true],
    ['api.example.com', 80, 'example.com', true],
    ['notexample.com', 80, 'example.com', false],
    ['api.example.com', 80, '.example.com', true],
    ['example.com', 80, '.example.com', true],
    ['api.example.com', 80, '*.example.com', true],
    ['anything', 443, '*', true],
    ['EXAMPLE.com', 80, 'example.COM', true],
    ['a.test', 8080, 'a.test:8080', true],
    ['a.test', 8081, 'a.test:8080', false],
    ['b.test', 80, 'a.test, b.test', true],
    ['b.test', 80, 'a.test b.test', true],
    ['[::1]', 80, '::1', true],
    ['::1', 80, '[::1]', true],
    ['[::1]', 8080, '[::1]:8080', true],
    ['[::1]', 8081, '[::1]:8080', false],
    ['127.0.0.1', 80, '127.0.0.1', true],
    ['127.0.0.10', 80, '127.0.0.1', false],
    ['x.test', 80, '', false],
    ['x.test', 80, ' , ,', false],
  ];
  for (const [host, port, list, want] of cases) assert.equal(noProxyMatches(host, port, list), want, `${host}:${port} against '${list}'`);
  assert.equal(noProxyMatches('x.test', 80, undefined), false);
});

test('property: any list and host give an answer, and `*` matches every host', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.integer({ min: 0, max: 65535 }), (host, list, port) => {
      assert.equal(typeof noProxyMatches(host, port, list), 'boolean');
      assert.equal(noProxyMatches(host, port, `${list},*`), true);
    }),
  );
});
