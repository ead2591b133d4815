#!/usr/bin/env node
// Informational (not run by CI or npm test): sends every .http file of ../shared/corpus/http with
// httpyac and with `sling exec`, both through one capturing HTTP proxy on 127.0.0.1, and compares
// the requests that arrive, in order. httpyac is not the reference for .http files (JetBrains is),
// so a difference is something to look at, not a failure: it has found httpyac features sling
// lacked (GraphQL fragments) as well as httpyac's own bugs.
//
//   node scripts/httpyac-diff.mjs [--only TEXT] [--show]     (after `npm run build`)
//
// How: the corpus is copied to a temporary folder with `https://` rewritten to `http://` (a proxy
// cannot read inside a TLS tunnel); httpyac gets the proxy from a `.httpyac.json` there, sling from
// `http_proxy`. The proxy records each request (method, absolute target, headers, de-chunked body)
// and answers every one `200 {"ok": true, "token": "T", "id": 1}`, so nothing leaves 127.0.0.1.
// Ignored in the comparison: User-Agent, Accept, Accept-Encoding, Connection, Proxy-Connection,
// Content-Length and Transfer-Encoding (framing and defaults). httpyac: `httpyac` on PATH, else the
// copy bench/exec-http.mjs installs (npm install --no-save httpyac into a temporary folder).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SLING = join(ROOT, 'dist', 'sling.js');
const CORPUS = join(ROOT, '..', 'shared', 'corpus', 'http');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const show = args.includes('--show');

if (!existsSync(CORPUS)) {
  console.log(`httpyac-diff: skipped: ${CORPUS} is not there`);
  process.exit(0);
}
if (!existsSync(SLING)) {
  console.error('httpyac-diff: dist/sling.js is missing: run `npm run build` first');
  process.exit(1);
}
let httpyac = spawnSync('sh', ['-c', 'command -v httpyac'], { encoding: 'utf8' }).stdout.trim();
if (!httpyac) {
  const dir = join(tmpdir(), 'sling-bench-httpyac');
  const bin = join(dir, 'node_modules', '.bin', 'httpyac');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    console.log(`httpyac-diff: installing httpyac into ${dir} (npm install --no-save httpyac) ...`);
    spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', 'httpyac'], { cwd: dir, stdio: 'ignore', timeout: 300_000 });
  }
  if (!existsSync(bin)) {
    console.log('httpyac-diff: skipped: httpyac is not installed and could not be installed');
    process.exit(0);
  }
  httpyac = bin;
}

// ------------------------------------------------------------------ capturing proxy --
let captured = [];
const ANSWER = '{"ok": true, "token": "T", "id": 1}';
function onConnection(socket) {
  let buf = Buffer.alloc(0);
  socket.on('error', () => {});
  socket.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      if (/^CONNECT /.test(head)) {
        // Left over https (a Host header with port 443): recorded, then refused.
        captured.push({ head, body: '' });
        socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      let body;
      let rest;
      if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) {
        const parts = [];
        let at = end + 4;
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
        rest = buf.subarray(at);
      } else {
        const m = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
        const length = m ? Number(m[1]) : 0;
        if (buf.length < end + 4 + length) return;
        body = buf.subarray(end + 4, end + 4 + length);
        rest = buf.subarray(end + 4 + length);
      }
      buf = rest;
      captured.push({ head, body: body.toString('latin1') });
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${ANSWER.length}\r\n\r\n${ANSWER}`);
    }
  });
}
const server = createServer(onConnection);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const proxy = `http://127.0.0.1:${server.address().port}`;

// ------------------------------------------------------------------ the corpus copy --
const work = mkdtempSync(join(tmpdir(), 'sling-httpyac-diff-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
cpSync(CORPUS, work, { recursive: true });
const walk = (d) => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
for (const f of walk(work)) {
  if (['.http', '.rest', '.json'].includes(extname(f)) || f.endsWith('.env')) {
    writeFileSync(f, readFileSync(f, 'utf8').replace(/https:\/\//g, 'http://'));
  }
}
writeFileSync(join(work, '.httpyac.json'), JSON.stringify({ proxy }));

// Each client runs in its own process while this one serves the proxy: spawn, not spawnSync.
function run(cmd, argv, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const IGNORED = new Set(['user-agent', 'accept', 'accept-encoding', 'connection', 'proxy-connection', 'content-length', 'transfer-encoding']);
function normal(r) {
  const [line, ...lines] = r.head.split('\r\n');
  const headers = lines
    .map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()])
    .filter(([n]) => !IGNORED.has(n))
    .map(([n, v]) => `${n}: ${v}`)
    .sort();
  return { line: line.replace(/ HTTP\/1\.[01]$/, ''), headers, body: r.body };
}

const files = walk(work).filter((f) => /\.(http|rest)$/.test(f) && (!only || f.includes(only)));
let same = 0;
let differ = 0;
let countsDiffer = 0;
for (const file of files) {
  const dir = dirname(file);
  const name = relative(work, file);
  let env;
  const envFile = join(dir, 'http-client.env.json');
  if (existsSync(envFile)) env = Object.keys(JSON.parse(readFileSync(envFile, 'utf8'))).find((k) => k !== '$shared');
  captured = [];
  await run(httpyac, ['send', file, '--all', ...(env ? ['-e', env] : [])], dir, {});
  const yac = captured;
  captured = [];
  await run(process.execPath, [SLING, 'exec', file, ...(env ? ['--env', env] : [])], dir, { http_proxy: proxy, HTTP_PROXY: proxy });
  const sling = captured;
  if (yac.length !== sling.length) {
    countsDiffer++;
    console.log(`COUNT ${name}: httpyac sent ${yac.length}, sling ${sling.length}`);
  }
  for (let i = 0; i < Math.min(yac.length, sling.length); i++) {
    const a = normal(yac[i]);
    const b = normal(sling[i]);
    const found = [];
    if (a.line !== b.line) found.push(`request line: httpyac ${JSON.stringify(a.line)}, sling ${JSON.stringify(b.line)}`);
    if (a.body !== b.body) found.push(`body: httpyac ${JSON.stringify(show ? a.body : a.body.slice(0, 120))}, sling ${JSON.stringify(show ? b.body : b.body.slice(0, 120))}`);
    const onlyA = a.headers.filter((h) => !b.headers.includes(h));
    const onlyB = b.headers.filter((h) => !a.headers.includes(h));
    if (onlyA.length || onlyB.length) found.push(`headers: httpyac only ${JSON.stringify(onlyA)}, sling only ${JSON.stringify(onlyB)}`);
    if (found.length) {
      differ++;
      console.log(`DIFF ${name} #${i + 1}\n    ${found.join('\n    ')}`);
    } else same++;
  }
}
server.close();
console.log(`httpyac-diff: ${files.length} files; ${same} requests the same, ${differ} different, ${countsDiffer} files where the number of requests differs`);
