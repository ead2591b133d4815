import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CookieJar } from '../../src/model/cookies.js';
import { parseUrl } from '../../src/model/url.js';
import { parseNetrc } from '../../src/request/netrc.js';
import { digestAuthorization, parseDigestChallenge } from '../../src/transport/digest.js';

const u = (s: string) => parseUrl(s);

test('host-only cookies go back only to their host', () => {
  const jar = new CookieJar();
  jar.setCookie('sid=1; Path=/', u('http://127.0.0.1:8000/login'));
  assert.equal(jar.cookieHeader(u('http://127.0.0.1:8000/x')), 'sid=1');
  assert.equal(jar.cookieHeader(u('http://localhost:8000/x')), undefined);
  assert.equal(jar.cookieHeader(u('http://127.0.0.2:8000/x')), undefined);
});

test('Domain cookies match subdomains; a server cannot set cookies for other domains', () => {
  const jar = new CookieJar();
  jar.setCookie('a=1; Domain=example.org', u('http://api.example.org/'));
  assert.equal(jar.cookieHeader(u('http://www.example.org/')), 'a=1');
  assert.equal(jar.cookieHeader(u('http://example.org/')), 'a=1');
  assert.equal(jar.cookieHeader(u('http://badexample.org/')), undefined);
  assert.equal(jar.setCookie('b=2; Domain=other.org', u('http://api.example.org/')), null);
  assert.equal(jar.setCookie('c=3; Domain=127.0.0.1', u('http://localhost/')), null);
});

test('a cookie with a control character in its name or value is dropped, a tab is kept (fuzz: a CR went back in the Cookie header)', () => {
  const jar = new CookieJar();
  for (const header of ['a=b\rX-Injected: 1', 'a\0=b', 'a=\x1b[31mred', 'a=b\x7fc', 'a=x\ny']) assert.equal(jar.setCookie(header, u('http://h/')), null, JSON.stringify(header));
  assert.equal(jar.cookieHeader(u('http://h/')), undefined);
  assert.equal(jar.setCookie('a=b\tc; Path=/', u('http://h/'))?.value, 'b\tc');
});

test('paths, expiry, Max-Age over Expires, deletion, Secure', () => {
  const jar = new CookieJar();
  const now = Date.parse('2026-01-01T00:00:00Z');
  jar.setCookie('p=1; Path=/api', u('http://h/api/x'), now);
  jar.setCookie('root=1', u('http://h/'), now);
  assert.equal(jar.cookieHeader(u('http://h/api/v1'), now), 'p=1; root=1');
  assert.equal(jar.cookieHeader(u('http://h/apix'), now), 'root=1');
  jar.setCookie('t=1; Max-Age=10; Expires=Wed, 01 Jan 2020 00:00:00 GMT', u('http://h/'), now);
  assert.match(jar.cookieHeader(u('http://h/'), now + 5_000)!, /\bt=1/);
  assert.doesNotMatch(jar.cookieHeader(u('http://h/'), now + 11_000)!, /\bt=1/);
  jar.setCookie('root=; Expires=Thu, 01 Jan 1970 00:00:00 GMT', u('http://h/'), now);
  assert.doesNotMatch(jar.cookieHeader(u('http://h/'), now) ?? '', /root/);
  assert.equal(jar.setCookie('s=1; Secure', u('http://example.org/'), now), null);
  jar.setCookie('s=1; Secure', u('https://example.org/'), now);
  assert.equal(jar.cookieHeader(u('http://example.org/'), now), undefined);
  assert.equal(jar.cookieHeader(u('https://example.org/'), now), 's=1');
});

test('Netscape cookie files round-trip', () => {
  const jar = new CookieJar();
  jar.setCookie('a=1; Domain=example.org; Path=/x; Max-Age=3600; HttpOnly', u('http://example.org/x'));
  jar.setCookie('b=2', u('http://h/'));
  const again = CookieJar.fromNetscape(jar.toNetscape());
  assert.equal(again.cookieHeader(u('http://sub.example.org/x/y')), 'a=1');
  assert.equal(again.cookieHeader(u('http://h/')), 'b=2');
  assert.equal(again.cookieHeader(u('http://sub.h/')), undefined);
});

test('netrc: machine entries, default, first match wins', () => {
  const n = parseNetrc('machine a.org login u1 password p1\n# comment\nmachine b.org\n  login u2\n  password "p2"\ndefault login d password dp\nmachine a.org login x password y\n');
  assert.deepEqual(n.machines.get('a.org'), { login: 'u1', password: 'p1' });
  assert.deepEqual(n.machines.get('b.org'), { login: 'u2', password: '"p2"' });
  assert.deepEqual(n.fallback, { login: 'd', password: 'dp' });
});

test('digest: RFC 7616 example (MD5 and SHA-256, qop=auth)', async () => {
  // The worked examples of RFC 7616 section 3.9.1.
  const ch = parseDigestChallenge([
    'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
  ])!;
  const sha = await digestAuthorization(ch, { user: 'Mufasa', password: 'Circle of Life' }, 'GET', '/dir/index.html', 1, 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ');
  assert.match(sha, /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
  assert.match(
    sha,
    /^Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf[^"]+", uri="\/dir\/index.html", cnonce="f2\/wE4q[^"]+", nc=00000001, qop=auth, response="[0-9a-f]+", opaque="FQhe[^"]+", algorithm=SHA-256$/,
  );
  const md5 = await digestAuthorization({ ...ch, algorithm: 'MD5' }, { user: 'Mufasa', password: 'Circle of Life' }, 'GET', '/dir/index.html', 1, 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ');
  assert.match(md5, /response="8ca523f5e9506fed4657c9700eebdbec"/);
});

test('a cookie lives at most 400 days (RFC 6265bis): Max-Age=1e21 is written to a Netscape jar as a whole number curl reads', () => {
  const jar = new CookieJar();
  const now = Date.now();
  const limit = now + 400 * 24 * 3600 * 1000;
  assert.equal(jar.setCookie('a=1; Max-Age=999999999999999999999', u('http://h/'), now)!.expires, limit);
  assert.equal(jar.setCookie('b=2; Expires=Fri, 31 Dec 9999 23:59:59 GMT', u('http://h/'), now)!.expires, limit);
  assert.equal(jar.setCookie('c=3; Max-Age=60', u('http://h/'), now)!.expires, now + 60_000);
  const lines = jar
    .toNetscape()
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(lines.length, 3);
  for (const l of lines) assert.match(l.split('\t')[4]!, /^\d{10}$/, l);
});
