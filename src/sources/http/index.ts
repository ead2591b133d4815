import { FileTooLargeError, readLimited, TEXT_FILE_LIMIT } from '../../files.js';
import { basename, dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
import type { ExecEntry, Script } from '../../model/exec.js';
import type { CurlSourceOptions } from '../curl/index.js';
import { CookieJar } from '../../model/cookies.js';
import type { RequestNode, RunNode } from './ast.js';
import { CurlEntry } from './curl-entry.js';
import { makeEntry, requestName, type RunOverride } from './entries.js';
import { dependencyOrder } from '../../model/order.js';
import { AuthTokens } from './auth.js';
import { dynamicUse, loadFaker } from './dynamic.js';
import { loadEnvironment } from './env.js';
import { HttpParseError, parseHttp } from './parse.js';
import { expressions, type Template } from './template.js';
import { Resolution, Runtime, type FileCtx } from './vars.js';

/**
 * `sling exec` for .http / .rest files (JetBrains HTTP Client, VS Code REST Client, httpyac):
 * the whole file (and what it imports or runs) is parsed before anything is sent; a malformed
 * file is `FILE:LINE:COL: what`, exit 1. Each request becomes an entry that resolves its
 * variables when its turn comes, so references to earlier responses and values set by scripts
 * work. One cookie jar and one set of client.global values per run.
 */
export const parseHttpFile = async (text: string, opts: CurlSourceOptions): Promise<Script> => {
  const display = opts.file === '-' ? '<stdin>' : opts.file;
  dynamicUse.faker = dynamicUse.auth = false;
  const root = parseFile(text, display, opts.dir);
  const env = loadEnvironment(opts.dir, opts.envName, opts.envFile, opts.cwd, (m) => opts.warn(m));
  if (env.files.length) opts.debug(`environment ${env.name ?? '(none)'} from ${env.files.join(', ')}: ${[...env.vars.keys()].join(', ') || 'no variables'}`);
  const rt = new Runtime(opts, env, new CookieJar({ warn: (m) => opts.warn(m) }), opts.dir);
  if (env.auth.size || [...env.vars.values()].some((v) => v.includes('$auth.'))) {
    dynamicUse.auth = true;
    rt.auth = new AuthTokens(env);
  }
  const loader = new Loader(rt, opts);
  loader.report(root);
  const entries = loader.entries(root, undefined, [join(opts.dir, opts.file === '-' ? '\0stdin' : basename(opts.file))]);
  // Faker (half a megabyte) is loaded only when a file or an environment value uses a `$random.x.y`.
  if (dynamicUse.faker || [...env.vars.values()].some((v) => /\{\{\s*\$random\.\w+\.\w+/.test(v))) await loadFaker();
  // A request that refers to a later one: that one runs first (only worked out when some request is referred to).
  for (const n of rt.referenced) if (rt.requestNames.has(n)) return { entries: dependencyOrder(entries, undefined, loader.imported(root, entries)) };
  return { entries };
};

function parseFile(text: string, display: string, dir: string): FileCtx {
  try {
    return { parsed: parseHttp(text), path: display, dir };
  } catch (e) {
    if (e instanceof HttpParseError) throw new UsageError(`${display}:${e.line}:${e.col}: ${e.message}`);
    throw e;
  }
}

class Loader {
  private readonly files = new Map<string, FileCtx | string>();
  /** The file being run (its requests' titles do not name it). */
  private root?: FileCtx;

  constructor(
    private readonly rt: Runtime,
    private readonly opts: CurlSourceOptions,
  ) {}

  report(file: FileCtx) {
    for (const w of file.parsed.warnings) this.opts.warn(`${file.path}:${w.line}:${w.col}: ${w.message}`);
    const rt = this.rt;
    for (const defs of file.parsed.vars.values()) for (const d of defs) rt.noteReferences(d.value);
    for (const s of [...(file.parsed.yacGlobal ?? []), ...(file.parsed.yacGlobalAfter ?? [])]) rt.noteCode(s.code!);
    // Indexed loops: a thousand requests read in V8's baseline tiers, where for...of allocates per step.
    const items = file.parsed.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.kind === 'curl') {
        for (const t of item.templates) rt.noteReferences(t);
        const n = item.atName ?? item.title;
        if (n !== undefined) rt.requestNames.add(n);
        if (item.atName !== undefined) rt.atNames.add(item.atName);
        continue;
      }
      if (item.kind !== 'request') {
        for (const [, t] of item.overrides) rt.noteReferences(t);
        continue;
      }
      const n = requestName(item);
      if (n !== undefined) rt.requestNames.add(n);
      if (item.atName !== undefined) rt.atNames.add(item.atName);
      if (item.directives.refs.length) for (const r of item.directives.refs) rt.referenced.add(r);
      rt.noteReferences(item.url);
      const headers = item.headers;
      for (let k = 0; k < headers.length; k++) {
        rt.noteReferences(headers[k]!.name);
        rt.noteReferences(headers[k]!.value);
      }
      if (item.asserts.length) for (const a of item.asserts) rt.noteReferences(a.expected);
      // httpyac blocks: a `# @name`d request's name in their code is its response.
      for (const s of item.pre) if (s.yac) rt.noteCode(s.code!);
      for (const s of item.handlers) if (s.yac) rt.noteCode(s.code!);
      const body = item.body;
      for (let k = 0; k < body.length; k++) {
        const b = body[k]!;
        if (b.kind === 'text') rt.noteReferences(b.t);
        else {
          rt.noteReferences(b.path);
          if (b.vars) rt.keepAllResponses = true;
        }
      }
    }
  }

  /** An entry whose request needs OAuth tokens gets them (acquired once per run) before it is built. */
  withAuth(entry: ExecEntry, file: FileCtx, node: RequestNode, overrides: EntryOverrides): ExecEntry {
    if (!dynamicUse.auth) return entry;
    const ids = authIds(node, file, this.rt, overrides);
    if (ids.size === 0) return entry;
    const rt = this.rt;
    const tokens = (rt.auth ??= new AuthTokens(rt.env)) as AuthTokens;
    const build = entry.build.bind(entry);
    entry.build = (ctx) => {
      // --offline sends nothing, the token request included: the placeholder is shown as written.
      if (ctx.offline) return build(ctx);
      const res = new Resolution(rt, file, node.line, undefined, false);
      return tokens.ensure(ids, res, ctx, this.opts.env, `${file.path}:${node.line}`).then(() => build(ctx));
    };
    return entry;
  }

  /**
   * Another file, parsed once; a string when it cannot be read. One larger than TEXT_FILE_LIMIT (or
   * endless: a link to /dev/zero) is an error at `where`, the import or run that names it.
   */
  load(from: FileCtx, path: string, where: string): FileCtx | string {
    const full = resolvePath(from.dir, path);
    const known = this.files.get(full);
    if (known !== undefined) return known;
    let loaded: FileCtx | string;
    try {
      const text = readLimited(full, TEXT_FILE_LIMIT, path, 'a request file').toString('utf8');
      // As messages show it: relative to the file that names it, or absolute as written.
      loaded = parseFile(text, isAbsolute(path) ? path : join(dirname(from.path), path), dirname(full));
      this.files.set(full, loaded);
      this.report(loaded);
    } catch (e) {
      if (e instanceof FileTooLargeError) throw new UsageError(`${where}: ${e.message}`);
      if (e instanceof UsageError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      loaded = `cannot read '${path}': ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`;
      this.files.set(full, loaded);
    }
    return loaded;
  }

  /**
   * httpyac's `# @import` + `# @ref one` / `# @forceRef one`: the requests of imported files (and of
   * the files they import) that the file's requests refer to and that it does not have itself, as
   * entries that run only when referred to (before the first request that needs them).
   */
  imported(root: FileCtx, entries: ExecEntry[]): ExecEntry[] {
    const have = new Set<string>();
    for (const e of entries) if (e.name !== undefined) have.add(e.name);
    const wanted: string[] = [];
    const want = (e: ExecEntry) => {
      for (const n of [...(e.dependsOn ?? []), ...(e.forceDependsOn ?? [])]) if (!have.has(n)) wanted.push(n);
    };
    for (const e of entries) want(e);
    if (!wanted.length) return [];
    // The imported files, breadth first: the root's imports, then theirs.
    const files: FileCtx[] = [];
    const queue: FileCtx[] = [root];
    const seen = new Set<FileCtx>([root]);
    while (queue.length) {
      const f = queue.shift()!;
      for (const imp of f.parsed.imports) {
        const g = this.load(f, imp.path, `${f.path}:${imp.line}:${imp.col}: import`);
        if (typeof g === 'string' || seen.has(g)) continue;
        seen.add(g);
        g.imported ??= g.parsed.imports.map((i) => this.load(g, i.path, `${g.path}:${i.line}:${i.col}: import`)).filter((x): x is FileCtx => typeof x !== 'string');
        files.push(g);
        queue.push(g);
      }
    }
    const out: ExecEntry[] = [];
    while (wanted.length) {
      const name = wanted.shift()!;
      if (have.has(name)) continue;
      for (const f of files) {
        const node = f.parsed.items.find((x): x is RequestNode => x.kind === 'request' && requestName(x) === name);
        if (!node) continue;
        have.add(name);
        const entry = this.withAuth(makeEntry({ rt: this.rt, file: f, node, overrides: undefined, named: true, shownFile: f.path }), f, node, undefined);
        out.push(entry);
        want(entry);
        break;
      }
    }
    return out;
  }

  entries(file: FileCtx, overrides: EntryOverrides, stack: string[], runStart?: number): ExecEntry[] {
    const imported: FileCtx[] = [];
    let importFailed = false;
    for (const imp of file.parsed.imports) {
      const f = this.load(file, imp.path, `${file.path}:${imp.line}:${imp.col}: import`);
      if (typeof f === 'string') {
        importFailed = true;
        this.opts.warn(`${file.path}:${imp.line}:${imp.col}: import: ${f}`);
      } else imported.push(f);
    }
    if (imported.length) file.imported = imported;
    const out: ExecEntry[] = [];
    const main = stack.length === 1;
    if (main) this.root = file;
    for (const item of file.parsed.items) {
      if (item.kind === 'request') {
        out.push(this.withAuth(makeEntry({ rt: this.rt, file, node: item, overrides, named: main, shownFile: main ? undefined : file.path, runStart }), file, item, overrides));
        continue;
      }
      if (item.kind === 'curl') {
        out.push(new CurlEntry(this.rt, file, item, this.opts, main, runStart));
        continue;
      }
      out.push(...this.run(file, item, imported, importFailed, overrides, stack, runStart ?? (main ? item.start : undefined)));
    }
    return out;
  }

  private run(file: FileCtx, item: RunNode, imported: FileCtx[], importFailed: boolean, outer: EntryOverrides, stack: string[], runStart: number | undefined): ExecEntry[] {
    const where = `${file.path}:${item.line}:${item.col}`;
    // Each value is worked out where the run line is (its file's variables, its place in messages).
    const overrides: RunOverride[] = [...(outer ?? []), ...item.overrides.map(([name, value]) => ({ name, value, file, line: item.line }))];
    if (item.name !== undefined) {
      for (const f of [file, ...imported]) {
        const node = f.parsed.items.find((x): x is RequestNode => x.kind === 'request' && (x.atName === item.name || x.title === item.name));
        if (node) return [this.withAuth(makeEntry({ rt: this.rt, file: f, node, overrides, named: false, shownFile: f === this.root ? undefined : f.path, runStart }), f, node, overrides)];
      }
      const msg = `run #${item.name}: no request is named ${item.name}${imported.length ? ' here or in the imported files' : ''}`;
      if (!importFailed) throw new UsageError(`${where}: ${msg}`);
      // Reported once, as an error when its turn comes (the failed import was warned about).
      return [failing(item, `${where}: ${msg} (an import failed)`)];
    }
    const f = this.load(file, item.path!, `${where}: run`);
    // A file that cannot be read: one error when its turn comes (the rest of the file runs).
    if (typeof f === 'string') return [failing(item, `${where}: run: ${f}`)];
    const key = resolvePath(file.dir, item.path!);
    if (stack.includes(key)) throw new UsageError(`${where}: run ${item.path}: the files run each other in a loop`);
    return this.entries(f, overrides, [...stack, key], runStart);
  }
}

type EntryOverrides = RunOverride[] | undefined;

const AUTH = new Set(['auth.token', 'auth.idToken']);

/**
 * The Security.Auth ids whose tokens a request needs: its own `{{$auth.token("id")}}` and those in
 * the values of the variables it names (file variables, the environment's, `run` overrides), found
 * when the file is read so that a request that needs none is built as before (no promise, no token).
 */
function authIds(node: RequestNode, file: FileCtx, rt: Runtime, overrides: EntryOverrides): Set<string> {
  const ids = new Set<string>();
  const seen = new Set<string>();
  const walk = (t: Template) => {
    for (const e of expressions(t)) {
      if (e.kind === 'dynamic' && AUTH.has(e.name) && e.args[0] !== undefined) ids.add(e.args[0]);
      else if (e.kind === 'var' && !seen.has(e.name)) {
        seen.add(e.name);
        const env = rt.envTemplate(e.name);
        if (env !== undefined) walk(env);
        for (const f of [file, ...(file.imported ?? [])]) for (const d of f.parsed.vars.get(e.name) ?? []) walk(d.value);
        for (const o of overrides ?? []) if (o.name === e.name) walk(o.value);
      }
    }
  };
  walk(node.url);
  for (const h of node.headers) {
    walk(h.name);
    walk(h.value);
  }
  for (const b of node.body) walk(b.kind === 'text' ? b.t : b.path);
  for (const a of node.asserts) walk(a.expected);
  return ids;
}

/** A `run` whose target is missing: reported when its turn comes (and under --offline). */
function failing(item: RunNode, message: string): ExecEntry {
  return {
    line: item.line,
    start: item.start,
    label: item.name !== undefined ? `run #${item.name}` : `run ${item.path}`,
    build: async () => {
      throw new UsageError(message);
    },
  };
}
