// Every sling command line of the ```sh (and ```console) blocks of README.md and docs/*.md runs
// against the demo server (demo/server.mjs) on a free port, `:3000` being that port, and exits 0, or
// with the code its comment names ("exit 5"). A line that cannot run here is listed below with the
// reason; a listed line the documents no longer have fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseEnv, REPO_ROOT, SLING_PATH } from '../helpers/cli.js';

/** Lines that cannot run against a loopback demo server, by their start, with the reason. */
const CANNOT_RUN = new Map<string, string>([
  ['sling --proxy http://127.0.0.1:8080 example.org', 'needs a proxy on port 8080 and a host off loopback'],
  ['sling --http-version 2 -m https://example.org', 'a host off loopback (HTTPS and HTTP/2)'],
  ['sling --resolve example.org:127.0.0.1 https://example.org', 'HTTPS: the demo server speaks plain HTTP'],
  ['pbpaste | sling exec', "macOS's clipboard"],
]);

const noBash = spawnSync('bash', ['-c', 'exit 0']).status === 0 ? undefined : 'bash is not installed';

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);

interface Example {
  where: string;
  line: string;
  exit: number;
}

/** The lines of shell blocks that run sling, with the exit code their comment names (else 0). */
function examples(): Example[] {
  const out: Example[] = [];
  const pages = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
  for (const page of pages) {
    let lang: string | undefined;
    readFileSync(join(REPO_ROOT, page), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const fence = /^```(\w*)/.exec(text);
        if (fence) {
          lang = lang === undefined ? fence[1]! : undefined;
          return;
        }
        if (lang === undefined || !SHELL_LANGS.has(lang)) return;
        const line = text.replace(/^\$ /, '').trim();
        if (!/(^|[|;&(]\s*|\bif\s+)slings?\s/.test(line)) return;
        const exit = /#.*\bexit (\d+)\b/.exec(line);
        out.push({ where: `${page}:${i + 1}`, line, exit: exit ? Number(exit[1]) : 0 });
      });
  }
  return out;
}

function fixtures(dir: string, base: string) {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const http = /```http\n([\s\S]*?)```/.exec(readme)![1]!.replaceAll('http://localhost:3000', base);
  const curl = `curl ${base}/get\ncurl -d 'a=1' ${base}/post\n`;
  const files: Record<string, string> = {
    'api.http': http,
    'requests.http': http,
    'http-client.env.json': JSON.stringify({ dev: { host: base } }),
    'calls.sh': curl,
    'notes.txt': curl,
    'payload.json': '{"a": 1}',
    'meta.json': '{"n": 1}',
    'body.json': '{"a": 1}',
    'me.png': '\x89PNG\r\n\x1a\n',
  };
  // docs/exec-http.md's file of stream requests (WebSocket, server-sent events, gRPC), with the demo's proto file beside it.
  const streams = /```http\n(# streams\.http[\s\S]*?)```/.exec(readFileSync(join(REPO_ROOT, 'docs', 'exec-http.md'), 'utf8'));
  if (streams) files['streams.http'] = streams[1]!.replaceAll('localhost:3000', base.replace(/^http:\/\//, ''));
  files['demo.proto'] = readFileSync(join(REPO_ROOT, 'demo', 'demo.proto'), 'utf8');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

function run(line: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('docs: every sling example of README.md and docs/*.md runs against the demo server with the exit code it says', { skip: noBash }, async (t) => {
  const { startDemoServer } = (await import(pathToFileURL(join(REPO_ROOT, 'demo', 'server.mjs')).href)) as {
    startDemoServer: () => Promise<{ port: number; url: string; close: () => Promise<void>; stats: { noRoute: number } }>;
  };
  const srv = await startDemoServer();
  t.after(() => srv.close());
  const top = mkdtempSync(join(tmpdir(), 'sling-doc-examples-'));
  t.after(() => rmSync(top, { recursive: true, force: true }));
  // `sling` and `slings` on PATH: the build under test.
  const bin = join(top, 'bin');
  mkdirSync(bin);
  for (const [name, entry] of [
    ['sling', SLING_PATH],
    ['slings', join(dirname(SLING_PATH), 'slings.js')],
  ]) {
    writeFileSync(join(bin, name!), `#!/bin/sh\nexec '${process.execPath}' '${entry}' "$@"\n`);
    chmodSync(join(bin, name!), 0o755);
  }
  const all = examples();
  assert.ok(all.length > 50, `only ${all.length} examples found`);
  for (const start of CANNOT_RUN.keys())
    assert.ok(
      all.some((e) => e.line.startsWith(start)),
      `no example starts with '${start}' any more: remove it from CANNOT_RUN`,
    );
  const failed: string[] = [];
  let n = 0;
  for (const ex of all) {
    if ([...CANNOT_RUN.keys()].some((s) => ex.line.startsWith(s))) continue;
    // Each line in a folder of its own, with the files the examples name, and its own sessions.
    const dir = join(top, String(++n));
    mkdirSync(dir);
    fixtures(dir, `http://localhost:${srv.port}`);
    const env = { ...baseEnv(), PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, SLING_CONFIG_DIR: join(dir, '.sling'), TOKEN: 'abc' };
    const line = ex.line.replace(/:3000\b/g, `:${srv.port}`);
    const before = srv.stats.noRoute;
    const r = await run(line, dir, env);
    if (r.code !== ex.exit) failed.push(`${ex.where}: exit ${r.code}, not ${ex.exit}: ${ex.line}\n    ${r.err.trim().split('\n').slice(-2).join('\n    ')}`);
    else if (srv.stats.noRoute !== before) failed.push(`${ex.where}: the demo server has no route for a request of: ${ex.line}`);
  }
  assert.equal(failed.length, 0, `${failed.length} of ${n} examples failed:\n${failed.join('\n')}`);
});
