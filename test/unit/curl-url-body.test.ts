// curl's URL handling and body building, as unit tables (the e2e tests compare with real curl).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendQuery, expandGlob, parseCurlUrl, resolveLocation, toParsedUrl, CurlUrlError } from '../../src/sources/curl/url.js';
import { encodeMultipart, escapeData, formPart, guessType, joinData, textLines, urlencodePiece, type FileAccess } from '../../src/sources/curl/body.js';
import { parseCurlDate } from '../../src/sources/curl/dates.js';
import { customHeaders } from '../../src/sources/curl/headers.js';
import { requestTarget } from '../../src/model/url.js';

const b = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const target = (url: string, pathAsIs = false) => requestTarget(toParsedUrl(parseCurlUrl(b(url), { pathAsIs })));

test('URL → request target, the way curl 7.88 sends it', () => {
  const table: [string, string][] = [
    ['http://h/a/./b/../c', '/a/c'],
    ['http://h/a/%2e%2E/b', '/a/%2e%2E/b'],
    ['http://h//double//slash', '//double//slash'],
    ['http://h/a?', '/a?'],
    ['http://h/a?#f', '/a?'],
    ['http://h/a#x?y', '/a'],
    ['http://h', '/'],
    ['http://h?x', '/?x'],
    ['http://h/ü?q=é', b('/%c3%bc?q=é')],
    ['http://h/x?a|b^c&"dq"&{b}&%zz', '/x?a|b^c&"dq"&{b}&%zz'],
    ['h:8080/p', '/p'],
    ['HTTP://h/X', '/X'],
    ['http:/h/x', '/x'],
    ['http://h/a/b/.', '/a/b/'],
  ];
  for (const [url, want] of table) assert.equal(target(url), want, url);
  assert.equal(target('http://h/a/./b/../c', true), '/a/./b/../c');
});

test('URL parts: credentials, port, host header, errors', () => {
  const u = parseCurlUrl('http://us%20er:p%3A@Host.example:8080/x');
  assert.deepEqual([u.user, u.password, u.host, u.port], ['us%20er', 'p%3A', 'Host.example', 8080]);
  assert.equal(toParsedUrl(u).hostHeader, 'Host.example:8080');
  assert.equal(toParsedUrl(parseCurlUrl('https://h:443/')).hostHeader, 'h');
  assert.equal(parseCurlUrl('localhost:3000').scheme, 'http');
  for (const bad of ['http://h/a b', 'http://h/\t', 'http://h:/x', 'http://h:99999/', 'ftp://h/', 'ftp.example.com/x', 'http://a@b@h/']) {
    assert.throws(() => parseCurlUrl(bad), CurlUrlError, bad);
  }
});

test('-G and --url-query append to the query the way curl_url_set does', () => {
  const q = (url: string, extra: string) => requestTarget(toParsedUrl(appendQuery(parseCurlUrl(url), extra)));
  assert.equal(q('http://h/a?x=1', 'b=2'), '/a?x=1&b=2');
  assert.equal(q('http://h/a?x=1&', 'b=2'), '/a?x=1&b=2');
  assert.equal(q('http://h/a?', ''), '/a');
  assert.equal(q('http://h/a?x=1', ''), '/a?x=1&');
  assert.equal(q('http://h/a', 'c=%C3%A9%2F%41'), '/a?c=%c3%a9%2f%41');
});

test('URL globbing: sets and ranges, the last one varying fastest', () => {
  assert.deepEqual(
    expandGlob('h/{a,b}/[1-2]').map((g) => g.url),
    ['h/a/1', 'h/a/2', 'h/b/1', 'h/b/2'],
  );
  assert.deepEqual(
    expandGlob('h/x[01-03]').map((g) => g.url),
    ['h/x01', 'h/x02', 'h/x03'],
  );
  assert.deepEqual(
    expandGlob('h/[a-e:2]').map((g) => g.url),
    ['h/a', 'h/c', 'h/e'],
  );
  assert.deepEqual(
    expandGlob('h/{a,b}').map((g) => g.matches),
    [['a'], ['b']],
  );
  assert.deepEqual(
    expandGlob('http://[::1]:80/\\{x\\}').map((g) => g.url),
    ['http://[::1]:80/{x}'],
  );
  assert.throws(() => expandGlob('h/{a'), /unmatched/);
  assert.throws(() => expandGlob('h/[3-1]'), /bad range/);
});

test('URL globbing: too many URLs is said before they are made (fuzz: a range of 10^8 filled memory; past 2^53 it never ended)', () => {
  assert.equal(expandGlob('h/[1-100000]').length, 100_000);
  for (const glob of ['h/[0-99999999]', 'h/[0-99999999999999999999]', 'h/[1-100001]', `h/{${'a,'.repeat(399)}a}{${'b,'.repeat(399)}b}`]) {
    assert.throws(
      () => expandGlob(glob),
      (e: unknown) => e instanceof CurlUrlError && /too many URLs/.test(e.message),
      glob.slice(0, 30),
    );
  }
});

const files = (map: Record<string, string>): FileAccess & { warnings: string[] } => {
  const warnings: string[] = [];
  return { read: (p) => map[p], warn: (m) => void warnings.push(m), warnings };
};

test('-d family: files lose CR and LF (not with --data-binary), pieces join with & (not --json)', () => {
  const f = files({ 'd.txt': 'a b\r\nc=d&e\n\n' });
  assert.equal(
    joinData(
      [
        { kind: 'data', value: '@d.txt' },
        { kind: 'binary', value: '@d.txt' },
        { kind: 'ascii', value: '@d.txt' },
        { kind: 'raw', value: '@d.txt' },
      ],
      f,
    ),
    'a bc=d&e&a b\r\nc=d&e\n\n&a bc=d&e&@d.txt',
  );
  assert.equal(
    joinData(
      [
        { kind: 'json', value: '{"a":' },
        { kind: 'json', value: '1}' },
      ],
      f,
    ),
    '{"a":1}',
  );
  assert.equal(joinData([{ kind: 'data', value: '@missing' }], f), '');
  assert.match(f.warnings[0]!, /missing/);
});

test('-d @file reads text lines the way curl does: each cut at its first CR, LF or NUL', () => {
  assert.equal(textLines('a\rb\nc\r\n\rd'), 'ac');
  assert.equal(textLines('a\0b\r\nc'), 'ac');
  // curl reads 255 bytes at a time: a CR cuts only the rest of its piece.
  assert.equal(textLines('x'.repeat(300) + '\rY' + 'z'.repeat(300)).length, 392);
});

test('--data-urlencode: the five forms', () => {
  const f = files({ 'd.txt': 'a b\r\n', empty: '' });
  const table: [string, string][] = [
    ['a b=c d', 'a b=c+d'],
    ['=x y&', 'x+y%26'],
    [b('plain é'), 'plain+%C3%A9'],
    ['@d.txt', 'a+b%0D%0A'],
    ['n@d.txt', 'n=a+b%0D%0A'],
    ['n@empty', ''],
    ['n@missing', ''],
    ['n=', 'n='],
    ["k=!*'();:@&=+$,/?#[]~-._", 'k=%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D~-._'],
  ];
  for (const [v, want] of table) assert.equal(urlencodePiece(v, f), want, v);
  assert.equal(escapeData('a b'), 'a+b');
});

test('-F parts: files, types, file names, quoting, part headers', () => {
  const f = files({ 't.txt': 'T', 'we"ird.txt': 'W', 'a;b.txt': 'S', 'pic.JPG': 'P', 'h.txt': 'X-A: 1\r\nX-B: 2\n' });
  const table: [string, object][] = [
    ['a=v', { name: 'a', filename: undefined, contentType: undefined, headers: [], data: 'v' }],
    ['a=@t.txt', { name: 'a', filename: 't.txt', contentType: 'text/plain', headers: [], data: 'T' }],
    ['a=<t.txt', { name: 'a', contentType: undefined, headers: [], data: 'T' }],
    ['a=@"a;b.txt";type=x/y', { name: 'a', filename: 'a;b.txt', contentType: 'x/y', headers: [], data: 'S' }],
    ['a=@t.txt;filename=r.png', { name: 'a', filename: 'r.png', contentType: 'image/png', headers: [], data: 'T' }],
    ['a=@t.txt;filename=r.csv', { name: 'a', filename: 'r.csv', contentType: 'text/plain', headers: [], data: 'T' }],
    ['a=@pic.JPG', { name: 'a', filename: 'pic.JPG', contentType: 'image/jpeg', headers: [], data: 'P' }],
    ['a="x;y"', { name: 'a', filename: undefined, contentType: undefined, headers: [], data: 'x;y' }],
    ['a= spaced  ;type= t/t ', { name: 'a', filename: undefined, contentType: 't/t', headers: [], data: 'spaced' }],
    ['a=v;type=text/plain; charset=utf-8', { name: 'a', filename: undefined, contentType: 'text/plain; charset=utf-8', headers: [], data: 'v' }],
    ['a=v;filename=x.txt', { name: 'a', filename: 'x.txt', contentType: 'text/plain', headers: [], data: 'v' }],
    ['a=v;headers="X-H: 1"', { name: 'a', filename: undefined, contentType: undefined, headers: ['X-H: 1'], data: 'v' }],
    ['a=v;headers=@h.txt', { name: 'a', filename: undefined, contentType: undefined, headers: ['X-A: 1', 'X-B: 2'], data: 'v' }],
    ['=v', { name: undefined, filename: undefined, contentType: undefined, headers: [], data: 'v' }],
    ['a=v;Type=x/y;FILENAME=q.txt', { name: 'a', filename: 'q.txt', contentType: 'x/y', headers: [], data: 'v' }],
  ];
  for (const [v, want] of table) assert.deepEqual(formPart(v, false, f), want, v);
  assert.deepEqual(formPart('a=@not;type=x', true, f), { name: 'a', headers: [], data: '@not;type=x' });
  // Standard input: named '-', and no guessed type.
  assert.deepEqual(formPart('a=@-', false, { ...f, read: (p) => (p === '-' ? 'IN' : undefined) }), { name: 'a', filename: '-', contentType: undefined, headers: [], data: 'IN' });
  assert.throws(() => formPart('a=@missing', false, f), /cannot read/);
  assert.throws(() => formPart('novalue', false, f), /name=content/);
  assert.throws(() => formPart('a=v;type=bad', false, f), /content type/);
  // A long run of blanks inside a value: its trailing blanks are cut in one pass (100,000 took seconds).
  assert.equal(formPart(`a=x${' '.repeat(100_000)}y;type=t/t  `, false, f).contentType, 't/t');
  assert.equal(guessType('x.svg'), 'image/svg+xml');
  assert.equal(guessType('x.json'), undefined);
});

test("multipart body: curl's layout and name escaping", () => {
  const body = encodeMultipart(
    [
      { name: 'n"m', filename: 'f\r\n.txt', contentType: 'text/plain', headers: ['X: 1'], data: 'D' },
      { name: undefined, headers: [], data: 'E' },
    ],
    'BB',
    'multipart/form-data',
    false,
  );
  assert.equal(
    body.toString('latin1'),
    '--BB\r\nContent-Disposition: form-data; name="n%22m"; filename="f%0D%0A.txt"\r\nContent-Type: text/plain\r\nX: 1\r\n\r\nD\r\n--BB\r\nContent-Disposition: form-data\r\n\r\nE\r\n--BB--\r\n',
  );
  assert.match(encodeMultipart([{ name: 'a\\"', headers: [], data: '' }], 'B', 'multipart/mixed', true).toString('latin1'), /Content-Disposition: attachment; name="a\\\\\\""/);
});

test('-H: removal, empty values, @file', () => {
  const f = files({ 'h.txt': 'X-F: 1\r\n\r\nX-G: 2\n' });
  assert.deepEqual(
    customHeaders(['A: 1', 'B:', 'C;', 'D;x', 'E', 'F:   spaced', ':noname', '@h.txt'], f).map((h) => [h.name, h.value]),
    [
      ['A', '1'],
      ['B', undefined],
      ['C', ''],
      ['F', 'spaced'],
      ['X-F', '1'],
      ['X-G', '2'],
    ],
  );
});

test('redirect targets resolve against the URL they came from', () => {
  const base = parseCurlUrl('http://h:8/a/b?q');
  const t = (loc: string) => requestTarget(toParsedUrl(resolveLocation(base, loc)));
  assert.equal(t('/x'), '/x');
  assert.equal(t('c'), '/a/c');
  assert.equal(t('../c'), '/c');
  assert.equal(t('?z'), '/a/b?z');
  assert.equal(resolveLocation(base, 'http://o/p').host, 'o');
});

test('-z dates', () => {
  assert.equal(parseCurlDate('20230101'), Date.UTC(2023, 0, 1));
  assert.equal(parseCurlDate('Sun, 06 Nov 1994 08:49:37 GMT'), Date.UTC(1994, 10, 6, 8, 49, 37));
  assert.equal(parseCurlDate('Sunday, 06-Nov-94 08:49:37 GMT'), Date.UTC(1994, 10, 6, 8, 49, 37));
  assert.equal(parseCurlDate('Sun Nov  6 08:49:37 1994'), Date.UTC(1994, 10, 6, 8, 49, 37));
  assert.equal(parseCurlDate('some-file.txt'), undefined);
});
