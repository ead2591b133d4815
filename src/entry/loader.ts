import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { EXEC_V8_FLAGS } from '../exec/tiering.js';

/**
 * How dist/sling.js loads its own chunks (scripts/build.mjs puts this function at the top of each
 * entry file and turns the entry's `require("./chunks/X.js")` into `load("X.js")`).
 *
 * Two costs of Node's own CommonJS loader are left out, both measured on `sling --offline POST
 * example.org a=1` (bench/startup.mjs):
 * - resolving: Node stats and realpaths every `require("./chunk-X.js")` again from every chunk that
 *   names it, and looks for a package.json above it (~20 chunks × several requires each);
 * - compiling: V8's code cache of each chunk (what Node 22's module.enableCompileCache() does, for
 *   Node 20 too) is read instead of compiling the source. The cache is written when a run ends, after
 *   the code ran, so it holds the functions that were compiled lazily as well; `sling exec` writes
 *   it all again after a run that made much more code than the one that wrote it (refreshNeeded).
 * Together: 89 → 73 ms, with `node -e 0` at 55 ms.
 *
 * Chunks are sling's own files, CommonJS, requiring only each other (`./NAME.js`) and Node's
 * built-ins (through requireBuiltin: the entry file's own require); a chunk is run once and its
 * exports kept, cycles get the exports so far (as Node does).
 *
 * The cache lives in $SLING_CACHE_DIR, else $XDG_CACHE_HOME/sling or ~/.cache/sling
 * (%LOCALAPPDATA%\sling\Cache on Windows), in a folder per sling version, Node version and CPU
 * (and one more for `sling exec`, which runs with a V8 flag of its own: tuneV8);
 * older folders are removed when a new one is made, and entries of chunks the build no longer has
 * when an entry is written. V8 checks each entry against the source and its own flags and rejects
 * a mismatch (the entry is then written again). Any failure (no home, read-only disk, a broken
 * file) means compiling as usual, silently. NODE_DISABLE_COMPILE_CACHE or SLING_NO_COMPILE_CACHE
 * turns the cache off.
 */
export function chunkLoader(dir: string, version: string, env: NodeJS.ProcessEnv, requireBuiltin: (id: string) => unknown, flavor = ''): (name: string) => unknown {
  const modules = new Map<string, { exports: unknown }>();
  const cache = cacheFolder(env, version, flavor);
  const stale: [Script, string][] = [];
  /** Every chunk this run loaded (`sling exec` may write them all again: refreshNeeded). */
  const loaded: [Script, string][] = [];
  const requireFrom = (id: string) => (id.startsWith('./') ? load(id.slice(2)) : requireBuiltin(id));

  function load(name: string): unknown {
    const known = modules.get(name);
    if (known) return known.exports;
    const module = { exports: {} as unknown };
    modules.set(name, module);
    const filename = join(dir, name);
    const source = readFileSync(filename, 'utf8');
    let cachedData: Buffer | undefined;
    if (cache) {
      try {
        cachedData = readFileSync(join(cache.dir, `${name}.v8`));
      } catch {
        // not cached yet
      }
    }
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, cachedData });
    if (cache && (!cachedData || script.cachedDataRejected)) stale.push([script, name]);
    if (cache && flavor === 'exec') loaded.push([script, name]);
    const fn = script.runInThisContext() as (...args: unknown[]) => void;
    fn.call(module.exports, module.exports, requireFrom, module, filename, dir);
    module.exports = plainExports(module.exports);
    return module.exports;
  }

  if (cache) {
    process.once('exit', () => {
      // `sling exec`: the whole cache again after a run that made much more code than the one that
      // wrote it (refreshNeeded); otherwise only what was missing or rejected.
      const code = flavor === 'exec' ? codeSize(requireBuiltin) : undefined;
      const all = code !== undefined && refreshNeeded(cache.dir, code);
      if (all || stale.length) save(cache.root, cache.dir, cache.keep, all ? loaded : stale, dir, code);
    });
  }
  return load;
}

/**
 * A chunk's exports as plain properties, once the chunk has run. esbuild's CommonJS form reaches
 * each export through a getter, twice over (`__export`, then `__toCommonJS`): that keeps an
 * `export let` live, but makes every use of an imported function two getter calls, and the request
 * path of `sling exec` makes a few hundred of those per request. sling exports no binding that
 * changes once its module has run (scripts/build.mjs refuses `export let` and `export var`), so each
 * value is read once here. A chunk in a cycle that took the exports before this point keeps the
 * getters, which still work. Measured (1,000 requests to nginx, 41 rounds in random order, time
 * inside the process, two runs): 150.9 -> 148.4 ms and 150.9 -> 149.2 ms.
 */
function plainExports(exports: unknown): unknown {
  if (exports === null || typeof exports !== 'object' || !(exports as { __esModule?: unknown }).__esModule) return exports;
  const plain: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(exports)) plain[key] = (exports as Record<string, unknown>)[key];
  return plain;
}

/**
 * `sling exec` sends hundreds or thousands of requests through the same few functions in a process
 * that lives a fraction of a second. V8 sends a function to its optimising compiler (TurboFan) once it
 * has run a set amount of bytecode (the "interrupt budget"); sling's request path is a handful of big
 * async functions whose optimisation takes 10-50 ms of compiler time each (--trace-opt-verbose) and
 * gains almost nothing (the time goes to system calls and the server). On a 2-core machine that
 * compiler thread competes with the server and sling itself. A budget 30 times V8's default keeps the
 * request path in baseline code while a loop that really runs long (formatting a 10 MB body) is still
 * optimised. Measured (bench/exec-http.mjs, nginx): 1,000 requests 353 -> 230 ms, 10,000 unchanged
 * (1,142 -> 1,135 ms), `exec --pretty=all` of an 11 MB JSON body 672 -> 706 ms. A file of thousands
 * of requests gets a lower budget once it is parsed (src/exec/tiering.ts). The flag changes
 * V8's flag hash, which its code cache checks: exec runs keep their cache in a folder of their own
 * (the flavor), so that exec and the main command do not reject each other's entries.
 *
 * The second flag keeps V8's young generation at its starting size (1 MB semi-spaces) instead of
 * letting it double when enough objects survive (the parsed file does: 4 MB semi-spaces in a
 * 1,000-request run). Every page the process touches for the first time costs a page fault, and on
 * a virtual machine such a fault can cost 14 µs (measured here; curl's whole run touches ~580
 * pages). A young generation that keeps its first pages is scavenged more often but touches ~1,100
 * fewer pages. Measured (1,000 requests to nginx, 21 interleaved rounds): page faults 4,957 ->
 * 3,834, 261 -> 239 ms.
 * Returns the flavor ('' when nothing was changed).
 */
export function tuneV8(argv: readonly string[], requireBuiltin: (id: string) => unknown): string {
  if (!argv.includes('exec')) return '';
  try {
    (requireBuiltin('node:v8') as typeof import('node:v8')).setFlagsFromString(EXEC_V8_FLAGS);
    return 'exec';
  } catch {
    return '';
  }
}

function cacheFolder(env: NodeJS.ProcessEnv, version: string, flavor: string): { root: string; dir: string; keep: Set<string> } | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE || env.SLING_NO_COMPILE_CACHE) return undefined;
  let base = env.SLING_CACHE_DIR;
  if (!base) {
    if (process.platform === 'win32') {
      const local = env.LOCALAPPDATA || (env.USERPROFILE && join(env.USERPROFILE, 'AppData', 'Local'));
      if (!local) return undefined;
      base = join(local, 'sling', 'Cache');
    } else {
      const cacheHome = env.XDG_CACHE_HOME || (env.HOME && join(env.HOME, '.cache'));
      if (!cacheHome) return undefined;
      base = join(cacheHome, 'sling');
    }
  }
  const root = join(base, 'v8');
  const name = `${version}-node${process.version}-${process.arch}`;
  // The folders of this version: the main command's and exec's (tuneV8).
  return { root, dir: join(root, flavor ? `${name}-${flavor}` : name), keep: new Set([name, `${name}-exec`]) };
}

/**
 * The machine code in V8's heap at the end of a run (`sling exec` only: node:v8 is loaded there).
 * V8's code cache holds what the run that wrote it had compiled, and a cache written at the end of
 * a long run starts the next long run warmer: measured, 1,000 requests to nginx (31 rounds), with
 * the cache of a one-request run 148.5 ms, with that of a 1,000-request run 144.3 ms (the first
 * request ~3 ms slower, the next hundred ~8 ms faster). A one-request run ends with ~1.85 MB of
 * code, a 50-request run with ~2.16 MB, a 1,000-request run with ~2.24 MB.
 */
function codeSize(requireBuiltin: (id: string) => unknown): number | undefined {
  try {
    return (requireBuiltin('node:v8') as typeof import('node:v8')).getHeapCodeStatistics().code_and_metadata_size;
  } catch {
    return undefined;
  }
}

/** The size recorded beside the cache (CODE_SIZE_FILE): a run with 10 % more code writes it all again (a few times per version at most). */
function refreshNeeded(dir: string, code: number): boolean {
  try {
    const was = Number(readFileSync(join(dir, CODE_SIZE_FILE), 'utf8'));
    return Number.isFinite(was) && code > was * 1.1;
  } catch {
    // No record (a cache written before there were records, or none at all).
    return false;
  }
}

const CODE_SIZE_FILE = 'code-size';

function save(root: string, dir: string, keep: Set<string>, stale: [Script, string][], chunks: string, code?: number) {
  try {
    let fresh = false;
    try {
      readdirSync(dir);
    } catch {
      fresh = true;
    }
    mkdirSync(dir, { recursive: true });
    // A new version of sling or Node: the caches of the old ones are of no more use.
    if (fresh) {
      for (const old of readdirSync(root)) if (!keep.has(old)) rmSync(join(root, old), { recursive: true, force: true });
    } else {
      // Entries of chunks that this build no longer has (a rebuild of the same version).
      const current = new Set(readdirSync(chunks));
      for (const entry of readdirSync(dir)) if (entry.endsWith('.v8') && !current.has(entry.slice(0, -3))) rmSync(join(dir, entry), { force: true });
    }
    for (const [script, name] of stale) {
      const file = join(dir, `${name}.v8`);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, file);
    }
    if (code !== undefined) {
      const file = join(dir, CODE_SIZE_FILE);
      writeFileSync(`${file}.${process.pid}.tmp`, String(code));
      renameSync(`${file}.${process.pid}.tmp`, file);
    }
  } catch {
    // A cache that cannot be written is a cache that is not used.
  }
}
