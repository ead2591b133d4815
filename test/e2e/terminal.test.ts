// Output on a real terminal: sling runs under a pseudo-terminal made by util-linux `script`, so
// stdout.isTTY is true. Checks colours, JSON indentation, binary bodies held back, and escape
// sequences from the network neutralised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { SLING_PATH, baseEnv } from '../helpers/cli.js';
import { httpServer, rawServer } from '../helpers/assert.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const skipReason = hasScript ? undefined : 'util-linux `script` not found: cannot make a pseudo-terminal';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function runOnTty(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const cmd = [process.execPath, SLING_PATH, ...args].map(q).join(' ');
  const fullEnv: Record<string, string> = { ...baseEnv(), TERM: 'xterm-256color', ...env };
  if (!('NO_COLOR' in env)) delete fullEnv.NO_COLOR;
  return new Promise((resolve) => {
    // -e: return the child's exit code; -q: no "Script started" banner.
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

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

test('downloads show a progress bar on a terminal (and nothing with -q)', { skip: skipReason }, async (t) => {
  const s = await httpServer(t, slowBody(true));
  const dir = (await import('node:fs')).mkdtempSync((await import('node:path')).join((await import('node:os')).tmpdir(), 'sling-tty-'));
  const r = await runOnTty(['-d', '-o', `${dir}/a.bin`, s.url + '/a.bin']);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /\[=*>? *\] +\d+% [\d.]+ kB \/ 400 kB +[\d.]+ (kB|MB)\/s +ETA /);
  assert.match(r.out, /Saved 400 kB to '.*a\.bin'/);
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
  const cmd = [process.execPath, SLING_PATH, '-a', 'ada', s.url + '/'].map(q).join(' ');
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
  const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.equal(s.requests[0]!.rawHeaders[s.requests[0]!.rawHeaders.findIndex((h) => h.toLowerCase() === 'authorization') + 1], 'Basic ' + Buffer.from('ada:s3cret-pw').toString('base64'));
  assert.ok(!out.includes('s3cret-pw'), 'the password was echoed');
});

test('JSON nested too deeply to format (issue 26, item 1): shown as it came with a one-line note, on a terminal and piped, output the size of the body', { skip: skipReason }, async (t) => {
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
  for (const [path, body, why] of [['deep', deep, /JSON nested more than 1,000 levels deep/], ['wide', wide, /would be more than 16 times its size/]] as const) {
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

test('on a terminal a body is never held whole without bound (issue 26, item 2): a gzip bomb stops at the binary note, text dropped mid-way is shown, JSON over 32 MiB comes as it came', { skip: skipReason }, async (t) => {
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
