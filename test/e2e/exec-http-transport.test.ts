// The HTTP/1.1 client (src/transport/client.ts) as `sling exec` uses it for plain HTTP, against raw
// loopback servers that answer byte by byte the way real servers do, and misbehave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type net from 'node:net';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, rawServer, show } from '../helpers/assert.js';

function file(text: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-lane-'));
  writeFileSync(join(dir, 't.http'), text);
  return { dir, path: join(dir, 't.http') };
}

/** A raw server that answers each request read from a socket with the next canned response. */
async function scripted(t: import('node:test').TestContext, answers: ((s: net.Socket) => void)[]) {
  let n = 0;
  const seen: string[] = [];
  const srv = await rawServer(t, (socket, first) => {
    let buf = first.toString('latin1');
    const serve = () => {
      // one request per head (bodies here are small and carry Content-Length)
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buf.slice(0, end);
        const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        seen.push(head.split('\r\n')[0]!);
        buf = buf.slice(end + 4 + len);
        const answer = answers[n++];
        if (answer) answer(socket);
        else socket.destroy();
      }
    };
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      serve();
    });
    serve();
  });
  return { srv, seen };
}

test('lane: chunked, Content-Length and close-delimited bodies, 1xx skipped, HEAD and 204 without body', async (t) => {
  const { srv, seen } = await scripted(t, [
    (s) => s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n4\r\nabcd\r\n3;ext=1\r\nefg\r\n0\r\nX-Trailer: 1\r\n\r\n'),
    (s) => {
      // split across writes, head included
      s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Le');
      setTimeout(() => s.write('ngth: 5\r\n\r\nhel'), 20);
      setTimeout(() => s.write('lo'), 40);
    },
    (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n'),
    (s) => s.write('HTTP/1.1 204 No Content\r\n\r\n'),
    (s) => s.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil close'),
  ]);
  const { dir } = file([`GET ${srv.url}/a`, '###', `POST ${srv.url}/b`, '', 'x', '###', `HEAD ${srv.url}/c`, '###', `DELETE ${srv.url}/d`, '###', `GET ${srv.url}/e`].join('\n'));
  const r = await runSling(['exec', '--print=hb', 't.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(seen, ['GET /a HTTP/1.1', 'POST /b HTTP/1.1', 'HEAD /c HTTP/1.1', 'DELETE /d HTTP/1.1', 'GET /e HTTP/1.1']);
  assert.equal(srv.connections(), 1, 'all on one kept-alive connection');
  assert.match(r.stdout, /\n\nabcdefg\n/, show(r));
  assert.match(r.stdout, /^HTTP\/1\.1 201 Created$/m, show(r));
  assert.doesNotMatch(r.stdout, /100 Continue/, show(r));
  assert.match(r.stdout, /\n\nhello\n/, show(r));
  assert.match(r.stdout, /^HTTP\/1\.1 204 No Content$/m, show(r));
  assert.match(r.stdout, /until close$/, show(r));
});

test('lane: Connection: close and a server closing an idle connection lead to a new connection', async (t) => {
  let count = 0;
  const srv = await httpServer(t, (req, res) => {
    count++;
    if (count === 1) res.setHeader('Connection', 'close');
    res.end(`n${count}`);
    // the third answer ends its connection right after (an idle timeout on the server)
    if (count === 3) res.on('finish', () => setTimeout(() => req.socket.destroy(), 10));
  });
  const { dir } = file([1, 2, 3, 4, 5].map((i) => `GET ${srv.url}/${i}`).join('\n###\n') + '\n');
  // a pause after request 3 lets the server's close arrive before request 4 goes out
  writeFileSync(join(dir, 't.http'), [1, 2, 3].map((i) => `GET ${srv.url}/${i}`).join('\n###\n') + `\n###\n# @sleep 200\nGET ${srv.url}/4\n###\nGET ${srv.url}/5\n`);
  const r = await runSling(['exec', '--print=b', 't.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/1', '/2', '/3', '/4', '/5'],
  );
  const ids = srv.requests.map((q) => q.socketId);
  assert.notEqual(ids[0], ids[1], 'Connection: close: a new connection');
  assert.equal(ids[1], ids[2], 'kept alive');
  assert.notEqual(ids[2], ids[3], 'the server closed it: a new connection');
  assert.equal(ids[3], ids[4]);
  assert.match(r.stdout, /n5/, show(r));
});

test('lane: headers arrive as sent, non-ASCII values as UTF-8, Connection: keep-alive added', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const { dir } = file(`GET ${srv.url}/h\nX-Name: Zoë\nx-lower: 1\n`);
  const r = await runSling(['exec', 't.http'], { cwd: dir });
  assertExit(r, 0);
  const q = srv.requests[0]!;
  assert.deepEqual(
    q.rawHeaders.filter((_, i) => i % 2 === 0),
    ['Host', 'X-Name', 'x-lower', 'User-Agent', 'Accept-Encoding', 'Connection'],
  );
  assert.equal(Buffer.from(header(q, 'x-name')!, 'latin1').toString('utf8'), 'Zoë');
  assert.equal(header(q, 'connection'), 'keep-alive');
});

test('lane: a body cut short is exit 6; the next request still runs', async (t) => {
  const { srv } = await scripted(t, [(s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort')]);
  const ok = await httpServer(t, (_req, res) => res.end('fine'));
  const { dir } = file(`GET ${srv.url}/cut\n###\nGET ${ok.url}/next\n`);
  const r = await runSling(['exec', 't.http'], { cwd: dir });
  assertError(r, 6, /^sling: error: t\.http:1: the response body from 127\.0\.0\.1:\d+ was cut short \(Content-Length was 50\): connection closed$/m);
  assert.equal(ok.requests.length, 1);
  // What arrived is printed before the error, as the main command prints it.
  assert.match(r.stdout, /\(line 1\)\nHTTP\/1\.1 200 OK\nContent-Length: 50\n\nshort\n/, show(r));
});

test('lane: --timeout is the longest silence (exit 2), a refused connection is exit 6, a bad status line is exit 6', async (t) => {
  const { srv } = await scripted(t, [() => {}]);
  const { dir } = file(`GET ${srv.url}/slow\n`);
  const r = await runSling(['exec', '--timeout', '0.3', 't.http'], { cwd: dir });
  assertError(r, 2, /within 0\.3s/);
  const { srv: bad } = await scripted(t, [(s) => s.end('HTP/9 nonsense\r\n\r\n')]);
  writeFileSync(join(dir, 't.http'), `GET ${bad.url}/bad\n`);
  assertError(await runSling(['exec', 't.http'], { cwd: dir }), 6, /did not answer in HTTP: its answer begins 'HTP\/9 nonsense\.\.\.\.'/);
  writeFileSync(join(dir, 't.http'), 'GET http://127.0.0.1:1/nobody\n');
  assertError(await runSling(['exec', 't.http'], { cwd: dir }), 6);
});

test('lane: cookies, redirects and digest still work through the exchange', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/start') {
      res.writeHead(302, { Location: '/landing', 'Set-Cookie': 'k=v; Path=/' });
      res.end();
    } else res.end(`cookie=${req.headers.cookie ?? ''}`);
  });
  const { dir } = file(`GET ${srv.url}/start\n###\nGET ${srv.url}/again\n`);
  const r = await runSling(['exec', '--print=b', 't.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.url, header(q, 'cookie') ?? '']),
    [
      ['/start', ''],
      ['/landing', 'k=v'],
      ['/again', 'k=v'],
    ],
  );
});

test('lane: a gzip-encoded response is decoded for printing and for references', async (t) => {
  const { gzipSync } = await import('node:zlib');
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/z') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ token: 'zipped' })));
    } else res.end(req.url);
  });
  const { dir } = file(`# @name z\nGET ${srv.url}/z\n###\nGET ${srv.url}/use?t={{z.response.body.$.token}}\n`);
  const r = await runSling(['exec', '--print=b', 't.http'], { cwd: dir });
  assertExit(r, 0);
  assert.match(r.stdout, /\{"token":"zipped"\}/, show(r));
  assert.equal(srv.requests[1]!.url, '/use?t=zipped');
});

test('lane: bodies larger than a read arrive intact (Content-Length and chunked, split anywhere)', async (t) => {
  // The lane reads every socket into one reused buffer: whatever is kept must be a copy. A body
  // of 300 kB (several reads) and a chunked body whose size lines are cut across writes must come
  // out byte for byte.
  const pattern = (n: number, seed: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(97 + ((i * 7 + Math.floor(i / 26) + seed) % 26));
    return s;
  };
  const big = pattern(300_000, 1);
  const parts = [pattern(70_000, 2), pattern(5, 3), pattern(90_000, 4)];
  const { srv } = await scripted(t, [
    (s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\nContent-Type: text/plain\r\n\r\n${big.slice(0, 1000)}`);
      setTimeout(() => s.write(big.slice(1000, 150_000)), 20);
      setTimeout(() => s.write(big.slice(150_000)), 40);
    },
    (s) => {
      const wire = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n' + parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';
      // cut inside the first chunk, inside the second size line and inside the last chunk
      const cuts = [50, wire.indexOf(`${(5).toString(16)}\r\n`) + 1, wire.length - 20_000];
      let at = 0;
      cuts.forEach((c, i) => {
        const piece = wire.slice(at, c);
        at = c;
        setTimeout(() => s.write(piece), 15 * i);
      });
      setTimeout(() => s.write(wire.slice(at)), 15 * cuts.length);
    },
  ]);
  const { dir } = file([`GET ${srv.url}/big`, '###', `GET ${srv.url}/chunked`].join('\n'));
  const r = await runSling(['exec', '--print=b', 't.http'], { cwd: dir });
  assertExit(r, 0);
  const bodies = r.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('###'));
  assert.equal(bodies.length, 2, show(r));
  assert.ok(bodies[0] === big, `the 300 kB body differs (length ${bodies[0]!.length})`);
  assert.ok(bodies[1] === parts.join(''), `the chunked body differs (length ${bodies[1]!.length})`);
});

test('lane: answers polled for (the default) and answers slept for (SLING_NO_POLL=1) print the same, fast or slow, whole or split', async (t) => {
  // Answer k comes after delays[k] ms: some at once (inside the poll window), some well after it
  // (the lane has stopped polling and sleeps in the kernel), one split across writes.
  const delays = [0, 0, 5, 60, 0, 1, 30];
  const body = (k: number) => `answer ${k}\n`;
  const answer = (k: number) => (s: net.Socket) => {
    const head = `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body(k).length}\r\n\r\n`;
    const go = () => {
      if (k === 5) {
        s.write(head.slice(0, 10));
        setTimeout(() => s.write(head.slice(10) + body(k)), 15);
      } else s.write(head + body(k));
    };
    if (delays[k]) setTimeout(go, delays[k]);
    else go();
  };
  const text = delays.map((_, k) => `GET /item/${k}`).join('\n###\n');
  const outputs: string[] = [];
  const envs: Record<string, string>[] = [{}, { SLING_NO_POLL: '1' }];
  for (const env of envs) {
    const { srv, seen } = await scripted(
      t,
      delays.map((_, k) => answer(k)),
    );
    const { dir } = file(text.replace(/GET \//g, `GET ${srv.url}/`));
    const r = await runSling(['exec', '--print=hb', 't.http'], { cwd: dir, env });
    assertExit(r, 0);
    assert.deepEqual(
      seen,
      delays.map((_, k) => `GET /item/${k} HTTP/1.1`),
    );
    assert.equal(srv.connections(), 1, 'all on one kept-alive connection');
    outputs.push(r.stdout.replaceAll(srv.url, 'URL'));
  }
  for (let k = 0; k < delays.length; k++) assert.match(outputs[0]!, new RegExp(`\\n\\nanswer ${k}\\n`), outputs[0]);
  assert.equal(outputs[0], outputs[1]);
});
