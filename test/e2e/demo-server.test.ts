// The demo server (demo/server.mjs) speaks what a .http file can hold besides HTTP/1.1 requests:
// server-sent events, WebSocket (an echo and GraphQL subscriptions) and gRPC with server
// reflection, all on its one port. Each is checked here with a client that is not sling's own:
// `ws`, @grpc/grpc-js with @grpc/proto-loader, protobufjs for the reflection's descriptors, and
// Node's own http, http2 and net.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor.js';
import { REPO_ROOT } from '../helpers/cli.js';

const SERVER = pathToFileURL(join(REPO_ROOT, 'demo', 'server.mjs')).href;
const PROTO = join(REPO_ROOT, 'demo', 'demo.proto');
const MiB = 1024 * 1024;

interface Demo {
  port: number;
  url: string;
  close: () => Promise<void>;
  stats: { requests: number; noRoute: number; last: { method: string; path: string; status: number } | null };
}

async function demo(t: import('node:test').TestContext): Promise<Demo> {
  const { startDemoServer } = (await import(SERVER)) as { startDemoServer: () => Promise<Demo> };
  const srv = await startDemoServer();
  t.after(() => srv.close());
  return srv;
}

function get(url: string, headers: http.OutgoingHttpHeaders = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

/** Writes `parts` on a raw connection, one after another (each after the last was written), and reads until the server ends. */
function raw(port: number, parts: (string | Buffer)[], gapMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (out += c));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    const next = (i: number) => {
      if (i === parts.length) return;
      socket.write(parts[i]!, () => setTimeout(() => next(i + 1), gapMs));
    };
    socket.on('connect', () => next(0));
  });
}

// ------------------------------------------------------------------ server-sent events --

test('demo server: /events sends N "tick" events with ids 1..N and data {"n": i}, then ends; count and interval are bounded', async (t) => {
  const srv = await demo(t);
  const r = await get(`${srv.url}/events?count=4&interval=5`);
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/event-stream');
  assert.equal(r.body, [1, 2, 3, 4].map((n) => `event: tick\nid: ${n}\ndata: {"n": ${n}}\n\n`).join(''));
  const byDefault = await get(`${srv.url}/events?interval=0`);
  assert.equal(byDefault.body.match(/^event: tick$/gm)?.length, 3);
  for (const query of ['count=101', 'count=x', 'interval=2001', 'interval=-1']) {
    const bad = await get(`${srv.url}/events?${query}`);
    assert.equal(bad.status, 400, query);
    assert.match(JSON.parse(bad.body).error, /from 0 to/);
  }
  assert.equal(srv.stats.noRoute, 0);
});

// --------------------------------------------------------------------------- WebSocket --

/** The messages a WebSocket receives, in order: `next()` waits for the next one. */
function inbox(ws: WebSocket) {
  const queue: { data: Buffer; binary: boolean }[] = [];
  const waiting: ((m: { data: Buffer; binary: boolean }) => void)[] = [];
  ws.on('message', (data: Buffer, binary: boolean) => {
    const m = { data, binary };
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })));
  return {
    next: () => new Promise<{ data: Buffer; binary: boolean }>((resolve) => (queue.length ? resolve(queue.shift()!) : waiting.push(resolve))),
    json: async () => JSON.parse((await new Promise<{ data: Buffer }>((resolve) => (queue.length ? resolve(queue.shift()!) : waiting.push(resolve)))).data.toString()),
    closed,
  };
}

/** An open WebSocket and its inbox, which listens from the start (a greeting can come with the 101 answer). */
function open(url: string, protocols?: string | string[]): Promise<{ ws: WebSocket; box: ReturnType<typeof inbox> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { perMessageDeflate: false });
    const box = inbox(ws);
    ws.once('open', () => resolve({ ws, box }));
    ws.once('error', reject);
  });
}

test('demo server: /ws echoes text and binary as they came, fragmented messages whole, ping with pong, and the close code', async (t) => {
  const srv = await demo(t);
  const { ws, box } = await open(`ws://127.0.0.1:${srv.port}/ws?greet=1`);
  assert.deepEqual(await box.json(), { hello: 'sling' });

  ws.send('héllo ✓');
  let m = await box.next();
  assert.equal(m.binary, false);
  assert.equal(m.data.toString(), 'héllo ✓');

  ws.send(Buffer.from([0, 1, 2, 255]));
  m = await box.next();
  assert.equal(m.binary, true);
  assert.deepEqual([...m.data], [0, 1, 2, 255]);

  // One text message in three frames, then one binary message in two: each comes back whole.
  ws.send('ab', { fin: false });
  ws.send('cd', { fin: false });
  ws.send('ef', { fin: true });
  m = await box.next();
  assert.deepEqual([m.data.toString(), m.binary], ['abcdef', false]);
  ws.send(Buffer.from([1, 2]), { fin: false, binary: true });
  ws.send(Buffer.from([3]), { fin: true, binary: true });
  m = await box.next();
  assert.deepEqual([[...m.data], m.binary], [[1, 2, 3], true]);

  const pong = new Promise<Buffer>((resolve) => ws.once('pong', resolve));
  ws.ping('p-1');
  assert.equal((await pong).toString(), 'p-1');

  // 1 MiB exactly is still a message.
  ws.send(Buffer.alloc(MiB, 7));
  m = await box.next();
  assert.equal(m.data.length, MiB);

  ws.close(4001, 'bye');
  assert.equal((await box.closed).code, 4001);
  assert.equal(srv.stats.last?.path, '/ws');
  assert.equal(srv.stats.last?.status, 101);
});

test('demo server: a WebSocket message over 1 MiB closes the socket with 1009, in one frame or in fragments', async (t) => {
  const srv = await demo(t);
  const { ws: one, box } = await open(`ws://127.0.0.1:${srv.port}/ws`);
  one.send(Buffer.alloc(MiB + 1));
  assert.equal((await box.closed).code, 1009);

  const { ws: two, box: box2 } = await open(`ws://127.0.0.1:${srv.port}/ws`);
  two.send(Buffer.alloc(MiB), { fin: false, binary: true });
  two.send(Buffer.alloc(1), { fin: true, binary: true });
  assert.equal((await box2.closed).code, 1009);
});

test('demo server: /ws and /graphql without Upgrade: websocket answer 426 with a JSON error', async (t) => {
  const srv = await demo(t);
  for (const path of ['/ws', '/graphql']) {
    const r = await get(`${srv.url}${path}`);
    assert.equal(r.status, 426);
    assert.equal(r.headers.upgrade, 'websocket');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.match(JSON.parse(r.body).error, /WebSocket/);
  }
});

test('demo server: /graphql speaks graphql-transport-ws: ack, countdown subscription, error for other queries, ping, 4400 on a malformed message', async (t) => {
  const srv = await demo(t);
  const { ws, box } = await open(`ws://127.0.0.1:${srv.port}/graphql`, 'graphql-transport-ws');
  assert.equal(ws.protocol, 'graphql-transport-ws');
  ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  assert.deepEqual(await box.json(), { type: 'connection_ack' });
  ws.send(JSON.stringify({ type: 'ping' }));
  assert.deepEqual(await box.json(), { type: 'pong' });

  ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'subscription { countdown(from: 3) }' } }));
  for (const n of [3, 2, 1, 0]) assert.deepEqual(await box.json(), { id: 'a', type: 'next', payload: { data: { countdown: n } } });
  assert.deepEqual(await box.json(), { id: 'a', type: 'complete' });

  ws.send(JSON.stringify({ id: 'b', type: 'subscribe', payload: { query: '{ hello }' } }));
  assert.deepEqual(await box.json(), { id: 'b', type: 'error', payload: [{ message: 'the demo knows only countdown(from: N)' }] });
  ws.send(JSON.stringify({ id: 'c', type: 'subscribe', payload: { query: 'subscription { countdown(from: 101) }' } }));
  assert.equal((await box.json()).type, 'error');

  ws.send('this is not JSON');
  assert.equal((await box.closed).code, 4400);
});

// -------------------------------------------------------------------------------- gRPC --

// biome-ignore lint/suspicious/noExplicitAny: a client made from a .proto at run time
type Client = any;

function greeter(port: number): Client {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO, { defaults: true })) as Client;
  return new pkg.demo.Greeter(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

const unary = (client: Client, method: string, request: object) =>
  new Promise<{ error: grpc.ServiceError | null; reply: Client }>((resolve) => client[method](request, (error: grpc.ServiceError | null, reply: Client) => resolve({ error, reply })));

test('demo server: gRPC over h2c on the same port: SayHello, Countdown, Sum and Chat, checked with @grpc/grpc-js', async (t) => {
  const srv = await demo(t);
  const client = greeter(srv.port);
  t.after(() => client.close());

  const hello = await unary(client, 'SayHello', { name: 'Ada' });
  assert.equal(hello.error, null);
  assert.deepEqual(hello.reply, { message: 'Hello, Ada' });

  const empty = await unary(client, 'SayHello', { name: '' });
  assert.equal(empty.error?.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(empty.error?.details, 'name is empty');

  const ticks: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const call = client.Countdown({ from: 3 });
    call.on('data', (tick: { n: number }) => ticks.push(tick.n));
    call.on('error', reject);
    call.on('end', resolve);
  });
  assert.deepEqual(ticks, [3, 2, 1, 0]);
  const tooMany = await new Promise<grpc.ServiceError>((resolve) => {
    const call = client.Countdown({ from: 101 });
    call.on('data', () => {});
    call.on('error', resolve);
  });
  assert.equal(tooMany.code, grpc.status.INVALID_ARGUMENT);

  const total = await new Promise<Client>((resolve, reject) => {
    const call = client.Sum((error: grpc.ServiceError | null, reply: Client) => (error ? reject(error) : resolve(reply)));
    for (const value of [1, 2, 3, -10]) call.write({ value });
    call.end();
  });
  assert.deepEqual(total, { sum: -4, count: 4 });

  // Each request is answered before the next is sent: the answers come at once, not at the end.
  const chat = client.Chat();
  const replies: string[] = [];
  const reply = () => new Promise<string>((resolve) => chat.once('data', (r: { message: string }) => resolve(r.message)));
  for (const name of ['Ada', 'Grace']) {
    const next = reply();
    chat.write({ name });
    replies.push(await next);
  }
  const ended = new Promise((resolve) => chat.on('end', resolve));
  chat.end();
  await ended;
  assert.deepEqual(replies, ['Hello, Ada', 'Hello, Grace']);

  const unknown = await new Promise<grpc.ServiceError | null>((resolve) =>
    client.makeUnaryRequest(
      '/demo.Greeter/Nope',
      (x: Buffer) => x,
      (x: Buffer) => x,
      Buffer.alloc(0),
      (e: grpc.ServiceError | null) => resolve(e),
    ),
  );
  assert.equal(unknown?.code, grpc.status.UNIMPLEMENTED);
  assert.equal(srv.stats.noRoute, 1);
  assert.equal(srv.stats.last?.path, '/demo.Greeter/Nope');
});

test('demo server: an empty name in SayHello is answered trailers-only: grpc-status 3 in the one HEADERS frame, no message', async (t) => {
  const srv = await demo(t);
  const session = http2.connect(srv.url);
  t.after(() => session.close());
  const stream = session.request({ ':method': 'POST', ':path': '/demo.Greeter/SayHello', 'content-type': 'application/grpc', te: 'trailers' });
  stream.end(Buffer.from([0, 0, 0, 0, 0])); // one HelloRequest with no field: name ""
  const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
  let data = 0;
  stream.on('data', (c: Buffer) => (data += c.length));
  await new Promise((resolve) => stream.on('close', resolve));
  assert.equal(headers[':status'], 200);
  assert.equal(headers['content-type'], 'application/grpc');
  assert.equal(headers['grpc-status'], '3');
  assert.equal(headers['grpc-message'], 'name is empty');
  assert.equal(data, 0);
});

/** The descriptor of demo.proto as protobufjs reads the file: what reflection must answer. */
async function expectedDescriptor() {
  const set = (await protobuf.load(PROTO)).toDescriptor('proto3');
  return comparable(descriptor.FileDescriptorSet.toObject(set).file[0]);
}

// biome-ignore lint/suspicious/noExplicitAny: descriptor objects as toObject gives them
function comparable(file: any) {
  return {
    name: file.name,
    package: file.package,
    syntax: file.syntax,
    // biome-ignore lint/suspicious/noExplicitAny: descriptor objects
    messages: file.messageType.map((m: any) => ({ name: m.name, fields: m.field.map((f: any) => [f.name, f.number, f.label, f.type]) })),
    // biome-ignore lint/suspicious/noExplicitAny: descriptor objects
    services: file.service.map((s: any) => ({
      name: s.name,
      // biome-ignore lint/suspicious/noExplicitAny: descriptor objects
      methods: s.method.map((m: any) => [m.name, m.inputType, m.outputType, Boolean(m.clientStreaming), Boolean(m.serverStreaming)]),
    })),
  };
}

for (const version of ['v1', 'v1alpha']) {
  test(`demo server: gRPC server reflection (grpc.reflection.${version}) lists demo.Greeter and answers demo.proto's FileDescriptorProto`, async (t) => {
    const srv = await demo(t);
    const proto = join(REPO_ROOT, 'node_modules', '@grpc', 'reflection', 'build', 'proto', 'grpc', 'reflection', version, 'reflection.proto');
    const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(proto, { keepCase: true, oneofs: true })) as Client;
    const client = new pkg.grpc.reflection[version].ServerReflection(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
    t.after(() => client.close());
    const call = client.ServerReflectionInfo();
    const answers: Client[] = [];
    const waiting: ((a: Client) => void)[] = [];
    call.on('data', (a: Client) => (waiting.length ? waiting.shift()!(a) : answers.push(a)));
    const ask = (request: object) => {
      call.write({ host: 'demo', ...request });
      return new Promise<Client>((resolve) => (answers.length ? resolve(answers.shift()) : waiting.push(resolve)));
    };

    const list = await ask({ list_services: '' });
    assert.equal(list.valid_host, 'demo');
    assert.deepEqual(
      list.list_services_response.service.map((s: { name: string }) => s.name),
      ['demo.Greeter'],
    );
    const expected = await expectedDescriptor();
    for (const request of [{ file_containing_symbol: 'demo.Greeter' }, { file_containing_symbol: 'demo.HelloRequest' }, { file_by_filename: 'demo.proto' }]) {
      const a = await ask(request);
      assert.equal(a.message_response, 'file_descriptor_response', JSON.stringify(request));
      const [bytes] = a.file_descriptor_response.file_descriptor_proto as Buffer[];
      const file = descriptor.FileDescriptorProto.toObject(descriptor.FileDescriptorProto.decode(bytes!));
      assert.deepEqual(comparable(file), expected);
      // A client can build its messages from the answer alone.
      const root = protobuf.Root.fromDescriptor(descriptor.FileDescriptorSet.encode({ file: [file] }).finish());
      assert.equal(root.lookupService('demo.Greeter').methods.Chat!.responseStream, true);
    }
    const missing = await ask({ file_containing_symbol: 'demo.Nothing' });
    assert.equal(missing.message_response, 'error_response');
    assert.equal(missing.error_response.error_code, grpc.status.NOT_FOUND);
    const ended = new Promise((resolve) => call.on('status', resolve));
    call.end();
    assert.equal(((await ended) as grpc.StatusObject).code, grpc.status.OK);
  });
}

// ------------------------------------------------------------------------ one port --

test('demo server: plain HTTP/1.1 routes still answer on the port, a first request that trickles in byte by byte too', async (t) => {
  const srv = await demo(t);
  const r = await get(`${srv.url}/get?a=1`);
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.body).args, { a: '1' });
  // "P" is how both "POST" and HTTP/2's "PRI * HTTP/2.0" begin: the server waits for the next byte.
  const slow = await raw(srv.port, ['P', 'O', 'ST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi'], 20);
  assert.match(slow, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(slow, /"data": "hi"/);
});

test('demo server: an h2c upgrade offer is declined: the request, its body too, is answered as HTTP/1.1', async (t) => {
  const srv = await demo(t);
  const out = await raw(srv.port, [
    'POST /post HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}',
  ]);
  assert.match(out, /^HTTP\/1\.1 200 OK\r\n/);
  const body = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
  assert.deepEqual(body.json, { a: 1 });
  assert.equal(body.headers.Upgrade, 'h2c');
  // A WebSocket handshake to a route that is not a WebSocket one is a plain request too.
  const ws = await raw(srv.port, [
    'GET /get HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  ]);
  assert.match(ws, /^HTTP\/1\.1 200 OK\r\n/);
});

test('demo server: HTTP/2 that is not gRPC is answered 505 with a JSON error, counted as no route', async (t) => {
  const srv = await demo(t);
  const session = http2.connect(srv.url);
  t.after(() => session.close());
  const stream = session.request({ ':path': '/get' });
  const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
  let body = '';
  stream.setEncoding('utf8');
  stream.on('data', (c: string) => (body += c));
  await new Promise((resolve) => stream.on('end', resolve));
  assert.equal(headers[':status'], 505);
  assert.match(JSON.parse(body).error, /gRPC only/);
  assert.equal(srv.stats.noRoute, 1);
});

test('demo server: close() ends every kind of connection, and a process that used them all exits by itself', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-demo-close-'));
  try {
    const script = join(dir, 'close.mjs');
    writeFileSync(
      script,
      `import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { startDemoServer } from ${JSON.stringify(SERVER)};
const srv = await startDemoServer();
const opened = [];
// A kept-alive HTTP/1.1 connection, idle after its answer.
const agent = new http.Agent({ keepAlive: true });
opened.push(new Promise((resolve) => http.get(srv.url + '/get', { agent }, (res) => { res.resume(); res.on('end', resolve); })));
// Server-sent events still coming.
opened.push(new Promise((resolve) => http.get(srv.url + '/events?count=100&interval=2000', { agent: false }, (res) => { res.once('data', resolve); res.on('error', () => {}); }).on('error', () => {})));
// A WebSocket, open.
opened.push(new Promise((resolve) => {
  const s = net.connect(srv.port, '127.0.0.1', () => s.write('GET /ws HTTP/1.1\\r\\nHost: x\\r\\nConnection: Upgrade\\r\\nUpgrade: websocket\\r\\nSec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n\\r\\n'));
  s.once('data', resolve);
  s.on('error', () => {});
}));
// An HTTP/2 session with a gRPC countdown running, and a GraphQL countdown running.
const session = http2.connect(srv.url);
session.on('error', () => {});
const call = session.request({ ':method': 'POST', ':path': '/demo.Greeter/Countdown', 'content-type': 'application/grpc' });
call.on('error', () => {});
call.end(Buffer.from([0, 0, 0, 0, 2, 8, 100]));
opened.push(new Promise((resolve) => call.once('data', resolve)));
await Promise.all(opened);
await srv.close();
console.log('closed');
`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    assert.equal(signal, null, `the process did not exit by itself (killed by the 30 s watchdog): ${err}`);
    assert.equal(code, 0, err);
    assert.equal(out, 'closed\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
