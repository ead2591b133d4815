/**
 * `{{...}}` placeholders, compiled once at parse time into a list of literal strings and
 * expressions, so resolving a request at run time is a walk over a short array (linear in the
 * size of the file, whatever the number of requests).
 *
 * Expression kinds (JetBrains HTTP Client, VS Code REST Client, httpyac):
 *  - `name`, `dotted.name`, `hyphen-name`            a variable
 *  - `%name`                                         the variable, percent-encoded (REST Client)
 *  - `$uuid`, `$randomInt 1 9`, `$random.integer(1, 9)` ... dynamic variables (dynamic.ts)
 *  - `login.response.body.$.token`, `login.response.headers.Location`, `login.request.body.*`
 *                                                    request references (REST Client)
 *  - `$.clients..id`                                 JSONPath over the request's variables (JetBrains)
 *  - anything else (`process.env.X`, `a + b`)        an httpyac JavaScript expression
 */
export interface Expr {
  kind: 'var' | 'dynamic' | 'ref' | 'jsonpath' | 'js';
  /** The placeholder as written, braces included: what --offline shows when it cannot be resolved. */
  raw: string;
  /** The text between the braces, trimmed. */
  text: string;
  /** var: the variable name (without `%`); dynamic: the name without `$`; ref: the request name. */
  name: string;
  /** Percent-encode the value (`{{%name}}`). */
  encode: boolean;
  /** dynamic: the arguments; ref: [response|request, body|headers, path]. */
  args: string[];
  line: number;
  col: number;
  /** Where the placeholder is, when it is not in the request's own file (an `<@` include, an environment value). */
  where?: string;
}

/** A literal text is kept as a plain string (no array to allocate or walk); otherwise parts. */
export type Template = string | readonly (string | Expr)[];

export const EMPTY: Template = '';

const NAME = /^[\p{L}\p{N}_\-.$]+$/u;
const REF = /^([\p{L}\p{N}_\-.]+?)\.(response|request)\.(body|headers)(?:\.(.*))?$/su;

function classify(text: string, raw: string, line: number, col: number): Expr {
  let encode = false;
  let t = text;
  if (t.startsWith('%') && t.length > 1) {
    encode = true;
    t = t.slice(1).trim();
  }
  const base = { raw, text, encode, line, col };
  if (t.startsWith('$.') || t === '$') return { ...base, kind: 'jsonpath', name: t, args: [] };
  // httpyac's `$global.name` (a value its scripts keep for the run): JavaScript.
  if (t.startsWith('$global') && /^\$global(?![\p{L}\p{N}_$])/u.test(t)) return { ...base, kind: 'js', name: t, args: [] };
  // httpyac's `# @loop` pass number: a variable.
  if (t === '$index') return { ...base, kind: 'var', name: t, args: [] };
  if (t.startsWith('$')) {
    // `$randomInt 1 9`, `$datetime "DD.MM" 1 d`, `$random.integer(1, 9)`
    const m = /^\$([\p{L}\p{N}_.]+)\s*(?:\((.*)\))?\s*(.*)$/su.exec(t);
    if (m) {
      const args = m[2] !== undefined ? splitCallArgs(m[2]) : splitWords(m[3] ?? '');
      if (m[2] !== undefined && m[3]) args.push(...splitWords(m[3]));
      return { ...base, kind: 'dynamic', name: m[1]!, args };
    }
    return { ...base, kind: 'js', name: t, args: [] };
  }
  const ref = REF.exec(t);
  if (ref) return { ...base, kind: 'ref', name: ref[1]!, args: [ref[2]!, ref[3]!, ref[4] ?? ''] };
  if (NAME.test(t)) return { ...base, kind: 'var', name: t, args: [] };
  return { ...base, kind: 'js', name: t, args: [] };
}

/** `1, 9` → ['1', '9']; quotes around an argument are removed. */
function splitCallArgs(s: string): string[] {
  if (!s.trim()) return [];
  return s.split(',').map((a) => unquote(a.trim()));
}

/** `"DD.MM.YYYY HH:mm" 2 d` → ['DD.MM.YYYY HH:mm', '2', 'd']. */
export function splitWords(s: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

const unquote = (s: string) => (/^(["']).*\1$/s.test(s) ? s.slice(1, -1) : s);

/** Set by compile(): the column (1-based) of a `{{` without its `}}` in the last text, if any. */
export const lastCompile: { unclosed?: number } = {};

/**
 * Compiles one piece of text that starts at (line, col). Text without `{{` stays a string, which
 * costs nothing to resolve. `where`: the text is a file (or a value) of its own, possibly of many
 * lines; each placeholder is placed by its line and column in it (from 1), as `where` names them.
 */
export function compile(text: string, line: number, col = 1, where?: (line: number, col: number) => string): Template {
  lastCompile.unclosed = undefined;
  if (text.includes('\\{\\{')) {
    ESCAPED.lastIndex = 0;
    if (ESCAPED.test(text)) return escaped(text, line, col, where);
  }
  return placeholders(text, line, col, where);
}

/** compile() of a text with no escape in it. */
function placeholders(text: string, line: number, col: number, where?: (line: number, col: number) => string): Template {
  lastCompile.unclosed = undefined;
  let at = text.indexOf('{{');
  if (at === -1) return text;
  const parts: (string | Expr)[] = [];
  let from = 0;
  let unclosed: number | undefined;
  while (at !== -1) {
    const end = text.indexOf('}}', at + 2);
    if (end === -1) {
      unclosed = col + at;
      break;
    }
    // `{{{x}}}`: the innermost `{{` opens the placeholder, as in the other runners.
    let open = at;
    while (text.startsWith('{{', open + 1) && open + 1 < end - 1) open++;
    if (open > from) parts.push(text.slice(from, open));
    const raw = text.slice(open, end + 2);
    const inner = text.slice(open + 2, end).trim();
    if (inner === '') parts.push(raw);
    else if (where) {
      const lineStart = text.lastIndexOf('\n', open) + 1;
      let l = 1;
      for (let k = text.indexOf('\n'); k !== -1 && k < open; k = text.indexOf('\n', k + 1)) l++;
      const e = classify(inner, raw, l, open - lineStart + 1);
      e.where = where(l, open - lineStart + 1);
      parts.push(e);
    } else parts.push(classify(inner, raw, line, col + open));
    from = end + 2;
    at = text.indexOf('{{', from);
  }
  if (from < text.length) parts.push(text.slice(from));
  lastCompile.unclosed = unclosed;
  return normalise(parts);
}

/** httpyac's escape: `\{\{name\}\}` is the text `{{name}}`, never a placeholder. */
const ESCAPED = /(?:\\\{){2}([^}]+?)(?:\\\}){2}/g;

/** compile() of a text holding escapes: the pieces between them compiled, each escape its literal text. */
function escaped(text: string, line: number, col: number, where?: (line: number, col: number) => string): Template {
  const parts: Template[] = [];
  let from = 0;
  let unclosed: number | undefined;
  ESCAPED.lastIndex = 0;
  for (let m = ESCAPED.exec(text); m; m = ESCAPED.exec(text)) {
    parts.push(piece(text, from, m.index, line, col, where));
    unclosed ??= lastCompile.unclosed;
    parts.push(`{{${m[1]}}}`);
    from = m.index + m[0].length;
  }
  parts.push(piece(text, from, text.length, line, col, where));
  unclosed ??= lastCompile.unclosed;
  const out = concat(...parts);
  lastCompile.unclosed = unclosed;
  return out;
}

/** text[from, to) compiled where it stands in text (its line and column in a many-line text). */
function piece(text: string, from: number, to: number, line: number, col: number, where?: (line: number, col: number) => string): Template {
  const s = text.slice(from, to);
  if (!s.includes('{{')) {
    lastCompile.unclosed = undefined;
    return s;
  }
  if (!where) return placeholders(s, line, col + from);
  // Placeholders of a many-line text are placed by their own line and column: shift them.
  const before = text.slice(0, from);
  const lines = before.split('\n').length - 1;
  const startCol = from - (before.lastIndexOf('\n') + 1);
  return placeholders(s, 1, 1, (l, c) => where(l + lines, l === 1 ? c + startCol : c));
}

/** Adjacent literals merged (an empty `{{}}` stays literal); a single literal becomes a string. */
function normalise(parts: (string | Expr)[]): Template {
  const merged: (string | Expr)[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (typeof p === 'string' && typeof last === 'string') merged[merged.length - 1] = last + p;
    else if (p !== '') merged.push(p);
  }
  if (merged.length === 0) return '';
  if (merged.length === 1 && typeof merged[0] === 'string') return merged[0];
  return merged;
}

/** a followed by b (a URL continued on the next line, a folded header). */
export function concat(...ts: Template[]): Template {
  const parts: (string | Expr)[] = [];
  for (const t of ts) {
    if (typeof t === 'string') parts.push(t);
    else parts.push(...t);
  }
  return normalise(parts);
}

export function isLiteral(t: Template): t is string {
  return typeof t === 'string';
}

/** The template as written. */
export function rawText(t: Template): string {
  if (typeof t === 'string') return t;
  let s = '';
  for (const p of t) s += typeof p === 'string' ? p : p.raw;
  return s;
}

const NONE: Expr[] = [];
export function expressions(t: Template): Expr[] {
  if (typeof t === 'string') return NONE;
  const out: Expr[] = [];
  for (const p of t) if (typeof p !== 'string') out.push(p);
  return out;
}

/**
 * What is wrong with a header value that cannot go on the wire (a control character other than a
 * tab: HTTP/1.1 and HTTP/2 forbid them, and a line break would end the header), and where (0-based);
 * undefined when it is fine.
 */
export function badHeaderChar(value: string): { at: number; what: string } | undefined {
  const m = /[\x00-\x08\x0a-\x1f\x7f]/.exec(value);
  if (!m) return undefined;
  const c = m[0].charCodeAt(0);
  const what = c === 10 || c === 13 ? 'a line break' : c === 0 ? 'a NUL character' : `a control character (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
  return { at: m.index, what };
}
