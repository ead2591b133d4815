import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';

/**
 * How dist/sling.js loads its own chunks (scripts/build.mjs puts this module at the top of each
 * entry file and turns the entry's `require("./chunks/X.js")` into `sling_load("X.js")`).
 *
 * Chunks are sling's own CommonJS files, requiring only each other (`./NAME.js`) and Node's
 * built-ins (through requireBuiltin: the entry file's own require). Each chunk is read, compiled
 * with node:vm's Script and run once; cycles get the exports so far, as with Node's require. Two
 * things make this faster than Node's own loader (bench/mechanisms.mjs measures both on Node 20
 * and 24 against SLING_NO_CHUNK_LOADER=1, which is Node's require with Node's compile cache):
 * - no resolution: Node stats and realpaths each `require("./X.js")` and looks for package.json
 *   files above it;
 * - V8's code cache of each chunk, written when the run ends (Script#createCachedData), so it
 *   holds the functions the run compiled lazily too. Node's module.enableCompileCache() caches
 *   each module as it is compiled, before it runs, which leaves most of sling's functions out.
 *
 * The cache lives under $SLING_CACHE_DIR, else $XDG_CACHE_HOME/sling or ~/.cache/sling
 * (%LOCALAPPDATA%\sling\Cache on Windows), in `v8/`, one folder per install (the chunks' folder,
 * hashed), sling version, Node version and CPU. Making a folder removes the folders of the same
 * install's other sling versions and folders no run has written to for 30 days. V8 checks each entry against the
 * source and its own flags and rejects a mismatch (the entry is then written again). Nothing is
 * written outside that folder, and any failure (no home, a read-only disk, a broken entry) means
 * compiling as usual, silently. SLING_NO_COMPILE_CACHE=1 or NODE_DISABLE_COMPILE_CACHE=1 turns the
 * cache off.
 */
export function chunkLoader(dir: string, version: string, env: NodeJS.ProcessEnv, requireBuiltin: (id: string) => unknown): (name: string) => unknown {
  if (env.SLING_NO_CHUNK_LOADER) return nodeLoader(dir, version, env, requireBuiltin);
  const modules = new Map<string, { exports: unknown }>();
  const cache = cacheFolder(env, version, dir, '');
  const stale: [Script, string][] = [];
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
    const fn = script.runInThisContext() as (...args: unknown[]) => void;
    fn.call(module.exports, module.exports, requireFrom, module, filename, dir);
    return module.exports;
  }

  if (cache) process.once('exit', () => stale.length && save(cache, stale, dir));
  return load;
}

/**
 * SLING_NO_CHUNK_LOADER=1: Node's own require for the chunks, with Node's own compile cache where
 * Node has one (22.8 and later), in a folder of its own beside the loader's. For comparison
 * (bench/mechanisms.mjs) and as a way out should the loader ever misbehave.
 */
function nodeLoader(dir: string, version: string, env: NodeJS.ProcessEnv, requireBuiltin: (id: string) => unknown): (name: string) => unknown {
  const cache = cacheFolder(env, version, dir, 'node-');
  const { enableCompileCache } = requireBuiltin('node:module') as { enableCompileCache?: (dir: string) => unknown };
  if (cache && enableCompileCache) {
    try {
      if (prepare(cache)) enableCompileCache(cache.dir);
    } catch {
      // no cache, then
    }
  }
  return (name) => requireBuiltin(join(dir, name));
}

interface CacheFolder {
  /** `<base>/v8`: every folder of the cache, of every install. */
  root: string;
  /** This install's, this sling's, this Node's. */
  dir: string;
  /** The start of the names of this install's folders (of every version of sling and Node). */
  install: string;
  /** The start of the names of this install's folders of this version of sling (one per Node). */
  release: string;
}

function cacheFolder(env: NodeJS.ProcessEnv, version: string, chunks: string, kind: string): CacheFolder | undefined {
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
  const install = `${kind}${hash(chunks)}-`;
  const release = `${install}${version}-node`;
  return { root, dir: join(root, `${release}${process.version}-${process.arch}`), install, release };
}

/** FNV-1a, 32 bits, as 8 hex digits: enough to tell installs apart, and no node:crypto to load. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

const MONTH_MS = 30 * 24 * 3600 * 1000;

/**
 * Makes the folder when it is missing. A new folder may mean a new version of sling for this
 * install: the folders of its other versions go, and so do folders that no run wrote to for 30 days
 * (installs that are gone, a Node no longer used). False when the folder cannot be made.
 */
function prepare(cache: CacheFolder): boolean {
  try {
    if (statSync(cache.dir).isDirectory()) return true;
  } catch {
    // to be made
  }
  mkdirSync(cache.dir, { recursive: true });
  const old = Date.now() - MONTH_MS;
  for (const name of readdirSync(cache.root)) {
    const path = join(cache.root, name);
    if (path === cache.dir) continue;
    try {
      if ((name.startsWith(cache.install) && !name.startsWith(cache.release)) || statSync(path).mtimeMs < old) rmSync(path, { recursive: true, force: true });
    } catch {
      // another run removed it first
    }
  }
  return true;
}

function save(cache: CacheFolder, stale: [Script, string][], chunks: string) {
  try {
    const fresh = !exists(cache.dir);
    prepare(cache);
    if (!fresh) {
      // Entries of chunks that this build no longer has (a rebuild of the same version).
      const current = new Set(readdirSync(chunks));
      for (const entry of readdirSync(cache.dir)) if (entry.endsWith('.v8') && !current.has(entry.slice(0, -3))) rmSync(join(cache.dir, entry), { force: true });
    }
    for (const [script, name] of stale) {
      const file = join(cache.dir, `${name}.v8`);
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, file);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e;
      }
    }
  } catch {
    // A cache that cannot be written is a cache that is not used.
  }
}

function exists(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
