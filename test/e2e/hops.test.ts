// Which request is printed with which response when redirects are followed:
// each request with its own answer; without --all, the final pair. Real loopback servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { closedPort } from '../helpers/servers.js';
import { httpServer } from '../helpers/assert.js';

/** /a → 302 /b → 302 /c → 200 "final". */
const chain = (req: IncomingMessage, res: ServerResponse) => {
  if (req.url === '/a' || req.url === '/b') {
    res.writeHead(302, { Location: req.url === '/a' ? '/b' : '/c', 'Content-Type': 'text/plain' });
    res.end(`moved from ${req.url}`);
  } else {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('final');
  }
};

/** The request lines and status lines, in the order printed. */
const startLines = (out: string) => out.split('\n').filter((l) => /^(GET \S+ HTTP\/1\.1|HTTP\/1\.1 \d+)/.test(l));

test('--print=HBh -F prints the final request with the final response, not the first request', async (t) => {
  const s = await httpServer(t, chain);
  const r = await runSling(['--print=HBh', '-F', `${s.url}/a`]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(startLines(r.stdout), ['GET /c HTTP/1.1', 'HTTP/1.1 200 OK']);
  assert.doesNotMatch(r.stdout, /moved from/);
  assert.deepEqual(
    s.requests.map((q) => q.url),
    ['/a', '/b', '/c'],
  );
  // -p H alone: the request of the final answer too.
  const h = await runSling(['-p', 'H', '-F', `${s.url}/a`]);
  assert.deepEqual(startLines(h.stdout), ['GET /c HTTP/1.1']);
});

test('--all -F prints each request with its own response, in order', async (t) => {
  const s = await httpServer(t, chain);
  const r = await runSling(['--print=HBhb', '--all', '-F', `${s.url}/a`]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(startLines(r.stdout), ['GET /a HTTP/1.1', 'HTTP/1.1 302 Found', 'GET /b HTTP/1.1', 'HTTP/1.1 302 Found', 'GET /c HTTP/1.1', 'HTTP/1.1 200 OK']);
  assert.match(r.stdout, /moved from \/a.*moved from \/b.*final/s);
});

test('without -F the request is printed as it goes (the 302 and the request that got it)', async (t) => {
  const s = await httpServer(t, chain);
  const r = await runSling(['--print=Hh', `${s.url}/a`]);
  assert.deepEqual(startLines(r.stdout), ['GET /a HTTP/1.1', 'HTTP/1.1 302 Found']);
});

test('-p H -F: a redirect to a refused port prints the request that failed, then the error', async (t) => {
  const port = await closedPort();
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(302, { Location: `http://127.0.0.1:${port}/gone` });
    res.end();
  });
  const r = await runSling(['-p', 'H', '-F', `${s.url}/a`]);
  assert.equal(r.code, 6, r.stderr);
  assert.deepEqual(startLines(r.stdout), ['GET /gone HTTP/1.1']);
  assert.match(r.stdout, new RegExp(`Host: 127\\.0\\.0\\.1:${port}`));
});

test('a refused connection on a followed redirect names the hop: redirect 2 of 2 to URL', async (t) => {
  const port = await closedPort();
  const s = await httpServer(t, (req, res) => {
    res.writeHead(302, { Location: req.url === '/a' ? '/b' : `http://127.0.0.1:${port}/gone?x=1` });
    res.end();
  });
  const r = await runSling(['-F', `${s.url}/a`]);
  assert.equal(r.code, 6);
  assert.equal(r.stderr.split('\n')[0], `sling: error: connection refused by 127.0.0.1:${port} (redirect 2 of 2 to http://127.0.0.1:${port}/gone?x=1)`);
  // The first request refused is no redirect: the message is as it was.
  const direct = await runSling([`http://127.0.0.1:${port}/`]);
  assert.equal(direct.stderr.split('\n')[0], `sling: error: connection refused by 127.0.0.1:${port}`);
});

test('sling exec --print=Hh: each entry prints the request that got its final response', async (t) => {
  const s = await httpServer(t, chain);
  const dir = mkdtempSync(join(tmpdir(), 'sling-hops-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'r.http');
  writeFileSync(file, `GET ${s.url}/a\n\n###\nGET ${s.url}/b\n`);
  const r = await runSling(['exec', '--print=Hh', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(startLines(r.stdout), ['GET /c HTTP/1.1', 'HTTP/1.1 200 OK', 'GET /c HTTP/1.1', 'HTTP/1.1 200 OK']);
  const all = await runSling(['exec', '--print=Hh', '--all', file]);
  assert.deepEqual(startLines(all.stdout), [
    'GET /a HTTP/1.1',
    'HTTP/1.1 302 Found',
    'GET /b HTTP/1.1',
    'HTTP/1.1 302 Found',
    'GET /c HTTP/1.1',
    'HTTP/1.1 200 OK',
    'GET /b HTTP/1.1',
    'HTTP/1.1 302 Found',
    'GET /c HTTP/1.1',
    'HTTP/1.1 200 OK',
  ]);
});
