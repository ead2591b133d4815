import { existsSync } from 'node:fs';
import { checkNesting, type NestingError } from '../../nesting.js';
import { UsageError } from '../../errors.js';
import type { CurlSourceOptions } from '../curl/index.js';
import type { CookieJar } from '../../model/cookies.js';
import { headerIn, headerInPairs } from '../../model/headers.js';
import type { ParsedHttp, VarDef } from './ast.js';
import { DynamicError, evalDynamic, projectRoot, type DynamicEnv } from './dynamic.js';
import { loadDotenv, type Environment } from './env.js';
import { asText, jsonPath, JsonPathError } from './jsonpath.js';
import { compile, type Expr, type Template } from './template.js';

/** One .http file of the run (the main file, or one it imports or runs). */
export interface FileCtx {
  parsed: ParsedHttp;
  /** As shown in messages. */
  path: string;
  /** Folder that relative paths are resolved against. */
  dir: string;
  /** The files it imports (`import ./lib.http`, httpyac's `# @import`): their file variables are seen here too. */
  imported?: FileCtx[];
}

/** A finished exchange, kept under the request's name for references and scripts. */
export interface Stored {
  request: { method: string; url: import('../../model/url.js').ParsedUrl; headers: [string, string][]; body: Buffer };
  response: { status: number; rawHeaders: string[]; body: Buffer };
  /** The body parsed as JSON once asked for; null: not JSON; `deep`: nested past MAX_NESTING (nesting.ts). */
  json?: { value: unknown; deep?: NestingError } | null;
}

/** State shared by every request of a run: variables set by scripts, named responses, the cookie jar. */
export class Runtime {
  /** client.global values as text (what {{name}} gives). */
  readonly globals = new Map<string, string>();
  /** client.global.headers.set: lower-case name to [name, value], added to every request built after. */
  readonly globalHeaders = new Map<string, [string, string]>();
  readonly responses = new Map<string, Stored>();
  /** Every request name of the run (@name, titles), to tell references from unknown variables. */
  readonly requestNames = new Set<string>();
  /** The names given by `# @name` alone (an httpyac `{{name}}` refers to one of these, not to a title). */
  readonly atNames = new Set<string>();
  /** Named requests that failed without a response (for the message of a reference to them). */
  readonly failed = new Set<string>();
  /**
   * Names some placeholder may read a response of (`name.response...`, httpyac's `name.field`).
   * Only those responses are kept: a run of 10,000 named requests does not hold 10,000 bodies.
   * `<@ file` includes are read at run time, so with one of those every response is kept.
   */
  readonly referenced = new Set<string>();
  keepAllResponses = false;
  /** httpyac's `exports.name = value` (httpyac-js.ts): name → the value as JSON. */
  readonly yacVars = new Map<string, string>();
  /** httpyac's `$global`, as JSON. */
  yacGlobal = '{}';
  /** The last response (httpyac's `response` outside a handler), kept when a file's JavaScript reads it. */
  lastResponse?: import('../../model/exec.js').Completed;
  /** httpyac: the responses of each pass of a named `# @loop` request, by name (its code reads them as `NAMEList`). */
  readonly loopResponses = new Map<string, import('../../model/exec.js').Completed[]>();
  /** OAuth 2.0 tokens ($auth.token), set by index.ts when a file uses one. */
  auth?: { value(id: string, kind: 'token' | 'idToken'): string };
  private readonly warned = new Set<string>();
  private readonly envTemplates = new Map<string, Template>();
  private dotenvValues?: Record<string, string>;

  constructor(
    readonly opts: CurlSourceOptions,
    readonly env: Environment,
    readonly jar: CookieJar,
    readonly rootDir: string,
  ) {
    for (const [k, v] of env.vars) {
      // A placeholder in the value is placed by the file and the variable: `http-client.env.json (token)`.
      const origin = env.origins.get(k);
      const t = compile(v, 1, 1, origin === undefined ? undefined : () => `${origin} (the value of ${k})`);
      this.envTemplates.set(k, t);
      this.noteReferences(t);
    }
  }

  noteReferences(t: Template) {
    if (typeof t === 'string') return;
    for (const p of t) {
      if (typeof p === 'string') continue;
      if (p.kind === 'ref') this.referenced.add(p.name);
      // `{{login.token}}` and `{{login}}` (httpyac: a named response's field, its whole body).
      else if (p.kind === 'var') this.referenced.add(p.name.includes('.') ? p.name.slice(0, p.name.indexOf('.')) : p.name);
      // httpyac JavaScript (`{{ login.token.toUpperCase() }}`): the names it holds.
      else if (p.kind === 'js') this.noteCode(p.text);
    }
  }

  /** httpyac JavaScript: any name in it may be a `# @name`d request whose response it reads. */
  noteCode(code: string) {
    for (const m of code.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) this.referenced.add(m[0]);
  }

  keeps(name: string): boolean {
    // httpyac: `NAMEList`, the responses of a `# @loop` request's passes.
    return this.keepAllResponses || this.referenced.has(name) || this.referenced.has(name + 'List');
  }

  envTemplate(name: string): Template | undefined {
    return this.envTemplates.get(name);
  }

  dotenv(): Record<string, string> {
    return (this.dotenvValues ??= loadDotenv(this.rootDir));
  }

  private root?: string;
  /** $projectRoot: see dynamic.ts. */
  projectRoot(): string {
    return (this.root ??= projectRoot(this.rootDir, existsSync));
  }

  warnOnce(key: string, message: string) {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.opts.warn(message);
  }
}

/** Parsed JSON of a stored body, or undefined when it is not JSON; NestingError when it is nested too deeply to work through. */
export function storedJson(s: Stored): unknown {
  if (s.json === undefined) {
    let value: unknown;
    try {
      value = JSON.parse(s.response.body.toString('utf8'));
    } catch {
      s.json = null;
      return undefined;
    }
    try {
      checkNesting(value);
      s.json = { value };
    } catch (e) {
      s.json = { value: undefined, deep: e as NestingError };
    }
  }
  if (s.json?.deep) throw s.json.deep;
  return s.json === null ? undefined : s.json.value;
}

/**
 * How deep a chain of variables may go (`@a = {{b}}`, `@b = {{c}}`...): loops are found by name
 * long before that; this bounds a chain that is merely long, so that it never depends on the
 * JavaScript stack. Working out a level takes several nested calls: Node 26's stack runs out
 * between 900 and 1,000 levels, Node 20's later, so the limit keeps a margin of about two.
 */
const MAX_DEPTH = 500;

/**
 * Resolves the placeholders of one request, at the moment it is built. Precedence (the JetBrains
 * documentation's order): `run` overrides, the environment, client.global values, file variables
 * (the last definition above the request, else the first one below it, as REST Client makes file
 * variables visible in the whole file), then request.variables set by a pre-request script.
 * A file variable has one value per request (`@id = {{$uuid}}` used twice gives the same UUID).
 */
export class Resolution {
  private fileCache?: Map<string, string>;
  private vars?: Map<string, { text: string; json?: string }>;
  private depth = 0;
  /** Placeholders shown as written (--offline), for the caller's information. */
  unresolved = 0;
  /** JetBrains request iterations: which match of a `{{$.path}}` this build uses. */
  iteration = 0;
  /**
   * While the iterations of one request are built (nothing can change the variables meanwhile):
   * the matches of each `{{$.path}}`, worked out once instead of once per iteration (quadratic).
   */
  pathMemo?: Map<string, unknown[]>;
  /** No warnings or --debug lines (the preview a pre-request script gets). */
  silent = false;
  /** httpyac JavaScript placeholders worked out before the request is built (httpyac-js.ts): the value, or why there is none. */
  jsValues?: Map<Expr, { v?: string; why?: string }>;
  /** httpyac `# @loop`: this pass's `$index` and loop variable, as JSON (their text is in `overrides`). */
  loopVars?: Map<string, string>;

  constructor(
    readonly rt: Runtime,
    readonly file: FileCtx,
    readonly line: number,
    readonly overrides: Map<string, string> | undefined,
    readonly lenient: boolean,
  ) {}

  /** request.variables set by pre-request scripts. */
  get requestVars(): Map<string, { text: string; json?: string }> {
    return (this.vars ??= new Map());
  }

  hasRequestVars(): boolean {
    return this.vars !== undefined && this.vars.size > 0;
  }

  /** The same request again (an iteration): same variables, own file-variable values. */
  sibling(): Resolution {
    const r = new Resolution(this.rt, this.file, this.line, this.overrides, this.lenient);
    r.vars = this.vars;
    r.pathMemo = this.pathMemo;
    r.jsValues = this.jsValues;
    return r;
  }

  resolve(t: Template): string {
    if (typeof t === 'string') return t;
    let s = '';
    for (const p of t) s += typeof p === 'string' ? p : this.expr(p);
    return s;
  }

  /** A variable's value by name, or undefined (scripts' `request.variables.get`, `%name` indirection). */
  lookup(name: string): string | undefined {
    const o = this.overrides?.get(name);
    if (o !== undefined) return o;
    if (this.rt.yacVars.size) {
      const y = this.rt.yacVars.get(name);
      if (y !== undefined) return yacText(y);
    }
    const envT = this.rt.envTemplate(name);
    if (envT !== undefined) return this.named(`env:${name}`, name, envT);
    const g = this.rt.globals.get(name);
    if (g !== undefined) return g;
    const fv = this.fileVar(name);
    if (fv !== undefined) return fv;
    return this.vars?.get(name)?.text;
  }

  private nested(t: Template): string {
    if (typeof t === 'string') return t;
    if (++this.depth > MAX_DEPTH) {
      this.depth = 0;
      throw new UsageError(`${this.file.path}:${this.line}: variables refer to each other more than ${MAX_DEPTH.toLocaleString('en-US')} levels deep (each one's value names the next)`);
    }
    try {
      return this.resolve(t);
    } finally {
      this.depth--;
    }
  }

  /** A file (in-place) variable's value, whatever the other scopes hold (client.variables.file). */
  fileValue(name: string): string | undefined {
    return this.fileVar(name);
  }

  /** Variables being worked out (key to name): one that needs itself is a loop. */
  private resolving?: Map<string, string>;

  private fileVar(name: string): string | undefined {
    let defs = this.file.parsed.vars.get(name);
    let line = this.line;
    if (!defs && this.file.imported) {
      // An imported file's variable (its last definition), as httpyac's `# @import` gives them.
      for (const f of this.file.imported) {
        defs = f.parsed.vars.get(name);
        if (defs) {
          line = Number.MAX_SAFE_INTEGER;
          break;
        }
      }
    }
    if (!defs) return undefined;
    const cached = this.fileCache?.get(name);
    if (cached !== undefined) return cached;
    const def = pickDef(defs, line);
    const v = this.named(name, name, def.value);
    (this.fileCache ??= new Map()).set(name, v);
    return v;
  }

  /** A variable's value worked out, with a loop found by name (`key`: file variables and environment values apart). */
  private named(key: string, name: string, value: Template): string {
    if (typeof value === 'string') return value;
    const resolving = (this.resolving ??= new Map());
    if (resolving.has(key)) throw new UsageError(`${this.file.path}:${this.line}: variables refer to each other in a loop (${[...resolving.values(), name].map((n) => `@${n}`).join(' → ')})`);
    resolving.set(key, name);
    try {
      return this.nested(value);
    } finally {
      resolving.delete(key);
    }
  }

  private expr(e: Expr): string {
    let v: string | undefined;
    let why: string;
    try {
      switch (e.kind) {
        case 'dynamic':
          v = evalDynamic(e.name, e.args, this.dynamicEnv(e));
          why = '';
          break;
        case 'var':
          v = this.lookup(e.name);
          if (v === undefined) v = this.special(e.name);
          why = v === undefined ? this.unknownWhy(e.name) : '';
          // `{{response.parsedBody.id}}`, `{{list.length}}`: httpyac's JavaScript, worked out ahead.
          if (v === undefined && this.jsValues?.has(e)) ({ v, why = why } = this.jsValues.get(e)!);
          break;
        case 'ref':
          ({ v, why } = this.reference(e));
          break;
        case 'jsonpath':
          ({ v, why } = this.requestPath(e.name));
          break;
        default: {
          const j = this.jsValues?.get(e);
          v = j?.v;
          why = j?.why ?? `${e.raw}: an httpyac JavaScript expression is not worked out here (only in a request's URL, headers, body and the file variables they use)`;
        }
      }
    } catch (err) {
      if (err instanceof DynamicError || err instanceof JsonPathError) {
        v = undefined;
        why = `${e.raw}: ${err.message}`;
      } else throw err;
    }
    if (v === undefined) return this.unresolvedExpr(e, why);
    if (!this.silent) this.rt.opts.debug(`${this.where(e)}: ${e.raw} = ${v.length > 200 ? v.slice(0, 200) + '...' : v}`);
    return e.encode ? encodeURIComponent(v) : v;
  }

  /** Where a placeholder is: FILE:LINE:COL in the request's file, or its own place (an include, an environment value). */
  private where(e: Expr): string {
    return e.where ?? `${this.file.path}:${e.line}:${e.col}`;
  }

  private unresolvedExpr(e: Expr, why: string): string {
    const where = this.where(e);
    if (!this.lenient) {
      const hint = this.hint(e);
      throw new UsageError(`${where}: ${why}`, hint);
    }
    this.unresolved++;
    if (!this.silent) this.rt.warnOnce(`${this.file.path}\0${e.raw}`, `${where}: ${why}; shown as written`);
    return e.raw;
  }

  private hint(e: Expr): string | undefined {
    if (e.kind !== 'var') return undefined;
    const envs = this.rt.env.definedIn.get(e.name);
    if (envs?.length && this.rt.env.name === undefined) return `it is defined in the environment${envs.length > 1 ? 's' : ''} ${envs.join(', ')}: choose one with --env NAME`;
    if (envs?.length) return `it is defined in the environment${envs.length > 1 ? 's' : ''} ${envs.join(', ')}, not in ${this.rt.env.name}`;
    return undefined;
  }

  private unknownWhy(name: string): string {
    const dot = name.indexOf('.');
    const request = dot === -1 ? name : name.slice(0, dot);
    // `{{login}}` alone refers to a `# @name`d request only (not a `### title`), as dependencies() reads it.
    if (dot === -1 ? this.rt.atNames.has(request) : this.rt.requestNames.has(request)) {
      const stored = this.rt.responses.get(request);
      if (!stored) return `{{${name}}}: ${this.rt.failed.has(request) ? `request ${request} failed, so there is no response` : `request ${request} has no response yet`}`;
      if (storedJson(stored) === undefined) return `{{${name}}}: the response body of ${request} is not JSON`;
      return `{{${name}}}: the response body of ${request} has no ${name.slice(dot + 1)}`;
    }
    return `unknown variable {{${name}}}`;
  }

  /** `process.env.NAME` (httpyac), `name.a.b` (httpyac: a property of a variable holding an object, or of a named response's body). */
  private special(name: string): string | undefined {
    if (name.startsWith('process.env.')) return this.rt.opts.env[name.slice(12)];
    const dot = name.indexOf('.');
    if (dot === -1) {
      // httpyac: a named request's name alone is its response body (a `# @name`, not a title).
      const whole = this.rt.atNames.has(name) ? this.rt.responses.get(name) : undefined;
      return whole ? whole.response.body.toString('utf8') : undefined;
    }
    const held = this.property(name, dot);
    if (held !== undefined) return held;
    const stored = this.rt.responses.get(name.slice(0, dot));
    if (!stored) return undefined;
    const doc = storedJson(stored);
    if (doc === undefined) return undefined;
    const found = jsonPath(doc, '$.' + name.slice(dot + 1));
    return found.length ? asText(found[0]) : undefined;
  }

  /**
   * httpyac: `{{slideshow.author}}` where the variable `slideshow` holds a JSON object or list (`@slideshow =
   * {{fooObject.slideshow}}`): the property, as its JavaScript reads it. Undefined when the variable
   * is not there, holds no object or list, or has no such property.
   */
  private property(name: string, dot: number): string | undefined {
    const text = this.lookup(name.slice(0, dot));
    if (text === undefined) return undefined;
    const t = text.trimStart();
    if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return undefined;
    }
    checkNesting(doc);
    const found = jsonPath(doc, '$.' + name.slice(dot + 1));
    return found.length ? asText(found[0]) : undefined;
  }

  /** REST Client request references: `name.response.body.$.x`, `name.response.headers.Location`, `name.request.body.*`. */
  private reference(e: Expr): { v: string | undefined; why: string } {
    const [which, part, path] = e.args as [string, string, string];
    // A dotted file or environment variable of that exact name wins.
    const plain = this.lookup(e.text);
    if (plain !== undefined) return { v: plain, why: '' };
    const stored = this.rt.responses.get(e.name);
    if (!stored) {
      const why = !this.rt.requestNames.has(e.name)
        ? `${e.raw}: no request is named ${e.name}`
        : this.rt.failed.has(e.name)
          ? `${e.raw}: request ${e.name} failed, so there is no response`
          : `${e.raw}: request ${e.name} has no response yet (it must run before this one)`;
      return { v: undefined, why };
    }
    const side = which === 'response' ? stored.response : stored.request;
    if (part === 'headers') {
      // All the values of the header, joined with `, `.
      const name = path.toLowerCase();
      const v = which === 'response' ? headerIn(stored.response.rawHeaders, name, true) : headerInPairs(stored.request.headers, name, true);
      return { v, why: `${e.raw}: the ${which} of ${e.name} has no header ${path}` };
    }
    const body = side.body;
    if (path === '' || path === '*') return { v: body.toString('utf8'), why: '' };
    if (path.startsWith('/')) return { v: undefined, why: `${e.raw}: XPath references are not supported` };
    let doc: unknown;
    if (which === 'response') doc = storedJson(stored);
    else {
      try {
        doc = JSON.parse(body.toString('utf8'));
      } catch {
        doc = undefined;
      }
      checkNesting(doc);
    }
    if (doc === undefined) return { v: undefined, why: `${e.raw}: the ${which} body of ${e.name} is not JSON` };
    const found = jsonPath(doc, path.startsWith('$') ? path : '$.' + path);
    return found.length ? { v: asText(found[0]), why: '' } : { v: undefined, why: `${e.raw}: nothing at ${path} in the ${which} body of ${e.name}` };
  }

  /** JetBrains `{{$.clients..id}}`: JSONPath over the variables a pre-request script set (one value here). */
  private requestPath(path: string): { v: string | undefined; why: string } {
    const all = this.requestPathAll(path);
    return all.length ? { v: asText(all[Math.min(this.iteration, all.length - 1)]), why: '' } : { v: undefined, why: `{{${path}}}: no request variable matches` };
  }

  requestPathAll(path: string): unknown[] {
    const known = this.pathMemo?.get(path);
    if (known) return known;
    const doc: Record<string, unknown> = {};
    for (const [k, v] of this.vars ?? []) doc[k] = v.json !== undefined ? JSON.parse(v.json) : v.text;
    const all = jsonPath(doc, path);
    this.pathMemo?.set(path, all);
    return all;
  }

  private dynamicEnv(e: Expr): DynamicEnv {
    return {
      env: this.rt.opts.env,
      dotenv: () => this.rt.dotenv(),
      variable: (n) => this.lookup(n),
      shared: (n) => this.rt.env.shared.get(n),
      projectRoot: () => this.rt.projectRoot(),
      auth: this.rt.auth && ((id, kind) => this.rt.auth!.value(id, kind)),
      warn: this.silent ? undefined : (m) => this.rt.warnOnce(m, `${this.where(e)}: ${m}`),
    };
  }
}

/** The last definition above `line`, else the first one (defs are in file order): a binary search. */
export function pickDef(defs: VarDef[], line: number): VarDef {
  let lo = 0;
  let hi = defs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (defs[mid]!.line < line) lo = mid + 1;
    else hi = mid;
  }
  return defs[lo === 0 ? 0 : lo - 1]!;
}

/** A value httpyac's scripts exported, as a placeholder gives it: text as it is, anything else as JSON. */
export function yacText(json: string): string {
  if (json.charCodeAt(0) === 34 /* " */) {
    try {
      return JSON.parse(json) as string;
    } catch {
      return json;
    }
  }
  return json;
}
