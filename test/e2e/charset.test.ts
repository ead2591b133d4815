// Response bodies in other charsets than UTF-8: decoded with the WHATWG
// tables whatever Node's TextDecoder does, --response-charset checked before anything is sent,
// and the charset an HTML or XML document declares when the header names none.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { runSling } from '../helpers/cli.js';
import { assertError, assertExit, httpServer, show } from '../helpers/assert.js';
import { runOnTty, ttySkipReason } from '../helpers/tty.js';

const latin1 = (s: string) => Buffer.from(s, 'latin1');
const SMART = latin1('smart \x93quotes\x94 \x80\n');

/** A server answering each path with [Content-Type, body]. */
async function bodies(t: TestContext, answers: Record<string, [string | undefined, Buffer]>) {
  return httpServer(t, (req, res) => {
    const [type, body] = answers[req.url ?? ''] ?? ['text/plain', Buffer.from('?')];
    res.writeHead(200, type === undefined ? {} : { 'Content-Type': type });
    res.end(body);
  });
}

// ---- windows-1252 -----------------------------------------------------------------------------

test('windows-1252 text on a terminal: “quotes” and €, not \\x93 and \\x80', { skip: ttySkipReason }, async (t) => {
  const s = await bodies(t, {
    '/plain': ['text/plain; charset=windows-1252', SMART],
    '/latin1': ['text/plain; charset=ISO-8859-1', SMART],
    '/json': ['application/json; charset=windows-1252', latin1('{"q":"\x93x\x94 \x80"}')],
  });
  for (const [path, want] of [
    ['/plain', 'smart “quotes” €'],
    ['/latin1', 'smart “quotes” €'],
    ['/json', '“x” €'],
  ] as const) {
    for (const pretty of ['all', 'none']) {
      const r = await runOnTty(['--body', `--pretty=${pretty}`, s.url + path], { NO_COLOR: '1' });
      assert.equal(r.code, 0, r.out);
      assert.ok(r.out.includes(want), `${path} --pretty=${pretty}: ${JSON.stringify(r.out)}`);
      assert.doesNotMatch(r.out, /\\x[89]/, `${path} --pretty=${pretty}`);
    }
  }
});

test('piped with --response-charset, windows-1252 becomes UTF-8 of the right characters', async (t) => {
  const s = await bodies(t, { '/plain': ['text/plain', SMART], '/1252': ['text/plain; charset=windows-1252', SMART] });
  for (const args of [
    ['--response-charset=windows-1252', '/plain'],
    ['--response-charset=latin1', '/plain'],
    ['--response-charset=cp1252', '/1252'],
    ['--response-charset=windows-1252', '--stream', '/plain'],
  ]) {
    const r = await runSling(['--body', ...args.slice(0, -1), s.url + args[args.length - 1]]);
    assertExit(r, 0);
    assert.equal(r.stdout, 'smart “quotes” €\n', args.join(' ') + show(r));
  }
});

test("--stream and the text shown as it comes decode the header's charset too", async (t) => {
  const s = await bodies(t, { '/koi8': ['text/plain; charset=koi8-r', Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4, 0x0a])] });
  for (const args of [['--pretty=format'], ['--pretty=format', '--stream']]) {
    const r = await runSling(['--body', ...args, s.url + '/koi8']);
    assertExit(r, 0);
    assert.equal(r.stdout, 'Привет\n', args.join(' ') + show(r));
  }
});

// ---- --response-charset with an unknown name --------------------------------------------------

test('--response-charset with an unknown name: exit 1, the name in the message, nothing sent', async (t) => {
  const s = await bodies(t, {});
  const r = await runSling(['--response-charset=bogus', s.url + '/']);
  assertError(r, 1, "'bogus'");
  assert.match(r.stderr, /not a supported encoding/);
  assert.equal(s.requests.length, 0, 'nothing may be sent');
  const ok = await runSling(['--response-charset=shift-jis', '--body', s.url + '/']);
  assertExit(ok, 0);
});

// ---- the document's own charset ---------------------------------------------------------------

const HTML_META = latin1('<!doctype html><html><head><meta charset="iso-8859-1"><title>t</title></head><body>caf\xe9</body></html>\n');
const HTML_EQUIV = latin1('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2"></head><body>\xb1\xe6</body></html>\n');
const XML_DECL = latin1('<?xml version="1.0" encoding="ISO-8859-1"?>\n<menu>caf\xe9</menu>\n');

test('HTML and XML without a charset in the header: the meta tag or XML declaration says it', async (t) => {
  const s = await bodies(t, {
    '/meta': ['text/html', HTML_META],
    '/equiv': ['text/html', HTML_EQUIV],
    '/xml': ['application/xml', XML_DECL],
    '/none': [undefined, HTML_META],
  });
  for (const [path, want] of [
    ['/meta', 'café'],
    ['/equiv', 'ąć'],
    ['/xml', 'café'],
  ] as const) {
    // Piped, --pretty=format decodes (--pretty=none writes the bytes as received).
    const r = await runSling(['--body', '--pretty=format', s.url + path]);
    assertExit(r, 0);
    assert.ok(r.stdout.includes(want), `${path}: ${JSON.stringify(r.stdout)}`);
    assert.ok(!r.stdout.includes('\ufffd'), `${path}: ${JSON.stringify(r.stdout)}`);
  }
  // Without a Content-Type, nothing says it is HTML: UTF-8.
  const none = await runSling(['--body', '--pretty=format', s.url + '/none']);
  assert.ok(none.stdout.includes('caf\ufffd'), show(none));
});

test('HTML with <meta charset> on a terminal, as it is formatted and as it comes', { skip: ttySkipReason }, async (t) => {
  const s = await bodies(t, { '/meta': ['text/html', HTML_META], '/xml': ['text/xml', XML_DECL] });
  for (const path of ['/meta', '/xml']) {
    for (const pretty of ['all', 'none']) {
      const r = await runOnTty(['--body', `--pretty=${pretty}`, s.url + path], { NO_COLOR: '1' });
      assert.equal(r.code, 0, r.out);
      assert.ok(r.out.includes('café'), `${path} --pretty=${pretty}: ${JSON.stringify(r.out)}`);
    }
  }
});

test("the header's charset wins over the document's, --response-charset over both", async (t) => {
  const utf8Html = Buffer.from('<meta charset="iso-8859-1"><p>café</p>\n', 'utf8');
  const s = await bodies(t, {
    '/header': ['text/html; charset=utf-8', utf8Html],
    '/latin': ['text/html', HTML_META],
    '/bogus': ['text/html; charset=bogus', HTML_META],
    '/1252': ['text/plain; charset=windows-1252', SMART],
    '/xml-header': ['application/xml; charset=utf-8', Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>', 'utf8')],
  });
  // A charset the header names but no one knows counts as none: the document's is taken.
  const bogus = await runSling(['--body', '--pretty=format', s.url + '/bogus']);
  assert.ok(bogus.stdout.includes('café'), show(bogus));
  // --response-mime changes the formatting, not the header's charset.
  const mime = await runSling(['--body', '--pretty=format', '--response-mime=text/html', s.url + '/1252']);
  assert.ok(mime.stdout.includes('smart “quotes” €'), show(mime));
  const header = await runSling(['--body', '--pretty=format', s.url + '/header']);
  assert.ok(header.stdout.includes('<p>café</p>'), show(header));
  const xml = await runSling(['--body', '--pretty=format', s.url + '/xml-header']);
  assert.ok(xml.stdout.includes('café') && !xml.stdout.includes('cafÃ©'), show(xml));
  // --response-charset=utf-8 over the meta's iso-8859-1: the lone 0xE9 byte is not UTF-8.
  const given = await runSling(['--body', '--response-charset=utf-8', s.url + '/latin']);
  assert.ok(given.stdout.includes('caf\ufffd'), show(given));
  const given2 = await runSling(['--body', '--response-charset=iso-8859-2', s.url + '/header']);
  // UTF-8 é (C3 A9) read as ISO-8859-2.
  assert.ok(given2.stdout.includes('caf\u0102\u0160'), show(given2));
});

// ---- UTF-16 and UTF-32 ------------------------------------------------------------------------

const TEXT = 'héllo wörld ✓ 🚀\n';
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
const utf32 = (s: string, le: boolean) => {
  const points = [...s].map((ch) => ch.codePointAt(0)!);
  const b = Buffer.alloc(points.length * 4);
  points.forEach((cp, i) => (le ? b.writeUInt32LE(cp, i * 4) : b.writeUInt32BE(cp, i * 4)));
  return b;
};
const LE_BOM = Buffer.from([0xff, 0xfe]);
const BE_BOM = Buffer.from([0xfe, 0xff]);

test('UTF-16 and UTF-32 text on a terminal is shown as text, not as binary data: by the charset, a byte order mark, or --response-charset', { skip: ttySkipReason }, async (t) => {
  const s = await bodies(t, {
    '/utf16-bom': ['text/plain; charset=utf-16', Buffer.concat([LE_BOM, Buffer.from(TEXT, 'utf16le')])],
    '/utf16be-bom': ['text/plain; charset=utf-16', Buffer.concat([BE_BOM, utf16be(TEXT)])],
    '/utf16be': ['text/plain; charset=utf-16be', utf16be(TEXT)],
    '/bom-le': ['text/plain', Buffer.concat([LE_BOM, Buffer.from(TEXT, 'utf16le')])],
    '/bom-be': [undefined, Buffer.concat([BE_BOM, utf16be(TEXT)])],
    '/bom32-le': ['text/plain', utf32(`\ufeff${TEXT}`, true)],
    '/bom32-be': ['application/octet-stream', utf32(`\ufeff${TEXT}`, false)],
    '/utf32': ['text/plain; charset=utf-32', utf32(TEXT, false)],
    '/forced': ['text/plain', Buffer.from(TEXT, 'utf16le')],
    '/json': ['application/json; charset=utf-16', Buffer.concat([LE_BOM, Buffer.from('{"a": "wörld ✓"}', 'utf16le')])],
  });
  for (const path of ['/utf16-bom', '/utf16be-bom', '/utf16be', '/bom-le', '/bom-be', '/bom32-le', '/bom32-be', '/utf32', '/forced', '/json']) {
    for (const pretty of ['all', 'none']) {
      const args = ['--body', `--pretty=${pretty}`, ...(path === '/forced' ? ['--response-charset=utf-16'] : []), s.url + path];
      const r = await runOnTty(args, { NO_COLOR: '1' });
      assert.equal(r.code, 0, r.out);
      assert.doesNotMatch(r.out, /binary data/, `${path} --pretty=${pretty}: ${JSON.stringify(r.out)}`);
      const want = path === '/json' ? 'wörld ✓' : TEXT.trim();
      assert.ok(r.out.includes(want), `${path} --pretty=${pretty}: ${JSON.stringify(r.out)}`);
      assert.ok(!r.out.includes('\ufeff') && !r.out.includes('\ufffd'), `${path} --pretty=${pretty}: no byte order mark or replacement character shown`);
    }
  }
});

test('UTF-16 data that decodes to U+0000 is still binary data on a terminal; UTF-8 text with a byte order mark is text', { skip: ttySkipReason }, async (t) => {
  const s = await bodies(t, {
    '/nul16': ['text/plain; charset=utf-16le', Buffer.from('a\0b', 'utf16le')],
    '/utf8-bom': ['text/plain', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)])],
  });
  const nul = await runOnTty(['--body', s.url + '/nul16'], { NO_COLOR: '1' });
  assert.match(nul.out, /\[binary data, 6 bytes, not shown on a terminal/);
  const bom = await runOnTty(['--body', s.url + '/utf8-bom'], { NO_COLOR: '1' });
  assert.ok(bom.out.includes(TEXT.trim()) && !bom.out.includes('\ufeff'), JSON.stringify(bom.out));
});
