import type { AssertNode, Directives, ParsedHttp, RequestNode, ScriptNode } from '../ast.js';
import { checkDynamic } from '../dynamic.js';
import { jsonPathProblem } from '../jsonpath.js';
import { compile, expressions, lastCompile, type Expr, type Template } from '../template.js';

// The state of one pass of the .http parser over a file's lines (the driver is ../parse.ts; each
// kind of line has its handler in this folder, a function of this state and the line). What every
// handler shares lives here: the lines and the position in them, what was read so far, the request
// being read, and the helpers for warnings, errors and {{templates}}.

/** A malformed .http file: the line and column of what is wrong, and what it is. */
export class HttpParseError extends Error {
  constructor(
    readonly line: number,
    readonly col: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Where the pass is in a request block: before the request line, in its headers, in its body,
 * after its response handlers, skipping a request of another protocol, after a curl command.
 */
export type State = 'pre' | 'headers' | 'body' | 'after' | 'skip' | 'curl';

/** What the lines before a request line said about it, kept until that line comes. */
export interface Pending {
  atName?: string;
  directives: Directives;
  pre: ScriptNode[];
  /** httpyac assertions written before the request line. */
  asserts: AssertNode[];
  /** httpyac `{{@response` / `{{@after` blocks written before the request line (run after its response). */
  post?: ScriptNode[];
  /** httpyac `{{@streaming` written before the request line. */
  streaming?: ScriptNode;
  lua: boolean;
}

/**
 * The lists of a request that has none of a kind (most have no scripts, assertions or outputs):
 * one shared empty list. A file's requests all stay in memory until they run (a thousand parsed
 * before the first is sent), so endRequest() also trims the lists that have entries to their
 * length. Frozen: nothing adds to a request once it is parsed.
 */
export const NONE: never[] = Object.freeze([]) as unknown as never[];
/**
 * Every list of a request starts as NONE and grows through added(): a list of one entry was made
 * with room for one (kept as it is); a longer one grew with room to spare (copied to its length).
 */
export const fit = <T>(list: T[]): T[] => (list.length === 0 ? NONE : list.length === 1 ? list : list.slice());
/** `list` with `item` added: a list of its own in place of the shared NONE. */
export function added<T>(list: T[], item: T): T[] {
  if ((list as unknown) === NONE) return [item];
  list.push(item);
  return list;
}

export const freshPending = (): Pending => ({ directives: { refs: NONE }, pre: NONE, asserts: NONE, lua: false });
/** Nothing was written into it since it was made (no directive, script or assertion). */
export function untouched(p: Pending): boolean {
  if (p.atName !== undefined || p.lua || p.post || p.streaming || p.pre.length !== 0 || p.asserts.length !== 0 || p.directives.refs.length !== 0) return false;
  // for...in rather than Object.keys(): no list made per request.
  for (const k in p.directives) if (k !== 'refs') return false;
  return true;
}

export const unquote = (s: string) => (/^(["']).*\1$/.test(s) ? s.slice(1, -1) : s);
/** A line's text shortened for a message. */
export const clip = (s: string) => (s.length > 60 ? s.slice(0, 57) + '...' : s);

export abstract class Pass {
  readonly lines: string[];
  /** Lines that ended with CRLF (only when the text has a CR at all). */
  readonly crlf?: boolean[];
  /** The index of the current line (handlers that read several lines leave it on their last). */
  i = 0;
  readonly out: ParsedHttp = { items: [], vars: new Map(), imports: [], fragments: new Map(), warnings: [] };
  state: State = 'pre';
  /** The text after the `###` of the current block, for its request. */
  title?: string;
  pending: Pending = freshPending();
  blockHasRequest = false;
  /** The line of the last `###` (1 before the first). */
  blockStart = 1;
  /** The request being read (from its request line to the end of its block). */
  req?: RequestNode;
  /** URL continuation lines are still possible (right after the request line). */
  urlOpen = false;
  /** The indentation of the request line: lines indented further continue its URL (or fold a header). */
  reqIndent = 0;
  /** No line that is only `*\/` from this line index on (found once: a body of many `/*` lines stays linear). */
  noCloseFrom = Number.POSITIVE_INFINITY;
  blankBefore = false;
  bodyStarted = false;
  /**
   * `#` / `//` lines after the blank line that opens the body, before any content (their line
   * indexes): not body before JSON or XML (Visual Studio's `// CreateTodo`), body before other text
   * (a Markdown `# Title`), the next request's lines when a request line follows (httpyac's
   * `# @name` between requests separated by a blank line only). Also such lines after a blank
   * line later in the body, until a line shows whose they are.
   */
  leadComments?: number[];
  /** Comment lines at the end of a request's block (line indexes): their directives (`# @name`) go to the next request. */
  carried?: number[];
  /** In a paragraph of file variables inside a body (up to the next blank line). */
  varParagraph = false;
  /** Blank lines inside a body, held until text follows them (at the end of a body they are not body). */
  blanks?: number[];
  /** Literal header names seen so far, with their lower-case form. */
  readonly names = new Map<string, [string, string]>();
  readonly onWarn = (l: number, c: number, m: string) => this.warn(l, c, m);
  readonly onFail = (l: number, c: number, m: string): never => this.fail(l, c, m);

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

  /** Reads `line` (the current line) with the handler of the current state: how a handler hands a line on after changing the state. */
  abstract readLine(line: string): void;

  /** An httpyac request that follows a blank line inside the current one: ends the current request and reads `line` as the next one's request line. */
  abstract startNextRequest(line: string): void;

  /** The line break after line k (none after the last line). */
  eol(k: number): string {
    if (k === this.lines.length - 1) return '';
    return this.crlf?.[k] ? '\r\n' : '\n';
  }

  warn(line: number, col: number, message: string) {
    this.out.warnings.push({ line, col, message });
  }

  fail(line: number, col: number, message: string): never {
    throw new HttpParseError(line, col, message);
  }

  /** `text` (at line `ln`, column `col`) as a template, its placeholders checked; `strict`: a `{{` left open fails. */
  template(text: string, ln: number, col: number, strict: boolean): Template {
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
}
