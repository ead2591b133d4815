import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CookieJar, loadPublicSuffixes, MAX_COOKIE_HEADER, MAX_COOKIES, MAX_PER_DOMAIN } from '../../src/model/cookies.js';
import { parseUrl } from '../../src/model/url.js';
import { parseNetrc } from '../../src/request/netrc.js';
import { digestAuthorization, parseDigestChallenge } from '../../src/transport/digest.js';

const u = (s: string) => parseUrl(s);
await loadPublicSuffixes();

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

test('a Domain that is a public suffix is refused (com, co.uk, github.io, and names the list does not know: test), unless it is the host itself', () => {
  const jar = new CookieJar();
  assert.equal(jar.setCookie('t=evil; Domain=com', u('http://a.evil.com/')), null);
  assert.equal(jar.setCookie('t=evil; Domain=.COM', u('http://a.evil.com/')), null);
  assert.equal(jar.setCookie('t=evil; Domain=co.uk', u('http://a.evil.co.uk/')), null);
  assert.equal(jar.setCookie('t=evil; Domain=github.io', u('https://evil.github.io/')), null, 'the private section counts too');
  assert.equal(jar.setCookie('t=evil; Domain=test', u('http://a.evil.test/')), null, "the list's default rule: an unknown top-level name is a public suffix");
  assert.equal(jar.setCookie('t=evil; Domain=localhost', u('http://a.localhost/')), null);
  assert.equal(jar.cookieHeader(u('http://bank.com/')), undefined);
  assert.equal(jar.cookieHeader(u('http://bank.co.uk/')), undefined);
  assert.equal(jar.cookieHeader(u('http://bank.test/')), undefined);
  // A registrable domain and its parents below the suffix still work.
  assert.equal(jar.setCookie('ok=1; Domain=evil.com', u('http://a.evil.com/'))?.hostOnly, false);
  assert.equal(jar.setCookie('ok=2; Domain=evil.co.uk', u('http://a.evil.co.uk/'))?.domain, 'evil.co.uk');
  assert.equal(jar.setCookie('ok=3; Domain=a.test', u('http://x.a.test/'))?.domain, 'a.test');
  assert.equal(jar.cookieHeader(u('http://b.evil.com/')), 'ok=1');
  assert.equal(jar.cookieHeader(u('http://y.a.test/')), 'ok=3');
  // The host itself being a suffix: a host-only cookie (RFC 6265 5.3 step 5), as browsers do.
  const own = jar.setCookie('h=1; Domain=localhost', u('http://localhost:8080/'));
  assert.equal(own?.hostOnly, true);
  assert.equal(jar.cookieHeader(u('http://localhost/')), 'h=1');
  assert.equal(jar.cookieHeader(u('http://a.localhost/')), undefined);
  // IP addresses have no suffix: Domain= may only name the address itself.
  assert.equal(jar.setCookie('ip=1; Domain=127.0.0.1', u('http://127.0.0.1/'))?.domain, '127.0.0.1');
  assert.equal(jar.setCookie('ip=2; Domain=0.0.1', u('http://127.0.0.1/')), null);
});

test('__Secure- cookies need Secure; __Host- cookies need Secure, no Domain and Path=/ (names matched in any case)', () => {
  const jar = new CookieJar();
  const https = u('https://a.example.org/app/x');
  assert.equal(jar.setCookie('__Secure-a=1', https), null);
  assert.equal(jar.setCookie('__secure-a=1; Path=/', https), null);
  assert.equal(jar.setCookie('__Secure-a=1; Secure', u('http://a.example.org/')), null, 'Secure needs HTTPS (or a loopback host)');
  assert.ok(jar.setCookie('__Secure-a=1; Secure; Domain=example.org; Path=/', https));
  assert.equal(jar.setCookie('__Host-b=1; Secure', https), null, 'the default path is /app, not /');
  assert.equal(jar.setCookie('__Host-b=1; Secure; Path=/; Domain=a.example.org', https), null, 'no Domain, even the host itself');
  assert.equal(jar.setCookie('__HOST-b=1; Path=/', https), null);
  assert.equal(jar.setCookie('__Host-b=1; Secure; Path=/app', https), null);
  assert.ok(jar.setCookie('__Host-b=1; Secure; Path=/', https));
  assert.ok(jar.setCookie('__Host-c=1; Secure; Path=/', u('http://127.0.0.1:8000/x')), 'a loopback host counts as secure, as for Secure');
  assert.equal(jar.cookieHeader(u('https://a.example.org/')), '__Secure-a=1; __Host-b=1');
  assert.equal(jar.cookieHeader(u('https://b.example.org/')), '__Secure-a=1');
});

test('at most 150 cookies a domain and 3,000 in all: the least recently set go, each bound warned about once', () => {
  const warnings: string[] = [];
  const jar = new CookieJar({ warn: (m, limit) => warnings.push(`${limit}: ${m}`) });
  for (let i = 0; i < 10_000; i++) jar.setCookie(`c${i}=v; Path=/`, u('http://h.test/'));
  // Setting a kept cookie again makes it the most recent: it survives the next ones.
  jar.setCookie('c9850=again; Path=/', u('http://h.test/'));
  for (let i = 0; i < 5; i++) jar.setCookie(`d${i}=v; Path=/`, u('http://h.test/'));
  const names = jar.all().map((c) => c.name);
  assert.equal(names.length, MAX_PER_DOMAIN);
  assert.ok(names.includes('c9850') && names.includes('c9999') && names.includes('d4') && !names.includes('c9851') && !names.includes('c0'));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^domain: cookies: more than 150 cookies for h\.test: the least recently set are dropped/);
  // Many domains: 3,000 in all.
  for (let d = 0; d < 40; d++) for (let i = 0; i < 100; i++) jar.setCookie(`n${i}=v`, u(`http://d${d}.test/`));
  assert.equal(jar.all().length, MAX_COOKIES);
  assert.equal(jar.cookieHeader(u('http://h.test/')), undefined, "h.test's cookies were the least recently set");
  assert.equal(jar.cookieHeader(u('http://d39.test/'))?.split('; ').length, 100);
  assert.deepEqual(
    warnings.map((w) => w.split(':')[0]),
    ['domain', 'total'],
  );
});

test("the jar's cookies in one Cookie header stop at 8,190 bytes (curl's limit), longer paths and older cookies first, warned about once", () => {
  const warnings: string[] = [];
  const jar = new CookieJar({ warn: (m) => warnings.push(m) });
  const value = 'x'.repeat(100);
  for (let i = 0; i < 100; i++) jar.setCookie(`c${String(i).padStart(2, '0')}=${value}; Path=/`, u('http://h.test/'));
  jar.setCookie(`deep=1; Path=/a/b`, u('http://h.test/'));
  const header = jar.cookieHeader(u('http://h.test/a/b/c'))!;
  assert.ok(Buffer.byteLength(header) <= MAX_COOKIE_HEADER, `${header.length}`);
  const sent = header.split('; ');
  // 2 + 104 bytes a cookie after the first: 78 of them fit after `deep=1`.
  assert.equal(sent[0], 'deep=1');
  assert.equal(sent[1], `c00=${value}`);
  assert.equal(sent.length, 1 + Math.floor((MAX_COOKIE_HEADER - 6) / 106));
  jar.cookieHeader(u('http://h.test/'));
  assert.deepEqual(warnings, ["cookies: the Cookie header for h.test would be over 8,190 bytes: 23 of 101 cookies are left out (curl's limit)"]);
});
