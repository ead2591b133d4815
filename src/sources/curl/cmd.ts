import { resolve } from 'node:path';
import { isNullName } from '../../files.js';
import type { ShellEnv } from './expand.js';
import type { CurlCall } from './script.js';
import { ShellSyntaxError } from './shell.js';

/**
 * Browsers' "Copy as cURL (cmd)": text written for cmd.exe, where `^` escapes the next character,
 * a `^` at the end of a line continues the command, `%NAME%` is an environment variable, and the
 * program then splits its own command line the Microsoft C runtime way (double quotes group,
 * `\"` is a literal quote, backslashes double only before a quote).
 */
export function looksLikeCmd(text: string): boolean {
  const all = text.split('\n');
  // `#` comments, a shebang and backslash continuations are POSIX shell.
  if (all.some((l) => /^\s*#/.test(l) || /\\\s*$/.test(l))) return false;
  const lines = all.filter((l) => l.trim() && !/^\s*(rem\b|::|@)/i.test(l));
  if (!lines.some((l) => /^\s*curl(\.exe)?\s/i.test(l))) return false;
  // A caret continuing the line, or an argument opened with ^" (how browsers quote for cmd).
  return lines.some((l) => /\s\^\s*$/.test(l) || /\s\^"/.test(l));
}

/** A redirection of cmd.exe: `>NUL`, `2>&1`, `>> out.json`, `< in.json`. */
interface CmdRedirect {
  fd: number;
  append: boolean;
  /** The file, or `&N` for a copy of another stream. */
  target: string;
  offset: number;
}

/** cmd.exe's pass: ^ escapes, continuations, %VAR%, redirections; gives each command's text, its redirections and its offset. */
function cmdPass(text: string, env: ShellEnv): { text: string; offset: number; redirects: CmdRedirect[] }[] {
  const commands: { text: string; offset: number; redirects: CmdRedirect[] }[] = [];
  let redirects: CmdRedirect[] = [];
  let cur = '';
  /** `cur` holds only blanks so far (asking `cur.trim()` at each character was quadratic). */
  let blank = true;
  const add = (s: string) => {
    cur += s;
    if (blank && s.trim()) blank = false;
  };
  let start = 0;
  let inQuote = false;
  const end = (at: number) => {
    if (!blank) commands.push({ text: cur, offset: start, redirects });
    redirects = [];
    cur = '';
    blank = true;
    start = at;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (blank && !inQuote && /[ \t]/.test(c)) {
      start = i + 1;
      continue;
    }
    if (c === '%') {
      const m = /^%([A-Za-z_][A-Za-z0-9_()]*)%/.exec(text.slice(i));
      if (m) {
        const v = env.lookup(m[1]!);
        if (v !== undefined) {
          add(v);
          i += m[0].length - 1;
          continue;
        }
      }
      add(c);
      continue;
    }
    if (inQuote) {
      if (c === '"') inQuote = false;
      if (c === '\n') {
        inQuote = false;
        end(i + 1);
        continue;
      }
      add(c);
      continue;
    }
    if (c === '^') {
      const n = text[i + 1];
      if (n === '\n') {
        // A caret at the end of a line joins the next line, whose first character is taken as it is.
        i++;
        if (text[i + 1] !== undefined) {
          add(text[i + 1]!);
          i++;
        }
        continue;
      }
      if (n !== undefined) {
        add(n);
        i++;
      }
      continue;
    }
    if (c === '"') {
      inQuote = true;
      add(c);
      continue;
    }
    if (c === '\n') {
      end(i + 1);
      continue;
    }
    if (c === '&') {
      if (text[i + 1] === '&') i++;
      end(i + 1);
      continue;
    }
    if (c === '|') throw new ShellSyntaxError(`'|' (a cmd.exe pipe) is not supported`, i);
    if (c === '<' || c === '>') {
      // `[n]>file`, `[n]>>file`, `[n]>&m`, `<file`: the number, when there is one, is the word before.
      let fd = c === '<' ? 0 : 1;
      const n = /(^|[ \t])([0-9])$/.exec(cur);
      if (n) {
        fd = Number(n[2]);
        cur = cur.slice(0, cur.length - 1);
      }
      const at = i;
      const append = c === '>' && text[i + 1] === '>';
      if (append) i++;
      while (text[i + 1] === ' ' || text[i + 1] === '\t') i++;
      let target = '';
      if (text[i + 1] === '&' && /[0-9]/.test(text[i + 2] ?? '')) {
        target = `&${text[i + 2]}`;
        i += 2;
      } else {
        let quoted = false;
        while (i + 1 < text.length) {
          const t = text[i + 1]!;
          if (t === '"') quoted = !quoted;
          else if (!quoted && /[ \t\r\n&|<>]/.test(t)) break;
          else target += t;
          i++;
        }
      }
      if (!target) throw new ShellSyntaxError(`'${c}' (a cmd.exe redirection) needs a file name`, at);
      redirects.push({ fd, append, target, offset: at });
      continue;
    }
    add(c);
  }
  end(text.length);
  return commands;
}

/** The Microsoft C runtime's argument splitting. */
export function splitWindowsArgs(line: string): string[] {
  const args: string[] = [];
  let cur = '';
  let have = false;
  let inQuote = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\') {
      let n = 0;
      while (line[i + n] === '\\') n++;
      if (line[i + n] === '"') {
        cur += '\\'.repeat(Math.floor(n / 2));
        if (n % 2 === 1) cur += '"';
        else inQuote = !inQuote;
        have = true;
        i += n;
      } else {
        cur += '\\'.repeat(n);
        have = true;
        i += n - 1;
      }
      continue;
    }
    if (c === '"') {
      if (inQuote && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else inQuote = !inQuote;
      have = true;
      continue;
    }
    if (!inQuote && (c === ' ' || c === '\t')) {
      if (have) args.push(cur);
      cur = '';
      have = false;
      continue;
    }
    cur += c;
    have = true;
  }
  if (have) args.push(cur);
  return args;
}

export function parseCmdScript(text: string, env: ShellEnv): CurlCall[] {
  const calls: CurlCall[] = [];
  for (const cmd of cmdPass(text, env)) {
    if (/^\s*(rem\b|::|@?echo\b)/i.test(cmd.text)) continue;
    const args = splitWindowsArgs(cmd.text.replace(/^@/, ''));
    if (!args.length) continue;
    if (!/(^|[\\/])curl(\.exe)?$/i.test(args[0]!)) throw new ShellSyntaxError(`'${args[0]}' is not curl: sling runs curl commands and does not run other programs`, cmd.offset);
    const call: CurlCall = {
      argv: args.slice(1),
      argOffsets: args.slice(1).map(() => cmd.offset),
      offset: cmd.offset,
      cwd: env.cwd,
      env: {},
      before: [],
      when: 'always',
      countsStatus: true,
      errexit: false,
      handled: false,
    };
    applyCmdRedirects(cmd.redirects, call, env);
    calls.push(call);
  }
  return calls;
}

/**
 * What cmd.exe's redirections do to curl: `>NUL` (`1>nul`, `>>NUL`) throws the output away,
 * `> file` and `>> file` write it there, `< file` is its stdin; curl's stderr (`2>NUL`, `2>&1`,
 * `2> log`) is sling's own messages, which stay on stderr; `>&2` throws the output away as the
 * POSIX reader does.
 */
function applyCmdRedirects(redirects: CmdRedirect[], call: CurlCall, env: ShellEnv): void {
  for (const r of redirects) {
    if (r.fd === 2) continue;
    if (r.fd === 0 && !r.target.startsWith('&')) call.stdin = { kind: 'file', path: resolve(env.cwd, r.target) };
    else if (r.fd === 1 && r.target.startsWith('&')) {
      if (r.target !== '&1') call.stdout = { kind: 'discard' };
    } else if (r.fd === 1) call.stdout = isNullName(r.target) ? { kind: 'discard' } : { kind: 'file', path: resolve(env.cwd, r.target), append: r.append };
    else throw new ShellSyntaxError(`the redirection '${r.fd}>${r.append ? '>' : ''}' is not supported`, r.offset);
  }
}
