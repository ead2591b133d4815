// The cookie jar end to end, in every front end that keeps one: `sling exec` of .http files (one jar
// a run), the main command's --session (with --follow), curl files' cookie engine (-b FILE, -c, -L).
// Host names reach the one loopback server through --resolve (sling's and curl's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header, type CaptureServer, type CapturedRequest } from '../helpers/servers.js';
import { httpServer } from '../helpers/assert.js';

const HOSTS = ['a.evil.com', 'x.evil.com', 'bank.com', 'a.evil.test', 'x.evil.test', 'bank.test', 'a.evil.co.uk', 'x.evil.co.uk', 'bank.co.uk'];

function workdir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-cookies-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/**
 * /set: cookies for the public suffix of the host (`Domain=com`, `Domain=test`, `Domain=co.uk`) and one for its
 * registrable domain (`Domain=evil.com`), then a redirect to ?to= when given. /see: 200.
 */
const setter = (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url!, 'http://x');
  if (url.pathname === '/set') {
    const host = req.headers.host!.replace(/:\d+$/, '');
    const parent = host.slice(host.indexOf('.') + 1);
    const suffix = parent.slice(parent.indexOf('.') + 1);
    res.setHeader('Set-Cookie', [`t=evil; Domain=${suffix}; Path=/`, `dot=evil; Domain=.${suffix.toUpperCase()}; Path=/`, `ok=1; Domain=${parent}; Path=/`]);
    const to = url.searchParams.get('to');
    if (to) res.writeHead(302, { Location: to }).end();
    else res.writeHead(200).end('set\n');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain' }).end('seen\n');
};

/** The Cookie header each request for `path` carried, by host ('-' for none). */
function cookiesSeen(s: CaptureServer, path = '/see'): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const r of s.requests as CapturedRequest[]) if (r.url === path) seen[header(r, 'host')!.replace(/:\d+$/, '')] = header(r, 'cookie') ?? '-';
  return seen;
}

const resolveFlags = (port: number) => HOSTS.flatMap((h) => ['--resolve', `${h}:${port}:127.0.0.1`]);

test('exec .http: a cookie for a public suffix (Domain=com, Domain=test, Domain=co.uk) is never sent to another site; one for the registrable domain is', async (t) => {
  const s = await httpServer(t, setter);
  const p = s.port;
  const requests = [];
  for (const [evil, same, bank] of [
    ['a.evil.com', 'x.evil.com', 'bank.com'],
    ['a.evil.test', 'x.evil.test', 'bank.test'],
    ['a.evil.co.uk', 'x.evil.co.uk', 'bank.co.uk'],
  ])
    requests.push(`GET http://${evil}:${p}/set`, '', '###', `GET http://${bank}:${p}/see`, '', '###', `GET http://${same}:${p}/see`, '', '###');
  const dir = workdir({ 't.http': requests.join('\n') });
  const r = await runSling(['exec', ...resolveFlags(p), 't.http'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.deepEqual(cookiesSeen(s), { 'bank.com': '-', 'x.evil.com': 'ok=1', 'bank.test': '-', 'x.evil.test': 'ok=1', 'bank.co.uk': '-', 'x.evil.co.uk': 'ok=1' });
});

test('--session with --follow: a cookie for a public suffix is neither sent on the redirect to another site nor saved in the session', async (t) => {
  const s = await httpServer(t, setter);
  const p = s.port;
  const dir = workdir();
  for (const [evil, bank, parent] of [
    ['a.evil.com', 'bank.com', 'evil.com'],
    ['a.evil.test', 'bank.test', 'evil.test'],
  ]) {
    const session = `./${bank}.json`;
    const r = await runSling(['--session', session, '--follow', ...resolveFlags(p), `http://${evil}:${p}/set?to=${encodeURIComponent(`http://${bank}:${p}/see`)}`], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const saved = JSON.parse(readFileSync(join(dir, session), 'utf8')).cookies.map((c: { name: string; domain: string }) => `${c.name} ${c.domain}`);
    assert.deepEqual(saved, [`ok .${parent}`]);
    // The session, used for the other site: nothing of the first one's goes there.
    const again = await runSling(['--session', session, ...resolveFlags(p), `http://${bank}:${p}/see`], { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
  }
  const seen = s.requests.filter((r) => r.url === '/see').map((r) => `${header(r, 'host')!.replace(/:\d+$/, '')} ${header(r, 'cookie') ?? '-'}`);
  assert.deepEqual(seen, ['bank.com -', 'bank.com -', 'bank.test -', 'bank.test -']);
});

test('curl files: -L with -c, and -b FILE: a cookie for a public suffix goes neither to the next site nor into the cookie jar file', async (t) => {
  const s = await httpServer(t, setter);
  const p = s.port;
  const resolve = HOSTS.map((h) => `--resolve ${h}:${p}:127.0.0.1`).join(' ');
  const dir = workdir({
    'calls.sh': [
      `curl -sS -L -c jar.txt ${resolve} 'http://a.evil.com:${p}/set?to=http://bank.com:${p}/see'`,
      `curl -sS -b jar.txt -c jar2.txt ${resolve} http://a.evil.test:${p}/set`,
      `curl -sS -b jar2.txt ${resolve} http://bank.test:${p}/see http://x.evil.test:${p}/see`,
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', 'calls.sh'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(cookiesSeen(s), { 'bank.com': '-', 'bank.test': '-', 'x.evil.test': 'ok=1' });
  const jarLines = (f: string) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('# '));
  assert.deepEqual(
    jarLines('jar.txt').map((l) => l.split('\t')[0]),
    ['.evil.com'],
  );
  assert.deepEqual(
    jarLines('jar2.txt').map((l) => l.split('\t')[0]),
    ['.evil.com', '.evil.test'],
  );
});

/** /flood?n=N&size=S&round=R: N Set-Cookie lines (R0..R(N-1), values of S bytes). Any other path: 200. */
const flood = (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url!, 'http://x');
  if (url.pathname === '/flood') {
    const n = Number(url.searchParams.get('n'));
    const value = 'v'.repeat(Number(url.searchParams.get('size') ?? 1));
    const round = url.searchParams.get('round') ?? 'c';
    res.setHeader(
      'Set-Cookie',
      Array.from({ length: n }, (_, i) => `${round}${i}=${value}`),
    );
  }
  res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
};

/** The names of a Cookie header, checked to be the first of `expected` that fit in 8,190 bytes (none left out that would have fitted). */
function firstThatFit(cookie: string, expected: string[], size: number): string[] {
  assert.ok(Buffer.byteLength(cookie) <= 8190, `${Buffer.byteLength(cookie)} bytes`);
  const names = cookie.split('; ').map((c) => c.slice(0, c.indexOf('=')));
  assert.deepEqual(names, expected.slice(0, names.length));
  assert.ok(Buffer.byteLength(cookie) + 2 + expected[names.length]!.length + 1 + size > 8190, 'the next cookie would have fitted');
  return names;
}

test('exec .http: 20 answers of 10,000 Set-Cookie lines keep 150 cookies for the host, and a Cookie header stops at 8,190 bytes, with one warning for each bound', async (t) => {
  const s = await httpServer(t, flood);
  const rounds = 'abcdefghijklmnopqrst';
  const requests = [...rounds].map((r) => `GET ${s.url}/flood?n=10000&round=${r}\n\n###`);
  const dir = workdir({
    't.http': [...requests, `GET ${s.url}/see`, '', '###', `GET ${s.url}/flood?n=150&size=60&round=z`, '', '###', `GET ${s.url}/see`, '', '###', `GET ${s.url}/see`, ''].join('\n'),
  });
  const r = await runSling(['exec', 't.http'], { cwd: dir, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split('\n').filter(Boolean);
  assert.equal(warnings.length, 2, r.stderr);
  assert.equal(warnings[0], 'sling: warning: cookies: more than 150 cookies for 127.0.0.1: the least recently set are dropped (at most 150 cookies a domain)');
  const sent = s.requests.filter((q) => q.url === '/see').map((q) => header(q, 'cookie')!);
  // The newest 150 were kept, and sent oldest first.
  assert.deepEqual(
    sent[0]!.split('; '),
    Array.from({ length: 150 }, (_, i) => `t${9850 + i}=v`),
  );
  const big = Array.from({ length: 150 }, (_, i) => `z${i}`);
  const names = firstThatFit(sent[1]!, big, 60);
  assert.equal(sent[2], sent[1]);
  assert.equal(warnings[1], `sling: warning: cookies: the Cookie header for 127.0.0.1 would be over 8,190 bytes: ${150 - names.length} of 150 cookies are left out (curl's limit)`);
});

test('--session: a session file of 100,000 cookies for its host loads with the 150 newest kept, says so once, and is saved with those; one of 300,000 is over the 10 MiB limit of a session file: one line, nothing sent', async (t) => {
  const s = await httpServer(t, flood);
  const dir = workdir();
  const session = (n: number) => {
    const cookies = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, value: 'v', domain: '127.0.0.1', path: '/', expires: null, secure: false }));
    return JSON.stringify({ __meta__: { about: 'test' }, headers: [], cookies, auth: { type: null, raw_auth: null } });
  };
  writeFileSync(join(dir, 's.json'), session(100_000));
  const r = await runSling(['--session', './s.json', `${s.url}/see`], { cwd: dir, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stderr.split('\n').filter(Boolean), ['sling: warning: cookies: more than 150 cookies for 127.0.0.1: the least recently set are dropped (at most 150 cookies a domain)']);
  const sent = header(s.requests[0]!, 'cookie')!.split('; ');
  assert.equal(sent.length, 150);
  assert.equal(sent[0], 'c99850=v');
  const saved = JSON.parse(readFileSync(join(dir, 's.json'), 'utf8')).cookies;
  assert.equal(saved.length, 150);
  assert.equal(saved[0].name, 'c99850');

  const big = session(300_000);
  writeFileSync(join(dir, 'big.json'), big);
  const b = await runSling(['--session', './big.json', `${s.url}/see`], { cwd: dir, timeoutMs: 60_000 });
  assert.equal(b.code, 1, b.stderr);
  assert.match(b.stderr, /^sling: error: '.*big\.json' is larger than 10 MiB, the most sling reads of a session file\n$/);
  assert.equal(s.requests.length, 1, 'nothing sent');
  assert.equal(readFileSync(join(dir, 'big.json'), 'utf8'), big, 'the file is left as it was');
});

test('curl files: the cookie bounds are warned about once a run, not once a command', async (t) => {
  const s = await httpServer(t, flood);
  const dir = workdir({
    'calls.sh': [
      `curl -sS -c jar.txt '${s.url}/flood?n=200&size=60&round=a'`,
      `curl -sS -b jar.txt -c jar.txt '${s.url}/flood?n=200&size=60&round=b'`,
      `curl -sS -b jar.txt ${s.url}/see`,
      `curl -sS -b jar.txt ${s.url}/see`,
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', 'calls.sh'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split('\n').filter(Boolean);
  assert.equal(warnings.length, 2, r.stderr);
  assert.match(warnings[0]!, /^sling: warning: calls\.sh:1:1: cookies: more than 150 cookies for 127\.0\.0\.1: /);
  assert.match(warnings[1]!, /^sling: warning: calls\.sh:2:1: cookies: the Cookie header for 127\.0\.0\.1 would be over 8,190 bytes: /);
  const kept = readFileSync(join(dir, 'jar.txt'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t')[5]!);
  assert.deepEqual(
    kept,
    Array.from({ length: 150 }, (_, i) => `b${50 + i}`),
  );
  for (const q of s.requests.filter((x) => x.url === '/see')) firstThatFit(header(q, 'cookie')!, kept, 60);
});

test('exec .http on a loopback host: __Secure- and __Host- cookies are kept only with the attributes their prefix asks for', async (t) => {
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/set')
      res.setHeader('Set-Cookie', [
        '__Secure-no=1; Path=/',
        '__Secure-yes=1; Secure; Path=/',
        '__Host-domain=1; Secure; Path=/; Domain=127.0.0.1',
        '__Host-path=1; Secure; Path=/app',
        '__Host-yes=1; Secure; Path=/',
      ]);
    res.writeHead(200).end('ok\n');
  });
  const dir = workdir({ 't.http': `GET ${s.url}/set\n\n###\nGET ${s.url}/see\n` });
  const r = await runSling(['exec', 't.http'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(header(s.requests[1]!, 'cookie'), '__Secure-yes=1; __Host-yes=1');
});
