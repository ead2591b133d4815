// `sling exec` of the stream requests of a .http file: server-sent events (`SSE`, `EVENTSOURCE`) run
// against a real event-stream server on 127.0.0.1, each event printed as it comes; WebSocket, gRPC
// and GraphQL subscriptions shown by --offline and written back by --to http / --to curl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type http from 'node:http';
import { canMeasurePeak, runSling, runWatching as watchIn, VERSION } from '../helpers/cli.js';
import { assertExit, assertNoStack, httpServer, show } from '../helpers/assert.js';
import { header } from '../helpers/servers.js';
import { runOnTty, ttySkipReason } from '../helpers/tty.js';

/** A folder of its own with t.http holding `text`; sling runs in it, so messages name `t.http`. */
function httpFile(text: string): string {
  dir = mkdtempSync(join(tmpdir(), 'sling-sse-'));
  writeFileSync(join(dir, 't.http'), text);
  return 't.http';
}
let dir = tmpdir();
/** runWatching (helpers/cli.ts) in this file's folder. */
const runWatching = (args: string[], onOut: Parameters<typeof watchIn>[1], env: Record<string, string> = {}) => watchIn(args, onOut, { cwd: dir, env });
const inDir = (opts: { env?: Record<string, string>; measurePeak?: boolean } = {}) => ({ ...opts, cwd: dir });

/** The time of day on a message line made a constant, for exact comparisons (its form is checked apart). */
const timeless = (out: string) => out.replace(/^(<< received|>> sent) \d\d:\d\d:\d\d\.\d{3}/gm, '$1 T');

/**
 * An event-stream server: /events sends a JSON event with a name and an id, then holds the stream
 * open until `release()` and ends it with a plain event; /open sends one event and never ends;
 * /ping sends only comments; /login sets a cookie; /big sends an event larger than 2,000 bytes.
 */
async function eventServer(t: import('node:test').TestContext) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const timers: NodeJS.Timeout[] = [];
  t.after(() => {
    for (const x of timers) clearInterval(x);
  });
  const srv = await httpServer(t, (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url!.split('?')[0];
    const stream = (type = 'text/event-stream') => res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
    if (path === '/events') {
      stream('text/event-stream; charset=utf-8');
      res.write(': hello\n\nevent: greet\nid: 1\ndata: {"a":1,"b":[true,null]}\n\n');
      void released.then(() => res.end('data: plain\n\n'));
    } else if (path === '/open') {
      stream();
      res.write('data: one\n\n');
    } else if (path === '/ping') {
      stream();
      timers.push(setInterval(() => res.write(': ping\n\n'), 50));
    } else if (path === '/big') {
      stream();
      res.write(`data: small\n\ndata: ${'x'.repeat(2000)}\n\n`);
      res.end('data: never\n\n');
    } else if (path === '/login') {
      res.writeHead(200, { 'Set-Cookie': 'session=s3cret; Path=/', 'Content-Type': 'text/plain' });
      res.end('in');
    } else if (path === '/moved') {
      res.writeHead(302, { Location: '/events' });
      res.end();
    } else if (path === '/missing') {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('no such stream');
    } else if (path === '/broken') {
      res.writeHead(503, { 'Content-Type': 'text/plain' });
      res.end('later');
    } else if (path === '/page') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<p>not events</p>');
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('next');
    }
  });
  return { srv, release };
}

test('exec SSE: each event is printed as it comes while the server holds the stream open: its time, event and id, JSON data formatted, then the end line; the next request follows', async (t) => {
  const { srv, release } = await eventServer(t);
  const file = httpFile(`SSE ${srv.url}/events\n\n###\nGET ${srv.url}/next\n`);
  let sawFirstWhileOpen = false;
  const r = await runWatching(['exec', '--print=b', '--pretty=format', file], (out) => {
    if (!sawFirstWhileOpen && out.includes('"b": [')) {
      sawFirstWhileOpen = true;
      release();
    }
  });
  assert.equal(sawFirstWhileOpen, true, `the first event was not printed while the stream was open: ${r.out}${r.err}`);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^<< received \d\d:\d\d:\d\d\.\d{3} event: greet id: 1$/m);
  assert.equal(
    timeless(r.out),
    [
      `### SSE ${srv.url}/events  (line 1)`,
      '<< received T event: greet id: 1',
      '{',
      '    "a": 1,',
      '    "b": [',
      '        true,',
      '        null',
      '    ]',
      '}',
      // The id is kept from the event before; the event name is not.
      '<< received T id: 1',
      'plain',
      '-- closed by the server',
      '',
      `### GET ${srv.url}/next  (line 4)`,
      'next',
      '',
    ].join('\n'),
  );
  assert.equal(r.err, '');
});

test('exec SSE: the response head is printed before the events (EVENTSOURCE, --print=hb)', async (t) => {
  const { srv, release } = await eventServer(t);
  release();
  const r = await runSling(['exec', '--print=hb', httpFile(`EVENTSOURCE ${srv.url}/events\n`)], inDir());
  assertExit(r, 0);
  assert.match(
    timeless(r.stdout),
    /^### EVENTSOURCE http:\/\/127\.0\.0\.1:\d+\/events {2}\(line 1\)\nHTTP\/1\.1 200 OK\nContent-Type: text\/event-stream; charset=utf-8\nCache-Control: no-cache\n[\s\S]*\n\n<< received T event: greet id: 1\n\{"a":1,"b":\[true,null\]\}\n<< received T id: 1\nplain\n-- closed by the server\n$/,
    show(r),
  );
});

test('exec SSE: a stream that goes quiet is closed by sling after # @timeout (500 ms) or --timeout, and the run goes on', async (t) => {
  const { srv } = await eventServer(t);
  // `# @timeout` takes seconds unless it says ms (or m): `500 ms`.
  const r = await runSling(['exec', '--print=b', httpFile(`# @timeout 500 ms\nSSE ${srv.url}/open\n\n###\nGET ${srv.url}/next\n`)], inDir());
  assertExit(r, 0);
  assert.equal(timeless(r.stdout), `### SSE ${srv.url}/open  (line 2)\n<< received T\none\n-- closed by sling: nothing came for 500 ms\n\n### GET ${srv.url}/next  (line 5)\nnext`);
  assert.equal(r.stderr, '');
  const cli = await runSling(['exec', '--print=b', '--timeout', '0.4', httpFile(`SSE ${srv.url}/open\n`)], inDir());
  assertExit(cli, 0);
  assert.equal(timeless(cli.stdout), `### SSE ${srv.url}/open  (line 1)\n<< received T\none\n-- closed by sling: nothing came for 400 ms\n`);
});

test('exec SSE: comments alone (keep-alive pings) are no events: the stream still ends when no event comes for the idle time', async (t) => {
  const { srv } = await eventServer(t);
  const r = await runSling(['exec', '--print=b', httpFile(`# @timeout 300 ms\nSSE ${srv.url}/ping\n`)], inDir());
  assertExit(r, 0);
  assert.equal(r.stdout, `### SSE ${srv.url}/ping  (line 2)\n-- closed by sling: nothing came for 300 ms\n`);
});

test('exec SSE: a 404 fails the request with exit 4, a 503 with exit 5, a 302 not followed with exit 3, in one line naming the file, its line and the host', async (t) => {
  const { srv } = await eventServer(t);
  const r = await runSling(['exec', '--print=b', httpFile(`SSE ${srv.url}/missing\n\n###\nGET ${srv.url}/next\n`)], inDir());
  assertExit(r, 4);
  assert.equal(r.stderr, `sling: error: t.http:1: 127.0.0.1:${srv.port} answered 404 Not Found\n`);
  // The run goes on after the failed stream.
  assert.equal(r.stdout, `### SSE ${srv.url}/missing  (line 1)\n\n### GET ${srv.url}/next  (line 4)\nnext`);
  const five = await runSling(['exec', '--print=b', httpFile(`\n\nSSE ${srv.url}/broken\n`)], inDir());
  assertExit(five, 5);
  assert.equal(five.stderr, `sling: error: t.http:3: 127.0.0.1:${srv.port} answered 503 Service Unavailable\n`);
  // A redirect not followed is 3, as --check-status counts it.
  const moved = await runSling(['exec', '--print=b', httpFile(`# @no-redirect\nSSE ${srv.url}/moved\n`)], inDir());
  assertExit(moved, 3);
  assert.equal(moved.stderr, `sling: error: t.http:2: 127.0.0.1:${srv.port} answered 302 Found\n`);
});

test('exec SSE: a 200 answer that is not text/event-stream fails with exit 6, naming what it was', async (t) => {
  const { srv } = await eventServer(t);
  const r = await runSling(['exec', '--print=hb', httpFile(`SSE ${srv.url}/page\n`)], inDir());
  assertExit(r, 6);
  assert.equal(r.stderr, `sling: error: t.http:1: 127.0.0.1:${srv.port} answered text/html, not text/event-stream\n`);
  // The answer's head is shown; its body is not taken for events.
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK\nContent-Type: text\/html\n/m);
  assert.doesNotMatch(r.stdout, /not events|<< received/);
  assertNoStack(r.stderr);
});

test('exec SSE: an event larger than the held-body limit fails the request (exit 6) after the events before it; the run goes on', async (t) => {
  const { srv } = await eventServer(t);
  const r = await runSling(['exec', '--print=b', httpFile(`SSE ${srv.url}/big\n\n###\nGET ${srv.url}/next\n`)], inDir({ env: { SLING_HELD_BODY_MB: '0.001' } }));
  assertExit(r, 6);
  assert.equal(timeless(r.stdout), `### SSE ${srv.url}/big  (line 1)\n<< received T\nsmall\n\n### GET ${srv.url}/next  (line 4)\nnext`);
  assert.equal(r.stderr, `sling: error: t.http:1: 127.0.0.1:${srv.port} sent an event of more than 1048 bytes\n`);
});

/** A server of `count` events of 200 bytes of data each, sent as fast as it can; `hold`: the stream stays open after them. */
async function floodServer(t: import('node:test').TestContext, count: number, hold = false) {
  const event = `data: ${'y'.repeat(200)}\n\n`.repeat(100);
  return httpServer(t, (req, res) => {
    if (req.url !== '/flood') return void res.end('next');
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let sent = 0;
    const pump = () => {
      while (sent < count) {
        sent += 100;
        if (!res.write(event)) return void res.once('drain', pump);
      }
      if (!hold) res.end();
    };
    pump();
  });
}

test('exec SSE: the events a handler reads are held up to SLING_HELD_BODY_MB in all; past it sling ends the stream and the request fails (exit 1); the run goes on', async (t) => {
  const srv = await floodServer(t, 1000, true);
  const file = httpFile(`SSE ${srv.url}/flood\n\n> {% client.log("held " + response.body.length) %}\n\n###\nGET ${srv.url}/next\n`);
  const r = await runSling(['exec', '--print=h', file], inDir({ env: { SLING_HELD_BODY_MB: '0.05' } }));
  assertExit(r, 1);
  assert.equal(
    r.stderr,
    "sling: error: t.http:1: the stream's messages are over 52428 bytes, more than sling holds for a response handler, an assertion or a '>> file' (a stream only printed holds nothing; SLING_HELD_BODY_MB raises the limit)\n",
  );
  // 0.05 MiB is 52,428 bytes: 262 events of 200 bytes; the handler still sees those.
  assert.match(
    r.stdout,
    /\n-- closed by sling: its messages outgrew what sling holds for what reads them\nheld 262\n\n### GET http:\/\/127\.0\.0\.1:\d+\/next {2}\(line 6\)\nHTTP\/1\.1 200 OK\n/,
    show(r),
  );
});

test('exec SSE: a stream nothing reads afterwards holds none of its events: more than SLING_HELD_BODY_MB of them is printed whole, in bounded memory', async (t) => {
  const srv = await floodServer(t, 1000);
  const r = await runSling(['exec', '--print=b', httpFile(`SSE ${srv.url}/flood\n`)], inDir({ env: { SLING_HELD_BODY_MB: '0.05' } }));
  assertExit(r, 0);
  assert.equal((r.stdout.match(/^<< received /gm) ?? []).length, 1000);
  assert.match(r.stdout, /\n-- closed by the server\n$/);
  assert.equal(r.stderr, '');
  if (!canMeasurePeak) return;
  // 150,000 events (30 MB): held, they took sling to about 360 MiB (Node 20); printed and let go, about 150 MiB.
  const big = await floodServer(t, 150_000);
  const m = await runSling(['exec', '--print=h', httpFile(`SSE ${big.url}/flood\n`)], inDir({ measurePeak: true }));
  assertExit(m, 0);
  assert.ok(m.peakBytes !== undefined, show(m));
  assert.ok(m.peakBytes < 260 * 1048576, `peak resident memory ${Math.round(m.peakBytes / 1048576)} MiB for a stream nothing reads`);
});

test('exec SSE: a handler gets the events as response.body: onEachMessage in order until unsubscribe(), output() lines, client.test on response.body.length', async (t) => {
  const { srv, release } = await eventServer(t);
  release();
  const file = httpFile(
    [
      `SSE ${srv.url}/events`,
      '',
      '> {%',
      '  client.test("two events", () => client.assert(response.body.length === 2, "got " + response.body.length));',
      '  client.test("three events", () => client.assert(response.body.length === 3, "got " + response.body.length));',
      '  response.body.onEachMessage((m, unsubscribe, output) => {',
      '    output("message " + m);',
      '    unsubscribe();',
      '  }, () => client.log("finished"));',
      '  let all = [];',
      '  response.body.onEachMessage((m, unsubscribe, output) => { all.push(m); output("seen " + all.length); });',
      '  client.log("all " + JSON.stringify(all));',
      '%}',
      '',
    ].join('\n'),
  );
  const r = await runSling(['exec', '--print=b', file], inDir());
  assertExit(r, 1);
  // The handler unsubscribes at the first event, which ends the stream; the server's end can come
  // first (both events and the end arrive together): either is how this stream ends.
  assert.equal(
    timeless(r.stdout).replace('-- closed by sling: a response handler unsubscribed\n', '-- closed by the server\n'),
    [
      `### SSE ${srv.url}/events  (line 1)`,
      '<< received T event: greet id: 1',
      '{"a":1,"b":[true,null]}',
      '<< received T id: 1',
      'plain',
      '-- closed by the server',
      'message {"a":1,"b":[true,null]}',
      'finished',
      'seen 1',
      'seen 2',
      'all ["{\\"a\\":1,\\"b\\":[true,null]}","plain"]',
      '✓ two events',
      '✗ three events: got 2',
      '',
    ].join('\n'),
    show(r),
  );
});

test('exec SSE: the request asks for text/event-stream, without Accept-Encoding, and carries the cookies an earlier response of the file set', async (t) => {
  const { srv, release } = await eventServer(t);
  release();
  const r = await runSling(['exec', '--print=h', httpFile(`GET ${srv.url}/login\n\n###\nSSE ${srv.url}/events\n\n###\nSSE ${srv.url}/events\nAccept: text/event-stream, */*;q=0.1\n`)], inDir());
  assertExit(r, 0);
  const [login, sse, own] = srv.requests;
  assert.equal(login!.url, '/login');
  assert.equal(sse!.method, 'GET');
  assert.equal(sse!.url, '/events');
  assert.equal(header(sse!, 'accept'), 'text/event-stream');
  assert.equal(header(sse!, 'accept-encoding'), undefined);
  assert.equal(header(sse!, 'cookie'), 'session=s3cret');
  // The file's own Accept is sent as it is, once.
  assert.deepEqual(own!.rawHeaders.filter((_, i) => i % 2 === 0 && /^accept$/i.test(own!.rawHeaders[i]!)).length, 1);
  assert.equal(header(own!, 'accept'), 'text/event-stream, */*;q=0.1');
});

test('exec SSE: Ctrl-C while events arrive exits 130 and keeps what was printed', async (t) => {
  const { srv } = await eventServer(t);
  let sent = false;
  const r = await runWatching(['exec', '--print=b', httpFile(`SSE ${srv.url}/open\n\n###\nGET ${srv.url}/next\n`)], (out, child) => {
    if (!sent && out.includes('one\n')) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  assert.equal(r.code, 130, r.err);
  assert.equal(timeless(r.out), `### SSE ${srv.url}/open  (line 1)\n<< received T\none\n`);
  assert.equal(r.err, 'sling: interrupted at t.http:1\n');
  // The request after it was not sent.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/open'],
  );
});

test('exec SSE on a terminal: escape sequences in an event name, id or data are shown as visible symbols', { skip: ttySkipReason }, async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end('event: a\x1b]0;pwned\x07b\nid: c\x1b[2Jd\ndata: e\x1b]52;c;aGk=\x07f\n\n');
  });
  const file = httpFile(`SSE ${srv.url}/\n`);
  const r = await runOnTty(['exec', '--print=b', join(dir, file)], { NO_COLOR: '1' });
  assert.equal(r.code, 0, r.out);
  assert.ok(!r.out.includes('\x1b'), JSON.stringify(r.out));
  assert.ok(!r.out.includes('\x07'), JSON.stringify(r.out));
  assert.match(r.out, /<< received \d\d:\d\d:\d\d\.\d{3} event: a␛\]0;pwned␇b id: c␛\[2Jd\ne␛\]52;c;aGk=␇f\n/);
});

/** A WebSocket session with messages, a gRPC call, a GraphQL subscription and server-sent events: nothing of them is sent here. */
const STREAMS = [
  '### chat',
  'WEBSOCKET ws://127.0.0.1:9/chat?room=1',
  'X-Token: t1',
  '',
  '{"hello": 1}',
  '===',
  'plain text',
  '=== wait-for-server',
  '{"bye": true}',
  '',
  '###',
  'GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello',
  'x-meta: m',
  '',
  '{"name": "sling"}',
  '',
  '###',
  'GRAPHQL http://127.0.0.1:9/graphql',
  '',
  'subscription OnEvent($room: ID!) { event(room: $room) { id } }',
  '',
  '{"room": "r1"}',
  '',
  '###',
  '# @timeout 2 s',
  'SSE http://127.0.0.1:9/events',
  '',
].join('\n');

test('exec --offline: a WebSocket, gRPC and GraphQL subscription request show their opening request and each message to send; SSE its GET', async () => {
  const r = await runSling(['exec', '--offline', httpFile(STREAMS)], inDir());
  assertExit(r, 0);
  assert.equal(
    r.stdout,
    [
      '### chat: WEBSOCKET ws://127.0.0.1:9/chat?room=1  (line 2)',
      'GET /chat?room=1 HTTP/1.1',
      'Host: 127.0.0.1:9',
      'X-Token: t1',
      `User-Agent: sling/${VERSION}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      '',
      '>> to send',
      '{"hello": 1}',
      '>> to send',
      'plain text',
      ">> to send after the server's next message",
      '{"bye": true}',
      '',
      '### GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello  (line 12)',
      'POST /helloworld.Greeter/SayHello HTTP/2',
      'Host: 127.0.0.1:9',
      'x-meta: m',
      'Content-Type: application/grpc',
      'TE: trailers',
      '',
      '>> to send',
      '{"name": "sling"}',
      '',
      '### GRAPHQL ws://127.0.0.1:9/graphql  (line 18)',
      'GET /graphql HTTP/1.1',
      'Host: 127.0.0.1:9',
      `User-Agent: sling/${VERSION}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Protocol: graphql-transport-ws',
      '',
      '>> to send',
      '{"type":"subscribe","payload":{"query":"subscription OnEvent($room: ID!) { event(room: $room) { id } }","variables":{"room":"r1"},"operationName":"OnEvent"}}',
      '',
      '### SSE http://127.0.0.1:9/events  (line 26)',
      'GET /events HTTP/1.1',
      'Host: 127.0.0.1:9',
      `User-Agent: sling/${VERSION}`,
      'Accept: text/event-stream',
      '',
    ].join('\n'),
  );
  assert.equal(r.stderr, '');
});

test('exec --to http: stream requests are written back with their keyword, the URL in its written scheme, headers and messages between === lines', async () => {
  const r = await runSling(['exec', '--to', 'http', httpFile(STREAMS)], inDir());
  assertExit(r, 0);
  assert.equal(
    r.stdout,
    [
      '### chat: WEBSOCKET ws://127.0.0.1:9/chat?room=1 (line 2)',
      'WEBSOCKET ws://127.0.0.1:9/chat?room=1',
      'X-Token: t1',
      '',
      '{"hello": 1}',
      '===',
      'plain text',
      '=== wait-for-server',
      '{"bye": true}',
      '',
      '### GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello (line 12)',
      'GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello',
      'x-meta: m',
      '',
      '{"name": "sling"}',
      '',
      '### GRAPHQL http://127.0.0.1:9/graphql (line 18)',
      'GRAPHQL ws://127.0.0.1:9/graphql',
      '',
      'subscription OnEvent($room: ID!) { event(room: $room) { id } }',
      '',
      '{',
      '  "room": "r1"',
      '}',
      '',
      '### SSE http://127.0.0.1:9/events (line 26)',
      '# @timeout 2000 ms',
      'SSE http://127.0.0.1:9/events',
      'Accept: text/event-stream',
      '',
    ].join('\n'),
  );
  assert.equal(r.stderr, '');
});

test('exec --to http: what it writes reads back as the same stream requests', async () => {
  const first = await runSling(['exec', '--to', 'http', httpFile(STREAMS)], inDir());
  assertExit(first, 0);
  const again = await runSling(['exec', '--offline', httpFile(first.stdout)], inDir());
  const before = await runSling(['exec', '--offline', httpFile(STREAMS)], inDir());
  assertExit(again, 0);
  // The same opening requests and messages; only the titles (the request's name, its line) differ.
  // (and the place of sling's User-Agent, which goes after the file's headers: the SSE request's Accept is one now).
  const body = (out: string) => out.replace(/^### .*$/gm, '###').replace(/^User-Agent: .*\n/gm, '');
  assert.equal(body(again.stdout), body(before.stdout));
});

test('exec --to http: a first message that waits for the server keeps its === wait-for-server line; repeated ones stay repeated', async () => {
  const text = 'WEBSOCKET ws://127.0.0.1:9/chat\n\n=== wait-for-server\n{"after": "hello"}\n===\nnext\n=== wait-for-server\n=== wait-for-server\nlast\n';
  const r = await runSling(['exec', '--to', 'http', httpFile(text)], inDir());
  assertExit(r, 0);
  assert.equal(
    r.stdout,
    '### WEBSOCKET ws://127.0.0.1:9/chat (line 1)\nWEBSOCKET ws://127.0.0.1:9/chat\n\n=== wait-for-server\n{"after": "hello"}\n===\nnext\n=== wait-for-server\n=== wait-for-server\nlast\n',
  );
  const offline = await runSling(['exec', '--offline', '--print=B', httpFile(r.stdout)], inDir());
  assert.match(offline.stdout, /\n>> to send after the server's next message\n\{"after": "hello"\}\n>> to send\nnext\n>> to send after the server's next 2 messages\nlast\n/, show(offline));
});

test("exec --to http: a gRPC request's proto lines are written with absolute paths in its own block, and read back describe that request alone", async () => {
  const text = [
    'proto < ./protos/hello.proto',
    'keepCase: true',
    'longs: String',
    'includeDirs: ["./vendor"]',
    '',
    '###',
    'GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello',
    '',
    '{"name": "a"}',
    '',
    '###',
    'GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello',
    '',
    '{"name": "b"}',
    '',
  ].join('\n');
  const first = await runSling(['exec', '--to', 'http', httpFile(text)], inDir());
  assertExit(first, 0);
  const block = (name: string) =>
    [
      `proto < ${join(dir, 'protos', 'hello.proto')}`,
      'keepCase: true',
      'longs: String',
      `includeDirs: ${JSON.stringify([join(dir, 'vendor')])}`,
      '',
      'GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello',
      '',
      `{"name": "${name}"}`,
    ].join('\n');
  assert.equal(first.stdout, `### GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello (line 7)\n${block('a')}\n\n### GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello (line 12)\n${block('b')}\n`);
  // Written again from what it wrote: each request keeps one proto block, its own.
  const second = await runSling(['exec', '--to', 'http', httpFile(first.stdout)], inDir());
  assertExit(second, 0);
  const withoutTitles = (out: string) => out.replace(/^### .*$/gm, '###');
  assert.equal(withoutTitles(second.stdout), withoutTitles(first.stdout));
});

test('exec --to curl: WebSocket, gRPC and GraphQL subscription requests are left out with a comment and one error line each (exit 1); SSE is a curl GET', async () => {
  const r = await runSling(['exec', '--to', 'curl', httpFile(STREAMS)], inDir());
  assertExit(r, 1);
  assert.equal(
    r.stdout,
    [
      '#!/usr/bin/env bash',
      '',
      '# chat: WEBSOCKET ws://127.0.0.1:9/chat?room=1 (line 2)',
      '# left out: curl cannot send WebSocket messages from its command line',
      '',
      '# GRPC grpc://127.0.0.1:9/helloworld.Greeter/SayHello (line 12)',
      '# left out: curl has no gRPC (grpcurl is the tool for it)',
      '',
      '# GRAPHQL http://127.0.0.1:9/graphql (line 18)',
      '# left out: curl cannot send WebSocket messages from its command line',
      '',
      '# SSE http://127.0.0.1:9/events (line 26)',
      'curl http://127.0.0.1:9/events \\',
      `  -H 'User-Agent: sling/${VERSION}' \\`,
      "  -H 'Accept: text/event-stream' \\",
      '  -L \\',
      '  --max-redirs 30 \\',
      '  --connect-timeout 2 \\',
      '  --speed-limit 1 --speed-time 2',
      '',
    ].join('\n'),
  );
  assert.equal(
    r.stderr,
    [
      'sling: error: t.http:2: curl cannot send WebSocket messages from its command line: the request is left out',
      'sling: error: t.http:12: curl has no gRPC (grpcurl is the tool for it): the request is left out',
      'sling: error: t.http:18: curl cannot send WebSocket messages from its command line: the request is left out',
      '',
    ].join('\n'),
  );
});
