// curl command lines → operations, as curl 7.88's option parser reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTH, CurlArgError, parseConfigText, parseCurlArgs, type Operation } from '../../src/sources/curl/args.js';
import { CURL_OPTIONS, matchLong } from '../../src/sources/curl/options.js';
import { looksLikeCmd, parseCmdScript, splitWindowsArgs } from '../../src/sources/curl/cmd.js';

const noConfig = {
  readConfig: () => {
    throw new Error('no config in this test');
  },
};
const parse = (args: string[]): Operation[] => parseCurlArgs(args, noConfig).operations;
const one = (args: string[]): Operation => {
  const ops = parse(args);
  assert.equal(ops.length, 1);
  return ops[0]!;
};

test('short options combine and take attached or next values', () => {
  const op = one(['-sSLkXPOST', '-HX: 1', '-H', 'Y: 2', '-d', 'a', '-daa=b', 'http://u']);
  assert.equal(op.method, 'POST');
  assert.equal(op.follow, true);
  assert.equal(op.insecure, true);
  assert.deepEqual(op.headers, ['X: 1', 'Y: 2']);
  assert.deepEqual(
    op.data.map((d) => d.value),
    ['a', 'aa=b'],
  );
  assert.deepEqual(
    op.nodes.map((n) => n.url),
    ['http://u'],
  );
  assert.equal(one(['-GsSd', 'x=1', 'u']).useGet, true);
});

test('long options: abbreviations, --no- forms, -- ends the options', () => {
  assert.equal(one(['--sil', 'u']).silent, true);
  assert.equal(one(['--location', '--no-location', 'u']).follow, false);
  assert.deepEqual(
    one(['--', '-not-an-option']).nodes.map((n) => n.url),
    ['-not-an-option'],
  );
  assert.throws(() => parse(['--ur', 'x']), /ambiguous/);
  assert.throws(() => parse(['--frobnicate']), /unknown/);
  assert.throws(() => parse(['--no-data', 'x']), /--no-/);
  assert.throws(() => parse(['-H']), /needs a value/);
  assert.equal(Object.hasOwn(matchLong('data-b'), 'option') && (matchLong('data-b') as { option: { long: string } }).option.long, 'data-binary');
});

test('every option of the table has a unique name and letter', () => {
  const longs = new Set<string>();
  const shorts = new Set<string>();
  for (const o of CURL_OPTIONS) {
    assert.ok(!longs.has(o.long), o.long);
    longs.add(o.long);
    if (o.short) {
      assert.ok(!shorts.has(o.short), o.short);
      shorts.add(o.short);
    }
    if (o.use === 'warn' || o.use === 'error') assert.ok(o.why, o.long);
  }
});

test('options that make no sense for HTTP are errors naming the option; unsupported ones warnings', () => {
  assert.throws(
    () => parse(['--ftp-pasv', 'u']),
    (e: unknown) => e instanceof CurlArgError && /--ftp-pasv is not an HTTP option/.test(e.message) && e.argIndex === 0,
  );
  assert.throws(
    () => parse(['u', '--mail-rcpt', 'a@b']),
    (e: unknown) => e instanceof CurlArgError && e.argIndex === 1,
  );
  assert.throws(() => parse(['--socks5', 'h:1', 'u']), /SOCKS/);
  const op = one(['--capath', '/x', '--limit-rate', '1k', 'u']);
  assert.deepEqual(
    op.warnings.map((w) => w.option),
    ['--capath', '--limit-rate'],
  );
  const retry = one(['--retry', '3', '--retry-delay', '2', '--retry-connrefused', '-4', '--http2', '--unix-socket', '/s', 'u']);
  assert.deepEqual([retry.warnings.length, retry.retry, retry.retryDelay, retry.retryConnrefused, retry.family, retry.http2, retry.unixSocket], [0, '3', '2', true, 4, 'alpn', '/s']);
});

test('one kind of request per operation, as curl insists', () => {
  assert.throws(() => parse(['-I', '-d', 'a', 'u']), /only select one HTTP request method/);
  assert.throws(() => parse(['-d', 'a', '-T', 'f', 'u']), /only select one/);
  assert.throws(() => parse(['-F', 'a=b', '--json', '{}', 'u']), /only select one/);
  assert.equal(one(['-G', '-I', '-d', 'a', 'u']).httpReq, 'HEAD');
  assert.equal(one(['-d', 'a', '-G', '--no-get', 'u']).httpReq, 'SIMPLEPOST');
  assert.equal(one(['-G', '-F', 'a=b', 'u']).httpReq, 'MIMEPOST');
});

test('-o, -O and -T pair with URLs in order; --next starts a new operation', () => {
  const op = one(['-o', 'a.out', 'u1', 'u2', '-O', '-T', 'f', 'u3']);
  assert.deepEqual(op.nodes, [{ url: 'u1', output: 'a.out', remoteName: true, upload: 'f' }, { url: 'u2' }, { url: 'u3' }]);
  const ops = parse(['-d', 'x', 'u1', '--next', '-H', 'A: b', 'u2', '-:', 'u3']);
  assert.equal(ops.length, 3);
  assert.deepEqual(
    ops.map((o) => [o.nodes[0]!.url, o.data.length, o.headers.length]),
    [
      ['u1', 1, 0],
      ['u2', 0, 1],
      ['u3', 0, 0],
    ],
  );
});

test("auth methods accumulate like curl's bit mask", () => {
  assert.equal(one(['-u', 'a:b', 'u']).authMask, 0);
  assert.equal(one(['--digest', '--basic', 'u']).authMask, AUTH.DIGEST | AUTH.BASIC);
  assert.equal(one(['--oauth2-bearer', 't', 'u']).authMask, AUTH.BEARER);
  assert.equal(one(['--basic', '--no-basic', 'u']).authMask, 0);
});

test('-b: data with =, else a file to read cookies from', () => {
  const op = one(['-b', 'a=1', '-b', 'jar.txt', '-b', 'x=y; z=w', 'u']);
  assert.deepEqual(op.cookies, ['a=1', 'x=y; z=w']);
  assert.deepEqual(op.cookieFiles, ['jar.txt']);
});

test('config files: -K and .curlrc syntax', () => {
  assert.deepEqual(parseConfigText('# comment\nurl = "http://x/a b"\n-H "X: \\"q\\""\nsilent\nuser-agent: agent/1\n  data=a=b c\n'), [
    '--url',
    'http://x/a b',
    '-H',
    'X: "q"',
    '--silent',
    '--user-agent',
    'agent/1',
    '--data',
    'a=b',
  ]);
  const ops = parseCurlArgs(['-K', 'cfg', '-d', 'x'], { readConfig: (p) => (p === 'cfg' ? 'url = "http://h/"\nheader = "A: 1"\n' : '') }).operations;
  assert.deepEqual(
    ops[0]!.nodes.map((n) => n.url),
    ['http://h/'],
  );
  assert.deepEqual(ops[0]!.headers, ['A: 1']);
  // .curlrc comes first, and -q as the first argument skips it.
  assert.deepEqual(parseCurlArgs(['-H', 'B: 2', 'u'], noConfig, '-H "A: 1"').operations[0]!.headers, ['A: 1', 'B: 2']);
  assert.deepEqual(parseCurlArgs(['-q', '-H', 'B: 2', 'u'], noConfig, '-H "A: 1"').operations[0]!.headers, ['B: 2']);
  assert.throws(() => parseCurlArgs(['u'], noConfig, 'ftp-pasv\n'), /^CurlArgError: in \.curlrc: --ftp-pasv is not an HTTP option/);
});

test('cmd.exe "Copy as cURL": carets, continuations, C runtime quoting', () => {
  const text = 'curl ^"https://example.com/api?a=1^&b=2^" ^\n  -H ^"accept: */*^" ^\n  --data-raw ^"^{^\\^"name^\\^":^\\^"Ada 50^%^\\^"^}^" ^\n  --compressed\n';
  assert.ok(looksLikeCmd(text));
  assert.ok(!looksLikeCmd("# bash\ncurl 'x' \\\n -H 'a: ^\"b'\n"));
  const env = { lookup: (n: string) => (n === 'TOKEN' ? 'secret' : undefined), assign: () => {}, cwd: '/', home: '/', pid: 1, unset: () => {} };
  const calls = parseCmdScript(text, env);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0]!.argv, ['https://example.com/api?a=1&b=2', '-H', 'accept: */*', '--data-raw', '{"name":"Ada 50%"}', '--compressed']);
  assert.deepEqual(parseCmdScript('curl "http://x/" -H "Authorization: Bearer %TOKEN%" -d "a=%NOPE%"\n', env)[0]!.argv, ['http://x/', '-H', 'Authorization: Bearer secret', '-d', 'a=%NOPE%']);
  assert.deepEqual(splitWindowsArgs('a "b c" d\\"e "f\\\\" g""h "i""j"'), ['a', 'b c', 'd"e', 'f\\', 'gh', 'i"j']);
});

test('cmd.exe: a long command is read in one pass (fuzz: 200 kB took 3 s, each character asked whether the command so far was blank)', () => {
  const env = { lookup: () => undefined, assign: () => {}, cwd: '/', home: '/', pid: 1, unset: () => {} };
  const text = `curl ^"http://h/${'a'.repeat(300_000)}^" ^\n  --compressed\n`;
  assert.ok(looksLikeCmd(text));
  const calls = parseCmdScript(text, env);
  assert.deepEqual(calls[0]!.argv, [`http://h/${'a'.repeat(300_000)}`, '--compressed']);
});
