// One HTTP/1.1 client reads every answer, whichever command sent the request: the same odd raw
// response, answered to the main command, a download, a .http file and a curl file, gets the same
// exit code from each, and where it is accepted, the same header value and body reach the output.
// What sling accepts and refuses is the table of docs/exit-codes.md ("Odd responses").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertNoStack, bytesServer, show } from '../helpers/assert.js';

interface OddCase {
  /** The raw answer (latin1). */
  answer: string;
  /** 0: accepted, with `body` and (when given) the header line `header` in the output; else the exit code. */
  exit: number;
  body?: string;
  header?: string;
}

const CASES: Record<string, OddCase> = {
  'whitespace before the colon of a header name is accepted, the name without it': {
    answer: 'HTTP/1.1 200 OK\r\nX-B : v\r\nContent-Length: 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-B: v',
  },
  'a chunk size with a 0x prefix is a malformed body': {
    answer: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n',
    exit: 6,
  },
  'a chunk size with an extension is read': {
    answer: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 ;a=b\r\nhello\r\n0\r\n\r\n',
    exit: 0,
    body: 'hello',
  },
  'two equal Content-Length lines are that length': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
  },
  'a Content-Length list of equal values is that length': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
  },
  'two Content-Length lines that disagree are a malformed answer': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    exit: 6,
  },
  'Content-Length with Transfer-Encoding chunked: the chunks frame the body': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
    exit: 0,
    body: 'hello',
  },
  'a folded header line is joined to the one before with a space': {
    answer: 'HTTP/1.1 200 OK\r\nX-A: one\r\n  two\r\nContent-Length: 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-A: one two',
  },
  'bare LF line ends are read as CRLF': {
    answer: 'HTTP/1.1 200 OK\nX-A: one\nContent-Length: 5\n\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-A: one',
  },
  'a header line without a colon is a malformed answer': {
    answer: 'HTTP/1.1 200 OK\r\nX-A one\r\nContent-Length: 5\r\n\r\nhello',
    exit: 6,
  },
  'a NUL inside a header value is a malformed answer': {
    answer: 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 5\r\n\r\nhello',
    exit: 6,
  },
  'a CR inside a header value is read as a space': {
    answer: 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-A: a b',
  },
  'a negative Content-Length is a malformed answer': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello',
    exit: 6,
  },
  'a Content-Length with a plus sign is a malformed answer': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello',
    exit: 6,
  },
  'a Content-Length list of different values is a malformed answer': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!',
    exit: 6,
  },
  'a status line without a reason phrase is accepted': {
    answer: 'HTTP/1.1 200\r\nX-A: one\r\nContent-Length: 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-A: one',
  },
  'an HTTP/1.0 answer without a length is read until the connection closes': {
    answer: 'HTTP/1.0 200 OK\r\nX-A: one\r\n\r\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-A: one',
  },
  'an interim 1xx answer before the answer is skipped': {
    answer: 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nX-A: one\r\nContent-Length: 5\r\n\r\nhello',
    exit: 0,
    body: 'hello',
    header: 'X-A: one',
  },
  'a body shorter than its Content-Length is cut short': {
    answer: 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello',
    exit: 6,
  },
  'a status line that is not HTTP is a malformed answer': {
    answer: 'HTTP/1.1 2OO OK\r\nContent-Length: 5\r\n\r\nhello',
    exit: 6,
  },
};

const paths = Object.keys(CASES).map((_, i) => `/c${i}`);

for (const [i, [name, c]] of Object.entries(CASES).entries()) {
  test(`odd responses: ${name}, the same from the main command, a download, a .http file and a curl file`, async (t) => {
    const answers: Record<string, string> = {};
    answers[paths[i]!] = c.answer;
    const server = await bytesServer(t, answers);
    const url = `${server.url}${paths[i]}`;
    const dir = mkdtempSync(join(tmpdir(), 'sling-odd-'));
    writeFileSync(join(dir, 'a.http'), `GET ${url}\n`);
    writeFileSync(join(dir, 'a.curl'), `curl -s -i ${url}\n`);
    const runs = {
      main: await runSling(['--print=hb', url], { cwd: dir }),
      download: await runSling(['-d', '-o', 'f', url], { cwd: dir }),
      http: await runSling(['exec', 'a.http'], { cwd: dir }),
      curl: await runSling(['exec', 'a.curl'], { cwd: dir }),
    };
    for (const [how, r] of Object.entries(runs)) {
      assert.equal(r.code, c.exit, `${how}: expected exit ${c.exit}${show(r)}`);
      assertNoStack(r.stderr);
      const all = `${r.stdout}\n${r.stderr}`;
      if (c.exit !== 0) {
        assert.match(r.stderr, /^sling: error: /m, `${how}: one error line${show(r)}`);
        continue;
      }
      if (c.header) assert.ok(all.split(/\r?\n/).includes(c.header), `${how}: the header line ${JSON.stringify(c.header)}${show(r)}`);
      if (how === 'download') assert.equal(readFileSync(join(dir, 'f'), 'latin1'), c.body);
      else assert.match(r.stdout, new RegExp(`(^|\\n)${c.body}\\n?$`), `${how}: the body${show(r)}`);
    }
    // A refused answer leaves no file of what came before the refusal.
    if (c.exit !== 0 && c.exit !== 6) assert.equal(existsSync(join(dir, 'f')), false);
  });
}

test('odd responses: after an answer framed by both Content-Length and chunks, the connection is not used again', async (t) => {
  const connections: number[] = [];
  let n = 0;
  const server = net.createServer((socket) => {
    const id = ++n;
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      while (buf.includes('\r\n\r\n')) {
        buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
        connections.push(id);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/x`;
  const dir = mkdtempSync(join(tmpdir(), 'sling-odd-'));
  writeFileSync(join(dir, 'a.http'), `GET ${url}\n\n###\nGET ${url}\n`);
  const r = await runSling(['exec', 'a.http'], { cwd: dir });
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stdout.match(/hello/g)?.length, 2, show(r));
  assert.deepEqual(connections, [1, 2], 'each answer on a connection of its own');
});

test("curl's -m ends a body that trickles forever, saved with -o (straight to the file) or printed", async (t) => {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
      const timer = setInterval(() => socket.write('x'), 50);
      socket.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/trickle`;
  const dir = mkdtempSync(join(tmpdir(), 'sling-odd-'));
  writeFileSync(join(dir, 'saved.curl'), `curl -s -m 1 -o f ${url}\n`);
  writeFileSync(join(dir, 'printed.curl'), `curl -s -m 1 ${url}\n`);
  for (const file of ['saved.curl', 'printed.curl']) {
    const r = await runSling(['exec', file], { cwd: dir, timeoutMs: 20000 });
    assert.equal(r.timedOut, false, `${file}: sling ended by itself${show(r)}`);
    assert.notEqual(r.code, 0, show(r));
    assert.match(r.stderr, /took longer than 1s \(--max-time\): stopped after \d+ bytes of the body/, show(r));
    assertNoStack(r.stderr);
  }
  // Some bytes came and were kept in the file before the deadline.
  assert.match(readFileSync(join(dir, 'f'), 'latin1'), /^x+$/);
});
