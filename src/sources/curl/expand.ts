import { FileTooLargeError, readLimited, TEXT_FILE_LIMIT } from '../../files.js';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseHeredocBody, ShellSyntaxError, type ListItem, type Part, type Word } from './shell.js';

/**
 * Word expansion as bash does it for the words of a simple command: parameters ($NAME, ${NAME:-x}
 * ...), tilde, the few command substitutions sling can compute without running anything
 * (`echo`, `printf`, `cat FILE`, `pwd`), quote removal, and field splitting of unquoted expansions on
 * blanks and newlines. Pathname (glob) and brace expansion are not done: the word stays as written,
 * which is also what bash does when a glob matches no file.
 */
export interface ShellEnv {
  /** A variable's value: shell variables of the file first, then the environment; undefined when unset. */
  lookup(name: string): string | undefined;
  /** Sets a shell variable (undefined: unset it). */
  assign(name: string, value: string | undefined): void;
  /** The variable comes from the environment sling runs in (it is exported to the commands). */
  inherited?(name: string): boolean;
  cwd: string;
  home: string;
  /** `$$`: sling's process id (a curl file is run as one shell, sling). */
  pid: number;
  /** Called once per unset variable that was expanded. */
  unset(name: string, offset: number): void;
}

interface Segment {
  text: string;
  /** Came from an unquoted expansion: subject to field splitting. */
  split: boolean;
}

function special(name: string, env: ShellEnv): string | undefined {
  if (name === '?' || name === '#') return '0';
  if (name === '$') return String(env.pid);
  if (name === '0') return 'bash';
  return undefined;
}

function segmentsOf(word: Word, env: ShellEnv): Segment[] {
  const out: Segment[] = [];
  for (const part of word.parts) out.push(...partSegments(part, env));
  return out;
}

function partSegments(part: Part, env: ShellEnv): Segment[] {
  switch (part.kind) {
    case 'lit':
      return [{ text: part.text, split: false }];
    case 'tilde':
      return [{ text: env.home, split: false }];
    case 'cmdsub':
      return [{ text: runSubstitution(part.list, env).replace(/\n+$/, ''), split: !part.quoted }];
    case 'var': {
      const value = env.lookup(part.name) ?? special(part.name, env);
      const isSet = value !== undefined;
      const nonEmpty = isSet && value !== '';
      const argText = () => (part.arg ? expandSingle(part.arg, env) : '');
      const plain = (text: string): Segment[] => [{ text, split: !part.quoted }];
      switch (part.op) {
        case undefined:
          if (!isSet && !/^[0-9@*!-]$/.test(part.name)) env.unset(part.name, part.offset);
          return plain(value ?? '');
        case '#':
          return plain(String(Buffer.from(value ?? '', 'latin1').toString('utf8').length));
        case ':-':
          return nonEmpty ? plain(value!) : part.arg ? argSegments(part.arg, env, part.quoted) : [];
        case '-':
          return isSet ? plain(value!) : part.arg ? argSegments(part.arg, env, part.quoted) : [];
        case ':=':
        case '=': {
          if (part.op === ':=' ? nonEmpty : isSet) return plain(value!);
          const v = argText();
          env.assign(part.name, v);
          return plain(v);
        }
        case ':+':
          return nonEmpty && part.arg ? argSegments(part.arg, env, part.quoted) : [];
        case '+':
          return isSet && part.arg ? argSegments(part.arg, env, part.quoted) : [];
        case ':?':
        case '?': {
          if (part.op === ':?' ? nonEmpty : isSet) return plain(value!);
          const msg = argText() || 'parameter null or not set';
          throw new ShellSyntaxError(`${part.name}: ${msg}`, part.offset);
        }
        default:
          throw new ShellSyntaxError(`unsupported expansion of ${part.name}`, part.offset);
      }
    }
  }
}

/** The word of ${NAME:-word}: its own quotes hold, and inside "${...}" nothing is split. */
function argSegments(arg: Word, env: ShellEnv, quoted: boolean): Segment[] {
  // Unquoted `${V:-a b}`: the word's own unquoted text is split into fields too, as bash does.
  const out: Segment[] = [];
  for (const part of arg.parts) {
    if (part.kind === 'lit') out.push({ text: part.text, split: !quoted && !part.quoted });
    else for (const s of partSegments(part, env)) out.push({ text: s.text, split: s.split && !quoted });
  }
  return out;
}

/** Expands a word into fields (zero or more arguments). */
export function expandWord(word: Word, env: ShellEnv): string[] {
  const fields: string[] = [];
  let cur = '';
  // Whether a field is in progress: any quoted or literal text (even "") starts one.
  let have = false;
  for (const seg of segmentsOf(word, env)) {
    if (!seg.split) {
      cur += seg.text;
      have = true;
      continue;
    }
    const pieces = seg.text.split(/[ \t\n]+/);
    for (let i = 0; i < pieces.length; i++) {
      if (i > 0 && have) {
        fields.push(cur);
        cur = '';
        have = false;
      }
      if (pieces[i] !== '') {
        cur += pieces[i];
        have = true;
      }
    }
  }
  if (have) fields.push(cur);
  return fields;
}

/** Expands a word into one string, without field splitting (assignments, redirection targets). */
export function expandSingle(word: Word, env: ShellEnv): string {
  return segmentsOf(word, env)
    .map((s) => s.text)
    .join('');
}

/** An unquoted here-document body with its $ and ` expansions done. */
export function expandHeredoc(body: string, env: ShellEnv): string {
  return expandSingle(parseHeredocBody(body), env);
}

/**
 * Command substitution: only commands whose output sling can compute without running anything.
 * `echo`, `printf`, `cat FILE...` and `pwd`, possibly piped into `cat`.
 */
export function runSubstitution(list: ListItem[], env: ShellEnv): string {
  let out = '';
  for (const item of list) {
    let input = '';
    for (const cmd of item.pipeline.commands) {
      if (cmd.redirects.length) throw new ShellSyntaxError('redirections inside a command substitution are not supported', cmd.offset);
      const words = cmd.words.flatMap((w) => expandWord(w, env));
      const output = builtinOutput(words, input, env);
      if (output === undefined) {
        throw new ShellSyntaxError(`command substitution runs '${words[0] ?? ''}': sling does not run other programs (only echo, printf, cat FILE and pwd)`, cmd.offset);
      }
      input = output;
    }
    out += input;
  }
  return out;
}

/** What echo, printf, cat or pwd would print, or undefined for any other command. */
export function builtinOutput(words: string[], input: string, env: { cwd: string }): string | undefined {
  const [name, ...args] = words;
  if (name === 'echo') {
    let newline = true;
    let escapes = false;
    while (args.length && /^-[neE]+$/.test(args[0]!)) {
      const flags = args.shift()!;
      if (flags.includes('n')) newline = false;
      if (flags.includes('e')) escapes = true;
      if (flags.includes('E')) escapes = false;
    }
    const text = args.join(' ');
    return (escapes ? backslashEscapes(text) : text) + (newline ? '\n' : '');
  }
  if (name === 'printf') {
    if (args[0] === '--') args.shift();
    return args.length ? printf(args[0]!, args.slice(1)) : '';
  }
  if (name === 'cat') {
    if (!args.length || (args.length === 1 && args[0] === '-')) return input;
    return args
      .map((f) => {
        try {
          return readLimited(resolve(env.cwd, f), TEXT_FILE_LIMIT, f, 'a file $(cat FILE) reads').toString('latin1');
        } catch (e) {
          if (e instanceof FileTooLargeError) throw new ShellSyntaxError(`cat: ${e.message}`, 0);
          throw new ShellSyntaxError(`cat: cannot read '${f}'`, 0);
        }
      })
      .join('');
  }
  if (name === 'true' || name === ':') return '';
  // The folder the script is in (after its `cd`s), which pwd would print: nothing runs.
  // `pwd -P`: with symbolic links resolved (the last of -L and -P counts, as in bash).
  if (name === 'pwd' && args.every((a) => a === '-L' || a === '-P')) {
    if (args[args.length - 1] !== '-P') return `${env.cwd}\n`;
    try {
      return `${realpathSync(env.cwd)}\n`;
    } catch {
      return `${env.cwd}\n`;
    }
  }
  return undefined;
}

/** echo -e and printf %b know \0NNN; a printf format knows \NNN (`octal` true). */
function backslashEscapes(s: string, octal = false): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v', e: '\x1b', '"': '"' };
  const re = octal ? /\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)/g : /\\(0[0-7]{0,3}|x[0-9a-fA-F]{1,2}|.)/g;
  return s.replace(re, (m, e: string) => {
    if (/^[0-7]/.test(e)) return String.fromCharCode((parseInt(e, 8) || 0) & 0xff);
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    return map[e] ?? m;
  });
}

/**
 * printf FORMAT ARGS: %s %d %i %b %% with flags (`-`, `0`), a width and a precision (`%05d`, `%-8s`,
 * `%.3s`), and backslash escapes; the format repeats while arguments remain.
 */
function printf(format: string, args: string[]): string {
  let out = '';
  let i = 0;
  do {
    let used = false;
    out += backslashEscapes(format, true).replace(/%([-0 +]*)(\d*)(?:\.(\d*))?([sdib%])/g, (_m, flags: string, width: string, precision: string | undefined, conv: string) => {
      if (conv === '%') return '%';
      used = true;
      const a = args[i++] ?? '';
      let text: string;
      let zeroPad = false;
      if (conv === 'd' || conv === 'i') {
        const n = parseInt(a, 10) || 0;
        text = String(Math.abs(n));
        if (precision !== undefined) text = text.padStart(Number(precision) || 0, '0');
        text = (n < 0 ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + text;
        zeroPad = flags.includes('0') && !flags.includes('-') && precision === undefined;
      } else {
        text = conv === 'b' ? backslashEscapes(a) : a;
        if (precision !== undefined) text = text.slice(0, Number(precision) || 0);
      }
      const w = Number(width) || 0;
      if (text.length >= w) return text;
      if (flags.includes('-')) return text.padEnd(w);
      if (zeroPad) {
        const sign = /^[-+ ]/.test(text) ? text[0]! : '';
        return sign + text.slice(sign.length).padStart(w - sign.length, '0');
      }
      return text.padStart(w);
    });
    if (!used) break;
  } while (i < args.length);
  return out;
}
