// The stream requests of a .http file (WebSocket, server-sent events, gRPC, GraphQL subscriptions):
// how the parser reads their request lines and proto lines, and the spec they are built into
// (sources/http/stream-build.ts): the scheme their connection starts with, the messages to send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseHttp } from '../../src/sources/http/parse.js';
import { parseHttpFile } from '../../src/sources/http/index.js';
import { splitMessages } from '../../src/sources/http/stream-build.js';
import { Conversation } from '../../src/commands/exec/stream-pace.js';
import { rawText } from '../../src/sources/http/template.js';
import { formatUrl } from '../../src/model/url.js';
import type { RequestNode } from '../../src/sources/http/ast.js';
import type { RequestSpec } from '../../src/model/spec.js';
import { curlOutput } from '../../src/commands/exec/curl-output.js';

/** Each request of the file: "line: METHOD URL [kind/KEYWORD]". */
function requests(text: string): string[] {
  const p = parseHttp(text);
  return p.items.map((it) => {
    const r = it as RequestNode;
    return `${r.line}: ${r.method} ${rawText(r.url)}${r.stream ? ` [${r.stream.kind}/${r.stream.keyword}]` : ''}${r.graphql ? ' graphql' : ''}`;
  });
}

/** The specs the file's requests are built into (in a folder of their own, with `files` in it). */
async function specs(text: string, files: Record<string, string> = {}): Promise<{ dir: string; specs: RequestSpec[]; warnings: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'sling-stream-build-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const warnings: string[] = [];
  const script = await parseHttpFile(text, { file: 't.http', dir, cwd: dir, pid: process.pid, env: {}, warn: (m) => warnings.push(m), debug: () => {}, curlOutput });
  const ctx = { offline: true, cwd: dir, warn: (m: string) => warnings.push(m), debug: () => {} };
  const out: RequestSpec[] = [];
  for (const e of script.entries) {
    const built = await e.build(ctx);
    if (built === null) continue;
    out.push(...(Array.isArray(built) ? built : [built]));
  }
  return { dir, specs: out, warnings };
}

const msg = (text: string, waitForServer = false) => ({ text, waitForServer });

test('splitMessages: === and === wait-for-server separate messages; blank lines around a message and empty messages are dropped', () => {
  assert.deepEqual(splitMessages(''), []);
  assert.deepEqual(splitMessages('{"a": 1}'), [msg('{"a": 1}')]);
  assert.deepEqual(splitMessages('one\n===\ntwo\n=== wait-for-server\nthree\n'), [msg('one'), msg('two'), msg('three', true)]);
  // Blanks after the separator and CRLF line ends; lines inside a message keep their blank lines.
  assert.deepEqual(splitMessages('\n\none\r\n\r\nmore\r\n===  \r\n\r\ntwo\r\n===\twait-for-server\t\r\nthree'), [msg('one\n\nmore'), msg('two'), msg('three', true)]);
  // Two separators in a row: no empty message between them; the wait of the last separator counts.
  assert.deepEqual(splitMessages('one\n===\n\n=== wait-for-server\ntwo'), [msg('one'), msg('two', true)]);
  // Only a line that is the separator alone separates: `====`, `=== x` and an indented `===` are text.
  assert.deepEqual(splitMessages('a\n====\n=== x\n ===\nb'), [msg('a\n====\n=== x\n ===\nb')]);
});

test('splitMessages: === wait-for-server repeated waits for as many messages from the server', () => {
  assert.deepEqual(splitMessages('a\n=== wait-for-server\n=== wait-for-server\nb\n=== wait-for-server\nc'), [msg('a'), { text: 'b', waitForServer: true, waitCount: 2 }, msg('c', true)]);
  // A plain === between them adds no wait; blank lines between them change nothing.
  assert.deepEqual(splitMessages('=== wait-for-server\n\n===\n\n=== wait-for-server\n=== wait-for-server\nb'), [{ text: 'b', waitForServer: true, waitCount: 3 }]);
});

test('Conversation: each message to send goes once as many messages came from the server as its separators wait for', async (t) => {
  const talk = new Conversation(60_000, () => {});
  const list = [msg('first'), { text: 'second', waitForServer: true, waitCount: 2 }, msg('third'), msg('fourth', true)];
  const sent: string[] = [];
  t.after(() => talk.close());
  const done = (async () => {
    for await (const text of talk.outgoing(list)) {
      sent.push(text);
      talk.add({ direction: 'sent', text });
    }
  })();
  const settle = () => new Promise((r) => setImmediate(r));
  await settle();
  assert.deepEqual(sent, ['first']);
  talk.add({ direction: 'received', text: 'one' });
  await settle();
  assert.deepEqual(sent, ['first'], 'one message of the two it waits for');
  talk.add({ direction: 'received', text: 'two' });
  await settle();
  assert.deepEqual(sent, ['first', 'second', 'third']);
  talk.add({ direction: 'received', text: 'three' });
  await done;
  assert.deepEqual(sent, ['first', 'second', 'third', 'fourth']);
  talk.close();
});

test('splitMessages (property): messages joined with separators split back to the same list', () => {
  // A message: lines that are not blank at its ends and no line of which is a separator.
  const line = fc.string({ unit: fc.constantFrom('a', 'b', '=', ' ', '{', '}', '"', ':', 'é'), maxLength: 12 }).filter((l) => !/^===[ \t]*(wait-for-server)?[ \t]*$/.test(l));
  const message = fc
    .array(line, { minLength: 1, maxLength: 4 })
    .map((lines) => lines.join('\n'))
    .filter((t) => t.trim() !== '' && t === t.trim());
  fc.assert(
    fc.property(fc.array(fc.record({ text: message, waitForServer: fc.boolean() }), { maxLength: 6 }), fc.constantFrom('\n', '\r\n'), (list, eol) => {
      // The first message has no separator before it, so it never waits.
      const want = list.map((m, i) => ({ text: m.text, waitForServer: i > 0 && m.waitForServer }));
      const text = list.map((m, i) => (i === 0 ? '' : m.waitForServer ? `=== wait-for-server${eol}` : `===${eol}`) + m.text.replace(/\n/g, eol)).join(eol);
      assert.deepEqual(splitMessages(text), want);
    }),
    { numRuns: 300 },
  );
});

test('parse: WEBSOCKET, WS, WSS, SSE, EVENTSOURCE and GRPC lines are stream requests (a WebSocket and SSE open with GET, gRPC with POST)', () => {
  const text = [
    'WEBSOCKET ws://h/a',
    '###',
    'WS ws://h/b',
    '###',
    'WSS wss://h/c',
    '###',
    'SSE http://h/d',
    '###',
    'EVENTSOURCE https://h/e',
    '###',
    'GRPC localhost:50051/helloworld.Greeter/SayHello',
    '###',
    'GRPC grpcs://h:443/a.B/C',
    '###',
    'GET http://h/plain',
  ].join('\n');
  assert.deepEqual(requests(text), [
    '1: GET ws://h/a [websocket/WEBSOCKET]',
    '3: GET ws://h/b [websocket/WS]',
    '5: GET wss://h/c [websocket/WSS]',
    '7: GET http://h/d [sse/SSE]',
    '9: GET https://h/e [sse/EVENTSOURCE]',
    '11: POST localhost:50051/helloworld.Greeter/SayHello [grpc/GRPC]',
    '13: POST grpcs://h:443/a.B/C [grpc/GRPC]',
    '15: GET http://h/plain',
  ]);
  assert.deepEqual(parseHttp(text).warnings, []);
});

test('parse: a stream request after a blank line in a body starts a request; MQTT and AMQP are still skipped with a warning naming the line', () => {
  const text = 'POST http://h/b\n\n{"a": 1}\n\nWS ws://h/s\n\n{"m": 1}\n\nSSE http://h/e\n###\nMQTT mqtt://h:1883\ntopic: t\n\nhello\n###\nAMQP amqp://h\n###\nGET http://h/';
  assert.deepEqual(requests(text), ['1: POST http://h/b', '5: GET ws://h/s [websocket/WS]', '9: GET http://h/e [sse/SSE]', '18: GET http://h/']);
  const p = parseHttp(text);
  assert.deepEqual(
    p.warnings.map((w) => [w.line, w.message]),
    [
      [11, 'MQTT requests (httpyac) are not supported: skipped'],
      [16, 'AMQP requests (httpyac) are not supported: skipped'],
    ],
  );
  // The WebSocket's body is its message, not the POST's.
  const post = p.items[0] as RequestNode;
  assert.deepEqual(
    post.body.map((b) => (b.kind === 'text' ? b.raw : '')),
    ['{"a": 1}'],
  );
});

test('parse: a ws://, wss://, grpc:// or grpcs:// URL passes the parse-time URL check; a broken one still fails it', () => {
  for (const line of ['WEBSOCKET ws://127.0.0.1:8080/chat', 'WSS wss://h/x?y=1', 'GRPC grpc://h:50051/a.B/C', 'GRPC grpcs://h/a.B/C', 'GRAPHQL ws://h/graphql']) {
    assert.doesNotThrow(() => parseHttp(`${line}\n`), line);
  }
  // The error quotes the URL as written, never the http:// it connects over.
  assert.throws(() => parseHttp('WEBSOCKET ws://h:99999/chat\n'), { message: "invalid URL 'ws://h:99999/chat': '99999' is not a valid port", line: 1, col: 11 });
  assert.throws(() => parseHttp('GRPC grpcs://h:0x/a.B/C\n'), { message: /^invalid URL 'grpcs:\/\/h:0x\/a\.B\/C'/ });
  // A ws:// URL on an ordinary request is no stream: the check refuses its scheme as before.
  assert.throws(() => parseHttp('GET ws://h/chat\n'), /ws/);
});

test('build: ws:// and wss:// connect over http:// and https://, grpc:// and grpcs:// too; the URL is kept as written in the title', async () => {
  const { specs: s } = await specs('WEBSOCKET ws://h/a\n###\nWSS wss://h:8443/b\n###\nGRPC grpc://h:50051/a.B/C\n###\nGRPC grpcs://h/a.B/C\n###\nSSE http://h/e\n');
  assert.deepEqual(
    s.map((x) => `${x.method} ${formatUrl(x.url)} ${x.stream!.kind}/${x.stream!.keyword}`),
    ['GET http://h/a websocket/WEBSOCKET', 'GET https://h:8443/b websocket/WSS', 'POST http://h:50051/a.B/C grpc/GRPC', 'POST https://h/a.B/C grpc/GRPC', 'GET http://h/e sse/SSE'],
  );
  assert.deepEqual(s[2]!.stream!.grpc, { path: '/a.B/C', protos: [] });
  // No body of its own: the messages are the stream's.
  for (const x of s) assert.deepEqual(x.body, { kind: 'none' });
});

test('build: a WebSocket body is its messages; SSE asks for text/event-stream unless the file says what it accepts; no Accept-Encoding on a stream', async () => {
  const { specs: s } = await specs('WEBSOCKET ws://h/a\n\n{"one": 1}\n===\ntwo\n=== wait-for-server\nthree\n###\nSSE http://h/e\n###\nSSE http://h/f\nAccept: */*\n');
  assert.deepEqual(s[0]!.stream!.messages, [msg('{"one": 1}'), msg('two'), msg('three', true)]);
  const names = (x: RequestSpec) => x.headers.map(([n, v]) => `${n}: ${v}`);
  assert.ok(!names(s[0]!).some((h) => /^accept-encoding/i.test(h)), names(s[0]!).join(' | '));
  assert.ok(names(s[1]!).includes('Accept: text/event-stream'), names(s[1]!).join(' | '));
  assert.ok(!names(s[1]!).some((h) => /^accept-encoding/i.test(h)), names(s[1]!).join(' | '));
  assert.deepEqual(
    names(s[2]!).filter((h) => /^accept/i.test(h)),
    ['Accept: */*'],
  );
  // gRPC: the headers are the call's metadata, without sling's User-Agent.
  const { specs: g } = await specs('GRPC grpc://h/a.B/C\nx-token: t\n\n{"name": "n"}\n');
  assert.deepEqual(names(g[0]!), ['x-token: t']);
  assert.deepEqual(g[0]!.stream!.messages, [msg('{"name": "n"}')]);
});

test('build: proto < ./file.proto with option lines, includeDirs made absolute from the file folder, for the gRPC requests below it', async () => {
  const text = [
    'GRPC grpc://h/early.S/M',
    '',
    '###',
    'proto < ./protos/hello.proto',
    'keepCase: true',
    'longs: String',
    'defaults: true',
    'includeDirs: ["./vendor", "./more"]',
    '',
    'GRPC grpc://h/helloworld.Greeter/SayHello',
    '',
    '{"name": "x"}',
  ].join('\n');
  const p = parseHttp(text);
  assert.deepEqual(p.warnings, []);
  assert.deepEqual(
    p.protos!.map((n) => [n.line, rawText(n.path), n.options.map((o) => `${o.line} ${o.name}=${o.value}`)]),
    [[4, './protos/hello.proto', ['5 keepCase=true', '6 longs=String', '7 defaults=true', '8 includeDirs=["./vendor", "./more"]']]],
  );
  const { dir, specs: s } = await specs(text);
  // The request above the proto line is described by none (server reflection).
  assert.deepEqual(s[0]!.stream!.grpc!.protos, []);
  assert.deepEqual(s[1]!.stream!.grpc, {
    path: '/helloworld.Greeter/SayHello',
    protos: [{ file: join(dir, 'protos/hello.proto'), includeDirs: [join(dir, 'protos'), join(dir, 'vendor'), join(dir, 'more')], options: { keepCase: true, longs: 'String', defaults: true } }],
  });
});

test("build: a proto line in a request's own block describes that request only; one in a block without a request, every request below it (as httpyac scopes them); a file named twice counts once", async () => {
  const text = [
    'proto < ./common.proto',
    'keepCase: false',
    '',
    '###',
    'proto < ./a.proto',
    'GRPC grpc://h/a.A/M',
    '',
    '###',
    'GRPC grpc://h/b.B/M',
    '',
    '###',
    'proto < ./common.proto',
    'keepCase: true',
    '',
    'GRPC grpc://h/c.C/M',
  ].join('\n');
  const { dir, specs: s } = await specs(text);
  const files = (x: RequestSpec) => x.stream!.grpc!.protos.map((p) => `${p.file.slice(dir.length + 1)} ${JSON.stringify(p.options)}`);
  assert.deepEqual(files(s[0]!), ['common.proto {"keepCase":false}', 'a.proto {}']);
  assert.deepEqual(files(s[1]!), ['common.proto {"keepCase":false}']);
  assert.deepEqual(files(s[2]!), ['common.proto {"keepCase":true}']);
});

test('build: includeDirs that is not a list of folders is an error naming the proto line', async () => {
  await assert.rejects(specs('proto < ./a.proto\nincludeDirs: ./vendor\n\nGRPC grpc://h/a.B/C\n'), /^UsageError: t\.http:1: includeDirs must be a list of folders/);
});

test('parse: a proto line other than `proto < FILE` is still a warning', () => {
  const p = parseHttp('proto ./a.proto\n\nPOST http://h/');
  assert.deepEqual(
    p.warnings.map((w) => [w.line, w.message]),
    [[1, "httpyac proto lines other than 'proto < ./file.proto' are not supported: skipped"]],
  );
});

test('build: a GRAPHQL request is a WebSocket stream when its URL is ws:// or its operation is a subscription; a query or mutation stays a POST', async () => {
  const { specs: s } = await specs(
    [
      'GRAPHQL http://h/graphql',
      '',
      '# the operation below',
      'subscription OnEvent($room: ID!) { event(room: $room) { id } }',
      '',
      '{"room": "r1"}',
      '###',
      'GRAPHQL ws://h/graphql',
      '',
      'query Q { a }',
      '###',
      'GRAPHQL http://h/graphql',
      '',
      'query Q { subscription }',
      '###',
      'GRAPHQL http://h/graphql',
      '',
      'mutation M { subscribe }',
      '###',
      'GRAPHQL http://h/graphql',
      '',
      'fragment F on Event { id meta { at } }',
      'subscription S { event { ...F } }',
    ].join('\n'),
  );
  assert.deepEqual(
    s.map((x) => `${x.method} ${formatUrl(x.url)} ${x.stream ? `${x.stream.kind}/${x.stream.keyword}` : 'plain'}`),
    ['GET http://h/graphql websocket/GRAPHQL', 'GET http://h/graphql websocket/GRAPHQL', 'POST http://h/graphql plain', 'POST http://h/graphql plain', 'GET http://h/graphql websocket/GRAPHQL'],
  );
  assert.deepEqual(s[0]!.stream!.graphql, { query: '# the operation below\nsubscription OnEvent($room: ID!) { event(room: $room) { id } }', variables: { room: 'r1' } });
  assert.deepEqual(s[1]!.stream!.graphql, { query: 'query Q { a }', operationName: 'Q' });
  // Over a WebSocket the operation is a message, not a JSON body: no Content-Type of its own.
  assert.ok(!s[0]!.headers.some(([n]) => n.toLowerCase() === 'content-type'));
});
