// Output on a real terminal: sling runs under a pseudo-terminal made by util-linux `script`, so
// stdout.isTTY is true. Checks colours, JSON indentation, binary bodies held back, and escape
// sequences from the network neutralised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { SLING_PATH, baseEnv } from '../helpers/cli.js';
import { q, runOnTty as runTty, ttySkipReason } from '../helpers/tty.js';
import { httpServer, rawServer } from '../helpers/assert.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const skipReason = ttySkipReason;

/** sling on a pseudo-terminal, colours on (no NO_COLOR) and the terminal's \r\n kept. */
const runOnTty = (args: string[], env: Record<string, string> = {}) => runTty(args, env, { colour: true, keepCrLf: true });

test('on a terminal JSON is indented and coloured', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"name":"Ada","n":1.50,"ok":true,"list":[1,2]}');
  });
  const r = await runOnTty([s.url + '/']);
  assert.equal(r.code, 0);
  assert.match(r.out, /\x1b\[[0-9;]*m/, 'expected colour escapes');
  const plain = r.out.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r\n/g, '\n');
  assert.match(plain, /\{\n {4}"name": "Ada",\n {4}"n": 1\.50,\n {4}"ok": true,\n {4}"list": \[\n {8}1,\n {8}2\n {4}\]\n\}/);
});

test("--style: on a terminal the JSON key, string and status are in the style's colours", { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"name":"Ada"}');
  });
  // xterm-256 numbers of the published colours: dracula's Name.Tag #ff79c6, String #bd93f9 and
  // green #50fa7b; gruvbox-light's #427b58, #79740e and #79740e; solarized (solarized-dark): blue
  // #268bd2, cyan #2aa198 and green #859900; the default's own.
  const cases: [string[], string, string, string][] = [
    [['--style=dracula'], '212', '141', '1;38;5;84'],
    [['--style', 'gruvbox-light'], '65', '100', '1;38;5;100'],
    [['--style=solarized'], '32', '36', '1;38;5;100'],
    [[], '33', '28', '1;38;5;28'],
  ];
  for (const [flags, key, str, status] of cases) {
    const r = await runOnTty([...flags, s.url + '/']);
    assert.equal(r.code, 0, r.out);
    assert.ok(r.out.includes(`\x1b[38;5;${key}m"name"`), `${flags.join(' ')}: key: ${JSON.stringify(r.out)}`);
    assert.ok(r.out.includes(`\x1b[38;5;${str}m"Ada"`), `${flags.join(' ')}: string: ${JSON.stringify(r.out)}`);
    assert.ok(r.out.includes(`\x1b[${status}m200`), `${flags.join(' ')}: status: ${JSON.stringify(r.out)}`);
  }
});

test('NO_COLOR keeps the indentation but drops colours', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"a":1}');
  });
  const r = await runOnTty([s.url + '/'], { NO_COLOR: '1' });
  assert.equal(r.code, 0);
  assert.doesNotMatch(r.out, /\x1b\[/);
  assert.match(r.out.replace(/\r\n/g, '\n'), /\{\n {4}"a": 1\n\}/);
});

test('escape sequences from the network never reach the terminal', { skip: skipReason }, async (t) => {
  // A raw socket server: node:http refuses to send control characters in a header.
  const body = 'title:\x1b]0;pwned\x07 clear:\x1b[2J clip:\x1b]52;c;aGk=\x07 end\n';
  const s = await rawServer(t, (socket) => {
    socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Evil: a\x1b[2Jb\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  const r = await runOnTty([s.url + '/'], { NO_COLOR: '1' });
  assert.equal(r.code, 0);
  assert.ok(!r.out.includes('\x1b]0;'), 'window-title sequence passed through');
  assert.ok(!r.out.includes('\x1b[2J'), 'clear-screen sequence passed through');
  assert.ok(!r.out.includes('\x1b]52'), 'clipboard sequence passed through');
  assert.ok(!r.out.includes('\x07'), 'BEL passed through');
  assert.match(r.out, /title:␛\]0;pwned␇ clear:␛\[2J/);
  assert.match(r.out, /X-Evil: a␛\[2Jb/);
});

test('binary bodies are not dumped to a terminal', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1b, 0x5b, 0x32, 0x4a, 0xff]));
  });
  const r = await runOnTty([s.url + '/']);
  assert.equal(r.code, 0);
  assert.match(r.out, /binary data, 11 bytes, not shown on a terminal/);
  assert.ok(!r.out.includes('\x1b[2J'));
});

test('--pretty=none on a terminal prints the body as received (still neutralised)', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"a":1}');
  });
  const r = await runOnTty(['--pretty=none', '--body', s.url + '/']);
  assert.equal(r.code, 0);
  assert.equal(r.out.replace(/\r\n/g, '\n'), '{"a":1}\n');
});

function slowBody(length: boolean) {
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    const total = 400 * 1024;
    res.writeHead(200, length ? { 'Content-Length': String(total) } : {});
    let sent = 0;
    const tick = () => {
      res.write(Buffer.alloc(16 * 1024, 7));
      sent += 16 * 1024;
      if (sent < total) setTimeout(tick, 25);
      else res.end();
    };
    tick();
  };
}

test('downloads show a progress bar on a terminal, sizes in decimal units (and nothing with -q)', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, slowBody(true));
  const dir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const r = await runOnTty(['-d', '-o', `${dir}/a.bin`, s.url + '/a.bin']);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /\[=*>? *\] +\d+% [\d.]+ kB \/ 410 kB +[\d.]+ (kB|MB)\/s +ETA /);
  assert.match(r.out, /Saved 410 kB to '.*a\.bin'/);
  const quiet = await runOnTty(['-q', '-d', '-o', `${dir}/b.bin`, s.url + '/b.bin']);
  assert.equal(quiet.code, 0);
  assert.equal(quiet.out, '');
});

test('downloads of unknown length show a spinner with bytes and rate', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, slowBody(false));
  const dir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const r = await runOnTty(['-d', '-o', `${dir}/c.bin`, s.url + '/c.bin']);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [\d.]+ kB +[\d.]+ (kB|MB)\/s/);
});

test('-a USER asks for the password on the terminal without echoing it', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  });
  // The URL as typed (no scheme, a path): the prompt names host:port, as HTTPie's does.
  const typedUrl = s.url.replace(/^http:\/\//, '') + '/basic';
  const cmd = [process.execPath, SLING_PATH, '-a', 'ada', typedUrl].map(q).join(' ');
  const env: Record<string, string> = { ...baseEnv(), TERM: 'xterm-256color' };
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let typed = false;
  child.stdout.on('data', (c: Buffer) => {
    out += c;
    if (!typed && out.includes('password for ada@')) {
      typed = true;
      child.stdin.write('s3cret-pw\r');
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.equal(s.requests[0]!.rawHeaders[s.requests[0]!.rawHeaders.findIndex((h) => h.toLowerCase() === 'authorization') + 1], 'Basic ' + Buffer.from('ada:s3cret-pw').toString('base64'));
  assert.ok(!out.includes('s3cret-pw'), 'the password was echoed');
  assert.ok(out.includes(`sling: password for ada@${new URL(s.url).host}: `), out);
});

test('JSON nested too deeply to format: shown as it came with a one-line note, on a terminal and piped, output the size of the body', { skip: skipReason }, async (t) => {
  const deep = '['.repeat(20000) + ']'.repeat(20000);
  // Valid, 999 levels, but 200,000 values at the bottom: indented, each line would carry ~4 kB of spaces.
  const wide = '['.repeat(999) + Array(200000).fill(1).join(',') + ']'.repeat(999);
  const s = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url === '/wide' ? wide : req.url === '/edge' ? '['.repeat(300) + ']'.repeat(300) : deep);
  });
  const tty = await runOnTty(['--body', s.url + '/deep']);
  assert.equal(tty.code, 0);
  assert.ok(tty.out.length < deep.length * 2, `${tty.out.length} bytes on the terminal`);
  assert.match(tty.out, /\[JSON nested more than 1,000 levels deep: shown as it came, not formatted\]/);
  const { runSling } = await import('../helpers/cli.js');
  for (const [path, body, why] of [
    ['deep', deep, /JSON nested more than 1,000 levels deep/],
    ['wide', wide, /would be more than 16 times its size/],
  ] as const) {
    const r = await runSling(['--pretty=format', '--body', `${s.url}/${path}`]);
    assert.equal(r.code, 0, r.stderr);
    const [shown, note, rest] = r.stdout.split('\n');
    assert.equal(shown, body);
    assert.match(note!, why);
    assert.equal(rest, '');
  }
  // 300 levels are formatted (599 lines).
  const edge = await runSling(['--pretty=format', '--body', `${s.url}/edge`]);
  assert.doesNotMatch(edge.stdout, /not formatted/);
  assert.equal(edge.stdout.trimEnd().split('\n').length, 599);
});

test('on a terminal a body is never held whole without bound: a gzip bomb stops at the binary note, text dropped mid-way is shown, JSON over 32 MiB comes as it came', {
  skip: skipReason,
}, async (t) => {
  const { gzipSync } = await import('node:zlib');
  const bomb = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  const line = 'x'.repeat(99) + '\n';
  const big = '[' + Array.from({ length: 900000 }, (_, i) => `{"id":${i},"name":"item number ${i}"}`).join(',') + ']';
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/bomb') {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip', 'Content-Length': bomb.length });
      res.end(bomb);
    } else if (req.url === '/dropped') {
      // Chunked text, then the connection dies: what came must still reach the terminal.
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write(line.repeat(30000));
      setTimeout(() => res.socket!.destroy(), 100);
    } else {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(big);
    }
  });
  const b = await runOnTty(['--body', s.url + '/bomb']);
  assert.equal(b.code, 0);
  assert.match(b.out, /\[binary data, not shown on a terminal \(reading stopped after \d+ bytes\): use --output FILE or a pipe to save it\]/);
  const d = await runOnTty(['--body', s.url + '/dropped']);
  assert.equal(d.code, 6);
  assert.equal(d.out.split('x'.repeat(99)).length - 1, 30000, 'every line that came is shown');
  assert.match(d.out, /was cut short/);
  const { runSling } = await import('../helpers/cli.js');
  const j = await runSling(['--pretty=format', '--body', `${s.url}/big`]);
  assert.equal(j.code, 0, j.stderr);
  assert.ok(big.length > 32 << 20, `${big.length}`);
  assert.equal(j.stdout, `${big}\n[body over 32 MiB (${big.length} bytes): shown as it came, not formatted]\n`);
});

test('exec: a compressed body no script reads is printed as it comes, never inflated whole: a gzip bomb stops at the note on a terminal, the next request runs; piped, the JSON behind a small gzip body is formatted as before', {
  skip: skipReason,
}, async (t) => {
  const { gzipSync } = await import('node:zlib');
  const bomb = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  const json = gzipSync('{"a":[1,2],"b":"x"}');
  const s = await httpServer(t, (req, res) => {
    const zipped = req.url === '/bomb' ? bomb : json;
    res.writeHead(200, { 'Content-Type': req.url === '/bomb' ? 'text/plain' : 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
    res.end(req.url === '/next' ? 'next one' : zipped);
  });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const file = path.join(dir, 'bomb.http');
  fs.writeFileSync(file, `GET ${s.url}/bomb\n\n###\nGET ${s.url}/json\n`);
  const r = await runOnTty(['exec', '--print=b', file], { NO_COLOR: '1' });
  assert.equal(r.code, 0, r.out);
  // Read whole, the note gave the inflated size (67108864 bytes) after holding all of it.
  assert.match(r.out, /\[binary data, not shown on a terminal \(reading stopped after \d+ bytes\): use --output FILE or a pipe to save it\]/);
  assert.match(r.out.replace(/\r\n/g, '\n'), /\{\n    "a": \[\n        1,\n        2\n    \],\n    "b": "x"\n\}/);
  const { runSling } = await import('../helpers/cli.js');
  const piped = await runSling(['exec', '--print=b', '--pretty=format', file]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stdout.split('\0').length - 1, 64 << 20, 'the whole inflated body is written to a pipe');
  assert.ok(piped.stdout.endsWith('\n{\n    "a": [\n        1,\n        2\n    ],\n    "b": "x"\n}\n'), piped.stdout.slice(-80));
});

test('exec on a terminal: a binary body saved with `>> file` is shown as a note and saved whole (the terminal does not stop its reading)', { skip: skipReason }, async (t) => {
  const bin = Buffer.alloc(3 << 20, 0);
  bin.write('end', bin.length - 3);
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bin.length });
    res.end(bin);
  });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const file = path.join(dir, 'save.http');
  fs.writeFileSync(file, `GET ${s.url}/bin\n\n>> ${dir}/saved.bin\n`);
  const r = await runOnTty(['exec', '--print=b', file], { NO_COLOR: '1' });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /\[binary data, 3145728 bytes, not shown on a terminal/);
  assert.ok(fs.readFileSync(path.join(dir, 'saved.bin')).equals(bin), 'the saved file is not the body');
});

/** Text a hostile server sends: a window title, a clear screen, a hyperlink, a C1 CSI and a bidi override. */
const HOSTILE = 'title:\x1b]0;pwned\x07 clear:\x1b[2J link:\x1b]8;;http://evil/\x07click\x1b]8;;\x07 csi:\x9b2J bidi:\u202e gnp.exe';
/** The same as a terminal must show it. */
const HOSTILE_SHOWN = 'title:␛]0;pwned␇ clear:␛[2J link:␛]8;;http://evil/␇click␛]8;;␇ csi:\\x9b2J bidi:\\u202e gnp.exe';

function assertInert(out: string) {
  assert.ok(!out.includes('\x1b'), 'an escape sequence passed through');
  assert.ok(!out.includes('\x07'), 'BEL passed through');
  assert.ok(!out.includes('\x9b'), 'a C1 control passed through');
  assert.ok(!/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/.test(out), 'a bidirectional control passed through');
}

test('exec on a terminal: what scripts log and test results quoting a response are neutralised', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ k: HOSTILE }));
  });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const file = path.join(dir, 'evil.http');
  fs.writeFileSync(
    file,
    [
      `GET ${s.url}/one`,
      '',
      '> {%',
      '  client.log("log " + response.body.k);',
      '  client.global.set("k", response.body.k);',
      '  client.test("name " + response.body.k, () => client.assert(false, "msg " + response.body.k));',
      '%}',
      '?? body k == x',
      '',
      // A request's name is shown in its title: neutralised too.
      '### sec\u202eond',
      '< {% client.log("pre " + client.global.get("k")); %}',
      `GET ${s.url}/two`,
      '',
    ].join('\n'),
  );
  const r = await runOnTty(['exec', '--print=h', file], { NO_COLOR: '1' });
  assert.equal(r.code, 1, r.out);
  assertInert(r.out);
  const out = r.out.replace(/\r\n/g, '\n');
  // On stdout: the lines as the person reads them, each control shown as in a body.
  assert.ok(out.includes(`\nlog ${HOSTILE_SHOWN}\n`), out);
  assert.ok(out.includes(`\n✗ name ${HOSTILE_SHOWN}: msg ${HOSTILE_SHOWN}\n`), out);
  assert.ok(out.includes(`\npre ${HOSTILE_SHOWN}\n`), out);
  assert.match(out, /\n### sec\\u202eond: GET /);
  assert.match(out, /\n✗ k == x: got ".*csi:\\x9b2J bidi:\\u202e gnp\.exe/);
  // On stderr: the one-line message, controls as escapes.
  assert.match(out, /sling: test failed: .*: name title:\\x1b\]0;pwned\\x07 .*csi:\\x9b2J bidi:\\u202e gnp\.exe/);
});

test('bidirectional controls and C1 controls from the network are shown as escapes on a terminal', { skip: skipReason }, async (t) => {
  const bidi = 'lre:\u202a rle:\u202b pdf:\u202c lro:\u202d rlo:\u202e lri:\u2066 rli:\u2067 fsi:\u2068 pdi:\u2069 lrm:\u200e rlm:\u200f alm:\u061c';
  const shown = 'lre:\\u202a rle:\\u202b pdf:\\u202c lro:\\u202d rlo:\\u202e lri:\\u2066 rli:\\u2067 fsi:\\u2068 pdi:\\u2069 lrm:\\u200e rlm:\\u200f alm:\\u061c';
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // Valid JSON: neither C1 controls nor bidi controls need escaping in a string.
      res.end(`{"f":"${bidi}","c":"\x9b2J"}`);
    } else if (req.url === '/events') {
      // A data: line of JSON is formatted on a terminal: the same escapes.
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(`data: {"f":"${bidi}","c":"\x9b2J"}\n\n`);
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`file: ${bidi} csi:\x9b2J\n`);
    }
  });
  for (const args of [
    ['--body', s.url + '/text'],
    ['--body', s.url + '/json'],
    ['--pretty=none', '--body', s.url + '/json'],
    ['--stream', '--body', s.url + '/json'],
    ['--body', s.url + '/events'],
  ]) {
    const r = await runOnTty(args, { NO_COLOR: '1' });
    assert.equal(r.code, 0, r.out);
    assertInert(r.out);
    assert.ok(r.out.includes(shown), `${args.join(' ')}: ${r.out}`);
    assert.ok(r.out.includes('\\x9b2J'), `${args.join(' ')}: ${r.out}`);
  }
  // With colours the JSON is coloured and still inert (only sling's own colour escapes).
  const c = await runOnTty(['--body', s.url + '/json']);
  assert.equal(c.code, 0, c.out);
  const plain = c.out.replace(/\x1b\[[0-9;]*m/g, '');
  assertInert(plain);
  assert.ok(plain.includes(shown), plain);
});

test('exec of a curl file on a terminal: -w and -D - output quoting a response is neutralised, on stdout and stderr', { skip: skipReason }, async (t) => {
  const s = await rawServer(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nX-Evil: a\x1b]0;pwned\x07b\x1b[2Jc\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
  });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const file = path.join(dir, 'evil.curl');
  fs.writeFileSync(file, `curl -s -o /dev/null -D - -w 'out:%header{x-evil}\\n%{stderr}err:%header{x-evil}\\n' ${s.url}/\n`);
  const r = await runOnTty(['exec', file], { NO_COLOR: '1' });
  assert.equal(r.code, 0, r.out);
  assertInert(r.out);
  const out = r.out.replace(/\r\n/g, '\n');
  assert.ok(out.includes('\nX-Evil: a␛]0;pwned␇b␛[2Jc\n'), out);
  assert.ok(out.includes('\nout:a␛]0;pwned␇b␛[2Jc\n'), out);
  assert.ok(out.includes('\nerr:a␛]0;pwned␇b␛[2Jc\n'), out);
});

test('-v PUT @blob.bin on a terminal: the request body note says what it is, not how to save it', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(Buffer.from([0x00, 0x01, 0x02]));
  });
  const fs = await import('node:fs');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'sling-blob-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const small = path.join(dir, 'blob.bin');
  fs.writeFileSync(small, Buffer.from([0x89, 0x50, 0x00, 0x00, 0xff]));
  // A file of 1 MiB or more is sent (and shown) as it is read, never whole.
  const big = path.join(dir, 'big.bin');
  fs.writeFileSync(big, Buffer.alloc(2 * 1024 * 1024, 0));
  for (const [file, size] of [
    [small, 5],
    [big, 2 * 1024 * 1024],
  ] as const) {
    const r = await runOnTty(['-v', 'PUT', `${s.url}/up`, `@${file}`], { NO_COLOR: '1' });
    assert.equal(r.code, 0, r.out);
    const out = r.out.replace(/\r\n/g, '\n');
    assert.match(out, new RegExp(`\\n\\[binary request body, ${size} bytes, not shown\\]\\n`));
    // The response's note still says how to save it; the request's never does.
    assert.equal(out.match(/use --output/g)?.length, 1, out);
    assert.match(out, /\[binary data, 3 bytes, not shown on a terminal: use --output FILE or a pipe to save it\]/);
  }
  assert.equal(s.requests.length, 2);
});

test('exec on a terminal: escape sequences in stream messages (server-sent events, WebSocket) are shown as symbols', { skip: skipReason }, async (t) => {
  const evil = 'a\x1b]0;pwned\x07b\x1b[2Jc\u202ed';
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end(`event: x\x1b[2J\ndata: ${evil}\n\n`);
  });
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  wss.on('connection', (ws) => {
    ws.send(evil);
    ws.close(1000, '');
  });
  t.after(() => new Promise<void>((r) => wss.close(() => r())));
  const dir = mkdtempSync(join(tmpdir(), 'sling-tty-streams-'));
  const port = (wss.address() as import('node:net').AddressInfo).port;
  writeFileSync(join(dir, 't.http'), `SSE ${s.url}/events\n\n###\nWEBSOCKET ws://127.0.0.1:${port}/\n`);
  const r = await runOnTty(['exec', join(dir, 't.http')], { NO_COLOR: '1' });
  assert.equal(r.code, 0, r.out);
  assert.ok(!r.out.includes('\x1b]0;') && !r.out.includes('\x1b[2J') && !r.out.includes('\x07') && !r.out.includes('\u202e'), JSON.stringify(r.out));
  assert.match(r.out, /event: x␛\[2J/);
  assert.equal(r.out.split('a␛]0;pwned␇b␛[2Jc\\u202ed').length, 3, JSON.stringify(r.out));
});
