// What the bench scripts share (not a bench itself): which Node runs sling (--node), and the
// loopback server and .http files of bench/exec-http.mjs, which bench/mechanisms.mjs uses too.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SLING = join(ROOT, 'dist', 'sling.js');

/** An executable file of that name on PATH (or /usr/sbin, where nginx lives), else ''. */
export function which(name) {
  for (const dir of [...(process.env.PATH || '').split(delimiter), '/usr/sbin']) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return p;
    } catch {}
  }
  return '';
}

/**
 * Takes every `--node PATH` / `--node=PATH` out of `args` (changed in place) and returns the paths
 * in order. A path without a slash is looked up on PATH; a relative one is made absolute.
 */
export function takeNodeArgs(args, fail) {
  const paths = [];
  for (let i = 0; i < args.length; ) {
    const a = args[i];
    if (a === '--node' || a.startsWith('--node=')) {
      const v = a === '--node' ? args[i + 1] : a.slice('--node='.length);
      if (!v || (a === '--node' && v.startsWith('--'))) fail(`--node needs the path of a Node binary`);
      args.splice(i, a === '--node' ? 2 : 1);
      paths.push(v);
    } else i++;
  }
  return paths.map((p) => nodePath(p, fail));
}

function nodePath(p, fail) {
  if (!p.includes('/')) {
    const found = which(p);
    if (!found) fail(`--node ${p}: not found on PATH`);
    return found;
  }
  return isAbsolute(p) ? p : resolve(p);
}

/**
 * The one Node a single bench runs sling on: its --node (at most one), else $SLING_BENCH_NODE,
 * else the Node running the bench. Returns { path, version }; exits 2 when it cannot be run.
 */
export function benchNode(args, fail) {
  const given = takeNodeArgs(args, fail);
  if (given.length > 1) fail(`--node given ${given.length} times: this bench runs one Node (bench/run.mjs runs several)`);
  const path = given[0] ?? (process.env.SLING_BENCH_NODE ? nodePath(process.env.SLING_BENCH_NODE, fail) : process.execPath);
  return describeNode(path, fail);
}

/** { path, version } of a Node binary, asking it for its version; exits 2 when it cannot run. */
export function describeNode(path, fail) {
  if (path === process.execPath) return { path, version: process.version };
  if (!existsSync(path)) fail(`Node binary ${path} does not exist`);
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000, env: cleanEnv() });
  const version = (r.stdout || '').trim();
  if (r.status !== 0 || !/^v\d+\./.test(version)) fail(`${path} --version did not answer like Node (${r.error?.message ?? `exit ${r.status}`}): is it a Node binary?`);
  return { path, version };
}

/** The line every report prints. */
export const nodeLine = (node) => `sling ran on Node ${node.version} (${node.path})`;

/**
 * process.env without NODE_EXTRA_CA_CERTS (Node 20 reads and parses that file at every start,
 * ~0.1 s for a system bundle) and, when `dropProxies`, without proxy variables.
 */
export function cleanEnv({ dropProxies = false } = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'NODE_EXTRA_CA_CERTS') continue;
    if (dropProxies && /^(https?|all|no|ftp|socks)_proxy$/i.test(k)) continue;
    env[k] = v;
  }
  if (dropProxies) env.NO_PROXY = env.no_proxy = '*';
  return env;
}

export function median(xs) {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
}

// ------------------------------------------------------------- the exec benches' server --

async function freePort() {
  const net = await import('node:net');
  return await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

async function waitFor(p) {
  const net = await import('node:net');
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(p, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the server on port ${p} did not come up`);
}

/**
 * A loopback server answering every request with `{"ok": true}` (12 bytes of JSON), keep-alive
 * without a request limit: nginx when installed, else node:http in a process of its own (on the
 * Node running the bench). Files go to `work`. Returns { kind, port, stop }.
 */
export async function startExecServer(work) {
  const port = await freePort();
  const nginx = which('nginx');
  let kind;
  let child;
  if (nginx) {
    kind = 'nginx';
    const tmp = join(work, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const conf = join(work, 'nginx.conf');
    writeFileSync(
      conf,
      `worker_processes 1;
daemon off;
pid ${join(work, 'nginx.pid')};
error_log ${join(work, 'error.log')};
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${tmp}; proxy_temp_path ${tmp}; fastcgi_temp_path ${tmp}; uwsgi_temp_path ${tmp}; scgi_temp_path ${tmp};
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:${port};
    location / { default_type application/json; return 200 '{"ok": true}'; }
  }
}
`,
    );
    child = spawn(nginx, ['-c', conf, '-p', work], { stdio: 'ignore' });
  } else {
    kind = 'node:http (nginx not installed; the server may be the limit)';
    const code = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 12 }); s.end('{"ok": true}'); }); }).listen(${port}, '127.0.0.1');`;
    child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  }
  const stop = () => child.kill('SIGTERM');
  try {
    await waitFor(port);
  } catch (e) {
    stop();
    throw e;
  }
  return { kind, port, stop };
}

/**
 * `n` named POST requests to the server on `port`: a .http file for sling (and httpyac) and a curl
 * config file sending the same requests (`next` between them). Returns { http, curl } (paths).
 */
export function execFiles(work, port, n) {
  let http = '';
  let curl = '';
  for (let i = 1; i <= n; i++) {
    const body = `{"id": ${i}, "name": "item ${i}"}`;
    http += `### Create item ${i}\n# @name item${i}\nPOST http://127.0.0.1:${port}/items/${i}\nContent-Type: application/json\n\n${body}\n\n`;
    curl += `url = "http://127.0.0.1:${port}/items/${i}"\nrequest = "POST"\nheader = "Content-Type: application/json"\ndata-raw = "${body.replace(/"/g, '\\"')}"\n${i < n ? 'next\n' : ''}`;
  }
  const h = join(work, `requests-${n}.http`);
  const c = join(work, `requests-${n}.curl`);
  writeFileSync(h, http);
  writeFileSync(c, curl);
  return { http: h, curl: c };
}

/** A bench's usage error: one line on stderr, exit 2. */
export function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(2);
}

/** The arguments with every `--flag=value` split into two words (not every bench reads the = form). */
export function splitEquals(argv) {
  const args = [];
  for (const a of argv) {
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0) args.push(a.slice(0, eq), a.slice(eq + 1));
    else args.push(a);
  }
  return args;
}
