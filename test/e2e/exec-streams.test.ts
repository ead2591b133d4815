// `sling exec` runs the stream requests of a .http file against real servers on 127.0.0.1: WebSocket
// sessions (JetBrains' WEBSOCKET with === and === wait-for-server, httpyac's WS and its
// {{@streaming}} block), GraphQL subscriptions over graphql-transport-ws, and gRPC calls of every
// kind, described by a proto file or by the server's reflection. The servers are independent
// implementations (the `ws` package, @grpc/grpc-js): what they received is checked on their side,
// what sling printed and its exit code on sling's.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { REPO_ROOT, runSling, runWatching } from '../helpers/cli.js';
import { assertError, assertExit, proxyServer, show } from '../helpers/assert.js';
import { certsUnavailableReason, makeCerts } from '../helpers/servers.js';

const PROTO = join(REPO_ROOT, 'test', 'fixtures', 'streams', 'echo.proto');

function httpFile(text: string, extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-streams-'));
  writeFileSync(join(dir, 't.http'), text);
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(dir, name), content);
  return join(dir, 't.http');
}

/** A WebSocket server on 127.0.0.1 (the `ws` package): `onConnection` gets each socket; every message received and every upgrade request kept. */
async function wsServer(t: TestContext, onConnection: (ws: WebSocket, got: string[]) => void, protocols?: (offered: Set<string>) => string | false) {
  const http: Server = createServer((_req, res) => {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{"error": "not a WebSocket route"}');
  });
  const upgrades: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const got: string[] = [];
  const wss = new WebSocketServer({ noServer: true, ...(protocols ? { handleProtocols: protocols } : {}) });
  http.on('upgrade', (req, socket, head) => {
    upgrades.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/missing') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data, binary) => got.push(binary ? `binary:${(data as Buffer).length}` : String(data)));
      onConnection(ws, got);
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const c of wss.clients) c.terminate();
    http.closeAllConnections();
    return new Promise<void>((r) => http.close(() => r()));
  });
  return { url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}`, upgrades, got };
}

test('exec: a JetBrains WEBSOCKET request sends its messages, waits for the server at === wait-for-server, prints both ways and ends when the server closes', async (t) => {
  const srv = await wsServer(t, (ws, got) => {
    ws.on('message', (data) => {
      const text = String(data);
      if (text === '{"a": 1}') ws.send('{"echo": 1}');
      if (text === 'last') ws.close(1000, 'bye');
    });
    void got;
  });
  const file = httpFile(`WEBSOCKET ${srv.url}/chat\nX-Token: t1\n\n{"a": 1}\n=== wait-for-server\nlast\n`);
  const r = await runSling(['exec', '--print=b', file]);
  assertExit(r, 0);
  assert.deepEqual(srv.got, ['{"a": 1}', 'last']);
  assert.equal(srv.upgrades[0]!.headers['x-token'], 't1');
  assert.match(
    r.stdout,
    /^### WEBSOCKET ws:\/\/127\.0\.0\.1:\d+\/chat {2}\(line 1\)\n>> sent \d\d:\d\d:\d\d\.\d{3}\n\{"a": 1\}\n<< received \d\d:\d\d:\d\d\.\d{3}\n\{"echo": 1\}\n>> sent \d\d:\d\d:\d\d\.\d{3}\nlast\n-- closed by the server \(1000 bye\)\n$/,
    show(r),
  );
  assert.equal(r.stderr, '');
});

test('exec: a WebSocket the server keeps open ends after the idle time (# @timeout), not as a failure', async (t) => {
  const srv = await wsServer(t, (ws) => ws.send('hello'));
  const file = httpFile(`# @timeout 300 ms\nWS ${srv.url}/quiet\n`);
  const r = await runSling(['exec', '--print=b', file]);
  assertExit(r, 0);
  assert.match(r.stdout, /<< received [\d:.]+\nhello\n-- closed by sling: nothing came for 300 ms\n$/, show(r));
});

test('exec: a response handler that unsubscribes closes the WebSocket at once, and its output and tests show', async (t) => {
  let closedBy: number | undefined;
  const srv = await wsServer(t, (ws) => {
    let n = 0;
    const timer = setInterval(() => ws.send(`tick ${++n}`), 20);
    ws.on('close', (code) => {
      closedBy = code;
      clearInterval(timer);
    });
  });
  const file = httpFile(
    `WEBSOCKET ${srv.url}/ticks\n\n> {%\n  response.body.onEachMessage((m, unsubscribe, output) => {\n    output('got ' + m);\n    if (m === 'tick 3') unsubscribe();\n  });\n  client.test('three or more', () => client.assert(response.body.length >= 3));\n%}\n`,
  );
  const r = await runSling(['exec', '--print=b', file]);
  assertExit(r, 0);
  assert.match(r.stdout, /-- closed by sling: a response handler unsubscribed\ngot tick 1\ngot tick 2\ngot tick 3\n✓ three or more\n$/, show(r));
  assert.equal(closedBy, 1000);
});

test('exec: a WebSocket closed by the server with an error code fails the request (1011: exit 5)', async (t) => {
  const srv = await wsServer(t, (ws) => ws.close(1011, 'boom'));
  const file = httpFile(`WEBSOCKET ${srv.url}/fail\n`);
  const r = await runSling(['exec', file]);
  assertError(r, 5, /t\.http:1: .*closed the WebSocket with 1011: boom/);
});

test('exec: an answer other than 101 to a WebSocket request fails it, naming the status (404: exit 4)', async (t) => {
  const srv = await wsServer(t, () => undefined);
  const file = httpFile(`WEBSOCKET ${srv.url}/missing\n`);
  const r = await runSling(['exec', file]);
  assertError(r, 4, /t\.http:1: .*404/);
});

test("exec: httpyac's {{@streaming}} block sends its messages at its times, then the WebSocket ends", async (t) => {
  const srv = await wsServer(t, () => undefined);
  const file = httpFile(
    `WS ${srv.url}/s\n\n{"first": true}\n\n{{@streaming\n  async function writeStream() {\n    await sleep(200);\n    $requestClient.send({ "event": "ping" });\n    await sleep(100);\n  }\n  exports.waitPromise = writeStream();\n}}\n`,
  );
  const started = Date.now();
  const r = await runSling(['exec', '--print=b', file]);
  assertExit(r, 0);
  assert.ok(Date.now() - started >= 300, 'the timeline was waited for');
  assert.deepEqual(srv.got, ['{"first": true}', '{"event":"ping"}']);
  assert.match(r.stdout, /-- closed by sling: the \{\{@streaming\}\} block ended\n$/, show(r));
});

test('exec: a GraphQL subscription over graphql-transport-ws prints each next payload and ends at complete', async (t) => {
  const srv = await wsServer(
    t,
    (ws) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data)) as { type: string; id?: string; payload?: { query: string } };
        if (m.type === 'connection_init') ws.send('{"type":"connection_ack"}');
        if (m.type === 'subscribe') {
          for (const n of [2, 1]) ws.send(JSON.stringify({ type: 'next', id: m.id, payload: { data: { countdown: n } } }));
          ws.send(JSON.stringify({ type: 'complete', id: m.id }));
        }
      });
    },
    (offered) => (offered.has('graphql-transport-ws') ? 'graphql-transport-ws' : false),
  );
  const file = httpFile(`GRAPHQL ${srv.url}/graphql\n\nsubscription Count { countdown(from: 2) }\n`);
  const r = await runSling(['exec', '--print=b', file]);
  assertExit(r, 0);
  const subscribe = JSON.parse(srv.got[1]!) as { type: string; payload: { query: string; operationName: string } };
  assert.equal(subscribe.type, 'subscribe');
  assert.equal(subscribe.payload.query, 'subscription Count { countdown(from: 2) }');
  assert.match(r.stdout, /\{"data":\{"countdown":2\}\}\n<< received [\d:.]+\n\{"data":\{"countdown":1\}\}\n-- closed by the server \(complete\)\n$/, show(r));
});

/** A gRPC server (@grpc/grpc-js) for echo.proto on 127.0.0.1, with reflection when asked; `seen` keeps each call's metadata. */
async function grpcServer(t: TestContext, reflection: boolean) {
  const def = protoLoader.loadSync(PROTO);
  const pkg = grpc.loadPackageDefinition(def) as unknown as { echo: { Echo: grpc.ServiceClientConstructor } };
  const server = new grpc.Server();
  const seen: { method: string; metadata: Record<string, unknown> }[] = [];
  const note = (method: string, md: grpc.Metadata) => seen.push({ method, metadata: md.getMap() });
  server.addService(pkg.echo.Echo.service, {
    Say(call: grpc.ServerUnaryCall<{ text: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
      note('Say', call.metadata);
      if (call.request.text === 'missing') cb({ code: grpc.status.NOT_FOUND, details: 'no such wörd' });
      else cb(null, { text: `said ${call.request.text}` });
    },
    Spell(call: grpc.ServerWritableStream<{ text: string }, unknown>) {
      note('Spell', call.metadata);
      for (const c of call.request.text) call.write({ text: c });
      call.end();
    },
    Gather(call: grpc.ServerReadableStream<{ text: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
      note('Gather', call.metadata);
      const texts: string[] = [];
      call.on('data', (w: { text: string }) => texts.push(w.text));
      call.on('end', () => cb(null, { texts, count: texts.length }));
    },
    Chat(call: grpc.ServerDuplexStream<{ text: string }, unknown>) {
      note('Chat', call.metadata);
      call.on('data', (w: { text: string }) => call.write({ text: `re: ${w.text}` }));
      call.on('end', () => call.end());
    },
  });
  if (reflection) {
    const { ReflectionService } = await import('@grpc/reflection');
    new ReflectionService(def).addToServer(server);
  }
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  t.after(() => new Promise<void>((r) => server.tryShutdown(() => r())));
  return { port, seen };
}

test('exec: a unary gRPC call described by a proto file sends its metadata and prints the answer and status OK', async (t) => {
  const srv = await grpcServer(t, false);
  const dir = mkdtempSync(join(tmpdir(), 'sling-grpc-'));
  copyFileSync(PROTO, join(dir, 'echo.proto'));
  writeFileSync(join(dir, 't.http'), `proto < ./echo.proto\n\nGRPC 127.0.0.1:${srv.port}/echo.Echo/Say\nx-user: ada\n\n{"text": "hi"}\n`);
  const r = await runSling(['exec', '--print=b', join(dir, 't.http')]);
  assertExit(r, 0);
  assert.equal(srv.seen[0]!.method, 'Say');
  assert.equal(srv.seen[0]!.metadata['x-user'], 'ada');
  assert.match(
    r.stdout,
    /^### GRPC grpc:\/\/127\.0\.0\.1:\d+\/echo\.Echo\/Say {2}\(line 3\)\n>> sent [\d:.]+\n\{"text": "hi"\}\n<< received [\d:.]+\n\{"text":"said hi"\}\n-- closed by the server \(0 OK\)\n$/,
    show(r),
  );
});

test('exec: gRPC by server reflection: server-streaming, client-streaming and bidirectional calls', async (t) => {
  const srv = await grpcServer(t, true);
  const base = `127.0.0.1:${srv.port}/echo.Echo`;
  const file = httpFile(
    `GRPC ${base}/Spell\n\n{"text": "abc"}\n\n###\nGRPC ${base}/Gather\n\n{"text": "x"}\n===\n{"text": "y"}\n\n###\nGRPC ${base}/Chat\n\n{"text": "one"}\n=== wait-for-server\n{"text": "two"}\n`,
  );
  const r = await runSling(['exec', '--print=b', file]);
  assertExit(r, 0);
  const out = r.stdout.replace(/\d\d:\d\d:\d\d\.\d{3}/g, 'T');
  assert.match(out, /<< received T\n\{"text":"a"\}\n<< received T\n\{"text":"b"\}\n<< received T\n\{"text":"c"\}\n-- closed by the server \(0 OK\)/, show(r));
  assert.match(out, /\{"texts":\["x","y"\],"count":2\}/, show(r));
  assert.match(out, />> sent T\n\{"text": "one"\}\n<< received T\n\{"text":"re: one"\}\n>> sent T\n\{"text": "two"\}\n<< received T\n\{"text":"re: two"\}\n-- closed by the server \(0 OK\)/, show(r));
});

test('exec: a gRPC status other than OK fails the request with the exit code of its HTTP kind (NOT_FOUND: exit 4)', async (t) => {
  const srv = await grpcServer(t, true);
  const file = httpFile(`GRPC 127.0.0.1:${srv.port}/echo.Echo/Say\n\n{"text": "missing"}\n`);
  const r = await runSling(['exec', '--print=b', file]);
  assertError(r, 4, /t\.http:1: .*NOT_FOUND: no such wörd/);
  assert.match(r.stdout, /-- closed by the server \(5 NOT_FOUND: no such wörd\)\n$/, show(r));
});

test('exec: a gRPC request for a method the service does not have names what it has, and sends nothing more', async (t) => {
  const srv = await grpcServer(t, true);
  const file = httpFile(`GRPC 127.0.0.1:${srv.port}/echo.Echo/Shout\n\n{"text": "x"}\n`);
  const r = await runSling(['exec', file]);
  assertError(r, 1, /Shout[\s\S]*Say/);
  assert.equal(srv.seen.length, 0);
});

test('exec: a gRPC call goes through --proxy in a CONNECT tunnel, as every request does', async (t) => {
  const srv = await grpcServer(t, true);
  const proxy = await proxyServer(t);
  const file = httpFile(`GRPC 127.0.0.1:${srv.port}/echo.Echo/Say\n\n{"text": "via"}\n`);
  const r = await runSling(['exec', '--print=b', '--proxy', proxy.url, file]);
  assertExit(r, 0);
  assert.match(r.stdout, /<< received [\d:.]+\n\{"text":"said via"\}\n-- closed by the server \(0 OK\)\n$/, show(r));
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`], 'the reflection and the call, on one tunnel');
  assert.deepEqual(
    srv.seen.map((c) => c.method),
    ['Say'],
  );
});

test('exec: wss:// and grpcs:// take the TLS settings of every request (--verify with a CA, --resolve to the server)', { skip: makeCerts() ? undefined : certsUnavailableReason() }, async (t) => {
  const c = makeCerts()!;
  const tls = { key: readFileSync(c.serverKey), cert: readFileSync(c.serverCert) };
  // A wss:// echo server.
  const https = createHttpsServer(tls);
  const wss = new WebSocketServer({ server: https });
  wss.on('connection', (ws) => ws.on('message', (d) => ws.send(`echo ${String(d)}`)));
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const client of wss.clients) client.terminate();
    https.closeAllConnections();
    return new Promise<void>((r) => https.close(() => r()));
  });
  const wsPort = (https.address() as AddressInfo).port;
  // A grpcs:// server.
  const def = protoLoader.loadSync(PROTO);
  const pkg = grpc.loadPackageDefinition(def) as unknown as { echo: { Echo: grpc.ServiceClientConstructor } };
  const server = new grpc.Server();
  server.addService(pkg.echo.Echo.service, {
    Say: (call: grpc.ServerUnaryCall<{ text: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => cb(null, { text: `secure ${call.request.text}` }),
  });
  const { ReflectionService } = await import('@grpc/reflection');
  new ReflectionService(def).addToServer(server);
  const grpcPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createSsl(null, [{ private_key: tls.key, cert_chain: tls.cert }]), (e, p) => (e ? reject(e) : resolve(p))),
  );
  t.after(() => new Promise<void>((r) => server.tryShutdown(() => r())));
  // sling.test is a name the test certificate holds; --resolve sends it to 127.0.0.1.
  const file = httpFile(`# @timeout 2000 ms\nWSS wss://sling.test:${wsPort}/\n\nhi\n\n###\nGRPC grpcs://sling.test:${grpcPort}/echo.Echo/Say\n\n{"text": "x"}\n`);
  const resolve = ['--resolve', `sling.test:${wsPort}:127.0.0.1`, '--resolve', `sling.test:${grpcPort}:127.0.0.1`];
  const r = await runSling(['exec', '--print=b', `--verify=${c.caCert}`, ...resolve, file]);
  assertExit(r, 0);
  assert.match(r.stdout, /<< received [\d:.]+\necho hi\n/, show(r));
  assert.match(r.stdout, /<< received [\d:.]+\n\{"text":"secure x"\}\n-- closed by the server \(0 OK\)\n$/, show(r));
  // Without the CA, neither is trusted: a TLS failure, exit 6, for each.
  const untrusted = await runSling(['exec', ...resolve, file]);
  assertExit(untrusted, 6);
  assert.equal((untrusted.stderr.match(/^sling: error: /gm) ?? []).length, 2, show(untrusted));
});

test('exec: Ctrl-C during a WebSocket session exits 130 and keeps what was printed', async (t) => {
  const srv = await wsServer(t, (ws) => ws.send('first'));
  const file = httpFile(`WEBSOCKET ${srv.url}/held\n`);
  const { code, out, err } = await runWatching(['exec', '--print=b', file], (soFar, child) => {
    if (soFar.includes('first\n')) child.kill('SIGINT');
  });
  assert.equal(code, 130, err);
  assert.match(out, /<< received [\d:.]+\nfirst\n/);
  assert.match(err, /interrupted/);
});
