// Formatting, charsets, streaming and the `p` print code, end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { runSling, SLING_PATH, baseEnv } from '../helpers/cli.js';
import { makeCerts, certsUnavailableReason } from '../helpers/servers.js';
import { httpServer, httpsServer, okText } from '../helpers/assert.js';

test('--pretty=format indents JSON to a pipe; --sorted sorts keys; values stay as sent', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/vnd.api+json' });
    res.end('{"b":1.10,"a":[12345678901234567890123,"\\u00e9"]}');
  });
  const r = await runSling(['--pretty=format', '--body', s.url + '/']);
  assert.equal(r.stdout, '{\n    "b": 1.10,\n    "a": [\n        12345678901234567890123,\n        "\\u00e9"\n    ]\n}\n');
  const sorted = await runSling(['--pretty=format', '--sorted', '--format-options', 'json.indent:2', '--body', s.url + '/']);
  assert.equal(sorted.stdout, '{\n  "a": [\n    12345678901234567890123,\n    "\\u00e9"\n  ],\n  "b": 1.10\n}\n');
  const colours = await runSling(['--pretty=all', '--body', s.url + '/'], { env: { FORCE_COLOR: '1' } });
  assert.match(colours.stdout, /\x1b\[[0-9;]*m"b"/);
});

test("JSON behind a )]}' prefix, or served as text/plain, is still recognised; invalid JSON comes as it was", async (t) => {
  const s = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': req.url === '/bad' ? 'application/json' : 'text/plain' });
    res.end(req.url === '/prefix' ? ')]}\',\n{"a":1}' : req.url === '/bad' ? '{"a": 1,, nope' : '[1,2]');
  });
  assert.equal((await runSling(['--pretty=format', '--body', s.url + '/prefix'])).stdout, ')]}\',\n{\n    "a": 1\n}\n');
  assert.equal((await runSling(['--pretty=format', '--body', s.url + '/text'])).stdout, '[\n    1,\n    2\n]\n');
  assert.equal((await runSling(['--pretty=format', '--body', s.url + '/bad'])).stdout, '{"a": 1,, nope\n');
});

test('XML is indented with --pretty=format; --response-mime overrides the type', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('<a><b>x</b><c/></a>');
  });
  const asText = await runSling(['--pretty=format', '--body', s.url + '/']);
  assert.equal(asText.stdout, '<a><b>x</b><c/></a>\n');
  const asXml = await runSling(['--pretty=format', '--response-mime=application/xml', '--body', s.url + '/']);
  assert.equal(asXml.stdout, '<a>\n  <b>x</b>\n  <c/>\n</a>\n');
  const wide = await runSling(['--pretty=format', '--response-mime=application/xml', '--format-options', 'xml.indent:4,headers.sort:true', '--body', s.url + '/']);
  assert.equal(wide.stdout, '<a>\n    <b>x</b>\n    <c/>\n</a>\n');
});

test('charsets: bytes pass through to a pipe; formatting decodes the declared or given charset', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=iso-8859-1' });
    res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });
  const raw = await runSling(['--body', s.url + '/']);
  assert.deepEqual([...raw.stdoutBytes], [0x63, 0x61, 0x66, 0xe9]);
  const decoded = await runSling(['--pretty=format', '--body', s.url + '/']);
  assert.equal(decoded.stdout, 'café\n');
  const given = await runSling(['--response-charset=utf-8', '--pretty=format', '--body', s.url + '/']);
  assert.equal(given.stdout, 'caf\ufffd\n');
});

function spawnSling(args: string[]) {
  const child = spawn(process.execPath, [SLING_PATH, ...args], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters: [RegExp, () => void][] = [];
  child.stdout.on('data', (c: Buffer) => {
    out += c;
    for (const w of [...waiters])
      if (w[0].test(out)) {
        waiters.splice(waiters.indexOf(w), 1);
        w[1]();
      }
  });
  return {
    child,
    output: () => out,
    waitFor: (re: RegExp) => new Promise<void>((resolve) => (re.test(out) ? resolve() : waiters.push([re, resolve]))),
    done: new Promise<number | null>((resolve) => child.on('close', resolve)),
  };
}

for (const args of [['--body'], ['--body', '--pretty=all'], ['--body', '--stream', '--pretty=format']]) {
  test(`a live event stream prints each event as it arrives (${args.join(' ')})`, async (t) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = await httpServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: tick\ndata: {"n":1}\n\n');
      // The second event only goes out once the client has shown the first one.
      void gate.then(() => res.end('event: tick\ndata: {"n":2}\n\n'));
    });
    const run = spawnSling([...args, s.url + '/events']);
    await run.waitFor(/"n":\s?1/);
    assert.doesNotMatch(run.output(), /"n":\s?2/);
    release();
    assert.equal(await run.done, 0);
    // Formatting (--pretty=all, format) indents the JSON of each data: line, as HTTPie does.
    const formatted = args.some((a) => a === '--pretty=all' || a === '--pretty=format');
    const data = (n: number) => (formatted ? `data: {\n    "n": ${n}\n}` : `data: {"n":${n}}`);
    assert.equal(run.output().replace(/\x1b\[[0-9;]*m/g, ''), `event: tick\n${data(1)}\n\nevent: tick\n${data(2)}\n\n`);
  });
}

test('server-sent events: a data: line holding a JSON object or array is indented as HTTPie shows it, the other lines stay as they came', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end('event: update\ndata: {"a":1,"b":[1,2],"c":{"d":"x"}}\nid: 1\n\ndata: not json\n\ndata: [1, 2]\n\ndata:{"no":"space"}\n\ndata: 42\n\ndata: {"broken":\n\n: comment {"a":1}\n\n');
  });
  const expected = [
    'event: update',
    'data: {',
    '    "a": 1,',
    '    "b": [',
    '        1,',
    '        2',
    '    ],',
    '    "c": {',
    '        "d": "x"',
    '    }',
    '}',
    'id: 1',
    '',
    'data: not json',
    '',
    'data: [',
    '    1,',
    '    2',
    ']',
    '',
    'data:{',
    '    "no": "space"',
    '}',
    '',
    'data: 42',
    '',
    'data: {"broken":',
    '',
    ': comment {"a":1}',
    '',
    '',
  ].join('\n');
  const r = await runSling(['--body', '--pretty=format', s.url + '/']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, expected);
  // --sorted and json.indent apply as to a JSON body; without formatting, the lines are as they came.
  const sorted = await runSling(['--body', '--pretty=format', '--sorted', '--format-options=json.indent:2', s.url + '/']);
  assert.match(sorted.stdout, /^data: \{\n {2}"a": 1,\n {2}"b": \[/m);
  const plain = await runSling(['--body', '--pretty=none', s.url + '/']);
  assert.match(plain.stdout, /^data: \{"a":1,"b":\[1,2\],"c":\{"d":"x"\}\}$/m);
  const off = await runSling(['--body', '--pretty=format', '--format-options=json.format:false', s.url + '/']);
  assert.match(off.stdout, /^data: \{"a":1,"b":\[1,2\],"c":\{"d":"x"\}\}$/m);
});

test('NDJSON lines print as they arrive with --pretty=all', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    res.write('{"a":1}\n');
    void gate.then(() => res.end('{"a":2}\n'));
  });
  const run = spawnSling(['--body', '--pretty=all', s.url + '/']);
  await run.waitFor(/"a"/);
  release();
  assert.equal(await run.done, 0);
  assert.equal(run.output().replace(/\x1b\[[0-9;]*m/g, ''), '{"a":1}\n{"a":2}\n');
});

test('-m / --print=p show status, addresses, phase timings and sizes', async (t) => {
  const s = await httpServer(t, okText);
  const r = await runSling(['-m', s.url + '/']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Status: 200 OK$/m);
  assert.match(r.stdout, /^HTTP version: HTTP\/1\.1$/m);
  assert.match(r.stdout, new RegExp(`^Remote address: 127\\.0\\.0\\.1:${s.port}$`, 'm'));
  assert.match(r.stdout, /^Timings: DNS [-\d.]+( ms)?, connect [\d.]+ ms, TLS -, first byte [\d.]+ ms, total [\d.]+ ms$/m);
  assert.match(r.stdout, /^Request size: \d+ B headers, 0 B body$/m);
  assert.match(r.stdout, /^Response size: \d+ B headers, 2 B body$/m);
  assert.doesNotMatch(r.stdout, /^HTTP\/1\.1 200/m);
});

const certs = makeCerts();
test('-vv over HTTPS shows the TLS version and cipher', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const s = await httpsServer(t, okText, { cert: 'good' });
  const r = await runSling(['-vv', `--verify=${certs!.caCert}`, s.url + '/']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^TLS: TLSv1\.[23], [A-Z0-9_-]+$/m);
  assert.match(r.stdout, /Timings: DNS .*, TLS [\d.]+ ms/);
});

test('--style: a known style is accepted, an unknown one names the choices', async (t) => {
  const s = await httpServer(t, okText);
  for (const style of ['monokai', 'solarized-dark', 'solarized-light', 'solarized', 'dracula', 'nord', 'github-dark', 'gruvbox-dark', 'gruvbox-light', 'one-dark', 'native']) {
    assert.equal((await runSling([`--style=${style}`, s.url + '/'])).code, 0, style);
  }
  const bad = await runSling(['--style=rainbow', s.url + '/']);
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stderr,
    "sling: error: --style must be default, auto, monokai, solarized-dark, solarized-light, solarized, dracula, nord, github-dark, gruvbox-dark, gruvbox-light, one-dark, native, fruity or mono, got 'rainbow'\n",
  );
  // A name every object has is not a style (it once passed the check: `'constructor' in STYLES`).
  const proto = await runSling(['--style=constructor', '--offline', s.url + '/']);
  assert.equal(proto.code, 1);
  assert.match(proto.stderr, /--style must be [^\n]*, got 'constructor'/);
});

test('a body the formatter cannot lay out (XML nested 100,000 deep) is exit 1 with a hint, not a network error', async (t) => {
  const s = await httpServer(t, (_q, res) => {
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    res.end('<a>'.repeat(100000) + '</a>'.repeat(100000));
  });
  const r = await runSling(['--pretty=format', `${s.url}/deep`]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^sling: error: the response body \(700000 bytes\) could not be formatted: Invalid string length\n {2}hint: print it as it came with --pretty=none\n$/);
  const raw = await runSling(['--pretty=none', '-b', `${s.url}/deep`]);
  assert.equal(raw.code, 0, raw.stderr);
  assert.equal(raw.stdout.length, 700000);
});
