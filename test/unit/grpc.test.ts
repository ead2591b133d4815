// sling's gRPC client (transport/grpc.ts) against @grpc/grpc-js servers on 127.0.0.1: the four kinds
// of call, metadata, statuses, TLS, --resolve, server reflection, and what fails before anything is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CliError, NetworkError, UsageError } from '../../src/errors.js';
import { parseUrl } from '../../src/model/url.js';
import { grpcCall, type GrpcCallOptions, type GrpcDescriptionSource } from '../../src/transport/grpc.js';
import { GRPC_FIXTURES, SHOP_INCLUDE, SHOP_PROTO, grpcSettings, messages, shopServer } from '../helpers/grpc.js';
import { certsUnavailableReason, makeCerts } from '../helpers/servers.js';

const fromProto: GrpcDescriptionSource = { proto: { file: SHOP_PROTO, includeDirs: [SHOP_INCLUDE], options: {} } };

function options(over: Partial<GrpcCallOptions> & { got?: string[] } = {}): GrpcCallOptions & { got: string[] } {
  const got = over.got ?? [];
  return { settings: grpcSettings(), env: {}, metadata: [], outgoing: messages(), onMessage: (m) => got.push(m), maxMessage: 1 << 20, readFile: (p) => readFileSync(p), ...over, got };
}

const target = (port: number, path: string, scheme = 'http', host = '127.0.0.1') => ({ url: parseUrl(`${scheme}://${host}:${port}/`), path });

test('gRPC unary call: the JSON message goes as protobuf, the answer comes back as proto3 JSON', async (t) => {
  const srv = await shopServer(t);
  const heads: string[] = [];
  const o = options({ outgoing: messages('{"id": 7}'), onHeaders: (h) => heads.push(`${h.status} ${h.rawHeaders[h.rawHeaders.indexOf('content-type') + 1]}`) });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, o);
  assert.deepEqual(heads, ['200 application/grpc+proto']);
  assert.equal(out.kind, 'unary');
  assert.equal(out.status, 0);
  assert.equal(out.statusName, 'OK');
  assert.deepEqual(
    o.got.map((m) => JSON.parse(m)),
    [{ id: 7, itemName: 'Lamp', price: { currency: 'EUR', cents: '1999' }, stock: '9007199254740993', added: '2023-11-14T22:13:20Z', kind: 'LAMP', maker: 'Acme' }],
  );
  assert.equal(out.response.status, 200);
  assert.equal(out.request.method, 'POST');
  assert.equal(out.request.target, '/test.shop.Shop/GetItem');
  assert.ok(out.request.headers.some(([n, v]) => n === 'content-type' && v === 'application/grpc'));
});

test('gRPC server-streaming call: each message is handed over as it arrives', async (t) => {
  const srv = await shopServer(t);
  const o = options({ outgoing: messages('{"count": 3, "namePrefix": "n"}') });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/ListItems'), fromProto, o);
  assert.equal(out.kind, 'server-streaming');
  assert.equal(out.status, 0);
  assert.deepEqual(o.got, ['{"id":1,"itemName":"n1"}', '{"id":2,"itemName":"n2"}', '{"id":3,"itemName":"n3"}']);
});

test('gRPC client-streaming call: every message goes, the end of them half-closes, one answer comes', async (t) => {
  const srv = await shopServer(t);
  const o = options({ outgoing: messages('{"price": {"cents": "100"}}', '{"price": {"cents": 250}}', '{}') });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/AddItems'), fromProto, o);
  assert.equal(out.kind, 'client-streaming');
  assert.equal(out.status, 0);
  assert.deepEqual(o.got, ['{"items":3,"totalCents":"350"}']);
});

test('gRPC bidi call: outgoing messages interleave with the answers, the call open in between', async (t) => {
  const srv = await shopServer(t);
  const log: string[] = [];
  let wake: (() => void) | undefined;
  const o = options({
    onMessage: (m) => {
      log.push(`got ${JSON.parse(m).text}`);
      wake?.();
    },
    outgoing: (async function* () {
      for (const text of ['a', 'b', 'c']) {
        const answered = new Promise<void>((r) => (wake = r));
        log.push(`sent ${text}`);
        yield JSON.stringify({ text });
        await answered;
      }
    })(),
  });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/Chat'), fromProto, o);
  assert.equal(out.kind, 'bidi');
  assert.equal(out.status, 0);
  assert.deepEqual(log, ['sent a', 'got echo: a', 'sent b', 'got echo: b', 'sent c', 'got echo: c']);
});

test('gRPC metadata arrives at the server: text values as they are, -bin values decoded from base64', async (t) => {
  const srv = await shopServer(t);
  const o = options({
    outgoing: messages('{"id": 1}'),
    metadata: [
      ['authorization', 'Bearer t0k'],
      ['x-trace-bin', Buffer.from([0, 1, 255]).toString('base64')],
      ['x-many', 'a'],
      ['x-many', 'b'],
    ],
  });
  await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, o);
  const md = srv.calls[0]!.metadata;
  assert.deepEqual(md.get('authorization'), ['Bearer t0k']);
  assert.deepEqual(md.get('x-trace-bin'), [Buffer.from([0, 1, 255])]);
  // Repeated names arrive joined, as HTTP/2 headers do (gRPC allows either).
  assert.equal(md.get('x-many').join(', '), 'a, b');
  assert.match(String(md.get('user-agent')[0]), /^sling\//);
});

test('gRPC metadata that sling sets itself or that is not base64 under a -bin name is refused before anything is sent', async (t) => {
  const srv = await shopServer(t);
  for (const [md, pattern] of [
    [[['te', 'x']], /the header 'te' cannot be gRPC metadata/],
    [[['x-b-bin', 'not base64!']], /metadata 'x-b-bin' must be base64/],
    [[['x-a', 'one\r\ntwo']], /holds a line break/],
  ] as [[string, string][], RegExp][]) {
    await assert.rejects(
      grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, options({ outgoing: messages('{"id": 1}'), metadata: md })),
      (e: unknown) => e instanceof UsageError && pattern.test((e as Error).message),
    );
  }
  assert.equal(srv.calls.length, 0);
});

test('a non-OK gRPC status is an outcome, not a failure: its code, name and percent-decoded message', async (t) => {
  const srv = await shopServer(t);
  const o = options({ outgoing: messages('{"id": 404}') });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, o);
  assert.equal(out.status, 5);
  assert.equal(out.statusName, 'NOT_FOUND');
  assert.equal(out.message, 'no such item: café');
  assert.deepEqual(o.got, []);
});

test('a JSON message that does not fit the input type fails before anything is sent, naming the field', async (t) => {
  const srv = await shopServer(t);
  const cases: [string, RegExp][] = [
    ['{"id": "seven"}', /the request message does not fit test\.shop\.ItemRequest: test\.shop\.ItemRequest\.id: .*"seven"/],
    ['{"idd": 1}', /does not fit test\.shop\.ItemRequest: .*unknown field.*"idd"/],
    ['{"id": 1', /the request message is not JSON/],
  ];
  for (const [json, pattern] of cases) {
    await assert.rejects(grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, options({ outgoing: messages(json) })), (e: unknown) => {
      assert.ok(e instanceof UsageError, String(e));
      assert.match((e as Error).message, pattern);
      assert.doesNotMatch((e as Error).message, /\n/);
      return true;
    });
  }
  assert.equal(srv.calls.length, 0);
});

test('an unknown gRPC service or method names what the proto file offers', async (t) => {
  const srv = await shopServer(t);
  await assert.rejects(
    grpcCall(target(srv.port, '/test.shop.Shop/Nope'), fromProto, options({ outgoing: messages('{}') })),
    (e: unknown) => e instanceof UsageError && (e as Error).message === "no method 'Nope' in service 'test.shop.Shop' (it has: GetItem, ListItems, AddItems, Chat)",
  );
  await assert.rejects(
    grpcCall(target(srv.port, '/test.Shop/GetItem'), fromProto, options({ outgoing: messages('{}') })),
    (e: unknown) => e instanceof UsageError && /^no service 'test\.Shop' in '.*shop\.proto' \(it has: test\.shop\.Shop\)$/.test((e as Error).message),
  );
  assert.equal(srv.calls.length, 0);
});

test('proto imports resolve against the include folders, read only through readFile; well-known types are the bundled ones', async (t) => {
  const srv = await shopServer(t);
  const read: string[] = [];
  const o = options({ outgoing: messages('{"id": 1}'), readFile: (p) => (read.push(p), readFileSync(p)) });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), { proto: { file: SHOP_PROTO, includeDirs: [join(GRPC_FIXTURES, 'nowhere'), SHOP_INCLUDE], options: {} } }, o);
  assert.equal(out.status, 0);
  assert.ok(read.includes(SHOP_PROTO) && read.includes(join(SHOP_INCLUDE, 'shop', 'money.proto')), read.join(' '));
  assert.ok(!read.some((p) => p.includes('google')), read.join(' '));
  assert.ok(
    read.every((p) => p.startsWith(GRPC_FIXTURES)),
    read.join(' '),
  );
});

test('an import in an include folder is taken before one beside the importing file, as proto-loader does', async () => {
  const { closedPort } = await import('../helpers/servers.js');
  const port = await closedPort();
  const dir = join(GRPC_FIXTURES, 'order');
  const call = (json: string, includeDirs: string[]) =>
    grpcCall(target(port, '/test.order.S/M'), { proto: { file: join(dir, 'main.proto'), includeDirs, options: {} } }, options({ outgoing: messages(json) }));
  // The message fits (the call goes on, to nobody): the included Dep; then, without the folder, the one beside.
  await assert.rejects(call('{"included": "x"}', [join(dir, 'inc')]), (e: unknown) => e instanceof NetworkError && /connection refused/.test((e as Error).message));
  await assert.rejects(call('{"included": "x"}', []), (e: unknown) => e instanceof UsageError && /unknown field.*"included"/.test((e as Error).message));
  await assert.rejects(call('{"beside": "x"}', []), (e: unknown) => e instanceof NetworkError);
});

test('a proto file that cannot be read or parsed, or an import found nowhere, is one line naming the file', async () => {
  const at = (file: string, includeDirs: string[] = []) => grpcCall(target(1, '/a.B/C'), { proto: { file, includeDirs, options: {} } }, options());
  await assert.rejects(at(join(GRPC_FIXTURES, 'missing.proto')), (e: unknown) => e instanceof UsageError && /^cannot read the proto file '.*missing\.proto': no such file$/.test((e as Error).message));
  await assert.rejects(
    at(join(GRPC_FIXTURES, 'broken.proto')),
    (e: unknown) => e instanceof UsageError && /^the proto file '.*broken\.proto', line 7: illegal token 'string'/.test((e as Error).message),
  );
  await assert.rejects(at(SHOP_PROTO), (e: unknown) => e instanceof UsageError && /imports 'shop\/money\.proto', which is neither in an include folder nor beside it/.test((e as Error).message));
});

test('proto-loader options: keepCase gives the .proto field names, defaults writes fields left at their default', async (t) => {
  const srv = await shopServer(t);
  const o = options({ outgoing: messages('{"count": 1, "name_prefix": "k"}') });
  await grpcCall(target(srv.port, '/test.shop.Shop/ListItems'), { proto: { file: SHOP_PROTO, includeDirs: [SHOP_INCLUDE], options: { keepCase: 'true', defaults: true } } }, o);
  assert.deepEqual(JSON.parse(o.got[0]!), { id: 1, item_name: 'k1', stock: '0', on_sale: false, kind: 'KIND_UNSPECIFIED' });
});

test('proto-loader options: longs and enums as numbers, oneofs naming the field that is set', async (t) => {
  const srv = await shopServer(t);
  const o = options({ outgoing: messages('{"id": 7}') });
  await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), { proto: { file: SHOP_PROTO, includeDirs: [SHOP_INCLUDE], options: { longs: Number, enums: 'Number', oneofs: 'true' } } }, o);
  assert.deepEqual(JSON.parse(o.got[0]!), {
    id: 7,
    itemName: 'Lamp',
    price: { currency: 'EUR', cents: 1999 },
    stock: 9007199254740992, // a JSON number cannot hold 9007199254740993: why the proto3 mapping has strings
    added: '2023-11-14T22:13:20Z',
    kind: 1,
    maker: 'Acme',
    origin: 'maker',
  });
});

test('gRPC server reflection (v1) describes the method when no proto file is given, and a proto file works against it too', async (t) => {
  const srv = await shopServer(t, { reflection: true });
  const o = options({ outgoing: messages('{"id": 3}') });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), {}, o);
  assert.equal(out.status, 0);
  assert.equal(JSON.parse(o.got[0]!).added, '2023-11-14T22:13:20Z');
  // The description is kept for the run: a second call asks the server nothing more.
  const o2 = options({ outgoing: messages('{"count": 2}') });
  await grpcCall(target(srv.port, '/test.shop.Shop/ListItems'), {}, o2);
  assert.equal(o2.got.length, 2);
  const o3 = options({ outgoing: messages('{"id": 3}') });
  assert.equal((await grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, o3)).status, 0);
  assert.deepEqual(o3.got, o.got);
  await assert.rejects(
    grpcCall(target(srv.port, '/test.shop.Shop/Nope'), {}, options({ outgoing: messages('{}') })),
    (e: unknown) => e instanceof UsageError && (e as Error).message === "no method 'Nope' in service 'test.shop.Shop' (it has: GetItem, ListItems, AddItems, Chat)",
  );
  await assert.rejects(
    grpcCall(target(srv.port, '/test.Other/GetItem'), {}, options({ outgoing: messages('{}') })),
    (e: unknown) => e instanceof UsageError && /^no service 'test\.Other' on 127\.0\.0\.1:\d+ by its reflection \(it has: test\.shop\.Shop\)$/.test((e as Error).message),
  );
});

test('gRPC server reflection falls back to v1alpha when the server has no v1', async (t) => {
  const backend = await shopServer(t, { reflection: true });
  // In front of it, a server that answers v1 reflection with UNIMPLEMENTED and passes the rest on.
  const upstream = http2.connect(`http://127.0.0.1:${backend.port}`);
  upstream.on('error', () => {});
  const paths: string[] = [];
  const front = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  front.on('session', (session) => sessions.add(session.on('error', () => {})));
  front.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    const path = String(headers[':path']);
    paths.push(path);
    if (path.startsWith('/grpc.reflection.v1.')) return stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' }, { endStream: true });
    const up = upstream.request(Object.fromEntries(Object.entries(headers)));
    up.on('error', () => {});
    let trailers: http2.OutgoingHttpHeaders = {};
    up.on('response', (h) => stream.respond(Object.fromEntries(Object.entries(h)), { waitForTrailers: true }));
    up.on('trailers', (h) => (trailers = Object.fromEntries(Object.entries(h).filter(([n]) => !n.startsWith(':'))) as http2.OutgoingHttpHeaders));
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.pipe(up);
    up.pipe(stream);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  t.after(() => {
    upstream.destroy();
    for (const session of sessions) session.destroy();
    front.close();
  });
  const o = options({ outgoing: messages('{"id": 4}') });
  const out = await grpcCall(target((front.address() as AddressInfo).port, '/test.shop.Shop/GetItem'), {}, o);
  assert.equal(out.status, 0);
  assert.equal(JSON.parse(o.got[0]!).id, 4);
  assert.deepEqual(paths.slice(0, 2), ['/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo']);
  assert.equal(paths.at(-1), '/test.shop.Shop/GetItem');
});

test('a server without reflection, asked to describe a method, is one line saying to give the proto file', async (t) => {
  const srv = await shopServer(t);
  await assert.rejects(
    grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), {}, options({ outgoing: messages('{}') })),
    (e: unknown) => e instanceof UsageError && /offers no server reflection .*UNIMPLEMENTED.*give the service's \.proto file/.test((e as Error).message),
  );
});

const certs = makeCerts();
test('gRPC over TLS: with certificate checks off, with the CA, and refused without it', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const srv = await shopServer(t, { tls: true });
  const call = (tls: { verify: boolean | string }) => {
    const o = options({ outgoing: messages('{"id": 2}'), settings: grpcSettings({ tls }) });
    return grpcCall(target(srv.port, '/test.shop.Shop/GetItem', 'https'), fromProto, o).then((out) => ({ out, got: o.got }));
  };
  const off = await call({ verify: false });
  assert.equal(off.out.status, 0);
  assert.match(off.out.info.tlsProtocol ?? '', /^TLS/);
  assert.equal((await call({ verify: certs!.caCert })).out.status, 0);
  await assert.rejects(call({ verify: true }), (e: unknown) => e instanceof NetworkError && /TLS handshake with 127\.0\.0\.1:\d+ failed/.test((e as Error).message));
});

test('gRPC connections go where --resolve sends them, the URL host staying the TLS name', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const srv = await shopServer(t, { tls: true });
  const o = options({ outgoing: messages('{"id": 2}'), settings: grpcSettings({ tls: { verify: certs!.caCert }, resolve: [{ host: 'sling.test', port: srv.port, address: '127.0.0.1' }] }) });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/GetItem', 'https', 'sling.test'), fromProto, o);
  assert.equal(out.status, 0);
  assert.equal(out.info.remoteAddress, '127.0.0.1');
  assert.equal(o.got.length, 1);
});

test('cancelling a gRPC call through its signal resets the stream: status CANCELLED, cancelled by the client', async (t) => {
  const srv = await shopServer(t);
  const stop = new AbortController();
  let release: (() => void) | undefined;
  const got: string[] = [];
  const o = options({
    signal: stop.signal,
    got,
    onMessage: (m) => {
      got.push(m);
      stop.abort();
    },
    outgoing: (async function* () {
      yield '{"text": "a"}';
      // Never half-closed: only the signal ends the call.
      await new Promise<void>((r) => (release = r));
    })(),
  });
  const out = await grpcCall(target(srv.port, '/test.shop.Shop/Chat'), fromProto, o);
  release?.();
  assert.equal(out.status, 1);
  assert.equal(out.statusName, 'CANCELLED');
  assert.equal(out.cancelledByClient, true);
  assert.equal(o.got.length, 1);
  for (let i = 0; i < 200 && !srv.calls[0]?.cancelled; i++) await new Promise((r) => setImmediate(r));
  assert.equal(srv.calls[0]!.cancelled, true, 'the server saw the call cancelled');
});

test('a gRPC connection refused is one network error line', async () => {
  const { closedPort } = await import('../helpers/servers.js');
  const port = await closedPort();
  await assert.rejects(
    grpcCall(target(port, '/test.shop.Shop/GetItem'), fromProto, options({ outgoing: messages('{}') })),
    (e: unknown) => e instanceof CliError && e.exitCode === 6 && /^connection refused by 127\.0\.0\.1:\d+$/.test((e as Error).message),
  );
});

test('a later message of a streaming call that does not fit cancels the call, naming which message', async (t) => {
  const srv = await shopServer(t);
  await assert.rejects(
    grpcCall(target(srv.port, '/test.shop.Shop/AddItems'), fromProto, options({ outgoing: messages('{"id": 1}', '{"id": true}') })),
    (e: unknown) => e instanceof UsageError && /^request message 2 does not fit test\.shop\.Item: test\.shop\.Item\.id: /.test((e as Error).message),
  );
  for (let i = 0; i < 200 && !srv.calls[0]?.cancelled; i++) await new Promise((r) => setImmediate(r));
  assert.equal(srv.calls[0]?.cancelled, true, 'the server saw the call cancelled');
});

test('a unary method given two request messages fails before anything is sent', async (t) => {
  const srv = await shopServer(t);
  await assert.rejects(
    grpcCall(target(srv.port, '/test.shop.Shop/GetItem'), fromProto, options({ outgoing: messages('{"id": 1}', '{"id": 2}') })),
    (e: unknown) => e instanceof UsageError && (e as Error).message === '/test.shop.Shop/GetItem takes one request message (it is a unary method), and 2 were given',
  );
  assert.equal(srv.calls.length, 0);
});

test("a proto file over readFile's limit stops with readFile's own error", async () => {
  const { FileTooLargeError } = await import('../../src/files.js');
  const readFile = (p: string): Buffer => {
    throw new FileTooLargeError(p, 1024, 'a proto file');
  };
  await assert.rejects(
    grpcCall(target(1, '/a.B/C'), { proto: { file: SHOP_PROTO, includeDirs: [], options: {} } }, options({ readFile })),
    (e: unknown) => e instanceof FileTooLargeError && /shop\.proto' is larger than 1024 bytes, the most sling reads of a proto file/.test((e as Error).message),
  );
});
