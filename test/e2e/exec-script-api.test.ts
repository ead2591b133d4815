// JetBrains script API in `sling exec`: crypto, client.global.headers.clear,
// response.body.onEachLine for streamed responses, XML bodies as documents and xpath().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertExit, assertNoStack, httpServer, show } from '../helpers/assert.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-script-api-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** The lines a run's scripts logged (what is not a title line or a response body). */
const logged = (stdout: string) => stdout.split('\n').filter((l) => l !== '' && !l.startsWith('### ') && l !== 'ok');

test('exec scripts: crypto, as JetBrains documents it: hashes, HMAC with text, hex and Base64 secrets, hex and Base64 digests', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const body = '{\n  "prop": "value"\n}';
  const dir = workdir({
    // The example of JetBrains' crypto API reference, as written there.
    'sign.http': [
      '< {%',
      '  const signature = crypto.hmac.sha256()',
      '    .withTextSecret(request.environment.get("secret"))',
      '    .updateWithText(request.body.tryGetSubstituted())',
      '    .digest().toHex();',
      '  request.variables.set("signature", signature)',
      '  const hash = crypto.sha256()',
      '    .updateWithText(request.body.tryGetSubstituted())',
      '    .digest().toHex();',
      '  request.variables.set("hash", hash)',
      '%}',
      `POST ${srv.url}/post`,
      'X-My-Signature: {{signature}}',
      'X-My-Hash: {{hash}}',
      'Content-Type: application/json',
      '',
      body,
      '',
    ].join('\n'),
    'http-client.env.json': JSON.stringify({ dev: { secret: 'Jefe' } }),
    'all.http': [
      `GET ${srv.url}/x`,
      '',
      '> {%',
      '  for (const a of ["md5", "sha1", "sha256", "sha384", "sha512"]) client.log(a, crypto[a]().updateWithText("abc").digest().toHex());',
      '  client.log("parts", crypto.sha256().updateWithText("a").updateWithHex("62").updateWithBase64("Yw==").digest().toHex());',
      '  client.log("latin1", crypto.md5().updateWithText("é", "ISO-8859-1").digest().toHex());',
      '  client.log("b64", crypto.sha1().updateWithText("abc").digest().toBase64(), crypto.sha1().updateWithText("abc").digest().toBase64(true));',
      '  client.log("urlsafe-in", crypto.sha1().updateWithBase64("-_8", true).digest().toHex());',
      '  client.log("hmac-hex", crypto.hmac.sha256().withHexSecret("4a656665").updateWithText("what do ya want for nothing?").digest().toHex());',
      '  client.log("hmac-b64", crypto.hmac.sha512().withBase64Secret("SmVmZQ==").updateWithText("what do ya want for nothing?").digest().toBase64());',
      '  try { crypto.sha256().updateWithHex("zz").digest(); } catch (e) { client.log("bad", e.message); }',
      '  try { crypto.hmac.md5().updateWithText("x").digest(); } catch (e) { client.log("bad", e.message); }',
      '%}',
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--env', 'dev', '--print=b', 'sign.http'], { cwd: dir });
  assertExit(r, 0);
  const q = srv.requests[0]!;
  assert.equal(header(q, 'X-My-Signature'), createHmac('sha256', 'Jefe').update(body).digest('hex'), show(r));
  assert.equal(header(q, 'X-My-Hash'), createHash('sha256').update(body).digest('hex'));

  const a = await runSling(['exec', '--print=b', 'all.http'], { cwd: dir });
  assertExit(a, 0);
  const hash = (alg: string, data: string | Buffer, enc: 'hex' | 'base64' | 'base64url' = 'hex') => createHash(alg).update(data).digest(enc);
  assert.deepEqual(
    logged(a.stdout),
    [
      ...['md5', 'sha1', 'sha256', 'sha384', 'sha512'].map((alg) => `${alg} ${hash(alg, 'abc')}`),
      `parts ${hash('sha256', 'abc')}`,
      `latin1 ${hash('md5', Buffer.from([0xe9]))}`,
      `b64 ${hash('sha1', 'abc', 'base64')} ${hash('sha1', 'abc', 'base64url')}`,
      `urlsafe-in ${hash('sha1', Buffer.from([0xfb, 0xff]))}`,
      // RFC 4231, test case 2.
      'hmac-hex 5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
      `hmac-b64 ${createHmac('sha512', 'Jefe').update('what do ya want for nothing?').digest('base64')}`,
      "bad crypto.sha256(): 'zz' is not hexadecimal (an even number of 0-9, a-f)",
      'bad crypto.hmac.md5(): no secret (withTextSecret, withHexSecret or withBase64Secret comes first)',
    ],
    show(a),
  );
});

test('exec scripts: client.global.headers.clear(name) stops a header that headers.set added', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const dir = workdir({
    'h.http': [
      '< {% client.global.headers.set("X-Trace", "t1"); client.global.headers.set("X-Keep", "k") %}',
      `GET ${srv.url}/one`,
      '',
      '###',
      `GET ${srv.url}/two`,
      '',
      '> {% client.global.headers.clear("x-trace") %}',
      '',
      '###',
      `GET ${srv.url}/three`,
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--print=b', 'h.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.url, header(q, 'X-Trace') ?? null, header(q, 'X-Keep') ?? null]),
    [
      ['/one', 't1', 'k'],
      ['/two', 't1', 'k'],
      ['/three', null, 'k'],
    ],
  );
});

test('exec scripts: response.body.onEachLine goes through a streamed response (event stream, JSON lines); onEachMessage on an HTTP response (no stream) does what onEachLine does', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: one\n\n');
      res.end('data: two\n\ndata: three\n\n');
    } else {
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
      res.end('{"n":1}\n{"n":2}\nplain\n');
    }
  });
  const dir = workdir({
    's.http': [
      `GET ${srv.url}/events`,
      '',
      '> {%',
      '  response.body.onEachLine((line, unsubscribe) => {',
      '    client.log("line " + line);',
      '    if (line === "data: two") unsubscribe();',
      '  }, () => client.log("finished"));',
      '  client.log("text " + response.body.length);',
      '%}',
      '',
      '###',
      `GET ${srv.url}/lines`,
      '',
      '> {% response.body.onEachLine((v) => client.log(typeof v + " " + JSON.stringify(v))) %}',
      '',
      '###',
      `GET ${srv.url}/events`,
      '',
      '> {%',
      '  client.log("before");',
      '  response.body.onEachMessage((m) => client.log("message " + m));',
      '%}',
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--print=h', 's.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    logged(r.stdout).filter((l) => !/^(HTTP\/|[\w-]+: )/.test(l)),
    ['line data: one', 'line data: two', 'finished', 'text 35', 'object {"n":1}', 'object {"n":2}', 'string "plain"', 'before', 'message data: one', 'message data: two', 'message data: three'],
    show(r),
  );
  assert.equal(r.stderr, '');
});

test('exec scripts: an XML response body is a document, and xpath() reads it', async (t) => {
  const xml = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE catalog [ <!ENTITY x "never expanded"> ]>',
    '<catalog xmlns="urn:books" xmlns:p="urn:price">',
    '  <book id="1" lang="en"><title>Dune &amp; more</title><p:price>9.5</p:price></book>',
    '  <book id="2"><title><![CDATA[<Neuromancer>]]></title><p:price>12</p:price></book>',
    '  <!-- a note -->',
    '</catalog>',
  ].join('\n');
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/books') {
      res.writeHead(200, { 'Content-Type': 'application/xml; charset=utf-8' });
      res.end(xml);
    } else if (req.url === '/broken') {
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      res.end('<a><b></a>');
    } else res.end('ok');
  });
  const dir = workdir({
    'x.http': [
      `GET ${srv.url}/books`,
      '',
      '> {%',
      '  const doc = response.body;',
      '  client.log(doc.documentElement.nodeName, doc.documentElement.namespaceURI, doc.getElementsByTagName("book").length);',
      '  client.log(doc.documentElement.children[0].getAttribute("lang"), doc.getElementsByTagName("p:price")[1].textContent);',
      `  client.log(xpath(doc, "//book[@id='2']/title").textContent);`,
      '  client.log(xpath(doc, "count(//book)"), xpath(doc, "sum(//p:price)"), xpath(doc, "string(/catalog/book[1]/title)"));',
      '  client.log(xpath(doc, "//book[p:price > 10]/@id").value, xpath(doc, "name(/*)"), xpath(doc, "//book[last()]/@id").value);',
      '  client.log(xpath(doc, "//missing") === null, xpath(doc, "boolean(//book)"), xpath(doc, "//comment()").nodeValue.trim());',
      `  client.log(xpath(doc, "concat(//book[2]/@id, '-', 6 * 7)"), xpath(doc, "normalize-space(' a   b ')"), xpath(doc, "//book[1]/following-sibling::book/@id").value);`,
      '  client.log(doc.includes("Dune"), xpath("<r><v>3</v></r>", "/r/v * 2"));',
      '  client.global.set("title", xpath(doc, "//book[1]/title"));',
      '%}',
      '',
      '###',
      `GET ${srv.url}/{{title}}`,
      '',
      '###',
      `GET ${srv.url}/broken`,
      '',
      '> {% client.log(typeof response.body, response.body.includes("<b>")); xpath(response.body, "//b") %}',
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--print=b', 'x.http'], { cwd: dir });
  assertExit(r, 1);
  assert.deepEqual(
    logged(r.stdout).filter((l) => !xml.split('\n').includes(l) && l !== '<a><b></a>'),
    ['catalog urn:books 2', 'en 12', '<Neuromancer>', '2 21.5 Dune & more', '2 catalog 2', 'true true a note', '2-42 a b 2', 'true 6', 'object true'],
    show(r),
  );
  assert.equal(srv.requests[1]!.url, '/Dune%20&%20more');
  assert.match(r.stderr, /^sling: test failed: x\.http:20: x\.http:22: the response handler failed: the XML body is not well-formed: <\/a> closes <b> \(line 1\)/m, show(r));
  assertNoStack(r.stderr);
});
