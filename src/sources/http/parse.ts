import type { AssertNode, BodyLine, CurlNode, Diagnostic, Directives, HeaderNode, ParsedHttp, RequestNode, RunNode, ScriptNode } from './ast.js';
import { parseAssert } from './asserts.js';
import { checkDynamic } from './dynamic.js';
import { directive, isRequestDirective } from './directives.js';
import { jsonPathProblem } from './jsonpath.js';
import { badHeaderChar, compile, concat, expressions, lastCompile, rawText, type Expr, type Template } from './template.js';
import { checkUrl } from '../../model/url.js';
import { CliError } from '../../errors.js';

/**
 * The .http / .rest parser: one pass over the lines, a small state machine per request block
 * (before the request line → headers → body → response handlers). Pure: text in, data out; a
 * malformed file throws HttpParseError (line and column), syntax of other runners (httpyac script
 * blocks, WebSocket/gRPC requests, Lua handlers, ...) becomes a warning naming the line and is
 * never sent. httpyac `??` assertions are kept for their request (asserts.ts).
 *
 * The grammar is the union of the JetBrains HTTP Client spec and the VS Code REST Client README,
 * plus the httpyac habits the corpus shows (requests separated by a blank line only, recorded
 * responses after a request, `/* *\/` comments).
 */
export class HttpParseError extends Error {
  constructor(
    readonly line: number,
    readonly col: number,
    message: string,
  ) {
    super(message);
  }
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT']);
const OTHER_METHODS: Record<string, string> = {
  WS: 'WebSocket requests (httpyac WS)',
  WSS: 'WebSocket requests (httpyac WSS)',
  WEBSOCKET: 'WebSocket requests (JetBrains WEBSOCKET)',
  GRPC: 'gRPC requests',
  SSE: 'server-sent event requests (httpyac SSE)',
  EVENTSOURCE: 'server-sent event requests (httpyac EVENTSOURCE)',
  MQTT: 'MQTT requests (httpyac)',
  AMQP: 'AMQP requests (httpyac)',
};
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VAR_NAME = /^[\p{L}\p{N}_.\-$]+$/u;
/** Methods besides METHODS that a request line after a blank line in a body is known by (WebDAV and other registered ones). */
const MORE_METHODS = ['GRAPHQL', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'SEARCH', 'REPORT', 'PURGE', 'QUERY', 'LINK', 'UNLINK', 'MKCALENDAR'];
/** An httpyac request that starts after a blank line inside another request's body. */
const STRICT_REQUEST = new RegExp(`^(${[...METHODS, ...MORE_METHODS].join('|')})\\s+(https?:\\/\\/|\\/|\\{\\{)(\\{\\{[^}]*\\}\\}|[^\\s{])*(\\s+HTTP\\/\\d+(\\.\\d+)?)?\\s*$`);
/** The same for the requests of other protocols (skipped with a warning): their targets have no scheme (`GRPC host:port/Service/Method`). */
const PROTOCOL_REQUEST = new RegExp(`^(${Object.keys(OTHER_METHODS).join('|')})\\s+([A-Za-z][A-Za-z0-9+.-]*:\\/\\/|\\/|\\{\\{|[\\w.-]+:\\d+)\\S*(\\s+HTTP\\/\\d+(\\.\\d+)?)?\\s*$`);
/**
 * An httpyac script block opens with a line that is `{{` alone (blanks around it; httpyac's
 * `{{+` and `{{@response`-style event forms too) and ends at a line that is `}}` alone. A line
 * `{{name}}/path` is a request line, not a script.
 */
const YAC_OPEN = /^\s*\{\{(@js\s+)?(\+|@)?(request|streaming|response|after|responseLogging)?\s*$/i;
const YAC_CLOSE = /^\s*\}\}\s*$/;
/** A line that starts a request when it follows a blank line in a body (also what `--to http` must not leave as it is). */
export const startsRequest = (line: string) => {
  // Every method both expressions know is upper-case: most lines (a JSON body) are told apart
  // without running them (the first run of each also compiles it).
  const c = line.charCodeAt(0);
  return c >= 65 && c <= 90 && (STRICT_REQUEST.test(line) || PROTOCOL_REQUEST.test(line));
};
const METHOD_WORDS = new Set([...METHODS, ...MORE_METHODS, ...Object.keys(OTHER_METHODS)]);

type State = 'pre' | 'headers' | 'body' | 'after' | 'skip' | 'curl';

interface Pending {
  atName?: string;
  directives: Directives;
  pre: ScriptNode[];
  /** httpyac assertions written before the request line. */
  asserts: AssertNode[];
  /** httpyac `{{@response` / `{{@after` blocks written before the request line (run after its response). */
  post?: ScriptNode[];
  lua: boolean;
}

const freshPending = (): Pending => ({ directives: { refs: NONE }, pre: NONE, asserts: NONE, lua: false });
/** Nothing was written into it since it was made (no directive, script or assertion). */
function untouched(p: Pending): boolean {
  if (p.atName !== undefined || p.lua || p.post || p.pre.length !== 0 || p.asserts.length !== 0 || p.directives.refs.length !== 0) return false;
  // for...in rather than Object.keys(): no list made per request.
  for (const k in p.directives) if (k !== 'refs') return false;
  return true;
}

/**
 * The lists of a request that has none of a kind (most have no scripts, assertions or outputs):
 * one shared empty list. A file's requests all stay in memory until they run (a thousand parsed
 * before the first is sent), so endRequest() also trims the lists that have entries to their
 * length. Frozen: nothing adds to a request once it is parsed.
 */
const NONE: never[] = Object.freeze([]) as unknown as never[];
/**
 * Every list of a request starts as NONE and grows through added(): a list of one entry was made
 * with room for one (kept as it is); a longer one grew with room to spare (copied to its length).
 */
const fit = <T>(list: T[]): T[] => (list.length === 0 ? NONE : list.length === 1 ? list : list.slice());
/** `list` with `item` added: a list of its own in place of the shared NONE. */
function added<T>(list: T[], item: T): T[] {
  if ((list as unknown) === NONE) return [item];
  list.push(item);
  return list;
}

export function parseHttp(text: string): ParsedHttp {
  return new Parser(text).run();
}

class Parser {
  private readonly lines: string[];
  /** Lines that ended with CRLF (only when the text has a CR at all). */
  private readonly crlf?: boolean[];
  private i = 0;
  private readonly out: ParsedHttp = { items: [], vars: new Map(), imports: [], fragments: new Map(), warnings: [] };
  private state: State = 'pre';
  private title?: string;
  private pending: Pending = freshPending();
  private blockHasRequest = false;
  /** The line of the last `###` (1 before the first). */
  private blockStart = 1;
  private req?: RequestNode;
  /** URL continuation lines are still possible (right after the request line). */
  private urlOpen = false;
  private blankBefore = false;
  private bodyStarted = false;
  /**
   * `#` / `//` lines after the blank line that opens the body, before any content (their line
   * indexes): not body before JSON or XML (Visual Studio's `// CreateTodo`), body before other text
   * (a Markdown `# Title`), the next request's lines when a request line follows (httpyac's
   * `# @name` between requests separated by a blank line only). Also such lines after a blank
   * line later in the body, until a line shows whose they are.
   */
  private leadComments?: number[];
  /** Comment lines at the end of a request's block (line indexes): their directives (`# @name`) go to the next request. */
  private carried?: number[];

  constructor(text: string) {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    // split() is native: far cheaper than a loop of indexOf/slice on a file of thousands of lines.
    const lines = text.split('\n');
    if (text.includes('\r')) {
      const crlf: boolean[] = new Array(lines.length);
      for (let k = 0; k < lines.length; k++) {
        const l = lines[k]!;
        crlf[k] = l.charCodeAt(l.length - 1) === 13;
        if (crlf[k]) lines[k] = l.slice(0, -1);
      }
      this.crlf = crlf;
    }
    this.lines = lines;
  }

  /** The line break after line k (none after the last line). */
  private eol(k: number): string {
    if (k === this.lines.length - 1) return '';
    return this.crlf?.[k] ? '\r\n' : '\n';
  }

  private warn(line: number, col: number, message: string) {
    this.out.warnings.push({ line, col, message });
  }

  private fail(line: number, col: number, message: string): never {
    throw new HttpParseError(line, col, message);
  }

  run(): ParsedHttp {
    const { lines } = this;
    for (this.i = 0; this.i < lines.length; this.i++) {
      const line = lines[this.i]!;
      if (line.startsWith('###')) {
        this.endRequest();
        this.blockStart = this.i + 1;
        this.newBlock(line.slice(3).trim());
        continue;
      }
      switch (this.state) {
        case 'pre':
          this.pre(line);
          break;
        case 'headers':
          this.headers(line);
          break;
        case 'body':
          this.body(line);
          break;
        case 'after':
          this.after(line);
          break;
        case 'curl':
          this.afterCurl(line);
          break;
        case 'skip':
          if (line.trim() === '') this.blankBefore = true;
          else if (this.blankBefore && startsRequest(line)) this.startNextRequest(line);
          break;
      }
    }
    this.endRequest();
    if (!this.blockHasRequest) this.yacGlobals();
    if (this.pending.pre.length) this.warn(this.pending.pre[0]!.line, 1, 'a pre-request script with no request after it: not run');
    if (this.pending.asserts.length) this.warn(this.pending.asserts[0]!.line, 1, 'an httpyac assertion with no request after it: not checked');
    return this.out;
  }

  private newBlock(title: string) {
    if (!this.blockHasRequest) this.yacGlobals();
    // `# @name x` and `< {% %}` placed before `###` belong to the next request (vp.http, kulala),
    // also when they come after a request, at the end of its block.
    if (this.blockHasRequest && !untouched(this.pending)) this.pending = freshPending();
    this.title = title || undefined;
    this.blockHasRequest = false;
    this.state = 'pre';
    this.replayCarried();
  }

  /** The comment lines carried from the end of the last block, read as lines before the next request. */
  private replayCarried() {
    const carried = this.carried;
    this.carried = undefined;
    if (!carried) return;
    const at = this.i;
    for (const k of carried) {
      const t = this.lines[k]!.trim();
      this.i = k;
      this.comment(t, k + 1, this.lines[k]!.indexOf(t) + 1);
    }
    this.i = at;
  }

  // ------------------------------------------------------------------ before the request line --

  private pre(line: string) {
    const t = line.trim();
    if (t === '') return;
    const ln = this.i + 1;
    const col = line.length - line.trimStart().length + 1;
    if (t.startsWith('#') || t.startsWith('//')) return this.comment(t, ln, col);
    if (t.startsWith('/*')) return this.blockComment(col);
    if (t.startsWith('@')) return this.fileVar(t, ln, col);
    if (t.startsWith('<')) {
      const m = /^<\s*\{%/.exec(t);
      if (m) {
        this.preScript(line, ln);
        return;
      }
      const path = t.slice(1).trim();
      this.pending.pre = added(this.pending.pre, { path: this.template(path, ln, col + t.indexOf(path), true), line: ln, lua: this.takeLua() });
      return;
    }
    if (t.startsWith('>')) {
      this.warn(ln, col, 'a response handler with no request before it: not run');
      if (/^>\s*\{%/.test(t)) this.script(line.indexOf('{%'));
      return;
    }
    if (t.startsWith('{%')) {
      this.warn(ln, col, "a script block without '<' before it: run as a pre-request script (write '< {%' to say so)");
      this.preScript(line, ln);
      return;
    }
    if (t.startsWith('{{') && YAC_OPEN.test(t)) return this.yacBlock(ln, col, undefined);
    // `{{host}}/path` is a request line (a GET, as `example.org/path` is); httpyac's script blocks
    // open with `{{` alone on its line (`{{@request`, `{{+after`), or are code on one line.
    if (t.startsWith('{{') && !urlTemplate(t)) return this.httpyacScript(ln, col);
    if (t.startsWith('??')) return this.assertLine(t, ln, col, this.pending);
    const c0 = t.charCodeAt(0);
    let m = c0 === 105 /* i */ ? /^import\s+(.+)$/.exec(t) : null;
    if (m) {
      this.out.imports.push({ path: unquote(m[1]!.trim()), line: ln, col });
      return;
    }
    m = c0 === 114 /* r */ ? /^run\s+(.+)$/.exec(t) : null;
    if (m) return this.runLine(m[1]!, ln, col);
    m = c0 === 102 /* f */ ? /^fragment\s+([A-Za-z_]\w*)\s+on\s/.exec(t) : null;
    if (m) {
      // httpyac: a fragment block (up to a blank line or ###) is added to every GraphQL query of
      // the file that spreads it (`...Name`).
      const text = [line.trimEnd()];
      while (this.i + 1 < this.lines.length && this.lines[this.i + 1]!.trim() !== '' && !this.lines[this.i + 1]!.startsWith('###')) text.push(this.lines[++this.i]!.trimEnd());
      this.out.fragments.set(m[1]!, text.join('\n'));
      return;
    }
    m = c0 === 112 || c0 === 103 || c0 === 102 /* p g f */ ? /^(proto|gql|fragment)\s/.exec(t) : null;
    if (m) {
      const what = m[1] === 'fragment' ? 'GraphQL fragments without a name' : m[1] === 'proto' ? 'proto imports' : 'gql imports';
      this.warn(ln, col, `httpyac ${what} are not supported: skipped`);
      if (m[1] === 'fragment') while (this.i + 1 < this.lines.length && this.lines[this.i + 1]!.trim() !== '' && !this.lines[this.i + 1]!.startsWith('###')) this.i++;
      return;
    }
    if (c0 === 99 /* c */ && /^curl(\.exe)?(\s|$)/.test(t)) return this.curlCommand(ln, col);
    if (!this.requestLine(line, ln)) {
      if (/^[A-Za-z]+$/.test(t)) this.fail(ln, col, `a request line needs a URL after '${t}'`);
      this.fail(ln, col, `expected a request line (METHOD URL), a comment, a variable (@name = value) or ###, got '${clip(t)}'`);
    }
  }

  /** Literal header names seen so far, with their lower-case form. */
  private readonly names = new Map<string, [string, string]>();
  private readonly onWarn = (l: number, c: number, m: string) => this.warn(l, c, m);
  private readonly onFail = (l: number, c: number, m: string): never => this.fail(l, c, m);

  private comment(t: string, ln: number, col: number) {
    if (!t.includes('@')) return;
    const d = directive(t, ln, col, this.pending.directives, this.onWarn, this.onFail);
    if (d?.name !== undefined) this.pending.atName = d.name;
    if (d?.import !== undefined) this.out.imports.push({ path: d.import, line: ln, col });
    if (d?.lua) this.pending.lua = true;
  }

  private blockComment(col: number) {
    const start = this.i;
    const first = this.lines[start]!;
    if (first.indexOf('*/', first.indexOf('/*') + 2) !== -1) return;
    for (let j = start + 1; j < this.lines.length; j++) {
      if (this.lines[j]!.includes('*/')) {
        this.i = j;
        return;
      }
    }
    this.fail(start + 1, col, "a '/*' comment without its '*/'");
  }

  private fileVar(t: string, ln: number, col: number) {
    // httpyac's lazy `@name := value` is read like `=`: sling works out a file variable when a request uses it.
    // (`t` is trimmed: the value needs no `\s*$`, which with `(.*?)` was quadratic in a run of blanks inside it.)
    const m = /^@([^\s=:]+)\s*:?=\s*(.*)$/.exec(t);
    if (!m) this.fail(ln, col, `a file variable is written '@name = value', got '${clip(t)}'`);
    const name = m[1]!;
    if (!VAR_NAME.test(name)) this.fail(ln, col + 1, `'${name}' is not a valid variable name (letters, digits, _ - . only)`);
    let value = this.template(m[2]!, ln, col + t.indexOf(m[2]!, name.length + 1), true);
    // REST Client's escapes in a file variable's text: \n, \r, \t and \\ (any other backslash stays).
    if (m[2]!.includes('\\')) value = typeof value === 'string' ? unescapeValue(value) : value.map((p) => (typeof p === 'string' ? unescapeValue(p) : p));
    const defs = this.out.vars.get(name);
    if (defs) defs.push({ line: ln, value });
    else this.out.vars.set(name, [{ line: ln, value }]);
  }

  private runLine(rest: string, ln: number, col: number) {
    // The overrides: from the first `(` when the line ends with `)` (found by hand: the regex that
    // did it was cubic in a run of blanks, 5,000 took 35 s).
    const text = rest.trim();
    const open = text.endsWith(')') ? text.indexOf('(') : -1;
    const target = open === -1 ? text : text.slice(0, open).trimEnd();
    const inner = open === -1 ? undefined : text.slice(open + 1, -1);
    // `run #Name (@a=1` without its `)`: said as such, not taken for a name with a parenthesis in it.
    if (inner === undefined && /\s\(@?[^\s=]+\s*=/.test(target)) {
      this.fail(ln, col, target.includes(')') ? "run: nothing may follow the variable overrides' closing ')'" : "run: the variable overrides '(@name=value, ...)' are missing their closing ')'");
    }
    const overrides: [string, Template][] = [];
    if (inner !== undefined) {
      const line = this.lines[this.i]!;
      let from = line.indexOf('(');
      for (const part of inner.split(',')) {
        // The value trimmed after the match: `(.*?)\s*$` is quadratic in a run of blanks inside it.
        const o = /^\s*@?([^\s=]+)\s*=(.*)$/.exec(part);
        if (!o) this.fail(ln, col, `run: a variable override is written '@name=value', got '${clip(part.trim())}'`);
        const value = o[2]!.trim();
        // The value's own column (for messages about its placeholders).
        const at = line.indexOf(part, from);
        const valueCol = at === -1 ? col : at + part.indexOf(value, part.indexOf('=') + 1) + 1;
        if (at !== -1) from = at + part.length;
        overrides.push([o[1]!, this.template(value, ln, valueCol, true)]);
      }
    }
    const node: RunNode = { kind: 'run', line: ln, start: this.blockHasRequest ? ln : Math.min(this.blockStart, ln), col, overrides };
    if (target.startsWith('#')) node.name = target.slice(1).trim();
    else node.path = unquote(target);
    if (!node.name && !node.path) this.fail(ln, col, 'run needs #Name or a file');
    this.out.items.push(node);
  }

  /**
   * A curl command in place of a request (JetBrains turns a pasted one into a request): its lines
   * up to the end of the command (a line that ends with `\`, or `^` for cmd.exe, or a quote left
   * open, goes on), up to `###` at most. The curl source reads and runs it (curl-entry.ts).
   */
  private curlCommand(ln: number, col: number) {
    const start = this.i;
    let quote = '';
    let j = this.i;
    for (; j < this.lines.length; j++) {
      const l = this.lines[j]!;
      if (j > start && l.startsWith('###')) {
        j--;
        break;
      }
      let cont = false;
      for (let k = 0; k < l.length; k++) {
        const c = l[k]!;
        if (quote === "'") {
          if (c === "'") quote = '';
        } else if (c === '\\') {
          if (k === l.length - 1) cont = true;
          else if (!quote || l[k + 1] === '"' || l[k + 1] === '\\' || l[k + 1] === '$' || l[k + 1] === '`') k++;
        } else if (quote === '"') {
          if (c === '"') quote = '';
        } else if (c === "'" || c === '"') quote = c;
        else if (c === '#' && (k === 0 || /\s/.test(l[k - 1]!))) break;
      }
      if (!quote && !cont && !/\s\^$/.test(l)) break;
    }
    if (j >= this.lines.length) j = this.lines.length - 1;
    const text = this.lines.slice(start, j + 1).join('\n');
    this.i = j;
    if (!untouched(this.pending) && (this.pending.pre.length || this.pending.asserts.length || Object.keys(this.pending.directives).length > 1 || this.pending.directives.refs.length)) {
      this.warn(ln, col, 'scripts, assertions and directives other than # @name are not applied to a curl command');
    }
    const node: CurlNode = {
      kind: 'curl',
      line: ln,
      start: this.blockHasRequest ? ln : Math.min(this.blockStart, ln),
      col,
      text,
      templates: this.lines.slice(start, j + 1).map((l, k) => this.template(l, start + k + 1, 1, false)),
      atName: this.pending.atName,
      title: this.title,
    };
    this.out.items.push(node);
    this.title = undefined;
    this.pending = freshPending();
    this.blockHasRequest = true;
    this.state = 'curl';
    this.blankBefore = false;
  }

  /** After a curl command: comments and blank lines up to `###` or the next request. */
  private afterCurl(line: string) {
    const t = line.trim();
    if (t === '') {
      this.blankBefore = true;
      return;
    }
    if (t.startsWith('#') || t.startsWith('//')) {
      // `# @name next` before `###`: for the next request.
      if (t.includes('@')) (this.carried ??= []).push(this.i);
      return;
    }
    // The next request or curl command, after a blank line or right after it (httpyac).
    if (startsRequest(line) || /^curl(\.exe)?\s/.test(line)) {
      this.state = 'pre';
      this.blockHasRequest = false;
      this.replayCarried();
      return this.pre(line);
    }
    this.fail(this.i + 1, line.indexOf(t) + 1, `after a curl command, only comments up to the next ### (a response handler or an assertion is not applied to it), got '${clip(t)}'`);
  }

  /**
   * An httpyac script block (YAC_OPEN on the current line, at column `col`; leaves i on its `}}`):
   * before the request line it runs before the request (in a region without a request, before
   * every request of the file), after the request (`req`) once its response is in. `{{+` runs
   * before every request; `{{@response` / `{{@after` after the region's response (`{{+response`,
   * `{{+after`, or in a region without a request: after every response); the other events
   * (`{{@request`, `{{@streaming`, `{{@responseLogging`) are not run.
   */
  private yacBlock(ln: number, col: number, req: RequestNode | undefined) {
    const m = YAC_OPEN.exec(this.lines[this.i]!)!;
    let j = this.i + 1;
    while (j < this.lines.length && !YAC_CLOSE.test(this.lines[j]!) && !this.lines[j]!.startsWith('###')) j++;
    if (j >= this.lines.length || !YAC_CLOSE.test(this.lines[j]!)) this.fail(ln, col, "an httpyac script block '{{' without its closing '}}' (a line of its own)");
    const code = this.lines.slice(this.i + 1, j).join('\n');
    this.i = j;
    const event = m[3]?.toLowerCase();
    if ((event && event !== 'response' && event !== 'after') || (!event && m[2] === '@')) {
      this.warn(ln, col, `httpyac script events ('${this.lines[ln - 1]!.trim()}') are not run: skipped`);
      return;
    }
    if (/\bresponse\b/.test(code)) this.out.yacResponse = true;
    const node: ScriptNode = { code, line: ln, yac: true };
    if (m[2] === '+') node.every = true;
    if (event) {
      // After the response: this request's, or every request's.
      if (m[2] === '+') this.out.yacGlobalAfter = [...(this.out.yacGlobalAfter ?? []), node];
      else if (req) req.handlers = added(req.handlers, node);
      else this.pending.post = [...(this.pending.post ?? []), node];
      return;
    }
    if (m[2] === '+') this.out.yacGlobal = [...(this.out.yacGlobal ?? []), node];
    else if (req) {
      req.handlers = added(req.handlers, node);
      this.state = 'after';
    } else this.pending.pre = added(this.pending.pre, node);
  }

  /** httpyac blocks before `###` in a region without a request: the file's global scripts. */
  private yacGlobals() {
    if (this.pending.post) {
      this.out.yacGlobalAfter = [...(this.out.yacGlobalAfter ?? []), ...this.pending.post];
      this.pending.post = undefined;
    }
    const pre = this.pending.pre;
    if (!pre.some((s) => s.yac)) return;
    this.out.yacGlobal = [...(this.out.yacGlobal ?? []), ...pre.filter((s) => s.yac)];
    this.pending.pre = fit(pre.filter((s) => !s.yac));
  }

  /** `{{ js }}` with code on the `{{` line, on one line or several (not a block httpyac runs): skipped with a warning. */
  private httpyacScript(ln: number, col: number) {
    const first = this.lines[this.i]!;
    if (!first.slice(first.indexOf('{{') + 2).includes('}}')) {
      let j = this.i + 1;
      while (j < this.lines.length && !this.lines[j]!.trim().startsWith('}}') && !this.lines[j]!.startsWith('###')) j++;
      if (j >= this.lines.length || this.lines[j]!.startsWith('###')) this.fail(ln, col, "an httpyac script block '{{' without its closing '}}'");
      this.i = j;
    }
    // httpyac runs only a block whose `{{` and `}}` stand alone on their lines (it sends this one as a URL, and fails).
    this.warn(ln, col, "'{{' with code on its line is not an httpyac script block ('{{' and '}}' go on lines of their own): skipped");
  }

  /** Reads `{% ... %}` starting at column `at` of the current line; leaves i on the closing line. */
  private script(at: number): string {
    const start = this.i;
    const first = this.lines[start]!;
    const close = first.indexOf('%}', at + 2);
    if (close !== -1) {
      this.trailing(first, close + 2, start + 1);
      return first.slice(at + 2, close);
    }
    const parts = [first.slice(at + 2)];
    for (let j = start + 1; j < this.lines.length; j++) {
      const l = this.lines[j]!;
      // No script line starts with ###: the block was left open, and the next request begins.
      if (l.startsWith('###')) this.fail(start + 1, at + 1, `a script block '{%' without its closing '%}' before the ### on line ${j + 1}`);
      const c = l.indexOf('%}');
      if (c !== -1) {
        parts.push(l.slice(0, c));
        this.trailing(l, c + 2, j + 1);
        this.i = j;
        return parts.join('\n');
      }
      parts.push(l);
    }
    this.fail(start + 1, at + 1, "a script block '{%' without its closing '%}'");
  }

  private preScript(line: string, ln: number) {
    const code = this.script(line.indexOf('{%'));
    this.pending.pre = added(this.pending.pre, { code, line: ln, lua: this.takeLua(code) });
  }

  private handlerScript(line: string, ln: number) {
    const code = this.script(line.indexOf('{%'));
    this.req!.handlers = added(this.req!.handlers, { code, line: ln, lua: this.takeLua(code) });
  }

  private trailing(line: string, from: number, ln: number) {
    if (line.slice(from).trim() !== '') this.warn(ln, from + 1, `text after '%}' is ignored: '${clip(line.slice(from).trim())}'`);
  }

  /** `# @lang=lua` before the script, or a script that reads as Lua (`-- lua`, `local x = ...`). */
  private takeLua(code?: string): boolean {
    const lua = this.pending.lua;
    this.pending.lua = false;
    if (lua) return true;
    const first =
      code
        ?.split('\n')
        .find((l) => l.trim() !== '')
        ?.trim() ?? '';
    return first.startsWith('--') || /^local\s+[A-Za-z_]\w*\s*=/.test(first);
  }

  /** httpyac `?? ...` (t trimmed; col where it starts): kept for its request, or a warning. */
  private assertLine(t: string, ln: number, col: number, into: { asserts: AssertNode[] }) {
    const a = parseAssert(t);
    if (typeof a === 'string') return this.warn(ln, col, `${a}: skipped`);
    into.asserts = added(into.asserts, { line: ln, a, expected: this.template(a.expected, ln, col + a.expectedAt, false) });
  }

  private template(text: string, ln: number, col: number, strict: boolean): Template {
    const template = compile(text, ln, col);
    if (lastCompile.unclosed !== undefined && strict) this.fail(ln, lastCompile.unclosed, "'{{' without its closing '}}'");
    if (typeof template === 'string') return template;
    for (const e of expressions(template)) this.checkExpr(e);
    return template;
  }

  private checkExpr(e: Expr) {
    if (e.kind === 'dynamic') {
      const problem = checkDynamic(e.name, e.args);
      if (problem?.startsWith('unsupported:')) this.warn(e.line, e.col, problem.slice(12));
      else if (problem) this.fail(e.line, e.col, problem);
    } else if (e.kind === 'ref') {
      // `{{login.response.body.$.items[}}`: a path that can never work fails the file, before anything is sent.
      const path = e.args[2]!;
      if (e.args[1] === 'body' && path !== '' && path !== '*' && !path.startsWith('/')) {
        const problem = jsonPathProblem(path.startsWith('$') ? path : '$.' + path);
        if (problem) this.fail(e.line, e.col, `${e.raw}: ${problem}`);
      }
    } else if (e.kind === 'js' || e.kind === 'var') {
      // httpyac's JavaScript expressions are run (httpyac-js.ts); the last response is kept for those that read it.
      if (e.text.includes('response') && /\bresponse\b/.test(e.text)) this.out.yacResponse = true;
    }
  }

  // ----------------------------------------------------------------------------- request line --

  private requestLine(line: string, ln: number): boolean {
    const indent = line.length - line.trimStart().length;
    const t = line.trim();
    let method = 'GET';
    let rest = t;
    let urlCol = indent + 1;
    const m = /^([A-Za-z][A-Za-z0-9_-]*)(\s+)(\S.*)$/.exec(t);
    if (m && (METHODS.has(m[1]!.toUpperCase()) || /^[A-Z][A-Z0-9_-]*$/.test(m[1]!))) {
      method = m[1]!.toUpperCase();
      rest = m[3]!;
      urlCol = indent + m[1]!.length + m[2]!.length + 1;
      // `POST HTTP/1.1`: the URL is missing, not `HTTP/1.1` a host name.
      if (/^HTTP\/\d+(\.\d+)?(\s+\(prior knowledge\))?$/i.test(rest)) this.fail(ln, urlCol, `a request line needs a URL after '${m[1]}' (found only the HTTP version)`);
    } else if (!looksLikeUrl(t.replace(/(?<!\s)\s+HTTP\/\d+(\.\d+)?$/i, '')) && !(t.startsWith('{{') && urlTemplate(t))) {
      return false;
    }
    if (OTHER_METHODS[method]) {
      this.warn(ln, indent + 1, `${OTHER_METHODS[method]} are not supported: skipped`);
      this.blockHasRequest = true;
      this.pending = freshPending();
      this.req = undefined;
      this.state = 'skip';
      this.blankBefore = false;
      return true;
    }
    let version: string | undefined;
    // `... HTTP/1.1` or JetBrains' `... HTTP/2 (Prior Knowledge)` at the end (the regular
    // expression only when the line ends with a digit or a parenthesis; `(?<!\s)`: tried from the
    // first blank of a run only, not again from each blank in it, which was quadratic).
    const last = rest.charCodeAt(rest.length - 1);
    const v = (last >= 48 && last <= 57) || last === 41 ? /(?<!\s)\s+(HTTP\/\d+(?:\.\d+)?)(\s+\(prior knowledge\))?$/i.exec(rest) : null;
    if (v) {
      version = v[1]!.toUpperCase() + (v[2] ? ' (Prior Knowledge)' : '');
      rest = rest.slice(0, v.index);
    }
    rest = rest.trimEnd();
    let graphql = false;
    if (method === 'GRAPHQL') {
      method = 'POST';
      graphql = true;
    }
    const p = this.pending;
    this.req = {
      kind: 'request',
      line: ln,
      urlCol,
      start: this.blockHasRequest ? ln : Math.min(this.blockStart, ln),
      atName: p.atName,
      title: this.title,
      method,
      url: this.template(rest, ln, urlCol, true),
      version,
      headers: NONE,
      body: NONE,
      graphql,
      fragments: this.out.fragments,
      pre: p.pre,
      handlers: p.post ?? NONE,
      asserts: p.asserts,
      outputs: NONE,
      directives: p.directives,
    };
    this.title = undefined;
    this.pending = freshPending();
    this.blockHasRequest = true;
    this.state = 'headers';
    this.urlOpen = true;
    this.blankBefore = false;
    this.bodyStarted = false;
    this.varParagraph = false;
    return true;
  }

  /** An httpyac request that follows a blank line inside the current one. */
  private startNextRequest(line: string) {
    const comments = this.leadComments;
    this.leadComments = undefined;
    this.endRequest(comments);
    this.blockHasRequest = false;
    this.state = 'pre';
    this.replayCarried();
    if (comments) {
      // The comment lines between the two requests belong to the next one (`# @name second`).
      const at = this.i;
      for (const k of comments) {
        this.i = k;
        this.pre(this.lines[k]!);
      }
      this.i = at;
    }
    this.pre(line);
  }

  // ---------------------------------------------------------------------------------- headers --

  private headers(line: string) {
    const req = this.req!;
    const ln = this.i + 1;
    const c0 = line.charCodeAt(0);
    if (this.urlOpen && (c0 === 32 || c0 === 9 || c0 === 63 /* ? */ || c0 === 38) /* & */) {
      const t = line.trim();
      // JetBrains: indented lines continue the URL; REST Client: lines starting with ? or &.
      if (t !== '' && !t.startsWith('??') && !t.startsWith('#') && !t.startsWith('//')) {
        const col = line.indexOf(t) + 1;
        req.url = concat(req.url, this.template(t, ln, col, true));
        return;
      }
    }
    this.urlOpen = false;
    if (line.trim() === '') {
      this.state = 'body';
      this.blankBefore = false;
      return;
    }
    const t = line.trimStart();
    const col = line.length - t.length + 1;
    if (t.startsWith('#') || t.startsWith('//')) return;
    if (t.startsWith('??')) return this.assertLine(t, ln, col, req);
    // httpyac: a request line right after another request starts the next request.
    if (c0 >= 65 && c0 <= 90 && isMethodWord(line) && startsRequest(line)) return this.startNextRequest(line);
    if (t.startsWith('>') || t.startsWith('<>')) {
      this.state = 'body';
      return this.body(line);
    }
    if (/^<@?\s/.test(t)) {
      this.state = 'body';
      return this.body(line);
    }
    if (t.startsWith('{') || t.startsWith('[')) {
      this.warn(ln, col, 'the body should follow a blank line after the headers; taken as the body');
      this.state = 'body';
      return this.body(line);
    }
    if (/^\s/.test(line) && req.headers.length) {
      this.warn(ln, col, 'an indented line after a header (obsolete line folding): joined to the header before it');
      const h = req.headers[req.headers.length - 1]!;
      h.value = concat(h.value, ' ', this.template(t, ln, col, true));
      return;
    }
    const colon = t.indexOf(':');
    const name = colon === -1 ? '' : t.slice(0, colon).trimEnd();
    if (colon <= 0 || (!TOKEN.test(name) && !name.includes('{{'))) {
      this.fail(ln, col, `expected a header 'Name: value' or a blank line before the body, got '${clip(t)}'`);
    }
    const valueText = t.slice(colon + 1).trim();
    const valueCol = col + t.indexOf(valueText, colon + 1);
    const bad = badHeaderChar(valueText);
    if (bad) this.fail(ln, valueCol + bad.at, `the value of ${name} contains ${bad.what}, which a header cannot carry`);
    // A literal name is kept once per file with its lower-case form (`Content-Type` on a thousand requests).
    const known = this.names.get(name);
    const nameT = known ? known[0] : this.template(name, ln, col, true);
    // `lower` is in the literal even when unknown: a property added later takes a block of its own per header.
    const header: HeaderNode = { name: nameT, lower: known ? known[1] : undefined, value: this.template(valueText, ln, valueCol, true), line: ln, col };
    if (!known && typeof nameT === 'string') {
      header.lower = nameT.toLowerCase();
      this.names.set(nameT, [nameT, header.lower]);
    }
    if (name.length === 14 && /^x-request-type$/i.test(name) && /^graphql$/i.test(valueText)) {
      req.graphql = true;
      req.graphqlVariables = true;
      return;
    }
    req.headers = added(req.headers, header);
  }

  // ------------------------------------------------------------------------------------- body --

  private body(line: string) {
    const req = this.req!;
    const ln = this.i + 1;
    if (line.trim() === '') {
      if (this.leadComments) this.leadComments.push(this.i);
      else if (this.bodyStarted) (this.blanks ??= []).push(this.i);
      this.blankBefore = true;
      this.varParagraph = false;
      return;
    }
    if (this.varParagraph) {
      const t = line.trim();
      if (line.charCodeAt(0) === 64 /* @ */) return this.fileVar(t, ln, 1);
      if (t.startsWith('#') || t.startsWith('//')) {
        // A comment among them: nobody's, or a directive for the next request (`# @name next`).
        if (t.includes('@')) (this.carried ??= []).push(this.i);
        return;
      }
      // What ends the paragraph: a response handler, an assertion, the next request.
      this.varParagraph = false;
    }
    // A paragraph of file variables (comments among them) after a blank line in a body, or as the
    // whole body: `@token = {{login.response.body.token}}` after a request, as httpyac and REST
    // Client read it (see varsParagraph()).
    if ((!this.bodyStarted || this.blankBefore) && line.charCodeAt(0) === 64 /* @ */ && this.varsParagraph()) {
      this.varParagraph = true;
      return this.fileVar(line.trim(), ln, 1);
    }
    if (this.handlerLine(line, ln)) return;
    if (line.startsWith('??')) {
      this.assertLine(line.trimEnd(), ln, 1, req);
      this.state = 'after';
      return;
    }
    const atStart = !this.bodyStarted || this.blankBefore;
    if (atStart) {
      if (!this.bodyStarted && line.trimStart().startsWith('{%')) {
        this.warn(ln, 1, "a script block without '>' before it: run as a response handler (write '> {%' to say so)");
        this.handlerScript(line, ln);
        this.state = 'after';
        return;
      }
      if (/^HTTP\/\d+(\.\d+)?\s+\d{3}\b/.test(line)) {
        this.warn(ln, 1, 'a recorded response (httpyac) after the request: ignored');
        this.state = 'skip';
        this.blankBefore = false;
        return;
      }
      if (startsRequest(line)) return this.startNextRequest(line);
      if (YAC_OPEN.test(line)) return this.yacBlock(ln, 1, req);
      if (line.startsWith('{{') && !line.slice(2).includes('}}')) return this.httpyacScript(ln, 1);
      // httpyac `gql [NAME] < ./query.gql`: the GraphQL query comes from the file (NAME is the
      // operation name); variables may follow after a blank line.
      const gql = !this.bodyStarted && line.startsWith('gql') ? /^gql(?:\s+([^\s(<]+))?\s+<\s+(\S(?:.*\S)?)\s*$/.exec(line) : null;
      if (gql) {
        const col = line.indexOf(gql[2]!, 3) + 1;
        req.graphql = true;
        if (gql[1]) req.operationName = gql[1];
        req.body = added<BodyLine>(req.body, { kind: 'file', path: this.template(gql[2]!, ln, col, true), vars: false, eol: this.eol(this.i), line: ln, col });
        this.bodyStarted = true;
        return;
      }
    }
    // A comment line before the body, or after a blank line in it: whose it is shows later (the
    // body's, the next request's, or nobody's at the end of the block).
    if ((!this.bodyStarted || this.blankBefore || this.leadComments) && (line.startsWith('#') || line.startsWith('//'))) {
      (this.leadComments ??= []).push(this.i);
      return;
    }
    this.blankBefore = false;
    this.flushBlanks(req);
    // `< file`, `<@ file`, and REST Client's `<@latin1 file` (the file's encoding).
    // (`(\S(?:.*\S)?)`, not `(\S.*?)`, before `\s*$`: the lazy form was quadratic in a run of blanks, here and below.)
    const inc = line.charCodeAt(0) === 60 /* < */ ? /^<(@([\w-]+)?)?\s+(\S(?:.*\S)?)\s*$/.exec(line) : null;
    if (this.leadComments) {
      const comments = this.leadComments;
      this.leadComments = undefined;
      // Before text that is not JSON or XML, `#` lines are the body's own (Markdown, YAML, a shell script).
      const c = line.charCodeAt(0);
      if (!inc && c !== 123 /* { */ && c !== 91 /* [ */ && c !== 60 /* < */) {
        for (const k of comments) {
          const text = this.lines[k]!;
          if (text.startsWith('//')) continue;
          req.body = added<BodyLine>(req.body, { kind: 'text', t: text.trim() === '' ? '' : this.template(text, k + 1, 1, false), raw: text.trim() === '' ? '' : text, eol: this.eol(k), line: k + 1 });
        }
      }
    }
    if (inc) {
      const col = line.indexOf(inc[3]!, 1 + (inc[1]?.length ?? 0)) + 1;
      if (inc[2] && !isEncoding(inc[2])) this.fail(ln, 3, `'${inc[2]}' is not an encoding sling knows (<@latin1 ./file, <@utf-8 ./file)`);
      req.body = added<BodyLine>(req.body, { kind: 'file', path: this.template(inc[3]!, ln, col, true), vars: inc[1] !== undefined, eol: this.eol(this.i), line: ln, col, encoding: inc[2] });
    } else {
      req.body = added<BodyLine>(req.body, { kind: 'text', t: this.template(line, ln, 1, false), raw: line, eol: this.eol(this.i), line: ln });
    }
    this.bodyStarted = true;
  }

  /** In a paragraph of file variables inside a body (up to the next blank line). */
  private varParagraph = false;

  /**
   * From the current line (which starts with `@`, not indented: an indented line is body, which is
   * how `--to http` writes such a body line) to the end of its paragraph (a blank line, `###`,
   * the end of the file, a response handler, an assertion or the next request): only file
   * variables (`@name = value`, `@name := value`) and comment lines. The lines of the paragraph
   * above the current one are comments (the caller knows). A paragraph with any other line is
   * body as written: `@mention` in a text, `@a = 1` under a line of text, a multipart part.
   */
  private varsParagraph(): boolean {
    let vars = 0;
    for (let j = this.i; j < this.lines.length; j++) {
      const l = this.lines[j]!;
      const t = l.trim();
      if (t === '' || l.startsWith('###')) break;
      if (t.startsWith('#') || t.startsWith('//')) continue;
      if (l.charCodeAt(0) === 64 /* @ */) {
        if (!isFileVar(t)) return false;
        vars++;
        continue;
      }
      if (j > this.i && (t.startsWith('>') || t.startsWith('??') || t.startsWith('<>') || startsRequest(l))) break;
      return false;
    }
    return vars > 0;
  }

  /** Blank lines inside a body, held until text follows them (at the end of a body they are not body). */
  private blanks?: number[];

  private flushBlanks(req: RequestNode) {
    const blanks = this.blanks;
    if (!blanks) return;
    this.blanks = undefined;
    for (let k = 0; k < blanks.length; k++) req.body = added<BodyLine>(req.body, { kind: 'text', t: '', raw: '', eol: this.eol(blanks[k]!), line: blanks[k]! + 1 });
  }

  /**
   * Directive comments at the very end of a request's block, after its headers or its body with no
   * blank line before them (`# @name next` right before `###`): the next request's, as they are
   * after a blank line (not a comment among the headers, not the last line of a text body).
   */
  private trailingDirectives(req: RequestNode, replayed: number[] | undefined) {
    // At the end of the file there is no next request: such a line stays where it is.
    if (this.i >= this.lines.length) return;
    let found: number[] | undefined;
    for (let k = this.i - 1; k >= req.line; k--) {
      const t = this.lines[k]!.trim();
      if (t === '') continue;
      if (!t.startsWith('#') && !t.startsWith('//')) break;
      if (isRequestDirective(t) && !replayed?.includes(k) && !this.carried?.includes(k)) (found ??= []).push(k);
    }
    if (!found) return;
    const lines = new Set(found.map((k) => k + 1));
    req.body = req.body.filter((b) => !(b.kind === 'text' && lines.has(b.line)));
    this.carried = [...(this.carried ?? []), ...found].sort((a, b) => a - b);
  }

  /** `> {% %}`, `> ./file.js`, `>> file`, `>>! file`, `<> ref`; true when the line was one. */
  private handlerLine(line: string, ln: number): boolean {
    const req = this.req!;
    if (line.startsWith('<>')) {
      // JetBrains writes `<> 2024-01-01T000000.200.json` (a saved response to compare with): nothing to run.
      this.state = 'after';
      return true;
    }
    if (!line.startsWith('>')) return false;
    const out = /^>>(!?)\s*(\S(?:.*\S)?)\s*$/.exec(line);
    if (out) {
      req.outputs = added(req.outputs, { path: this.template(out[2]!, ln, line.indexOf(out[2]!) + 1, true), overwrite: out[1] === '!', line: ln });
      this.state = 'after';
      return true;
    }
    if (/^>\s*\{%/.test(line)) {
      this.handlerScript(line, ln);
      this.state = 'after';
      return true;
    }
    const file = /^>\s+(\S(?:.*\S)?)\s*$/.exec(line);
    if (file) {
      req.handlers = added(req.handlers, { path: this.template(file[1]!, ln, line.indexOf(file[1]!) + 1, true), line: ln, lua: this.takeLua() });
      this.state = 'after';
      return true;
    }
    return false;
  }

  private after(line: string) {
    const ln = this.i + 1;
    const t = line.trim();
    if (t === '') {
      this.blankBefore = true;
      return;
    }
    if (t.startsWith('#') || t.startsWith('//')) {
      const m = /^(?:#|\/\/)\s*@lang\s*=?\s*lua\b/i.exec(t);
      if (m) this.pending.lua = true;
      // `# @name next` after the handlers, before `###`: for the next request.
      else if (t.includes('@')) (this.carried ??= []).push(this.i);
      return;
    }
    if (this.handlerLine(line, ln)) return;
    if (t.startsWith('??')) return this.assertLine(t, ln, 1, this.req!);
    if (this.blankBefore && startsRequest(line)) return this.startNextRequest(line);
    if (YAC_OPEN.test(line)) return this.yacBlock(ln, 1, this.req);
    // `@token = {{login.response.body.token}}` after the response handler: a file variable.
    if (t.charCodeAt(0) === 64 /* @ */ && isFileVar(t)) return this.fileVar(t, ln, line.indexOf(t) + 1);
    if (line.startsWith('{{') && !line.slice(2).includes('}}')) return this.httpyacScript(ln, 1);
    this.warn(ln, 1, `text after the response handler is ignored: '${clip(t)}'`);
  }

  /** `replayed`: comment lines the caller reads as the next request's itself (startNextRequest). */
  private endRequest(replayed?: number[]) {
    const req = this.req;
    this.req = undefined;
    // Blank lines after the last text of a body: not body.
    this.blanks = undefined;
    // Comment lines with no body after them: not body (trailing comments, orders.http); a
    // directive among them (`# @name next` before `###`) is for the next request.
    if (this.leadComments) {
      for (const k of this.leadComments) if (this.lines[k]!.includes('@')) (this.carried ??= []).push(k);
    }
    this.leadComments = undefined;
    this.varParagraph = false;
    if (!req) return;
    this.trailingDirectives(req, replayed);
    this.urlOpen = false;
    // A URL with no placeholders is checked now: a file with a broken one sends nothing.
    if (typeof req.url === 'string' && !req.url.startsWith('/')) {
      try {
        checkUrl(req.url.trim());
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        this.fail(req.line, req.urlCol, e.message);
      }
    }
    // Trailing blank lines, and comments after a blank line at the end (orders.http), are not body.
    let body = req.body;
    let end = body.length;
    for (;;) {
      while (end > 0 && blankLine(body[end - 1]!)) end--;
      let k = end;
      while (k > 0 && commentLine(body[k - 1]!)) k--;
      if (k < end && k > 0 && blankLine(body[k - 1]!)) end = k;
      else break;
    }
    // The lines kept, in a list of their own length (a list that grew keeps its spare room when cut).
    req.body = body = end === body.length ? fit(body) : end === 0 ? NONE : body.slice(0, end);
    // A JSON body cannot hold a line starting with # or //: such lines are comments (REST Client
    // drops every comment line of the block), as are the blank lines JSON does not need. (A body of
    // one line is that JSON line.)
    const first = body.length > 1 ? body.find(textLine) : undefined;
    if (first && first.kind === 'text' && /^\s*[[{]/.test(first.raw) && body.some(indentedComment)) {
      req.body = fit(body.filter((b) => !indentedComment(b)));
    }
    if (req.body.length) req.body[req.body.length - 1]!.eol = '';
    // httpyac: a JSON-typed body that starts with a GraphQL operation is a GraphQL request.
    if (!req.graphql && req.body.length && req.body[0]!.kind === 'text' && /^(query|mutation|subscription|fragment)\b/.test(req.body[0]!.raw)) {
      const ct = req.headers.find((h) => /^content-type$/i.test(rawText(h.name)));
      if (!ct || /json/i.test(rawText(ct.value))) req.graphql = true;
    }
    req.headers = fit(req.headers);
    req.pre = fit(req.pre);
    req.handlers = fit(req.handlers);
    req.asserts = fit(req.asserts);
    req.outputs = fit(req.outputs);
    this.out.items.push(req);
    this.state = 'pre';
  }
}

const blankLine = (b: BodyLine) => b.kind === 'text' && b.raw.trim() === '';
const commentLine = (b: BodyLine) => b.kind === 'text' && (b.raw.startsWith('#') || b.raw.startsWith('//'));
const textLine = (b: BodyLine) => b.kind === 'text' && b.raw.trim() !== '';
const indentedComment = (b: BodyLine) => b.kind === 'text' && /^\s*(#|\/\/)/.test(b.raw);

/** A file encoding TextDecoder knows (`latin1`, `utf-16le`, `windows-1252`, ...). */
function isEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** A trimmed line written as a file variable: `@name = value`, `@name := value` (a name sling takes). */
export function isFileVar(t: string): boolean {
  const m = /^@([^\s=:]+)\s*:?=/.exec(t);
  return m !== null && VAR_NAME.test(m[1]!);
}

/** `GET /x`: the first word is a method and a space follows (cheap test before startsRequest). */
function isMethodWord(line: string): boolean {
  const sp = line.indexOf(' ');
  return sp >= 2 && sp <= 11 && METHOD_WORDS.has(line.slice(0, sp));
}

/**
 * A line that starts with a placeholder and reads as a URL: `{{host}}/path`, `{{ base }}?q={{q}}`,
 * `{{$dotenv BASE}}/x`, `{{host}}` (an optional HTTP version after it). What is not (`{{`, `{{@request`,
 * `{{ console.log(1) }}`, `{{exports.a = 1}}`) is an httpyac script block. The first placeholder
 * must name a variable (`$name args` for a dynamic one); outside placeholders, no blank.
 */
function urlTemplate(t: string): boolean {
  const close = t.indexOf('}}', 2);
  if (close === -1) return false;
  const first = t.slice(2, close).trim();
  if (!/^[\p{L}\p{N}_.-]+$/u.test(first) && !/^\$[\p{L}\p{N}_.-]+(?:\s+[^\s{}()=;]+)*$/u.test(first)) return false;
  const rest = t.slice(close + 2).replace(/(?<!\s)\s+HTTP\/\d+(\.\d+)?$/i, '');
  return !/\s/.test(rest.replace(/\{\{[^{}]*\}\}/g, 'x'));
}

function looksLikeUrl(s: string): boolean {
  if (/\s/.test(s) || s === '') return false;
  if (/^(https?:\/\/|\/|\{\{|:\d)/i.test(s)) return true;
  return /^[\p{L}\p{N}_.-]+(:\d+)?([/?#]|$)/u.test(s) && /[.:]|^localhost/.test(s);
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\' };
const unescapeValue = (s: string) => s.replace(/\\([nrt\\])/g, (_, c: string) => ESCAPES[c]!);
const unquote = (s: string) => (/^(["']).*\1$/.test(s) ? s.slice(1, -1) : s);
const clip = (s: string) => (s.length > 60 ? s.slice(0, 57) + '...' : s);

export type { Diagnostic };
