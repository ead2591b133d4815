// sling keeps V8's compiled code of its own files between runs (src/entry/loader.ts, put into
// dist/sling.js by the build). What a user can observe: the cache folder and its files, the same
// output with and without the cache, a broken or unwritable cache that changes nothing but the
// speed, old folders removed, one folder per install; for `sling exec` and the main command alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSling, SLING_PATH, VERSION } from '../helpers/cli.js';
import { httpServer, show } from '../helpers/assert.js';

/** This version's folders for this Node (one per install), by name. */
const RELEASE = `-${VERSION}-node${process.version}-${process.arch}`;
const foldersOf = (cache: string) => (existsSync(join(cache, 'v8')) ? readdirSync(join(cache, 'v8')).filter((f) => f.endsWith(RELEASE) && !f.startsWith('node-')) : []);

async function setup(t: import('node:test').TestContext) {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  const dir = mkdtempSync(join(tmpdir(), 'sling-cc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'api.http');
  writeFileSync(file, `# @name one\nGET ${srv.url}/one\n\n###\nPOST ${srv.url}/two\nContent-Type: application/json\n\n{"a": 1}\n`);
  const cache = join(dir, 'cache');
  const run = (env: Record<string, string> = {}, script?: string) => runSling(['exec', '--print=b', file], { env: { SLING_CACHE_DIR: cache, ...env }, script });
  const main = (env: Record<string, string> = {}) => runSling(['--offline', 'POST', 'example.org/x', 'a=1'], { env: { SLING_CACHE_DIR: cache, ...env } });
  /** The folder of this install (dist/ of the repository), once a run made it. */
  const folder = () => {
    const found = foldersOf(cache);
    assert.equal(found.length, 1, `one folder for this install: ${found.join(', ')}`);
    return join(cache, 'v8', found[0]!);
  };
  return { run, main, cache, folder, dir };
}

const EXPECTED = '### one: GET http://127.0.0.1:PORT/one  (line 2)\n{"path":"/one"}\n### POST http://127.0.0.1:PORT/two  (line 5)\n{"path":"/two"}';
const normal = (s: string) =>
  s
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(/\n+/g, '\n')
    .trim();
const snapshot = (dir: string) => new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));

test('compile cache: written on the first run, used on the next, same output; off with SLING_NO_COMPILE_CACHE', async (t) => {
  const { run, folder, cache } = await setup(t);
  const off = await run({ SLING_NO_COMPILE_CACHE: '1' });
  assert.equal(off.code, 0, show(off));
  assert.equal(normal(off.stdout), EXPECTED);
  assert.equal(existsSync(cache), false, 'SLING_NO_COMPILE_CACHE=1 writes nothing');
  const first = await run();
  assert.equal(first.code, 0, show(first));
  assert.equal(first.stderr, '');
  assert.equal(normal(first.stdout), EXPECTED);
  const files = readdirSync(folder());
  assert.ok(files.length >= 5, `cache files: ${files.join(', ')}`);
  assert.ok(
    files.every((f) => f.endsWith('.js.v8')),
    files.join(', '),
  );
  assert.ok(
    files.some((f) => f.startsWith('runner-')),
    files.join(', '),
  );
  const before = snapshot(folder());
  const second = await run();
  assert.equal(second.code, 0, show(second));
  assert.equal(second.stderr, '');
  assert.equal(normal(second.stdout), EXPECTED);
  // Valid entries are read, not written again.
  assert.deepEqual(snapshot(folder()), before);
  assert.equal((await run({ NODE_DISABLE_COMPILE_CACHE: '1' })).code, 0);
  assert.deepEqual(snapshot(folder()), before);
});

test('compile cache: a broken entry is rejected and written again; the run is unchanged', async (t) => {
  const { run, folder } = await setup(t);
  assert.equal((await run()).code, 0);
  const files = readdirSync(folder());
  for (const f of files) writeFileSync(join(folder(), f), 'not a code cache');
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '');
  assert.equal(normal(r.stdout), EXPECTED);
  for (const f of files) assert.notEqual(readFileSync(join(folder(), f), 'utf8'), 'not a code cache', f);
});

test('compile cache: an unusable cache folder is no error, and nothing is written beside it', async (t) => {
  const { run, main, cache, dir } = await setup(t);
  writeFileSync(cache, 'a file where the cache folder would be');
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '');
  assert.equal(normal(r.stdout), EXPECTED);
  const m = await main();
  assert.equal(m.code, 0, show(m));
  assert.equal(m.stderr, '');
  assert.deepEqual(readdirSync(dir).sort(), ['api.http', 'cache']);
  assert.equal(readFileSync(cache, 'utf8'), 'a file where the cache folder would be');
});

test("compile cache: a new folder removes this install's other sling versions and folders unused for 30 days, nothing else", async (t) => {
  const { run, cache, folder } = await setup(t);
  // A first run: this install's folder and its name.
  assert.equal((await run()).code, 0);
  const name = folder().slice(join(cache, 'v8').length + 1);
  const install = name.slice(0, name.indexOf('-') + 1);
  rmSync(folder(), { recursive: true });
  const v8 = join(cache, 'v8');
  const make = (n: string, ageDays = 0) => {
    mkdirSync(join(v8, n), { recursive: true });
    writeFileSync(join(v8, n, 'chunk-OLD.js.v8'), 'x');
    if (ageDays) {
      const then = new Date(Date.now() - ageDays * 24 * 3600 * 1000);
      utimesSync(join(v8, n), then, then);
    }
  };
  make(`${install}0.0.1-node-v18.0.0-x64`); // this install, an older sling: goes
  make(`${install}${VERSION}-nodev99.0.0-x64`); // this sling on another Node: stays
  make(`0badcafe-${VERSION}-node${process.version}-${process.arch}`); // another install in use: stays
  make(`0badf00d-${VERSION}-node${process.version}-${process.arch}`, 40); // an install unused for 40 days: goes
  make(`0badbeef-0.0.1-node-v18.0.0-x64`, 10); // another install's older sling, used 10 days ago: stays
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '');
  assert.deepEqual(readdirSync(v8).sort(), [name, `${install}${VERSION}-nodev99.0.0-x64`, `0badcafe-${VERSION}-node${process.version}-${process.arch}`, '0badbeef-0.0.1-node-v18.0.0-x64'].sort());
});

test('compile cache: two installs of the same version keep their own folders, and a stack trace names its own files', async (t) => {
  const { run, cache, dir } = await setup(t);
  const other = join(dir, 'other-install');
  cpSync(dirname(SLING_PATH), other, { recursive: true });
  const otherSling = join(other, 'sling.js');
  assert.equal((await run()).code, 0);
  const r = await run({}, otherSling);
  assert.equal(r.code, 0, show(r));
  assert.equal(normal(r.stdout), EXPECTED);
  const folders = foldersOf(cache);
  assert.equal(folders.length, 2, folders.join(', '));
  for (const f of folders)
    assert.ok(
      readdirSync(join(cache, 'v8', f)).some((e) => e.startsWith('runner-')),
      f,
    );
  // --debug prints the stack of an error: each install's own chunks, whichever ran first.
  for (const script of [otherSling, SLING_PATH]) {
    const d = await runSling(['--debug', 'http://127.0.0.1:1/'], { env: { SLING_CACHE_DIR: cache }, script });
    assert.equal(d.code, 6, show(d));
    const named = [...d.stderr.matchAll(/\((\/[^():]+\.js):\d+:\d+\)/g)].map((m) => m[1]!).filter((p) => p.includes('chunks'));
    assert.ok(named.length > 0, d.stderr);
    for (const p of named) assert.ok(p.startsWith(dirname(script)), `${p} is not under ${dirname(script)}`);
  }
});

test("compile cache: exec and the main command share the folder without rewriting each other's entries", async (t) => {
  const { run, main, folder } = await setup(t);
  const expected = (await main({ SLING_NO_COMPILE_CACHE: '1' })).stdout;
  assert.match(expected, /^POST \/x HTTP\/1\.1\n[\s\S]*\n\n\{"a": "1"\}$/);
  const m = await main();
  assert.equal(m.code, 0, show(m));
  assert.equal(m.stderr, '');
  assert.equal(m.stdout, expected);
  const mainFiles = readdirSync(folder());
  // The entry's own chunks and the request path's: several files, none of the exec path's.
  assert.ok(mainFiles.length >= 3, mainFiles.join(', '));
  assert.ok(!mainFiles.some((f) => f.startsWith('runner-') || f.startsWith('http-')), mainFiles.join(', '));
  assert.equal((await run()).code, 0);
  const both = snapshot(folder());
  for (const f of mainFiles) assert.ok(both.has(f), f);
  for (let i = 0; i < 2; i++) {
    const r = await run();
    assert.equal(normal(r.stdout), EXPECTED);
    const again = await main();
    assert.equal(again.stdout, expected);
  }
  assert.deepEqual(snapshot(folder()), both);
});

test('compile cache: entries of chunks the build no longer has are removed when an entry is written', async (t) => {
  const { run, folder } = await setup(t);
  assert.equal((await run()).code, 0);
  const files = readdirSync(folder());
  writeFileSync(join(folder(), 'chunk-GONE1234.js.v8'), 'an entry of an older build');
  // Nothing to write: nothing is touched.
  assert.equal((await run()).code, 0);
  assert.ok(existsSync(join(folder(), 'chunk-GONE1234.js.v8')));
  // One entry missing: it is written, and the old build's entry goes.
  rmSync(join(folder(), files[0]!));
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(normal(r.stdout), EXPECTED);
  assert.equal(existsSync(join(folder(), 'chunk-GONE1234.js.v8')), false);
  assert.deepEqual(readdirSync(folder()).sort(), [...files].sort());
});

test("SLING_NO_CHUNK_LOADER: Node's own require (and its compile cache where Node has one), same output", async (t) => {
  const { run, main, cache } = await setup(t);
  const expected = (await main({ SLING_NO_COMPILE_CACHE: '1' })).stdout;
  for (let i = 0; i < 2; i++) {
    const r = await run({ SLING_NO_CHUNK_LOADER: '1' });
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, '');
    assert.equal(normal(r.stdout), EXPECTED);
    const m = await main({ SLING_NO_CHUNK_LOADER: '1' });
    assert.equal(m.stdout, expected);
    assert.equal(m.stderr, '');
  }
  assert.deepEqual(foldersOf(cache), [], "the loader's own cache is not used");
  const nodeFolders = existsSync(join(cache, 'v8')) ? readdirSync(join(cache, 'v8')) : [];
  const hasNodeCache = typeof ((await import('node:module')).default as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  if (hasNodeCache) {
    assert.equal(nodeFolders.length, 1, nodeFolders.join(', '));
    assert.match(nodeFolders[0]!, new RegExp(`^node-[0-9a-f]{8}${RELEASE.replace(/[.]/g, '\\.')}$`));
    assert.ok(readdirSync(join(cache, 'v8', nodeFolders[0]!)).length > 0);
  } else assert.deepEqual(nodeFolders, []);
});
