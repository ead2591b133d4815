import { splitWindowsArgs } from './cmd.js';
import type { ShellEnv } from './expand.js';
import type { Condition, CurlCall } from './script.js';
import { ShellSyntaxError } from './shell.js';

/**
 * curl commands pasted into PowerShell (a `.ps1` file, or docs' "PowerShell" tab): a backtick
 * escapes the next character and, at the end of a line, continues the command; `'...'` is literal
 * (`''` is a quote); `"..."` expands `$env:NAME` and `$name` and takes backtick escapes (`` `n ``,
 * `` `t ``, `` `" ``, `` `u{1F600} ``, ...; `""` is a quote); `$name = '...'` and `$env:NAME = "..."`
 * set variables; `#` and `<# #>` are comments; `;`, `&&` and `||` separate commands. Each argument
 * reaches curl.exe as PowerShell 7.3 and later pass it (`$PSNativeCommandArgumentPassing`
 * `Standard`): as it is, quotes inside included. The text is bytes as a latin1 string, as for
 * the bash and cmd.exe readers.
 */
export function looksLikePowerShell(text: string): boolean {
  const lines = text.split('\n');
  const command = (l: string) => /^\s*(&\s*)?(\S*[\\/])?curl(\.exe)?(\s|$)/i.test(l);
  const commands = lines.filter(command);
  if (!commands.length) return false;
  // A backslash ending a line continues a bash command.
  if (lines.some((l) => /\\$/.test(l))) return false;
  // A backtick ending a line (after a blank) continues a PowerShell command; in bash it would open
  // a command substitution that a pasted curl command never has.
  if (lines.some((l) => /\s`$/.test(l))) return true;
  if (/\$\{?env:[A-Za-z_]/i.test(text)) return true;
  // `curl.exe` (PowerShell 5.1's `curl` is Invoke-WebRequest) or `& curl`, with no bash continuation.
  // Every curl command so, and none behind a prefix (`time curl`, `sudo curl`).
  if (lines.some((l) => !command(l) && /(^|\s)(\S*[\\/])?curl(\.exe)?\s/i.test(l))) return false;
  return commands.every((l) => /^\s*&|curl\.exe/i.test(l));
}

/** What a backtick makes of the next character in a `"..."` string or a bare word. */
const ESCAPES: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

const NOOPS = /^(write-host|write-output|echo|clear-host|cls)$/i;

interface Word {
  text: string;
  offset: number;
  /** Was any part quoted (`''` is an empty argument; a bare `$unset` is no argument). */
  quoted: boolean;
  /** A bare `=` right after a `$name` (an assignment statement). */
  assignment?: { name: string; env: boolean };
}

export function parsePowerShell(text: string, env: ShellEnv): CurlCall[] {
  const vars = new Map<string, string>();
  const exported: Record<string, string> = {};
  const calls: CurlCall[] = [];
  let i = 0;
  const fail = (message: string, at: number): never => {
    throw new ShellSyntaxError(message, at);
  };
  const peek = (k = 0) => text[i + k];

  const variable = (name: string, isEnv: boolean, at: number): string => {
    if (isEnv) {
      if (Object.hasOwn(exported, name)) return exported[name]!;
      const v = env.lookup(name);
      if (v === undefined) env.unset(`env:${name}`, at);
      return v ?? '';
    }
    const lower = name.toLowerCase();
    if (lower === 'null') return '';
    if (lower === 'true') return 'True';
    if (lower === 'false') return 'False';
    if (lower === 'home') return env.home;
    if (lower === 'pwd') return env.cwd;
    if (lower === 'pid') return String(env.pid);
    const v = vars.get(lower);
    if (v === undefined) env.unset(name, at);
    return v ?? '';
  };

  /** At `$`: a variable's value (i moves past it), or undefined when `$` is a plain character. */
  const dollar = (): string | undefined => {
    const at = i;
    if (peek(1) === '(') fail('$(...) (a PowerShell subexpression) is not supported: sling runs curl commands and does not run other code', at);
    if (peek(1) === '{') {
      const end = text.indexOf('}', i + 2);
      if (end === -1) fail("'${' without its '}'", at);
      const inner = text.slice(i + 2, end);
      i = end + 1;
      const m = /^env:(.+)$/i.exec(inner);
      return variable(m ? m[1]! : inner, Boolean(m), at);
    }
    const m = /^\$(env:)?([A-Za-z_][A-Za-z0-9_]*)/i.exec(text.slice(i, i + 256));
    if (!m) return undefined;
    i += m[0].length;
    return variable(m[2]!, Boolean(m[1]), at);
  };

  const backtick = (): string => {
    // i is at the backtick.
    const n = peek(1);
    if (n === undefined) {
      i++;
      return '';
    }
    if (n === 'u' && peek(2) === '{') {
      const m = /^`u\{([0-9A-Fa-f]{1,6})\}/.exec(text.slice(i, i + 12));
      if (m) {
        i += m[0].length;
        const cp = Number.parseInt(m[1]!, 16);
        if (cp > 0x10ffff) fail(`\`u{${m[1]}} is not a character`, i);
        return Buffer.from(String.fromCodePoint(cp), 'utf8').toString('latin1');
      }
    }
    i += 2;
    return ESCAPES[n] ?? n;
  };

  const singleQuoted = (): string => {
    const at = i;
    i++;
    let out = '';
    for (;;) {
      const c = peek();
      if (c === undefined) fail("a quote (') that is never closed", at);
      if (c === "'") {
        if (peek(1) === "'") {
          out += "'";
          i += 2;
          continue;
        }
        i++;
        return out;
      }
      out += c;
      i++;
    }
  };

  const doubleQuoted = (): string => {
    const at = i;
    i++;
    let out = '';
    for (;;) {
      const c = peek();
      if (c === undefined) fail('a quote (") that is never closed', at);
      if (c === '"') {
        if (peek(1) === '"') {
          out += '"';
          i += 2;
          continue;
        }
        i++;
        return out;
      }
      if (c === '`') {
        out += backtick();
        continue;
      }
      if (c === '$') {
        const v = dollar();
        if (v !== undefined) {
          out += v;
          continue;
        }
      }
      out += c;
      i++;
    }
  };

  /** @'...'@ and @"..."@: the lines between the opening and the closing line. */
  const hereString = (): string => {
    const at = i;
    const quote = peek(1)!;
    const start = text.indexOf('\n', i);
    if (start === -1 || text.slice(i + 2, start).trim()) fail(`a here-string (@${quote}) must end its line`, at);
    const close = new RegExp(`\\n${quote}@`, 'g');
    close.lastIndex = start;
    const m = close.exec(text);
    if (!m) fail(`a here-string (@${quote}) without its closing line (${quote}@)`, at);
    const end = m!.index;
    if (quote === "'") {
      i = end + 3;
      return text.slice(start + 1, end);
    }
    // A here-string in double quotes expands like "...", its quotes taken as they are.
    let out = '';
    i = start + 1;
    while (i < end) {
      const c = text[i]!;
      const v = c === '`' ? backtick() : c === '$' ? dollar() : undefined;
      if (v !== undefined) out += v;
      else {
        out += c;
        i++;
      }
    }
    i = end + 3;
    return out;
  };

  /** A word: bare characters, quoted strings and variables joined, up to a blank or a separator. */
  const word = (): Word | undefined => {
    const start = i;
    let out = '';
    let quoted = false;
    let any = false;
    for (;;) {
      const c = peek();
      if (c === undefined || c === ' ' || c === '\t' || c === '\n' || c === ';') break;
      if (c === '`' && peek(1) === '\n') break;
      if (c === '|' || (c === '&' && peek(1) === '&')) break;
      if (c === '>' || c === '<') fail(`'${c}' (a PowerShell redirection) is not supported`, i);
      if (!any && c === '(') fail('a (...) expression is not supported: sling runs curl commands and does not run other code', i);
      if (!any && c === '@' && (peek(1) === "'" || peek(1) === '"')) {
        out += hereString();
        quoted = true;
        any = true;
        continue;
      }
      if (c === "'") {
        out += singleQuoted();
        quoted = true;
      } else if (c === '"') {
        out += doubleQuoted();
        quoted = true;
      } else if (c === '`') out += backtick();
      else if (c === '$') {
        // `$name = ...` at the start of a statement: an assignment.
        const m = any ? null : /^\$(env:)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)/i.exec(text.slice(i, i + 300));
        if (m) {
          i += m[0].length;
          return { text: '', offset: start, quoted: false, assignment: { name: m[2]!, env: Boolean(m[1]) } };
        }
        const v = dollar();
        if (v === undefined) {
          out += c;
          i++;
        } else out += v;
      } else {
        out += c;
        i++;
      }
      any = true;
    }
    return any ? { text: out, offset: start, quoted } : undefined;
  };

  const skipBlanks = () => {
    for (;;) {
      const c = peek();
      if (c === ' ' || c === '\t' || c === '\r') i++;
      else if (c === '`' && peek(1) === '\n') i += 2;
      else if (c === '<' && peek(1) === '#') {
        const end = text.indexOf('#>', i + 2);
        if (end === -1) fail('a <# comment without its #>', i);
        i = end + 2;
      } else return;
    }
  };

  let when: Condition = 'always';
  while (i < text.length) {
    skipBlanks();
    const c = peek();
    if (c === undefined) break;
    if (c === '\n' || c === ';') {
      i++;
      when = 'always';
      continue;
    }
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '&' && peek(1) === '&') {
      i += 2;
      when = 'ok';
      continue;
    }
    if (c === '|' && peek(1) === '|') {
      i += 2;
      when = 'failed';
      continue;
    }
    if (c === '|') fail("'|' (a PowerShell pipe) is not supported", i);
    const offset = i;
    // `& curl.exe ...`: the call operator.
    if (c === '&') {
      i++;
      skipBlanks();
    }
    const words: Word[] = [];
    for (;;) {
      skipBlanks();
      const n = peek();
      if (n === undefined || n === '\n' || n === ';' || n === '|' || n === '#' || (n === '&' && peek(1) === '&')) break;
      if (words.length && text.startsWith('--%', i) && /[\s]/.test(text[i + 3] ?? ' ')) {
        // The stop-parsing token: the rest of the line goes to the program as it is written.
        i += 3;
        const end = text.indexOf('\n', i);
        const rest = text.slice(i, end === -1 ? text.length : end);
        // cmd.exe-style %NAME% is still expanded; curl.exe splits the line the Microsoft C runtime way.
        const expanded = rest.replace(/%([A-Za-z_][A-Za-z0-9_]*)%/g, (all, n: string) => env.lookup(n) ?? all);
        for (const a of splitWindowsArgs(expanded)) words.push({ text: a, offset: i, quoted: true });
        i = end === -1 ? text.length : end;
        break;
      }
      const w = word();
      if (!w) break;
      if (w.assignment) {
        if (words.length) fail("'=' in the middle of a command", w.offset);
        skipBlanks();
        const value = word();
        if (!value) fail(`$${w.assignment.name} = needs a value`, w.offset);
        if (w.assignment.env) exported[w.assignment.name] = value!.text;
        else vars.set(w.assignment.name.toLowerCase(), value!.text);
        skipBlanks();
        const after = peek();
        if (after !== undefined && after !== '\n' && after !== ';' && after !== '#') fail(`only a string can be assigned to $${w.assignment.name}: sling does not run PowerShell expressions`, i);
        break;
      }
      // A bare `$unset` is no argument at all; `''` is an empty one.
      if (w.text !== '' || w.quoted) words.push(w);
    }
    if (!words.length) {
      when = 'always';
      continue;
    }
    const name = words[0]!.text;
    if (NOOPS.test(name)) continue;
    if (!/(^|[\\/])curl(\.exe)?$/i.test(name)) fail(`'${name}' is not curl: sling runs curl commands and does not run other programs`, offset);
    const args = words.slice(1);
    calls.push({
      argv: args.map((w) => w.text),
      argOffsets: args.map((w) => w.offset),
      offset,
      cwd: env.cwd,
      env: { ...exported },
      before: [],
      when,
      countsStatus: true,
      errexit: false,
      handled: false,
    });
    when = 'always';
  }
  return calls;
}
