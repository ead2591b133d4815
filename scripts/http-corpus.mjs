#!/usr/bin/env node
// Corpus check for `sling exec` on .http/.rest files, run by CI when ../shared exists:
//   1. every file of ../shared/corpus/http parses without error, and the only warnings are about
//      syntax of other runners (httpyac, kulala, rest.nvim, WebSocket/gRPC, ...) or about files the
//      corpus does not carry;
//   2. every request in it is built and sent to a loopback server, its host rewritten to
//      127.0.0.1 (placeholders nothing can resolve are sent as written), its response handed to
//      the file's scripts and references as in a real run.
// Prints the numbers; exit 1 when a file fails to parse, a warning is of another kind, or a
// request cannot be built or sent.
//   3. (informational, never changes the exit status) when httpyac can be found, every
//      file is sent by `sling exec` (dist/sling.js) and by `httpyac send --all`, both through one
//      capturing HTTP proxy on 127.0.0.1 that answers every request itself; per file, the requests
//      each sent and the ones that differ (method, target, headers, body) are listed. See
//      compareWithHttpyac() below for what is ignored. httpyac: $SLING_HTTPYAC, else `httpyac` on
//      PATH, else ~/.cache/sling-ci/httpyac/node_modules/.bin/httpyac (where .ci/run installs it:
//      `npm install --prefix ~/.cache/sling-ci/httpyac httpyac@6`); else a line says why it is skipped.
//
//   node scripts/http-corpus.mjs [CORPUS_DIR] [--verbose] [--no-httpyac | --httpyac-only]
//                                [--only TEXT] [--show]
//
// --only TEXT: the comparison for files whose name holds TEXT; --show: whole bodies in differences.
// Uses the transpiled sources in build/ (made by `node scripts/build.mjs --tests`, which this
// script runs when build/ or dist/ is missing). Nothing leaves 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const corpus = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--only') ?? join(ROOT, '..', 'shared', 'corpus', 'http');
if (!existsSync(corpus)) {
  console.log(`http-corpus: ${corpus} does not exist: skipped`);
  process.exit(0);
}
if (!existsSync(join(ROOT, 'build', 'src', 'sources', 'http', 'index.js')) || !existsSync(join(ROOT, 'dist', 'sling.js'))) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--tests'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(1);
}
const { parseHttpFile } = await import(join(ROOT, 'build', 'src', 'sources', 'http', 'index.js'));
const { closeConnections, exchange } = await import(join(ROOT, 'build', 'src', 'transport', 'exchange.js'));
const { readBody } = await import(join(ROOT, 'build', 'src', 'transport', 'body.js'));

/** Warnings that are about other runners' syntax (allowed), or about files the corpus lacks. */
const OTHER_RUNNERS = [
  /httpyac/i,
  /kulala|rest\.nvim|Lua scripts/i,
  /MQTT|AMQP/,
  /unknown directive # @(loop|file-to-variable|lang)\b/,
  /a script block without '[<>]' before it/, // ijhttp-action's `{% %}` without `>`
  /the body should follow a blank line/, // httpyac bodies right after the request line
  /obsolete line folding/, // the YAML-like `response:` block of an httpyac test file
  /text after the response handler is ignored/,
  /pre-request script failed: .*(require|request\.skip|Unexpected identifier)/, // kulala's Node/Lua scripts
];
const MISSING = [/cannot read '/, /no request is named .*\(an import failed\)/];

// The loopback server: answers every request with JSON carrying the fields the corpus's
// references and scripts read (token, access_token, uuid, ...), a Location and a cookie.
const seen = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, bytes: Buffer.concat(chunks).length });
    const body = JSON.stringify({
      token: 'corpus-token',
      access_token: 'corpus-access-token',
      refresh_token: 'corpus-refresh-token',
      uuid: '00000000-0000-0000-0000-000000000000',
      id: 1,
      fewestCoins: [10, 10],
      json: { username: 'demo', nonce: 'n', token: 't', results: [], data: { name: 'John Doe', occupation: 'Developer', age: 30 } },
      method: req.method,
      url: req.url,
    });
    res.writeHead(200, { 'Content-Type': 'application/json', Location: '/corpus/location', 'Set-Cookie': 'corpus=1; Path=/', 'x-csrf-token': 'csrf' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;

// Files keep their original names, one folder per source repository, so that `import x.http`,
// `run x.http` and `http-client.env.json` resolve as they did in their repositories.
const work = mkdtempSync(join(tmpdir(), 'sling-http-corpus-'));
const files = [];
for (const name of readdirSync(corpus).sort()) {
  const m = /^(.+?__.+?)__(.+)$/.exec(name);
  if (!m) continue;
  const dir = join(work, m[1]);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(corpus, name), join(dir, m[2]));
  if (/\.(http|rest)$/.test(name)) files.push({ name, dir, base: m[2] });
}

const totals = { files: 0, parsed: 0, streams: 0, requests: 0, sent: 0, skipped: 0, runMissing: 0, otherWarnings: 0, missingWarnings: 0, tests: 0, testFailures: 0, scriptFailures: 0 };
const problems = [];
const encodePath = (p) => p.replace(/[^\x21-\x7e]|[{}|\\^`"<> ]/g, (c) => encodeURIComponent(c));

for (const f of args.includes('--httpyac-only') ? [] : files) {
  totals.files++;
  const warnings = [];
  const opts = { file: f.name, dir: f.dir, env: {}, warn: (m) => warnings.push(m), debug: () => {} };
  const envFile = join(f.dir, 'http-client.env.json');
  if (existsSync(envFile)) {
    const first = Object.keys(JSON.parse(readFileSync(envFile, 'utf8'))).find((k) => k !== '$shared');
    if (first) opts.envName = first;
  }
  let script;
  try {
    script = await parseHttpFile(readFileSync(join(f.dir, f.base), 'utf8'), opts);
    totals.parsed++;
  } catch (e) {
    problems.push(`${f.name}: does not parse: ${e.message}`);
    continue;
  }
  const ctx = { offline: true, cwd: f.dir, warn: (m) => warnings.push(m), debug: () => {} };
  let sentHere = 0;
  for (const entry of script.entries) {
    let specs;
    try {
      specs = await entry.build(ctx);
    } catch (e) {
      if (entry.label.startsWith('run ') && MISSING.some((re) => re.test(e.message))) {
        totals.runMissing++;
        continue;
      }
      problems.push(`${f.name}:${entry.line}: cannot be built: ${e.message}`);
      continue;
    }
    if (specs === null) {
      totals.skipped++;
      continue;
    }
    for (const spec of Array.isArray(specs) ? specs : [specs]) {
      // A WebSocket, server-sent events or gRPC request: built (its messages, its proto lines) but
      // not sent, as the stub server speaks plain HTTP only (test/e2e/exec-streams runs them for real).
      if (spec.stream) {
        totals.streams++;
        continue;
      }
      totals.requests++;
      const url = { ...spec.url, scheme: 'http', hostname: '127.0.0.1', port, hostHeader: `127.0.0.1:${port}`, path: encodePath(spec.url.path), query: encodePath(spec.url.query) };
      const rewritten = { ...spec, url, settings: { ...spec.settings, timeoutMs: 5000, tls: { verify: true } } };
      try {
        const hop = await exchange(rewritten, { env: {} });
        const body = await readBody(hop);
        totals.sent++;
        sentHere++;
        if (entry.after) {
          const r = await entry.after({ spec: rewritten, request: hop.request, url: hop.url, response: hop.response, body, info: hop.info }, ctx);
          for (const l of r.log ?? []) if (/^[✓✗] /.test(l)) totals.tests++;
          for (const failure of r.failures) {
            if (/the response handler failed/.test(failure)) totals.scriptFailures++;
            else totals.testFailures++;
            if (verbose) console.log(`  ${f.name}: ${failure}`);
          }
        }
      } catch (e) {
        problems.push(`${f.name}:${entry.line}: not sent: ${e.message}`);
      }
    }
  }
  for (const w of warnings) {
    if (/shown as written|has no host|is not set: /.test(w)) continue; // placeholders, hosts and process variables the corpus cannot supply
    if (MISSING.some((re) => re.test(w))) totals.missingWarnings++;
    else if (OTHER_RUNNERS.some((re) => re.test(w))) totals.otherWarnings++;
    else problems.push(`unexpected warning: ${w}`);
  }
  if (verbose) console.log(`${f.name}: ${script.entries.length} entries, ${sentHere} sent, ${warnings.length} warnings`);
}
await closeConnections();
server.close();

if (!args.includes('--httpyac-only'))
  console.log(
    `http corpus: ${totals.parsed}/${totals.files} files parsed; ${totals.sent}/${totals.requests} requests sent to 127.0.0.1` +
      ` (${seen.length} arrived); ${totals.streams} WebSocket/SSE/gRPC requests built, not sent; ${totals.skipped} skipped by # @disabled; ${totals.runMissing} run lines whose file the corpus lacks;` +
      ` warnings: ${totals.otherWarnings} about other runners' syntax, ${totals.missingWarnings} about files the corpus lacks;` +
      ` scripts: ${totals.tests} tests run (${totals.testFailures} failed against the stub server), ${totals.scriptFailures} handler errors`,
  );
for (const p of problems) console.log(`  FAIL ${p}`);
process.exitCode = problems.length ? 1 : 0;

if (!args.includes('--no-httpyac')) await compareWithHttpyac().catch((e) => console.log(`httpyac comparison: stopped: ${e.stack}`));
rmSync(work, { recursive: true, force: true });

// ---------------------------------------------------------------- 3. the httpyac comparison --

/** httpyac's CLI, or undefined and why not. */
function findHttpyac() {
  if (process.env.SLING_HTTPYAC) return existsSync(process.env.SLING_HTTPYAC) ? { bin: process.env.SLING_HTTPYAC } : { why: `SLING_HTTPYAC=${process.env.SLING_HTTPYAC} does not exist` };
  const onPath = spawnSync('sh', ['-c', 'command -v httpyac'], { encoding: 'utf8' }).stdout?.trim();
  if (onPath) return { bin: onPath };
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const bin = join(cache, 'sling-ci', 'httpyac', 'node_modules', '.bin', 'httpyac');
  if (existsSync(bin)) return { bin };
  return { why: `httpyac is not on PATH nor in ${bin} (npm install --prefix ${join(cache, 'sling-ci', 'httpyac')} httpyac@6)` };
}

/**
 * Both clients send each file through one capturing proxy on 127.0.0.1 (a proxy cannot read inside
 * a TLS tunnel, so the copy of the corpus has `https://` rewritten to `http://`). The proxy records
 * each request (method, absolute target, headers, de-chunked body) and answers it with the JSON the
 * loopback server above sends, so nothing leaves 127.0.0.1.
 *
 * Ignored: User-Agent, Accept-Encoding, Connection, Proxy-Connection, Content-Length and
 * Transfer-Encoding (framing: the body is compared instead), an `Accept: * / *` only one side sends
 * (a client default), the default port in Host; header order and name case. Random values: UUIDs,
 * ISO timestamps and Unix times within two days of now are masked everywhere; in a file that uses
 * `$random...`, `$randomInt`, `$timestamp` or a `$datetime`, two requests whose texts differ only in
 * words of letters, digits and `.@+-` (the random values) count as the same. Requests are paired
 * by method and target in order (a longest common subsequence), so one request more or less on a
 * side does not shift every pair after it: unpaired requests are listed as sent by one side only.
 */
async function compareWithHttpyac() {
  const found = findHttpyac();
  if (!found.bin) {
    console.log(`httpyac comparison: skipped: ${found.why}`);
    return;
  }
  const version = spawnSync(found.bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() || '(version unknown)';
  const sling = join(ROOT, 'dist', 'sling.js');
  const show = args.includes('--show');

  let captured = [];
  const answer = (head) => {
    const [method, target] = head.split(' ');
    return JSON.stringify({
      token: 'corpus-token',
      access_token: 'corpus-access-token',
      refresh_token: 'corpus-refresh-token',
      uuid: '00000000-0000-0000-0000-000000000000',
      id: 1,
      method,
      url: target,
    });
  };
  const proxy = createTcpServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('error', () => {});
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        if (/^CONNECT /.test(head)) {
          captured.push({ head, body: '' });
          socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
          return;
        }
        let body;
        let at;
        if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) {
          const parts = [];
          at = end + 4;
          for (;;) {
            const lineEnd = buf.indexOf('\r\n', at);
            if (lineEnd < 0) return;
            const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
            if (buf.length < lineEnd + 2 + size + 2) return;
            if (size === 0) {
              at = lineEnd + 4;
              break;
            }
            parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
            at = lineEnd + 2 + size + 2;
          }
          body = Buffer.concat(parts);
        } else {
          const m = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
          const length = m ? Number(m[1]) : 0;
          if (buf.length < end + 4 + length) return;
          body = buf.subarray(end + 4, end + 4 + length);
          at = end + 4 + length;
        }
        buf = buf.subarray(at);
        captured.push({ head, body: body.toString('latin1') });
        const json = answer(head);
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
      }
    });
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  const proxyUrl = `http://127.0.0.1:${proxy.address().port}`;

  // A fresh copy (the check above may have written `>> out.json` files into `work`), https → http.
  const copy = mkdtempSync(join(tmpdir(), 'sling-httpyac-compare-'));
  const config = join(copy, '.sling-config');
  mkdirSync(config);
  for (const name of readdirSync(corpus).sort()) {
    const m = /^(.+?__.+?)__(.+)$/.exec(name);
    if (!m) continue;
    const dir = join(copy, m[1]);
    mkdirSync(dir, { recursive: true });
    const text = readFileSync(join(corpus, name));
    writeFileSync(join(dir, m[2]), /\.(http|rest|json)$|\.env$/.test(name) ? text.toString('utf8').replace(/https:\/\//g, 'http://') : text);
    // httpyac reads its proxy from the project's .httpyac.json (each repository folder is one).
    writeFileSync(join(dir, '.httpyac.json'), JSON.stringify({ proxy: proxyUrl }));
  }
  const env = { ...process.env, http_proxy: proxyUrl, HTTP_PROXY: proxyUrl, NO_PROXY: '', no_proxy: '', SLING_CONFIG_DIR: config, NO_COLOR: '1' };
  // https requests (a Host header with port 443) go through it as CONNECT, recorded and refused.
  env.https_proxy = env.HTTPS_PROXY = proxyUrl;
  const run = (cmd, argv, cwd) =>
    new Promise((resolve) => {
      const child = spawn(cmd, argv, { cwd, env, stdio: verbose ? ['ignore', 'pipe', 'pipe'] : 'ignore' });
      let out = '';
      if (verbose) for (const s of [child.stdout, child.stderr]) s.on('data', (d) => (out += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', () => {
        clearTimeout(timer);
        if (verbose)
          console.log(
            `  --- ${cmd === process.execPath ? 'sling' : 'httpyac'} ${argv.slice(1).join(' ')}\n${out
              .replace(/\x1b\[[\d;]*m/g, '')
              .split('\n')
              .filter((l) => l.trim() && !/^-+$/.test(l))
              .slice(-40)
              .map((l) => `    | ${l.slice(0, 300)}`)
              .join('\n')}`,
          );
        resolve();
      });
    });

  const IGNORED = new Set(['user-agent', 'accept-encoding', 'connection', 'proxy-connection', 'content-length', 'transfer-encoding']);
  const now = Date.now();
  const mask = (s) =>
    s
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
      .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)\b/g, '<iso-time>')
      .replace(/\b\d{10}(?:\d{3})?\b/g, (n) => (Math.abs((n.length === 10 ? Number(n) * 1000 : Number(n)) - now) < 2 * 86_400_000 ? '<unix-time>' : n));
  const normal = (r) => {
    const [line, ...lines] = r.head.split('\r\n');
    const headers = lines
      .map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()])
      .filter(([n]) => !IGNORED.has(n))
      .map(([n, v]) => (n === 'host' ? [n, v.replace(/:80$/, '')] : [n, v]))
      .map(([n, v]) => mask(`${n}: ${v}`))
      .sort();
    return { line: mask(line.replace(/ HTTP\/1\.[01]$/, '')), headers, body: mask(r.body) };
  };
  const words = (s) => s.split(/([^\w.@+-]+)/);
  /** Texts that differ only in random words (same shape, other letters and digits). */
  const randomOnly = (a, b) => {
    const x = words(a);
    const y = words(b);
    return x.length === y.length && x.every((w, i) => w === y[i] || (i % 2 === 0 && /^[\w.@+-]+$/.test(w) && /^[\w.@+-]+$/.test(y[i])));
  };
  const pair = (a, b, random) => {
    // Longest common subsequence of requests that are the same (random values aside); between two
    // of those, the requests left over are paired in order where their request lines match.
    const line = (x, y) => x.line === y.line || (random && randomOnly(x.line, y.line));
    const eq = (x, y) => line(x, y) && differences(x, y, random).length === 0;
    const n = a.length;
    const m = b.length;
    const L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = eq(a[i], b[j]) ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    const out = [];
    let gapA = [];
    let gapB = [];
    const flush = () => {
      while (gapA.length && gapB.length) {
        const k = gapB.findIndex((j) => line(a[gapA[0]], b[j]));
        if (k === -1) out.push([gapA.shift(), undefined]);
        else {
          for (const j of gapB.splice(0, k)) out.push([undefined, j]);
          out.push([gapA.shift(), gapB.shift()]);
        }
      }
      for (const i of gapA) out.push([i, undefined]);
      for (const j of gapB) out.push([undefined, j]);
      gapA = [];
      gapB = [];
    };
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (eq(a[i], b[j])) {
        flush();
        out.push([i++, j++]);
      } else if (L[i + 1][j] >= L[i][j + 1]) gapA.push(i++);
      else gapB.push(j++);
    }
    while (i < n) gapA.push(i++);
    while (j < m) gapB.push(j++);
    flush();
    return out;
  };
  const accept = (h, other) => h === 'accept: */*' && !other.some((o) => o.startsWith('accept:'));
  /** What differs between two requests (empty: the same, random values aside). */
  const differences = (a, b, random) => {
    const found = [];
    if (a.line !== b.line && !(random && randomOnly(a.line, b.line))) found.push(`request line: sling ${cut(a.line)}, httpyac ${cut(b.line)}`);
    if (a.body !== b.body && !(random && randomOnly(a.body, b.body))) found.push(`body: sling ${cut(a.body)}, httpyac ${cut(b.body)}`);
    const onlyA = a.headers.filter((h) => !b.headers.includes(h) && !accept(h, b.headers));
    const onlyB = b.headers.filter((h) => !a.headers.includes(h) && !accept(h, a.headers));
    if ((onlyA.length || onlyB.length) && !(random && onlyA.length === onlyB.length && onlyA.every((h, k) => randomOnly(h, onlyB[k])))) {
      found.push(`headers: sling only ${JSON.stringify(onlyA)}, httpyac only ${JSON.stringify(onlyB)}`);
    }
    return found;
  };
  const cut = (s) => JSON.stringify(show || s.length <= 160 ? s : s.slice(0, 160) + '...');

  console.log(`\nhttpyac comparison (informational): ${version}, ${found.bin}`);
  const sum = { files: 0, sling: 0, httpyac: 0, same: 0, random: 0, differ: 0, slingOnly: 0, httpyacOnly: 0 };
  for (const name of readdirSync(copy).sort()) {
    const dir = join(copy, name);
    if (name.startsWith('.')) continue;
    const envFile = join(dir, 'http-client.env.json');
    const envName = existsSync(envFile) ? Object.keys(JSON.parse(readFileSync(envFile, 'utf8'))).find((k) => k !== '$shared') : undefined;
    for (const base of readdirSync(dir).sort()) {
      if (!/\.(http|rest)$/.test(base) || (only && !`${name}__${base}`.includes(only))) continue;
      const file = join(dir, base);
      const random = /\{\{\s*\$(random|randomInt|timestamp|datetime|localDatetime)/.test(readFileSync(file, 'utf8'));
      captured = [];
      await run(process.execPath, [sling, 'exec', file, '--timeout', '10', ...(envName ? ['--env', envName] : [])], dir);
      const s = captured.map(normal);
      captured = [];
      await run(found.bin, ['send', file, '--all', '-o', 'none', ...(envName ? ['-e', envName] : [])], dir);
      const y = captured.map(normal);
      sum.files++;
      sum.sling += s.length;
      sum.httpyac += y.length;
      const lines = [];
      let same = 0;
      for (const [i, j] of pair(s, y, random)) {
        if (j === undefined) {
          sum.slingOnly++;
          lines.push(`    sent by sling only: #${i + 1} ${s[i].line}`);
          continue;
        }
        if (i === undefined) {
          sum.httpyacOnly++;
          lines.push(`    sent by httpyac only: #${j + 1} ${y[j].line}`);
          continue;
        }
        const a = s[i];
        const b = y[j];
        const found = differences(a, b, random);
        const randomSeen = a.line !== b.line || a.body !== b.body || a.headers.filter((h) => !accept(h, b.headers)).join('\n') !== b.headers.filter((h) => !accept(h, a.headers)).join('\n');
        if (found.length) {
          sum.differ++;
          lines.push(`    differs: sling #${i + 1}, httpyac #${j + 1}: ${a.line}\n      ${found.join('\n      ')}`);
        } else {
          same++;
          if (randomSeen) sum.random++;
        }
      }
      sum.same += same;
      console.log(`  ${name}__${base}: sling sent ${s.length}, httpyac ${y.length}; ${same} the same${lines.length ? `, ${lines.length} differ` : ''}`);
      for (const l of lines) console.log(l);
    }
  }
  proxy.close();
  rmSync(copy, { recursive: true, force: true });
  console.log(
    `httpyac comparison: ${sum.files} files; sling sent ${sum.sling} requests, httpyac ${sum.httpyac}; ${sum.same} pairs the same` +
      ` (${sum.random} of them after random values), ${sum.differ} pairs differ, ${sum.slingOnly} requests sent by sling only, ${sum.httpyacOnly} by httpyac only` +
      ` (informational: httpyac is not the reference for .http files; docs/exec-http.md, "Differences from httpyac", explains the known ones)`,
  );
}
