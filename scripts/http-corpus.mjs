#!/usr/bin/env node
// Corpus check for `sling exec` on .http/.rest files (issue 3), run by CI when ../shared exists:
//   1. every file of ../shared/corpus/http parses without error, and the only warnings are about
//      syntax of other runners (httpyac, kulala, rest.nvim, WebSocket/gRPC, ...) or about files the
//      corpus does not carry;
//   2. every request in it is built and sent to a loopback server, its host rewritten to
//      127.0.0.1 (placeholders nothing can resolve are sent as written), its response handed to
//      the file's scripts and references as in a real run.
// Prints the numbers; exit 1 when a file fails to parse, a warning is of another kind, or a
// request cannot be built or sent.
//
//   node scripts/http-corpus.mjs [CORPUS_DIR] [--verbose]
//
// Uses the transpiled sources in build/ (made by `node scripts/build.mjs --tests`, which this
// script runs when build/ is missing). Nothing leaves 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const corpus = args.find((a) => !a.startsWith('--')) ?? join(ROOT, '..', 'shared', 'corpus', 'http');
if (!existsSync(corpus)) {
  console.log(`http-corpus: ${corpus} does not exist: skipped`);
  process.exit(0);
}
if (!existsSync(join(ROOT, 'build', 'src', 'sources', 'http', 'index.js'))) {
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
  /WebSocket|gRPC|server-sent|MQTT|AMQP/,
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

const totals = { files: 0, parsed: 0, requests: 0, sent: 0, skipped: 0, runMissing: 0, otherWarnings: 0, missingWarnings: 0, tests: 0, testFailures: 0, scriptFailures: 0 };
const problems = [];
const encodePath = (p) => p.replace(/[^\x21-\x7e]|[{}|\\^`"<> ]/g, (c) => encodeURIComponent(c));

for (const f of files) {
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
rmSync(work, { recursive: true, force: true });

console.log(
  `http corpus: ${totals.parsed}/${totals.files} files parsed; ${totals.sent}/${totals.requests} requests sent to 127.0.0.1` +
    ` (${seen.length} arrived); ${totals.skipped} skipped by # @disabled; ${totals.runMissing} run lines whose file the corpus lacks;` +
    ` warnings: ${totals.otherWarnings} about other runners' syntax, ${totals.missingWarnings} about files the corpus lacks;` +
    ` scripts: ${totals.tests} tests run (${totals.testFailures} failed against the stub server), ${totals.scriptFailures} handler errors`,
);
if (problems.length) {
  for (const p of problems) console.log(`  FAIL ${p}`);
  process.exit(1);
}
