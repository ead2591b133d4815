/**
 * A POSIX-shell reader for files of curl commands: it turns the text into a list of simple commands
 * (words, assignments, redirections) joined by `;`, newlines, `&&`, `||` and `|`, the way bash reads
 * them, without running anything.
 *
 * Text is handled as a "byte string" (each char one byte, latin1), so `$'\xff'` and UTF-8 both come
 * out as the exact bytes bash would hand curl. Positions are byte offsets; `position()` turns them
 * into a line and a column (in characters) for messages.
 *
 * Covered: blanks, comments, backslash escapes and backslash-newline continuations, '...', "..."
 * (with \$ \` \" \\ and \newline), $'...' (ANSI-C), $"...", $NAME, ${NAME}, ${NAME:-x} and the
 * other four POSIX forms, ~ and ~/, command substitution ($(...) and `...`) as a parsed command
 * list, here-documents (<<, <<-, quoted or not), here-strings (<<<) and the other redirections.
 * What bash would do and this reader does not (subshells, control flow, functions, arithmetic) is
 * a ShellSyntaxError at the offending position (process substitution, `<(...)`, too).
 */

import { limitReached } from '../../errors.js';

export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'ShellSyntaxError';
  }
}

export type Part =
  | { kind: 'lit'; text: string; quoted: boolean }
  /** $NAME / ${NAME} / ${NAME<op>word}; op is one of :- - := = :+ + or '#' (length). */
  | { kind: 'var'; name: string; op?: string; arg?: Word; quoted: boolean; offset: number }
  | { kind: 'cmdsub'; list: ListItem[]; quoted: boolean; offset: number; text: string }
  | { kind: 'tilde' };

export interface Word {
  parts: Part[];
  offset: number;
}

export interface Redirect {
  /** The file descriptor redirected (0 for input, 1 for output unless given). */
  fd: number;
  op: '<' | '>' | '>>' | '>|' | '<>' | '<<' | '<<-' | '<<<' | '>&' | '<&' | '&>' | '&>>';
  target?: Word;
  /** Here-documents: the body, and whether $ expansions apply in it (unquoted delimiter). */
  heredoc?: { body: string; expand: boolean };
  offset: number;
}

export interface SimpleCommand {
  assigns: { name: string; value: Word; offset: number }[];
  words: Word[];
  redirects: Redirect[];
  offset: number;
  /** `{ list; }`: a group of commands in place of words (script.ts allows only ones that run no curl). */
  group?: ListItem[];
}

export interface Pipeline {
  commands: SimpleCommand[];
  offset: number;
}

export interface ListItem {
  pipeline: Pipeline;
  /** What joins this pipeline to the next one. */
  next: ';' | '&&' | '||' | '&';
}

const BLANK = new Set([' ', '\t']);
// Characters that end an unquoted word.
const META = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'function', 'select', '{', '}', '!', '[[', ']]']);

/** Line (1-based) and column (1-based, in characters) of a byte offset in a byte-string text. */
export function position(text: string, offset: number): { line: number; column: number } {
  // The offsets where lines start, found once per text (a file of thousands of commands asks for
  // thousands of positions: scanning from the top each time made reading it quadratic).
  const starts = lineStarts(text);
  // The last line start at or before the offset (a newline before the offset starts a line).
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  const lineStart = starts[lo]!;
  let column = 1;
  for (let i = lineStart; i < offset && i < text.length; i++) {
    // UTF-8 continuation bytes do not start a character.
    if ((text.charCodeAt(i) & 0xc0) !== 0x80) column++;
  }
  return { line: lo + 1, column };
}

let indexed: { text: string; starts: number[] } | undefined;
function lineStarts(text: string): number[] {
  if (indexed && indexed.text === text) return indexed.starts;
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  indexed = { text, starts };
  return starts;
}

/** UTF-8 bytes of a code point, as a byte string. */
function utf8(cp: number): string {
  return Buffer.from(String.fromCodePoint(cp), 'utf8').toString('latin1');
}

interface PendingHeredoc {
  redirect: Redirect;
  delimiter: string;
  stripTabs: boolean;
}

class Reader {
  pos = 0;
  private pending: PendingHeredoc[] = [];

  constructor(
    readonly text: string,
    private readonly endChar?: ')' | '`',
  ) {}

  private peek(n = 0): string {
    return this.text[this.pos + n] ?? '';
  }

  private fail(message: string, at = this.pos): never {
    throw new ShellSyntaxError(message, at);
  }

  /** Skips blanks, backslash-newlines and a comment (to the end of the line, newline kept). */
  private skipBlanks() {
    for (;;) {
      const c = this.peek();
      if (BLANK.has(c) || c === '\r') this.pos++;
      else if (c === '\\' && this.peek(1) === '\n') this.pos += 2;
      else if (c === '\\' && this.peek(1) === '\r' && this.peek(2) === '\n') this.pos += 3;
      else if (c === '#') {
        while (this.pos < this.text.length && this.peek() !== '\n') this.pos++;
      } else return;
    }
  }

  private atEnd(): boolean {
    if (this.pos >= this.text.length) return true;
    return this.endChar === ')' ? this.peek() === ')' : this.endChar === '`' ? this.peek() === '`' : false;
  }

  /** After a newline: reads the bodies of the here-documents started on the line just ended. */
  private readHeredocs() {
    for (const h of this.pending) {
      let body = '';
      for (;;) {
        if (this.pos >= this.text.length) this.fail(`here-document ends before its delimiter '${h.delimiter}'`, h.redirect.offset);
        let end = this.text.indexOf('\n', this.pos);
        if (end === -1) end = this.text.length;
        let line = this.text.slice(this.pos, end);
        this.pos = Math.min(end + 1, this.text.length);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (h.stripTabs) line = line.replace(/^\t+/, '');
        if (line === h.delimiter) break;
        body += line + '\n';
      }
      h.redirect.heredoc!.body = body;
    }
    this.pending = [];
  }

  /** The whole input (or the inside of a command substitution) as a list of pipelines. */
  parseList(): ListItem[] {
    const items: ListItem[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.atEnd()) break;
      const c = this.peek();
      if (c === '\n') {
        this.pos++;
        this.readHeredocs();
        continue;
      }
      if (c === ';' || c === '&' || c === '|') this.fail(`unexpected '${c}'`);
      const pipeline = this.parsePipeline();
      items.push({ pipeline, next: this.readNext(false) });
    }
    if (this.pending.length) this.fail(`here-document without its body (delimiter '${this.pending[0]!.delimiter}')`, this.pending[0]!.redirect.offset);
    return items;
  }

  /** What follows a pipeline: `&&`, `||`, `;`, `&` or a line break (`}` too, inside a group). */
  private readNext(inGroup: boolean): ListItem['next'] {
    this.skipBlanks();
    const d = this.peek();
    if (d === '&' && this.peek(1) === '&') {
      this.pos += 2;
      this.skipToCommand();
      return '&&';
    }
    if (d === '|' && this.peek(1) === '|') {
      this.pos += 2;
      this.skipToCommand();
      return '||';
    }
    if (d === ';') {
      if (this.peek(1) === ';') this.fail("';;' belongs to a case statement, which sling does not run");
      this.pos++;
    } else if (d === '&') {
      this.pos++;
      return '&';
    } else if (d === '\n') {
      this.pos++;
      this.readHeredocs();
    } else if (!this.atEnd() && !(inGroup && d === '}')) this.fail(`unexpected '${d}'`);
    return ';';
  }

  /** `{ list; }` after its `{`: the commands up to the `}` that stands as a command of its own. */
  private parseGroup(start: number): ListItem[] {
    const items: ListItem[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.atEnd()) this.fail("a '{' group without its closing '}'", start);
      const c = this.peek();
      if (c === '\n') {
        this.pos++;
        this.readHeredocs();
        continue;
      }
      if (c === '}' && (this.pos + 1 >= this.text.length || /[\s;|&)]/.test(this.peek(1)))) {
        if (!items.length) this.fail("an empty '{ }' group", start);
        this.pos++;
        return items;
      }
      const pipeline = this.parsePipeline();
      items.push({ pipeline, next: this.readNext(true) });
    }
  }

  /** After && / || / |: newlines may follow before the next command. */
  private skipToCommand() {
    for (;;) {
      this.skipBlanks();
      if (this.peek() === '\n') {
        this.pos++;
        this.readHeredocs();
      } else break;
    }
    if (this.atEnd()) this.fail('a command must follow');
  }

  private parsePipeline(): Pipeline {
    const offset = this.pos;
    const commands: SimpleCommand[] = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.peek() === '|' && this.peek(1) !== '|') {
        this.pos += this.peek(1) === '&' ? 2 : 1;
        this.skipToCommand();
        commands.push(this.parseCommand());
      } else break;
    }
    return { commands, offset };
  }

  private parseCommand(): SimpleCommand {
    this.skipBlanks();
    const cmd: SimpleCommand = { assigns: [], words: [], redirects: [], offset: this.pos };
    for (;;) {
      this.skipBlanks();
      if (this.atEnd()) break;
      const c = this.peek();
      if (c === '\n' || c === ';' || c === '|' || (c === '&' && this.peek(1) !== '>')) break;
      if (c === '(' || c === ')') {
        if (c === ')' && this.endChar === ')') break;
        this.fail(c === '(' ? 'subshells and ( ) groups are not supported' : "unexpected ')'");
      }
      const start = this.pos;
      const redirect = this.tryRedirect();
      if (redirect) {
        cmd.redirects.push(redirect);
        continue;
      }
      if (!cmd.words.length) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/.exec(this.text.slice(this.pos, this.pos + 200));
        if (m) {
          if (m[2]) this.fail('+= assignments are not supported');
          this.pos += m[0].length;
          const value = this.parseWord(true);
          cmd.assigns.push({ name: m[1]!, value, offset: start });
          continue;
        }
      }
      if (cmd.group) this.fail("only redirections may follow a '{ }' group", start);
      const word = this.parseWord(false);
      // `{ echo failed; exit 1; }` (after || mostly): a group of commands.
      if (!cmd.words.length && !cmd.assigns.length && word.parts.length === 1 && word.parts[0]!.kind === 'lit' && !word.parts[0]!.quoted && word.parts[0]!.text === '{') {
        cmd.group = this.parseGroup(start);
        continue;
      }
      if (!cmd.words.length && word.parts.length === 1 && word.parts[0]!.kind === 'lit' && !word.parts[0]!.quoted && RESERVED.has(word.parts[0]!.text)) {
        this.fail(`'${word.parts[0]!.text}': shell control structures are not supported`, start);
      }
      if (!cmd.words.length && this.peek() === '(' && this.peek(1) === ')') this.fail('shell functions are not supported', start);
      cmd.words.push(word);
    }
    if (!cmd.words.length && !cmd.assigns.length && !cmd.redirects.length && !cmd.group) this.fail('a command is missing here');
    return cmd;
  }

  /** A redirection operator (with an optional fd number before it) and its target. */
  private tryRedirect(): Redirect | null {
    const rest = this.text.slice(this.pos, this.pos + 8);
    // `--data @<(cat <<EOF ... EOF)`: bash runs the command and hands curl a /dev/fd path.
    if (/^[<>]\(/.test(rest)) {
      this.fail(
        "process substitution '" + rest[0] + "(...)' runs a program: sling does not run other programs (write the data in the file: a here-document into '--data @-', or '--data @FILE')",
        this.pos,
      );
    }
    const m = /^(\d*)(<<<|<<-|<<|<>|<&|>>|>&|>\||&>>|&>|<|>)/.exec(rest);
    if (!m) return null;
    if (m[1] && (m[2] === '&>' || m[2] === '&>>')) return null;
    const offset = this.pos;
    const op = m[2] as Redirect['op'];
    const fd = m[1] ? Number(m[1]) : op.startsWith('<') ? 0 : 1;
    this.pos += m[0].length;
    this.skipBlanks();
    if (this.atEnd() || META.has(this.peek())) this.fail(`'${op}' needs a target`);
    const target = this.parseWord(false);
    const r: Redirect = { fd, op, target, offset };
    if (op === '<<' || op === '<<-') {
      // The delimiter is the word with its quotes removed; any quoting turns expansion off.
      let delimiter = '';
      let quoted = false;
      for (const p of target.parts) {
        if (p.kind !== 'lit') this.fail('a here-document delimiter must be a plain word', offset);
        delimiter += p.text;
        if (p.quoted) quoted = true;
      }
      r.heredoc = { body: '', expand: !quoted };
      r.target = undefined;
      this.pending.push({ redirect: r, delimiter, stripTabs: op === '<<-' });
    }
    return r;
  }

  /** One word: concatenated unquoted text, quotes and expansions, up to a metacharacter. */
  parseWord(assignment: boolean): Word {
    const offset = this.pos;
    const parts: Part[] = [];
    let lit = '';
    const flush = () => {
      if (lit) parts.push({ kind: 'lit', text: lit, quoted: false });
      lit = '';
    };
    if (this.peek() === '~' && (this.pos + 1 >= this.text.length || this.peek(1) === '/' || META.has(this.peek(1)))) {
      parts.push({ kind: 'tilde' });
      this.pos++;
    }
    for (;;) {
      if (this.pos >= this.text.length) break;
      const c = this.peek();
      if (this.endChar === '`' && c === '`') break;
      if (this.endChar === ')' && c === ')') break;
      if (META.has(c)) {
        if (c === '\r' && this.peek(1) !== '\n') {
          lit += c;
          this.pos++;
          continue;
        }
        break;
      }
      if (c === '\r' && this.peek(1) === '\n') break;
      if (c === '\\') {
        const n = this.peek(1);
        if (n === '\n') this.pos += 2;
        else if (n === '\r' && this.peek(2) === '\n') this.pos += 3;
        else if (n === '') {
          // A backslash that ends the file: bash reading a script drops it (`bash -c` would keep it).
          this.pos++;
        } else {
          flush();
          parts.push({ kind: 'lit', text: n, quoted: true });
          this.pos += 2;
        }
        continue;
      }
      if (c === "'") {
        flush();
        const end = this.text.indexOf("'", this.pos + 1);
        if (end === -1) this.fail('unterminated single quote');
        parts.push({ kind: 'lit', text: this.text.slice(this.pos + 1, end), quoted: true });
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        flush();
        this.pos++;
        for (const p of this.parseDoubleQuoted()) parts.push(p);
        continue;
      }
      if (c === '$') {
        const n = this.peek(1);
        if (n === "'") {
          flush();
          this.pos += 2;
          parts.push({ kind: 'lit', text: this.parseAnsiC(), quoted: true });
          continue;
        }
        if (n === '"') {
          flush();
          this.pos += 2;
          for (const p of this.parseDoubleQuoted()) parts.push(p);
          continue;
        }
        const exp = this.parseDollar(false);
        if (exp) {
          flush();
          parts.push(exp);
        } else {
          lit += '$';
          this.pos++;
        }
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.parseBackquote(false));
        continue;
      }
      if (assignment && c === '~' && lit.endsWith(':') && (this.peek(1) === '/' || META.has(this.peek(1)) || this.peek(1) === ':')) {
        flush();
        parts.push({ kind: 'tilde' });
        this.pos++;
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    return { parts, offset };
  }

  /**
   * Inside "...": the opening quote has been read; reads through the closing one. As a here-document
   * body (`heredoc`), reads to the end and `"` is an ordinary character. Callers take its parts one
   * by one: `"$a$a..."` 200,000 times is as many parts, too many arguments for `push(...parts)`.
   */
  parseDoubleQuoted(heredoc = false): Part[] {
    const start = this.pos - 1;
    const parts: Part[] = [];
    let lit = '';
    const flush = () => {
      parts.push({ kind: 'lit', text: lit, quoted: true });
      lit = '';
    };
    for (;;) {
      if (this.pos >= this.text.length) {
        if (heredoc) break;
        this.fail('unterminated double quote', start);
      }
      const c = this.peek();
      if (c === '"' && !heredoc) {
        this.pos++;
        break;
      }
      if (c === '\\') {
        const n = this.peek(1);
        if (n === '\n') this.pos += 2;
        else if (n === '\r' && this.peek(2) === '\n') this.pos += 3;
        else if (n === '$' || n === '`' || (n === '"' && !heredoc) || n === '\\') {
          lit += n;
          this.pos += 2;
        } else {
          lit += '\\';
          this.pos++;
        }
        continue;
      }
      if (c === '$') {
        const exp = this.parseDollar(true);
        if (exp) {
          flush();
          parts.push(exp);
        } else {
          lit += '$';
          this.pos++;
        }
        continue;
      }
      if (c === '`') {
        flush();
        parts.push(this.parseBackquote(true));
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    return parts;
  }

  /** $'...' (the `$'` has been read): bash's ANSI-C escapes, producing bytes. */
  private parseAnsiC(): string {
    const start = this.pos - 2;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail("unterminated $'...'", start);
      const c = this.peek();
      if (c === "'") {
        this.pos++;
        // Arguments are C strings: bash drops everything from a NUL byte to the closing quote.
        const nul = out.indexOf('\0');
        return nul === -1 ? out : out.slice(0, nul);
      }
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      const n = this.peek(1);
      this.pos += 2;
      const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
      if (n in simple) out += simple[n];
      else if (/[0-7]/.test(n)) {
        let digits = n;
        while (digits.length < 3 && /[0-7]/.test(this.peek())) digits += this.text[this.pos++];
        out += String.fromCharCode(parseInt(digits, 8) & 0xff);
      } else if (n === 'x' || n === 'u' || n === 'U') {
        const max = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        let digits = '';
        while (digits.length < max && /[0-9a-fA-F]/.test(this.peek())) digits += this.text[this.pos++];
        if (!digits) out += '\\' + n;
        else if (n === 'x') out += String.fromCharCode(parseInt(digits, 16));
        else {
          const cp = parseInt(digits, 16);
          out += cp <= 0x10ffff ? utf8(cp) : '\\' + n + digits;
        }
      } else if (n === 'c') {
        const ch = this.peek();
        this.pos++;
        out += String.fromCharCode(ch.charCodeAt(0) & 0x1f);
      } else out += '\\' + n;
    }
  }

  /** A $ expansion at this.pos, or null when the $ is literal. */
  private parseDollar(quoted: boolean): Part | null {
    const offset = this.pos;
    const n = this.peek(1);
    if (n === '(') {
      if (this.peek(2) === '(') this.fail('arithmetic expansion $((...)) is not supported');
      this.pos += 2;
      const textStart = this.pos;
      const inner = new Reader(this.text, ')');
      inner.pos = this.pos;
      const list = inner.parseList();
      if (inner.pos >= this.text.length) this.fail('unterminated $(', offset);
      this.pos = inner.pos + 1;
      return { kind: 'cmdsub', list, quoted, offset, text: this.text.slice(textStart, inner.pos) };
    }
    if (n === '{') {
      const m = /^\$\{(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(this.text.slice(this.pos, this.pos + 300));
      if (!m) this.fail('bad ${...} expansion');
      this.pos += m[0].length;
      const name = m[2]!;
      if (m[1]) {
        if (this.peek() !== '}') this.fail('bad ${#...} expansion');
        this.pos++;
        return { kind: 'var', name, op: '#', quoted, offset };
      }
      if (this.peek() === '}') {
        this.pos++;
        return { kind: 'var', name, quoted, offset };
      }
      const om = /^(:-|:=|:\+|:\?|-|=|\+|\?)/.exec(this.text.slice(this.pos, this.pos + 2));
      if (!om) this.fail(`\${${name}${this.peek()}...}: only \${NAME}, \${NAME:-default} and the other POSIX forms are supported`);
      this.pos += om[0].length;
      const arg = this.parseBraceArg(quoted);
      return { kind: 'var', name, op: om[0], arg, quoted, offset };
    }
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.text.slice(this.pos, this.pos + 300));
    if (!m) return null;
    this.pos += m[0].length;
    return { kind: 'var', name: m[1]!, quoted, offset };
  }

  /** The word inside ${NAME:-word}, up to the matching }. */
  private parseBraceArg(quoted: boolean): Word {
    const offset = this.pos;
    const parts: Part[] = [];
    let lit = '';
    const flush = () => {
      if (lit) parts.push({ kind: 'lit', text: lit, quoted });
      lit = '';
    };
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated ${', offset);
      const c = this.peek();
      if (c === '}') {
        this.pos++;
        break;
      }
      if (c === '\\' && this.peek(1)) {
        flush();
        parts.push({ kind: 'lit', text: this.peek(1), quoted: true });
        this.pos += 2;
      } else if (c === "'" && !quoted) {
        flush();
        const end = this.text.indexOf("'", this.pos + 1);
        if (end === -1) this.fail('unterminated single quote');
        parts.push({ kind: 'lit', text: this.text.slice(this.pos + 1, end), quoted: true });
        this.pos = end + 1;
      } else if (c === '"') {
        flush();
        this.pos++;
        for (const p of this.parseDoubleQuoted()) parts.push(p);
      } else if (c === '$') {
        const exp = this.parseDollar(quoted);
        if (exp) {
          flush();
          parts.push(exp);
        } else {
          lit += '$';
          this.pos++;
        }
      } else {
        lit += c;
        this.pos++;
      }
    }
    flush();
    return { parts, offset };
  }

  /** `...` (old-style command substitution): backslash escapes \\ \` \$ inside, then a nested parse. */
  private parseBackquote(quoted: boolean): Part {
    const offset = this.pos;
    this.pos++;
    let inner = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated `', offset);
      const c = this.peek();
      if (c === '`') {
        this.pos++;
        break;
      }
      if (c === '\\' && (this.peek(1) === '`' || this.peek(1) === '\\' || this.peek(1) === '$')) {
        inner += this.peek(1);
        this.pos += 2;
      } else {
        inner += c;
        this.pos++;
      }
    }
    let list: ListItem[];
    try {
      list = new Reader(inner).parseList();
    } catch (e) {
      if (e instanceof ShellSyntaxError) throw new ShellSyntaxError(e.message, offset);
      throw e;
    }
    return { kind: 'cmdsub', list, quoted, offset, text: inner };
  }
}

/** Parses a whole file (a byte string) into pipelines. Throws ShellSyntaxError. */
export function parseShell(text: string): ListItem[] {
  const reader = new Reader(text);
  try {
    return reader.parseList();
  } catch (e) {
    // `$($($(...` thousands deep: the reader recurses once per level, and the stack runs out (as
    // walkScript says for expansions): the command it was reading.
    const limit = limitReached(e);
    if (limit !== undefined) throw new ShellSyntaxError(limit, reader.pos);
    throw e;
  }
}

/** Parses the body of an unquoted here-document for its $ expansions and backslash escapes. */
export function parseHeredocBody(body: string): Word {
  const r = new Reader(body);
  return { parts: r.parseDoubleQuoted(true), offset: 0 };
}
