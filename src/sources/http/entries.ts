import { MAX_TIMER_MS } from '../../clock.js';
import { type Creation, FileTooLargeError, isDirectory, isNullName, makeDirs, occupied, readLimited, SETTINGS_FILE_LIMIT, systemName, writeToFile } from '../../files.js';
import { lstatSync, statSync } from 'node:fs';
import { devNull } from 'node:os';
import { dirname, extname, resolve as resolvePath } from 'node:path';
import { fileProblem, UsageError } from '../../errors.js';
import type { AfterResult, BodyFiles, Completed, ExecContext, ExecEntry } from '../../model/exec.js';
import type { CookieJar } from '../../model/cookies.js';
import type { RequestSpec } from '../../model/spec.js';
import { formatUrl } from '../../model/url.js';
import { headerIn } from '../../model/headers.js';
import type { AssertNode, RequestNode, ScriptNode } from './ast.js';
import { buildSpec, type BuiltRequest } from './request.js';
import { clearExports, evalJs, mayNeedJs, prepareJs, runYacScript, truthy, yacRequest } from './httpyac-js.js';
import { yacText } from './vars.js';
import type { ScriptHooks, ScriptHost, ScriptResult } from './script.js';
import { compile, expressions, rawText, type Template } from './template.js';
import { pickDef, Resolution, type FileCtx, type Runtime } from './vars.js';
import { isStreamed } from '../../model/upload.js';

/** A large file sent as it was read (upload.ts) is not kept: `name.request.body` of such a request is empty. */
const STREAMED = Buffer.alloc(0);

/** `@name=value` of a `run` line, with the file and line it is written on (where its placeholders are worked out). */
export interface RunOverride {
  name: string;
  value: Template;
  file: FileCtx;
  line: number;
}

/** One request of a file → one ExecEntry (a `run #Name` line makes another one of the same request). */
export interface EntryOptions {
  rt: Runtime;
  file: FileCtx;
  node: RequestNode;
  /** `run #Name (@var=value)` / `run ./file (@var=value)`. */
  overrides?: RunOverride[];
  /** The block start of the main file's `run` line this entry comes from (ExecEntry.runStart). */
  runStart?: number;
  /** Shown instead of the request's own name (for `run #Name`). */
  label?: string;
  /** Whether the entry carries the request's name (for --name); `run` copies do not. */
  named: boolean;
  /** The request's file for title lines, when it is not the file being run. */
  shownFile?: string;
}

let hostPromise: Promise<ScriptHost> | undefined;
/** node:vm and the sandbox load on the first script, never on the path of a plain run. */
function scriptHost(): Promise<ScriptHost> {
  return (hostPromise ??= import('./script.js').then((m) => new m.ScriptHost()));
}

/** The script process boots while the request of the first script goes out (or while sling gets its first pre-request script ready). */
function warmScripts(node: RequestNode, offline: boolean, yac = false) {
  if (hostPromise) return;
  const expressions = !offline && node.asserts.some((s) => s.a.field === 'js' || s.a.field === 'xpath' || (s.a.field === 'body' && s.a.value !== ''));
  if (yac || node.pre.some((s) => !s.lua) || (!offline && node.handlers.some((s) => !s.lua)) || expressions)
    scriptHost().then(
      (h) => h.warm(),
      () => undefined,
    );
}

export function requestName(node: RequestNode): string | undefined {
  return node.atName ?? node.title;
}

function templatesOf(node: RequestNode): Template[] {
  const out: Template[] = [node.url];
  for (const h of node.headers) out.push(h.name, h.value);
  for (const b of node.body) out.push(b.kind === 'text' ? b.t : b.path);
  return out;
}

let assertsModule: Promise<typeof import('./assert-run.js')> | undefined;
/** The assertion checker (and node:vm, node:crypto) load with the first request that has one. */
function assertRunner() {
  return (assertsModule ??= import('./assert-run.js'));
}

/** The requests this one needs (references, httpyac `name.field`, `# @ref`), through file variables. */
/** `client.global.set("name", ...)` with the name written as a string. */
const GLOBAL_SET = /\bclient\s*\.\s*global\s*\.\s*set\s*\(\s*(['"`])([^'"`\\\s]+)\1/g;

function setsGlobal(scripts: ScriptNode[], name: string): boolean {
  for (const s of scripts) if (s.code !== undefined && !s.lua) for (const m of s.code.matchAll(GLOBAL_SET)) if (m[2] === name) return true;
  return false;
}

/** Per file: for each global its scripts set by name, the named requests that set it (in file order). */
const setters = new WeakMap<FileCtx, Map<string, { line: number; name: string }[]>>();

/**
 * The named request nearest above `line` whose pre-request script or handler sets the global `name`
 * (`client.global.set("token", ...)`): what a run of the whole file would have run before, so that
 * `--name`/`--line` run it first. A request below never moves up.
 */
function globalSetter(file: FileCtx, name: string, line: number): string | undefined {
  let byName = setters.get(file);
  if (!byName) {
    byName = new Map();
    for (const item of file.parsed.items) {
      if (item.kind !== 'request') continue;
      const own = requestName(item);
      if (own === undefined) continue;
      for (const s of [...item.pre, ...item.handlers]) {
        if (s.code === undefined || s.lua) continue;
        for (const m of s.code.matchAll(GLOBAL_SET)) {
          const list = byName.get(m[2]!) ?? [];
          if (list.at(-1)?.line !== item.line) list.push({ line: item.line, name: own });
          byName.set(m[2]!, list);
        }
      }
    }
    setters.set(file, byName);
  }
  let found: string | undefined;
  for (const s of byName.get(name) ?? []) if (s.line < line) found = s.name;
  return found;
}

export function dependencies(node: RequestNode, file: FileCtx, rt: Pick<Runtime, 'requestNames' | 'atNames' | 'env'>): string[] {
  const names = rt.requestNames;
  const deps = new Set<string>(node.directives.refs);
  const seen = new Set<string>();
  const visit = (t: Template) => {
    for (const e of expressions(t)) {
      if (e.kind === 'ref') deps.add(e.name);
      if (e.kind !== 'var' || seen.has(e.name)) continue;
      seen.add(e.name);
      const first = e.name.split('.')[0]!;
      // httpyac's `{{login.token}}` and `{{login}}` (the whole response), unless a variable has that
      // name (an environment's, a file's: it is what the placeholder gives); `{{login}}` only for a
      // `# @name`, not a `### title` (a title that happens to be a variable's name, `### token`,
      // must not move its request before this one).
      if (rt.env.vars.has(e.name)) {
        // the environment's variable
      } else if (e.name.includes('.') && names.has(first) && !rt.env.vars.has(first)) deps.add(first);
      else if (!e.name.includes('.') && rt.atNames.has(e.name) && !file.parsed.vars.has(e.name)) deps.add(e.name);
      const defs = file.parsed.vars.get(e.name);
      if (defs) visit(pickDef(defs, node.line).value);
      else if (!e.name.includes('.') && !rt.env.vars.has(e.name) && !setsGlobal(node.pre, e.name)) {
        const setter = globalSetter(file, e.name, node.line);
        if (setter !== undefined) deps.add(setter);
      }
    }
  };
  for (const t of templatesOf(node)) visit(t);
  for (const a of node.asserts) visit(a.expected);
  const self = requestName(node);
  if (self) deps.delete(self);
  return [...deps];
}

interface Pending {
  built: BuiltRequest;
  res: Resolution;
  iteration: number;
  logs: string[];
  /** Where `>> file` lines put the body, decided from the head when the runner wrote it as it came. */
  targets?: OutputTarget[];
}

/** A `>> file` line's file: the path written to, or why there is none. */
interface OutputTarget {
  line: number;
  path?: string;
  /** `new` for `>>` (a name nothing holds), `replace` for `>>!` and a device. */
  how?: Creation;
  /** The path as written, for the message. */
  shown: string;
  problem?: string;
}

const NO_LOGS: string[] = [];
const NO_PENDING: Pending[] = [];
/** The result of a response nothing looks at (shared, read only). */
const NOTHING_AFTER: AfterResult = Object.freeze({ failures: Object.freeze([]) as unknown as string[] });

/**
 * One request of a file as an ExecEntry. A class, not closures: a file of 10,000 requests makes
 * 10,000 of these, and what only --name/--line or scripts need (dependencies, iterations) is
 * worked out when it is asked for.
 */
class HttpEntry implements ExecEntry {
  readonly name?: string;
  readonly line: number;
  readonly start?: number;
  readonly shownName?: string;
  readonly file?: string;
  readonly runStart?: number;
  readonly output?: { noLog?: boolean };
  private readonly storeAs?: string;
  private pending: Pending[] = NO_PENDING;
  private overrides?: Map<string, string>;
  private deps?: string[];
  /** httpyac JavaScript may run before this request (global or pre-request blocks, JavaScript placeholders). */
  private yac?: boolean;

  constructor(private readonly o: EntryOptions) {
    const node = o.node;
    this.storeAs = requestName(node);
    this.name = o.named ? this.storeAs : undefined;
    // A request reached through `run` keeps its name and file in the title line.
    if (!o.named && this.storeAs !== undefined) this.shownName = this.storeAs;
    if (o.shownFile !== undefined) this.file = o.shownFile;
    this.line = node.line;
    this.start = o.shownFile === undefined ? node.start : undefined;
    this.runStart = o.runStart;
    if (node.directives.noLog) this.output = { noLog: true };
  }

  get label(): string {
    return this.o.label ?? `${this.o.node.method} ${rawText(this.o.node.url)}`;
  }

  get forceDependsOn(): string[] | undefined {
    return this.o.node.directives.forceRefs;
  }

  get dependsOn(): string[] {
    return (this.deps ??= dependencies(this.o.node, this.o.file, this.o.rt));
  }

  private async runScript(s: ScriptNode, p: { res: Resolution; built?: BuiltRequest; iteration: number }, done?: Completed): Promise<ScriptResult> {
    const { rt, file, node } = this.o;
    let code = s.code;
    let filename = `${file.path}`;
    let line = s.line;
    if (s.path) {
      const path = p.res.resolve(s.path);
      const full = resolvePath(file.dir, path);
      try {
        code = readLimited(full, SETTINGS_FILE_LIMIT, path, 'a script file').toString('utf8');
      } catch (e) {
        if (e instanceof FileTooLargeError) return { tests: [], logs: [], exit: false, error: e.message };
        return { tests: [], logs: [], exit: false, error: `cannot read the script '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}` };
      }
      filename = path;
      line = 1;
    }
    const host = await scriptHost();
    for (const u of host.unsupported(code!, line)) rt.warnOnce(`${filename}:${u.line}:${u.what}`, `${filename}:${u.line}: ${u.what} is not supported: the script fails where it calls it`);
    const hooks: ScriptHooks = {
      setGlobal: (n, t) => rt.globals.set(n, t),
      getGlobal: (n) => rt.globals.get(n),
      clearGlobal: (n) => rt.globals.delete(n),
      clearAll: () => rt.globals.clear(),
      globalsEmpty: () => rt.globals.size === 0,
      env: (n) => (rt.envTemplate(n) !== undefined ? p.res.lookup(n) : undefined),
      fileVar: (n) => p.res.fileValue(n),
      lookup: (n) => p.res.lookup(n),
      setRequestVar: (n, t, j) => p.res.requestVars.set(n, { text: t, json: j }),
      requestVarJson: (n) => (p.res.hasRequestVars() ? p.res.requestVars.get(n)?.json : undefined),
      setGlobalHeader: (n, v) => rt.globalHeaders.set(n.toLowerCase(), [n, v]),
      clearGlobalHeader: (n) => rt.globalHeaders.delete(n.toLowerCase()),
    };
    const spec = p.built?.spec;
    const request = {
      method: spec?.method ?? node.method,
      url: spec ? formatUrl(spec.url) : rawText(node.url),
      urlRaw: rawText(node.url),
      // Before sending (a pre-request script): the file's headers, not the defaults sling adds.
      headers: done ? done.request.headers : (spec?.headers ?? []).filter(([n]) => node.headers.some((h) => (h.lower ?? rawText(h.name).toLowerCase()) === n.toLowerCase())),
      headersRaw: node.headers.map((h): [string, string] => [typeof h.name === 'string' ? h.name : rawText(h.name), typeof h.value === 'string' ? h.value : rawText(h.value)]),
      body: done ? (isStreamed(done.request.body) ? '' : done.request.body.toString('utf8')) : spec && spec.body.kind === 'bytes' ? spec.body.data.toString('utf8') : '',
      bodyRaw: p.built?.bodyText ?? '',
      iteration: p.iteration,
    };
    const refused = done ? host.refuseBody(done.body.length) : undefined;
    if (refused) return { tests: [], logs: [], exit: false, error: refused };
    const contentType = done ? (headerIn(done.response.rawHeaders, 'content-type') ?? '') : '';
    const response = done
      ? {
          status: done.response.status,
          headers: pairs(done.response.rawHeaders),
          body: decodeText(done.body, contentType),
          contentType,
        }
      : undefined;
    return host.run(code!, filename, line, hooks, request, response);
  }

  /** Synchronous for a request with no script, no `# @sleep` and no `run` overrides (most requests). */
  build(ctx: ExecContext): RequestSpec | RequestSpec[] | null | Promise<RequestSpec | RequestSpec[] | null> {
    const { node } = this.o;
    const d = node.directives;
    if (d.refs.length) for (const r of d.refs) if (!this.o.rt.requestNames.has(r)) throw new UsageError(`${this.o.file.path}:${node.line}: # @ref ${r}: no request is named '${r}'`);
    if (node.pre.length || node.handlers.length || node.asserts.length) warmScripts(node, ctx.offline);
    this.yac ??= yacGlobals(this.o.file).length > 0 || mayNeedJs(templatesOf(node), { file: this.o.file, line: node.line, rt: this.o.rt }, this.o.rt.requestNames);
    if (this.yac && (yacGlobals(this.o.file).length || node.pre.some((s) => s.yac))) warmScripts(node, ctx.offline, true);
    if (d.disabled || d.sleepMs || d.sleepText || this.o.overrides || node.pre.length || this.yac || d.disabledJs || d.loop) return this.buildAsync(ctx);
    const res = new Resolution(this.o.rt, this.o.file, node.line, undefined, ctx.offline);
    return this.buildWith(ctx, res, NO_LOGS);
  }

  private async buildAsync(ctx: ExecContext): Promise<RequestSpec | RequestSpec[] | null> {
    const { rt, file, node } = this.o;
    const d = node.directives;
    if (d.disabled) {
      ctx.warn(`${file.path}:${node.line}: # @disabled: not sent`);
      return null;
    }
    let sleepMs = d.sleepMs;
    if (d.sleepText !== undefined) {
      // `# @sleep {{delay}}`: a number once the variables are in (httpyac); anything else is not waited.
      const text = new Resolution(rt, file, node.line, undefined, true).resolve(compile(d.sleepText, node.line, 1)).trim();
      if (/^\d+$/.test(text)) sleepMs = Math.min(Number(text), MAX_TIMER_MS);
      else ctx.warn(`${file.path}:${node.line}: # @sleep ${d.sleepText} is '${text}', not milliseconds: not waited`);
    }
    if (sleepMs && !ctx.offline) await new Promise((r) => setTimeout(r, sleepMs));
    if (this.o.overrides && !this.overrides) {
      this.overrides = new Map(this.o.overrides.map((o) => [o.name, new Resolution(rt, o.file, o.line, undefined, ctx.offline).resolve(o.value)]));
    }
    const res = new Resolution(rt, file, node.line, this.overrides, ctx.offline);
    let logs = NO_LOGS;
    // httpyac: the blocks of regions without a request run before every request of the file.
    // httpyac: the blocks of regions without a request run before every request of the file (an
    // `# @import`ed file's first, as httpyac runs them).
    const globals = yacGlobals(file);
    if (node.pre.length || globals.length) {
      logs = [];
      // This request's region runs again: its earlier exports are gone (httpyac).
      clearExports(res, node);
      for (const s of [...globals, ...node.pre]) {
        if (s.yac) {
          // A block of a region without a request keeps its exports as its own; the others as this request's region's.
          const region = globals.includes(s) && !s.every ? s : node;
          if (region === s) clearExports(res, s);
          const from = (globals.includes(s) && file.imported?.find((f) => f.parsed.yacGlobal?.includes(s))?.path) || file.path;
          const r = await runYacScript(await scriptHost(), s, res, region, yacRequest(node, this.previewRequest(res)), undefined, from);
          logs.push(...r.logs, ...r.tests.map(([name, failure]) => (failure === null ? `✓ ${name}` : `✗ ${name}: ${failure}`)));
          if (r.error) {
            const msg = `${from}:${s.line}: the ${globals.includes(s) ? 'global' : 'pre-request'} script failed: ${r.error}`;
            if (!ctx.offline) throw new UsageError(msg);
            ctx.warn(msg);
          }
          if (r.cancel) {
            ctx.warn(`${file.path}:${s.line}: the script exported $cancel: not sent`);
            return null;
          }
          continue;
        }
        if (s.lua) {
          rt.warnOnce(`${file.path}:${s.line}`, `${file.path}:${s.line}: Lua scripts (rest.nvim, kulala) are not run`);
          continue;
        }
        // What the script sees as `request` (url, headers, body): the request with what is known
        // so far substituted, and what is not yet known (a variable the script itself sets) as
        // written, as JetBrains' tryGetSubstituted() does. Built again after each script.
        const r = await this.runScript(s, { res, built: this.preview(res), iteration: 0 });
        logs.push(...r.logs);
        if (r.error) {
          const msg = `${file.path}:${s.line}: the pre-request script failed: ${r.error}`;
          // --offline shows the request anyway: a script is not a reason to fail a preview.
          if (!ctx.offline) throw new UsageError(msg);
          ctx.warn(msg);
        }
        // client.exit() ends that script; the request is still sent (JetBrains).
      }
    }
    if (d.disabledJs) {
      // httpyac's `# @disabled EXPRESSION`: JavaScript, after the scripts before the request.
      const { code, line } = d.disabledJs;
      const out = await evalJs(await scriptHost(), code, line, res);
      if (out.error !== undefined) throw new UsageError(`${file.path}:${line}: # @disabled ${code}: ${out.error}`);
      if (truthy(out.json)) {
        ctx.warn(`${file.path}:${node.line}: # @disabled ${code} is true: not sent`);
        return null;
      }
    }
    if (d.loop) return this.buildLoop(ctx, res, logs, d.loop);
    if (this.yac) await prepareJs(scriptHost, templatesOf(node), res, yacRequest(node));
    return this.buildWith(ctx, res, logs);
  }

  /**
   * httpyac's `# @loop for N` / `# @loop for NAME of LIST`: the request once per pass, each with
   * `$index` (from 0) and the loop variable (a list element, with its type for JavaScript).
   */
  private async buildLoop(ctx: ExecContext, res: Resolution, logs: string[], loop: NonNullable<RequestNode['directives']['loop']>): Promise<RequestSpec[] | null> {
    const { rt, file, node } = this.o;
    let items: (string | undefined)[];
    if (loop.iterable !== undefined) {
      const out = await evalJs(await scriptHost(), loop.iterable, loop.line, res);
      if (out.error !== undefined) throw new UsageError(`${file.path}:${loop.line}: # @loop for ${loop.variable} of ${loop.iterable}: ${out.error}`);
      let list: unknown;
      try {
        list = out.json === undefined ? undefined : JSON.parse(out.json);
      } catch {
        list = undefined;
      }
      // httpyac: anything but a list makes no pass.
      items = Array.isArray(list) ? list.map((x) => (x === undefined ? undefined : JSON.stringify(x))) : [];
    } else items = new Array<undefined>(loop.count ?? 0).fill(undefined);
    if (items.length === 0) {
      ctx.warn(`${file.path}:${loop.line}: # @loop makes no pass: not sent`);
      return null;
    }
    const opts = { file, lenient: ctx.offline, warn: ctx.warn };
    const all: Pending[] = [];
    for (let i = 0; i < items.length; i++) {
      const overrides = new Map(this.overrides ?? []);
      const loopVars = new Map<string, string>([['$index', String(i)]]);
      overrides.set('$index', String(i));
      const item = items[i];
      if (loop.variable !== undefined && item !== undefined) {
        overrides.set(loop.variable, yacText(item));
        loopVars.set(loop.variable, item);
      }
      const r = new Resolution(rt, file, node.line, overrides, ctx.offline);
      r.loopVars = loopVars;
      for (const [n, v] of res.requestVars) r.requestVars.set(n, v);
      if (this.yac || loop.variable !== undefined) await prepareJs(scriptHost, templatesOf(node), r, yacRequest(node));
      const built = buildSpec(node, { ...opts, res: r });
      if (rt.globalHeaders.size) addGlobalHeaders(built.spec, rt.globalHeaders);
      all.push({ built, res: r, iteration: i, logs: i === 0 ? logs : NO_LOGS });
    }
    this.pending = all;
    return all.map((b) => b.built.spec);
  }

  /**
   * The request as httpyac's code sees it before it is sent: the URL as written (httpyac 6.16.7
   * gives `{{host}}/a?v={{v}}` there), the headers and body with what is known so far.
   */
  private previewRequest(res: Resolution) {
    const spec = this.preview(res)?.spec;
    if (!spec) return undefined;
    return { method: spec.method, url: rawText(this.o.node.url), headers: spec.headers, body: spec.body.kind === 'bytes' ? spec.body.data.toString('utf8') : undefined };
  }

  /** The request as a pre-request script sees it; undefined when even a lenient build fails. */
  private preview(res: Resolution): BuiltRequest | undefined {
    const { rt, file, node } = this.o;
    try {
      const loose = new Resolution(rt, file, node.line, this.overrides, true);
      loose.silent = true;
      for (const [n, v] of res.requestVars) loose.requestVars.set(n, v);
      return buildSpec(node, { res: loose, file, lenient: true, warn: () => {} });
    } catch {
      return undefined;
    }
  }

  private buildWith(ctx: ExecContext, res: Resolution, logs: string[]): RequestSpec | RequestSpec[] {
    const { rt, file, node } = this.o;
    const opts = { res, file, lenient: ctx.offline, warn: ctx.warn };
    // JetBrains request iterations: `{{$.list..id}}` over a list a pre-request script set.
    if (!res.hasRequestVars()) return this.buildOnce(res, opts, logs);
    res.pathMemo = new Map();
    const all: Pending[] = [];
    try {
      let count = 1;
      for (const t of templatesOf(node)) for (const e of expressions(t)) if (e.kind === 'jsonpath') count = Math.max(count, safeCount(res, e.name));
      if (count === 1) return this.buildOnce(res, opts, logs);
      for (let i = 0; i < count; i++) {
        const r = i === 0 ? res : res.sibling();
        r.iteration = i;
        const built = buildSpec(node, { ...opts, res: r });
        if (rt.globalHeaders.size) addGlobalHeaders(built.spec, rt.globalHeaders);
        all.push({ built, res: r, iteration: i, logs: i === 0 ? logs : NO_LOGS });
      }
    } finally {
      // Scripts run next (response handlers): the variables may change from here on.
      res.pathMemo = undefined;
      for (const p of all) p.res.pathMemo = undefined;
    }
    this.pending = all;
    return all.map((b) => b.built.spec);
  }

  private buildOnce(res: Resolution, opts: Parameters<typeof buildSpec>[1], logs: string[]): RequestSpec {
    const built = buildSpec(this.o.node, opts);
    if (this.o.rt.globalHeaders.size) addGlobalHeaders(built.spec, this.o.rt.globalHeaders);
    this.pending = [{ built, res, iteration: 0, logs }];
    return built.spec;
  }

  /** The pre-request scripts' log lines, printed under the title (then not again after the response). */
  before(spec: RequestSpec): string[] | undefined {
    const p = this.pendingOf(spec);
    if (!p || p.logs.length === 0) return undefined;
    const logs = p.logs;
    p.logs = NO_LOGS;
    return logs;
  }

  /** No response came: a reference to this request says it failed (not that it has not run). */
  failed(): undefined {
    if (this.storeAs !== undefined) this.o.rt.failed.add(this.storeAs);
    return undefined;
  }

  /** The run's one cookie jar (a request with `# @no-cookie-jar` says `noCookies`). */
  cookieJar(): CookieJar {
    return this.o.rt.jar;
  }

  /** Synchronous when nothing runs after the response (no handler, no `>> file`). */
  bodyUnused(spec: RequestSpec): boolean {
    const { rt, node } = this.o;
    if (
      (this.storeAs !== undefined && rt.keeps(this.storeAs)) ||
      node.handlers.length ||
      this.o.file.parsed.yacGlobalAfter ||
      node.asserts.length ||
      node.outputs.length ||
      this.o.file.parsed.yacResponse
    )
      return false;
    const p = this.pendingOf(spec);
    return !(p && p.logs.length);
  }

  /** `>> file` lines and nothing else reading the body: it goes to its files as it arrives, and is printed. */
  bodyFiles(answer: Omit<Completed, 'body'>): BodyFiles | undefined {
    const { rt, node } = this.o;
    if (
      !node.outputs.length ||
      node.handlers.length ||
      node.asserts.length ||
      this.o.file.parsed.yacResponse ||
      this.o.file.parsed.yacGlobalAfter ||
      (this.storeAs !== undefined && rt.keeps(this.storeAs))
    )
      return undefined;
    const p = this.pendingOf(answer.spec);
    if (!p || p.logs.length) return undefined;
    p.targets = this.outputTargets(p, answer);
    const paths = new Map<string, Creation | undefined>();
    for (const t of p.targets) if (t.path !== undefined && !paths.has(t.path)) paths.set(t.path, t.how);
    return { files: [...paths].map(([path, how]) => ({ path, how })), print: true, keepPartial: false };
  }

  /** The file each `>> file` line writes (a new `name-1.ext` beside one that exists, unless `>>!`). */
  private outputTargets(p: Pending, answer: Omit<Completed, 'body'>): OutputTarget[] {
    const { file, node } = this.o;
    const taken = new Set<string>();
    return node.outputs.map((out) => {
      const written = rawText(out.path);
      const target: OutputTarget = { line: out.line, shown: written.length > 100 ? written.slice(0, 100) + '...' : written };
      try {
        const resolved = p.res.resolve(out.path);
        // `>> /dev/null` and `>> NUL` throw the body away on every system (resolved, `/dev/null`
        // would be C:\dev\null on Windows, and `NUL` a file named NUL on Linux).
        if (isNullName(resolved.trim())) {
          target.path = devNull;
          target.how = 'replace';
          return target;
        }
        let full = resolvePath(file.dir, resolved);
        // A folder (`>> out/`, or one that exists): a file in it named as JetBrains names its response history.
        if (/[/\\]$/.test(resolved) || isDirectory(full)) full = resolvePath(full, historyName(answer));
        ({ path: target.path, how: target.how } = outputPath(full, out.overwrite, taken));
        taken.add(target.path);
      } catch (e) {
        target.problem = (e as NodeJS.ErrnoException).code ? fileProblem(e) : (e as Error).message;
      }
      return target;
    });
  }

  /** The build of a spec (the runner may copy a spec, never its URL object). */
  private pendingOf(spec: RequestSpec): Pending | undefined {
    return this.pending.find((x) => x.built.spec === spec || x.built.spec.url === spec.url);
  }

  after(done: Completed, ctx?: ExecContext): AfterResult | Promise<AfterResult> {
    const { rt, file, node } = this.o;
    if (ctx?.debugging) {
      const t = done.info.timings;
      const ms = (x?: number) => (x === undefined ? '-' : `${(x - t.start).toFixed(1)} ms`);
      ctx.debug(`${file.path}:${node.line}: ${done.response.status} in ${ms(t.end)} (connect ${ms(t.connect)}, first byte ${ms(t.firstByte)}; ${done.info.reused ? 'reused' : 'new'} connection)`);
    }
    // httpyac's `response` outside a handler: the last response of the run.
    if (file.parsed.yacResponse) rt.lastResponse = done;
    const pending = this.pending;
    let p: Pending | undefined;
    if (pending.length === 1) {
      p = pending[0];
      this.pending = NO_PENDING;
    } else {
      // Match by the URL object the spec was built with (the runner copies specs, not URLs).
      const at = pending.findIndex((x) => x.built.spec.url === done.spec.url);
      p = at === -1 ? pending.shift() : pending.splice(at, 1)[0];
    }
    const keep = this.storeAs !== undefined && rt.keeps(this.storeAs);
    // Nothing to run, save, keep or print after this response (the usual request).
    if (!keep && node.handlers.length === 0 && !file.parsed.yacGlobalAfter && node.asserts.length === 0 && node.outputs.length === 0 && !(p && p.logs.length)) return NOTHING_AFTER;
    return this.afterAsync(done, p, keep);
  }

  private async afterAsync(done: Completed, p: Pending | undefined, keep: boolean): Promise<AfterResult> {
    const { rt, file, node } = this.o;
    const result: AfterResult = { failures: [], log: p && p.logs.length ? [...p.logs] : [] };
    if (keep) {
      const stored = {
        request: { method: done.request.method, url: done.url, headers: done.request.headers, body: isStreamed(done.request.body) ? STREAMED : done.request.body },
        response: { status: done.response.status, rawHeaders: done.response.rawHeaders, body: done.body },
      };
      if (node.directives.loop && p) {
        // httpyac: a named loop's name is its first pass's response, `NAMEList` all of them.
        if (p.iteration === 0) {
          rt.responses.set(this.storeAs!, stored);
          rt.loopResponses.set(this.storeAs!, [done]);
        } else rt.loopResponses.get(this.storeAs!)?.push(done);
      } else rt.responses.set(this.storeAs!, stored);
    }
    if (!p) return result;
    // Handlers and httpyac assertions run in the order the file gives them.
    let steps: (ScriptNode | AssertNode)[] = node.asserts.length ? [...node.handlers, ...node.asserts].sort((x, y) => x.line - y.line) : node.handlers;
    // httpyac blocks that run after every response of the file.
    if (file.parsed.yacGlobalAfter) steps = [...steps, ...file.parsed.yacGlobalAfter];
    for (const s of steps) {
      if ('a' in s) {
        const { checkAssert, expressionOf, evaluationInput } = await assertRunner();
        // `?? body id == {{ n * 2 }}`: httpyac's JavaScript, worked out now (the response is in).
        if (typeof s.expected !== 'string' && mayNeedJs([s.expected], { file, line: node.line })) await prepareJs(scriptHost, [s.expected], p.res, yacRequest(node));
        let test: { name: string; failure: string | null };
        try {
          const expected = p.res.resolve(s.expected).trim();
          // `js EXPR`, `body PATH`: JavaScript, run in the script process (its memory and time limits).
          const code = expressionOf(s.a, s.a.field === 'xpath' ? xpathNamespaces(file, s.line, p.res) : undefined);
          let evaluated: { json?: string; error?: string } | undefined;
          if (code !== undefined) {
            let input: string | undefined;
            try {
              input = evaluationInput(done);
            } catch (e) {
              // A body nested too deep for sling (nesting.ts), as before: the assertion fails.
              evaluated = { error: (e as Error).message };
            }
            if (input !== undefined) evaluated = await (await scriptHost()).evaluate(code, input);
          }
          test = checkAssert(s.a, expected, done, evaluated);
        } catch (e) {
          if (!(e instanceof UsageError)) throw e;
          test = { name: `${s.a.value || s.a.field} ${s.a.spelled} ${rawText(s.expected)}`.trim(), failure: e.message };
        }
        record(result, test.name, test.failure);
        continue;
      }
      if (s.lua) {
        rt.warnOnce(`${file.path}:${s.line}`, `${file.path}:${s.line}: Lua scripts (rest.nvim, kulala) are not run`);
        continue;
      }
      if (s.yac) {
        const sent = { method: done.request.method, url: formatUrl(done.url), headers: done.request.headers, body: done.request.body.toString('utf8') };
        const r = await runYacScript(await scriptHost(), s, p.res, node, yacRequest(node, sent), done);
        result.log!.push(...r.logs);
        for (const [name, failure] of r.tests) record(result, name, failure);
        if (r.error) result.failures.push(`${file.path}:${s.line}: the response script failed: ${r.error}`);
        continue;
      }
      const r = await this.runScript(s, p, done);
      result.log!.push(...r.logs);
      for (const [name, failure] of r.tests) record(result, name, failure);
      if (r.error) result.failures.push(`${file.path}:${s.line}: the response handler failed: ${r.error}`);
      // client.exit() ended that handler only; the next ones and the rest of the run go on (JetBrains).
    }
    const targets = done.saved && p.targets ? p.targets : node.outputs.length ? this.outputTargets(p, done) : [];
    for (const t of targets) {
      let problem = t.problem;
      if (problem === undefined && t.path !== undefined) {
        if (done.saved) problem = done.saved.find((f) => f.path === t.path)?.problem;
        else {
          try {
            writeToFile(t.path, done.body, t.how ?? 'replace');
          } catch (e) {
            problem = fileProblem(e);
          }
        }
      }
      // Not a failed test: an error of the run (exit 1), said once, with the path as written.
      if (problem !== undefined) {
        (result.errors ??= []).push(`${file.path}:${t.line}: cannot save the response to '${t.shown}': ${problem}`);
        result.exitCode = 1;
      } else if (t.path !== undefined) {
        // On stderr: stdout stays the responses (`--print=b ... | jq`).
        (result.notes ??= []).push(`response saved to ${t.path}`);
      }
    }
    return result;
  }
}

/** A test's outcome: a line under the response, a case for --report, a failure for the exit code. */
function record(result: AfterResult, name: string, failure: string | null) {
  result.log!.push(failure === null ? `✓ ${name}` : `✗ ${name}: ${failure}`);
  (result.tests ??= []).push(failure === null ? { name } : { name, failure });
  if (failure !== null) result.failures.push(`${name}: ${failure}`);
}

const NO_SCRIPTS: ScriptNode[] = [];
/** httpyac's global blocks a request of `file` runs first: its `# @import`ed files' (in order), then its own. */
function yacGlobals(file: FileCtx): ScriptNode[] {
  const own = file.parsed.yacGlobal;
  if (!file.imported?.some((f) => f.parsed.yacGlobal)) return own ?? NO_SCRIPTS;
  return [...file.imported.flatMap((f) => f.parsed.yacGlobal ?? []), ...(own ?? [])];
}

export function makeEntry(o: EntryOptions): ExecEntry {
  return new HttpEntry(o);
}

function safeCount(res: Resolution, path: string): number {
  try {
    return res.requestPathAll(path).length;
  } catch {
    return 1;
  }
}

/** client.global.headers.set: each header the request does not give itself. */
function addGlobalHeaders(spec: RequestSpec, globals: Map<string, [string, string]>) {
  for (const [lower, header] of globals) if (!spec.headers.some(([n]) => n.toLowerCase() === lower)) spec.headers.push([header[0], header[1]]);
}

/** A body as text in the charset its Content-Type names (UTF-8 when it names none or one Node does not know). */
function decodeText(body: Buffer, contentType: string): string {
  const m = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  const charset = m ? m[1]!.toLowerCase() : 'utf-8';
  if (charset === 'utf-8' || charset === 'utf8') return body.toString('utf8');
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return body.toString('utf8');
  }
}

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/** `2026-11-25T061530.200.json`: the response's time, status and a file type from its Content-Type. */
function historyName(done: Omit<Completed, 'body'>): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  const type = (headerIn(done.response.rawHeaders, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const ext = /[/+]json$/.test(type) ? 'json' : /[/+]xml$/.test(type) ? 'xml' : type === 'text/html' ? 'html' : type.startsWith('text/') ? 'txt' : 'bin';
  return `${stamp}.${done.response.status}.${ext}`;
}

/**
 * The file a `>> file` line writes: an existing file is kept and `name-1.ext` written instead;
 * `>>! file` overwrites. Missing folders are made. `taken`: names this response writes already.
 * A symbolic link in the file's place (one a repository holds, even one to nowhere) is never
 * written through nor replaced: `>>` takes the next name, `>>!` is refused.
 */
function outputPath(path: string, overwrite: boolean, taken: Set<string>): { path: string; how: Creation } {
  makeDirs(dirname(path));
  let st: import('node:fs').Stats | undefined;
  try {
    // /dev/stderr is a link to the device it names.
    st = systemName(path) ? statSync(path) : lstatSync(path);
  } catch {
    // a new file
  }
  if (st?.isSymbolicLink()) {
    if (overwrite) throw Object.assign(new Error('a symbolic link'), { code: 'ESYMLINK' });
  } else if (st && !st.isFile()) {
    // `>> /dev/null`: the device takes it (no `/dev/null-1` beside it). A named pipe or a socket
    // would wait for a reader, with Ctrl-C unable to stop the blocked thread: refused.
    if (st.isCharacterDevice()) return { path, how: 'replace' };
    throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  }
  if (overwrite) return { path, how: 'replace' };
  let target = path;
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length);
  for (let n = 1; taken.has(target) || occupied(target); n++) target = `${stem}-${n}${ext}`;
  return { path: target, how: 'new' };
}

/** httpyac's `@xpath_ns prefix=uri` lines above an assertion's line (a later one for a prefix wins), their URIs resolved. */
function xpathNamespaces(file: FileCtx, line: number, res: Resolution): Record<string, string> | undefined {
  const defs = file.parsed.xpathNs;
  if (!defs) return undefined;
  const out: Record<string, string> = {};
  for (const d of defs) if (d.line < line) out[d.prefix] = res.resolve(d.uri).trim();
  return out;
}
