// Every byte a gRPC server sends is untrusted: raw HTTP/2 servers (node:http2, clear text, on
// 127.0.0.1) that answer with a message over the limit, a message cut short, a 404, an HTML page,
// nothing at all, a status in the headers alone, and compressed messages.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { gzipSync, deflateSync } from 'node:zlib';
import { NetworkError, TimeoutError } from '../../src/errors.js';
import { parseUrl } from '../../src/model/url.js';
import { grpcCall, type GrpcCallOptions } from '../../src/transport/grpc.js';
import { SHOP_INCLUDE, SHOP_PROTO, grpcSettings, messages } from '../helpers/grpc.js';

const fromProto = { proto: { file: SHOP_PROTO, includeDirs: [SHOP_INCLUDE], options: {} } };

/** A Line message `{text}` in protobuf: field 1, length-delimited. */
const line = (text: string) => Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(text)]), Buffer.from(text)]);
function framed(data: Buffer, flag = 0): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(data.length, 1);
  return Buffer.concat([head, data]);
}

interface Seen {
  resets: number[];
}

async function rawServer(t: TestContext, onStream: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = { resets: [] };
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('error', () => {});
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    stream.on('close', () => seen.resets.push(stream.rstCode));
    onStream(stream, headers);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sessions) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { port: (server.address() as AddressInfo).port, seen };
}

function options(over: Partial<GrpcCallOptions> = {}): GrpcCallOptions & { got: string[] } {
  const got: string[] = [];
  return { settings: grpcSettings(), env: {}, metadata: [], outgoing: messages('{"text": "hi"}'), onMessage: (m) => got.push(m), maxMessage: 1000, readFile: (p) => readFileSync(p), ...over, got };
}

const chat = (port: number) => ({ url: parseUrl(`http://127.0.0.1:${port}/`), path: '/test.shop.Shop/Chat' });
const grpcHead = { ':status': 200, 'content-type': 'application/grpc' };

const networkError = (pattern: RegExp) => (e: unknown) => {
  assert.ok(e instanceof NetworkError, String(e));
  assert.equal(e.exitCode, 6);
  assert.match(e.message, pattern);
  assert.doesNotMatch(e.message, /\n/);
  return true;
};

test('a gRPC message whose length is over maxMessage fails the call at its prefix, and the stream is reset with CANCEL', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond(grpcHead);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(5_000_000, 1);
    // The prefix alone: a client that waited for the 5 MB would hang here.
    stream.write(head);
  });
  await assert.rejects(grpcCall(chat(srv.port), fromProto, options()), networkError(/^127\.0\.0\.1:\d+ sent a gRPC message of 5000000 bytes, over the limit of 1000 bytes$/));
  for (let i = 0; i < 200 && !srv.seen.resets.length; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(srv.seen.resets, [http2.constants.NGHTTP2_CANCEL]);
});

test('a gRPC response that ends in the middle of a message is an error, even with an OK status after it', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond(grpcHead, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(framed(line('complete')).subarray(0, 8));
  });
  await assert.rejects(grpcCall(chat(srv.port), fromProto, options()), networkError(/ended the gRPC response in the middle of a message \(3 of its 10 bytes came\)/));
});

test('an HTTP 404 to a gRPC call is a network error naming the status, not an outcome', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond({ ':status': 404, 'content-type': 'text/plain' });
    stream.end('not found');
  });
  await assert.rejects(grpcCall(chat(srv.port), fromProto, options()), networkError(/answered the gRPC call \/test\.shop\.Shop\/Chat with HTTP 404 and content-type 'text\/plain': not a gRPC answer/));
});

test('an HTML page with 200 to a gRPC call is a network error naming its content-type', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond({ ':status': 200, 'content-type': 'text/html; charset=utf-8' });
    stream.end('<html><body>hello</body></html>');
  });
  await assert.rejects(grpcCall(chat(srv.port), fromProto, options()), networkError(/with HTTP 200 and content-type 'text\/html; charset=utf-8': not a gRPC answer/));
});

test('a gRPC server that never answers is given up on after the timeout', async (t) => {
  const srv = await rawServer(t, () => {});
  await assert.rejects(
    grpcCall(chat(srv.port), fromProto, options({ settings: grpcSettings({ timeoutMs: 200 }) })),
    (e: unknown) => e instanceof TimeoutError && /^no answer from 127\.0\.0\.1:\d+ within 0\.2s \(--timeout\)$/.test((e as Error).message),
  );
});

test('a trailers-only gRPC answer (the status in the headers) is an outcome', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond({ ...grpcHead, 'grpc-status': '7', 'grpc-message': 'not for you %E2%9C%8B' }, { endStream: true });
  });
  const o = options();
  const out = await grpcCall(chat(srv.port), fromProto, o);
  assert.equal(out.status, 7);
  assert.equal(out.statusName, 'PERMISSION_DENIED');
  assert.equal(out.message, 'not for you ✋');
  assert.deepEqual(o.got, []);
});

test('compressed gRPC messages (flag 1) are decoded under grpc-encoding gzip and deflate; another encoding fails clearly', async (t) => {
  for (const [encoding, pack] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
  ] as const) {
    const srv = await rawServer(t, (stream) => {
      stream.respond({ ...grpcHead, 'grpc-encoding': encoding }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.concat([framed(pack(line('packed')), 1), framed(line('plain'))]));
    });
    const o = options();
    const out = await grpcCall(chat(srv.port), fromProto, o);
    assert.equal(out.status, 0, encoding);
    assert.deepEqual(o.got, ['{"text":"packed"}', '{"text":"plain"}'], encoding);
  }
  const odd = await rawServer(t, (stream) => {
    stream.respond({ ...grpcHead, 'grpc-encoding': 'snappy' });
    stream.end(framed(line('x'), 1));
  });
  await assert.rejects(grpcCall(chat(odd.port), fromProto, options()), networkError(/compressed with 'snappy', which sling cannot decode \(it accepts gzip and deflate\)/));
  // Small on the wire, over the limit once decompressed.
  const bomb = await rawServer(t, (stream) => {
    stream.respond({ ...grpcHead, 'grpc-encoding': 'gzip' });
    stream.end(framed(gzipSync(line('z'.repeat(120)).fill(0x7a, 2)), 1));
  });
  await assert.rejects(grpcCall(chat(bomb.port), fromProto, options({ maxMessage: 100 })), networkError(/over the limit of 100 bytes once decompressed/));
});

test('a gRPC response message that is not the output type is a network error naming it', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond(grpcHead);
    stream.end(framed(Buffer.from([0x0a, 0x20, 0x41])));
  });
  await assert.rejects(grpcCall(chat(srv.port), fromProto, options()), networkError(/sent response message 1, which is not a test\.shop\.Line: /));
});

test('a gRPC response that ends without a grpc-status is an error', async (t) => {
  const srv = await rawServer(t, (stream) => {
    stream.respond(grpcHead);
    stream.end(framed(line('orphan')));
  });
  await assert.rejects(grpcCall(chat(srv.port), fromProto, options()), networkError(/ended the gRPC call \/test\.shop\.Shop\/Chat without a grpc-status/));
});
