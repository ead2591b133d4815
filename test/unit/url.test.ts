import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkUrl, encodePairs, expandUrl, formatUrl, parseUrl, removeDotSegments, requestTarget } from '../../src/model/url.js';

const EXPAND: [string, string, string][] = [
  ['example.org', 'http', 'http://example.org'],
  ['example.org', 'https', 'https://example.org'],
  [':3000/path', 'http', 'http://localhost:3000/path'],
  [':/path', 'http', 'http://localhost/path'],
  [':3000', 'http', 'http://localhost:3000'],
  ['://example.org/x', 'http', 'http://example.org/x'],
  ['https://a.b', 'http', 'https://a.b'],
  ['localhost:8080/x', 'http', 'http://localhost:8080/x'],
];
for (const [input, scheme, want] of EXPAND) {
  test(`expand ${input} (${scheme})`, () => assert.equal(expandUrl(input, scheme), want));
}

// URL → [Host header, request target]
const TARGETS: [string, string, string][] = [
  ['example.org', 'example.org', '/'],
  ['http://example.org:80/a', 'example.org', '/a'],
  ['https://example.org:443/a', 'example.org', '/a'],
  ['http://example.org:8080', 'example.org:8080', '/'],
  ['http://EXAMPLE.org/A', 'example.org', '/A'],
  ['example.org/a/./b/../c', 'example.org', '/a/c'],
  ['example.org/%41%7e', 'example.org', '/A~'],
  ['example.org/%zz%41', 'example.org', '/%25zz%2541'],
  ['example.org/a b/ü{}|^`"', 'example.org', '/a%20b/%C3%BC%7B%7D%7C%5E%60%22'],
  ['example.org/x?q=a b&r=%41', 'example.org', '/x?q=a%20b&r=A'],
  ['example.org/x#frag', 'example.org', '/x'],
  ['http://[::1]:8080/x', '[::1]:8080', '/x'],
  ['http://bücher.example/', 'xn--bcher-kva.example', '/'],
];
for (const [input, host, target] of TARGETS) {
  test(`target of ${input}`, () => {
    const u = parseUrl(input);
    assert.deepEqual([u.hostHeader, requestTarget(u)], [host, target]);
  });
}

test("[ and ] stand raw in .http URLs (encodeurl, Node's URL), and are encoded for the main command (urllib3)", () => {
  assert.equal(requestTarget(parseUrl('example.org/p[0]?a[]=1&b=[1]', 'http', false, true)), '/p[0]?a[]=1&b=[1]');
  assert.equal(requestTarget(parseUrl('example.org/p[0]?a[]=1&b=[1]')), '/p%5B0%5D?a%5B%5D=1&b=%5B1%5D');
  // Everything else .http files encode is unchanged.
  assert.equal(requestTarget(parseUrl('example.org/a b/{x}|?q="1"', 'http', false, true)), '/a%20b/%7Bx%7D%7C?q=%221%22');
});

test('--path-as-is keeps dot segments', () => {
  assert.equal(requestTarget(parseUrl('example.org/./a/../b', 'http', true)), '/./a/../b');
});

test('credentials in the URL', () => {
  const u = parseUrl('http://user:p%40ss@example.org/');
  assert.equal(u.username, 'user');
  assert.equal(u.hostHeader, 'example.org');
});

test('bad URLs are usage errors naming the URL', () => {
  assert.throws(() => parseUrl('http://'), /invalid URL 'http:\/\/': no host name/);
  assert.throws(() => parseUrl('ftp://example.org'), /unsupported scheme 'ftp'/);
  assert.throws(() => parseUrl('example.org:99999'), /'99999' is not a valid port/);
  assert.throws(() => parseUrl('exa mple.org'), /not a valid host name/);
});

test('query items: quote_plus and grouping of repeated names', () => {
  assert.equal(
    encodePairs([
      ['q', 'a b'],
      ['c', '1'],
      ['q', '2'],
    ]),
    'q=a+b&q=2&c=1',
  );
  assert.equal(encodePairs([['k', 'ü&=/']]), 'k=%C3%BC%26%3D%2F');
  assert.equal(requestTarget(parseUrl('example.org/p?x=1'), encodePairs([['y', '2']])), '/p?x=1&y=2');
});

test('remove_dot_segments (RFC 3986 examples)', () => {
  assert.equal(removeDotSegments('/a/b/c/./../../g'), '/a/g');
  assert.equal(removeDotSegments('/./../../etc/password'), '/etc/password');
  assert.equal(removeDotSegments('/a/..'), '/');
});

test('parseUrl: a second URL of a known origin is parsed like the first (origins are remembered)', () => {
  const urls = [
    'http://User:Pw@Example.COM:8080/a/./b/../c?x=1 2#frag',
    'http://User:Pw@Example.COM:8080/other?q=%41%zz',
    'http://User:Pw@Example.COM:8080#only-fragment',
    'http://User:Pw@Example.COM:8080?only=query',
    'https://[::1]:8443/p',
    'https://[::1]:8443/p/ü',
    'http://bücher.example/x',
    'http://bücher.example/y',
  ];
  // Each URL once in a fresh order (first sight), then again (remembered origin): same result.
  const first = urls.map((u) => parseUrl(u));
  const again = urls.map((u) => parseUrl(u));
  assert.deepEqual(again, first);
  assert.equal(first[0]!.hostname, 'example.com');
  assert.equal(first[0]!.path, '/a/c');
  assert.equal(first[1]!.path, '/other');
  assert.equal(first[1]!.query, 'q=%2541%25zz'); // one bare % → every % encoded (urllib3)
  assert.equal(first[2]!.path, '/');
  assert.equal(first[3]!.query, 'only=query');
  assert.equal(first[5]!.path, '/p/%C3%BC');
  assert.equal(first[7]!.hostname, 'xn--bcher-kva.example');
  assert.equal(first[0]!.username, 'User');
  // Origins that share a prefix stay apart.
  assert.equal(parseUrl('http://h:80/x').hostHeader, 'h');
  assert.equal(parseUrl('http://h:8080/x').hostHeader, 'h:8080');
  assert.equal(parseUrl('http://h/x').hostname, 'h');
  assert.equal(parseUrl('http://h.evil/x').hostname, 'h.evil');
  assert.equal(parseUrl('http://h:8080/y').port, 8080);
  // An invalid port is never remembered: it fails every time.
  assert.throws(() => parseUrl('http://h:99999/a'), /not a valid port/);
  assert.throws(() => parseUrl('http://h:99999/b'), /not a valid port/);
});

test('checkUrl: throws what parseUrl throws, and nothing for a URL parseUrl takes (also once its origin is known)', () => {
  for (const bad of ['http://127.0.0.1:99999/x', 'ftp://example.org/', 'http:///x', 'http://[::1/x', 'http://exa mple.org/']) {
    let parseMessage = '';
    try {
      parseUrl(bad, 'http', false, true);
    } catch (e) {
      parseMessage = (e as Error).message;
    }
    assert.match(parseMessage, /^invalid URL /, bad);
    assert.throws(
      () => checkUrl(bad),
      (e: Error) => e.message === parseMessage,
      bad,
    );
  }
  // A good URL, the first time (full parse) and again (its origin known: only the path is new).
  for (const good of ['http://check-url.example:8080/a b?c=d#e', 'http://check-url.example:8080/../x%zz?%', 'https://check-url.example/']) {
    assert.doesNotThrow(() => checkUrl(good));
    assert.doesNotThrow(() => checkUrl(good));
    assert.doesNotThrow(() => parseUrl(good, 'http', false, true));
  }
});

test('an escaped dot segment (%2e%2e, .%2E, %2e) is a dot segment once decoded, so a URL printed and read again is the same URL (fuzz)', () => {
  for (const [input, path] of [
    ['http://h/a/%2e%2e/b', '/b'],
    ['http://h/a/.%2E/b', '/b'],
    ['http://h/%2e/x', '/x'],
    ['http://h/a/%2e%2e%2fb', '/a/..%2Fb'],
    ['http://h/a/%2e%2e', '/'],
  ] as const) {
    const u = parseUrl(input);
    assert.equal(u.path, path, input);
    assert.equal(formatUrl(parseUrl(formatUrl(u))), formatUrl(u), input);
  }
});
