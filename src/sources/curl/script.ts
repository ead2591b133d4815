import { resolve } from 'node:path';
import { builtinOutput, expandHeredoc, expandSingle, expandWord, type ShellEnv } from './expand.js';
import { limitReached } from '../../errors.js';
import { ShellSyntaxError, type ListItem, type Redirect, type SimpleCommand } from './shell.js';

/**
 * Walks a parsed file the way bash would run it, without running anything: assignments, `export`,
 * `cd` and `set -e` change the state for the commands after them; each `curl` command becomes a
 * CurlCall with its arguments expanded, its standard input (a file, a here-document, a here-string,
 * or what `echo`/`printf`/`cat` pipe into it) and its standard output (a file or nowhere). A program
 * curl's output is piped into is not run (a warning says so; curl's output is printed as it is).
 * Anything else a shell would run is an error at its position: sling runs curl commands, not programs.
 */
export type Condition = 'always' | 'ok' | 'failed';

export interface CurlCall {
  argv: string[];
  /** Byte offset of the word each argument came from. */
  argOffsets: number[];
  offset: number;
  cwd: string;
  stdin?: { kind: 'file'; path: string } | { kind: 'data'; data: string };
  stdout?: { kind: 'file'; path: string; append: boolean } | { kind: 'discard' };
  /** NAME=value words in front of curl (its environment: proxies). */
  env: Record<string, string>;
  /** `env -i curl`: `env` is the whole environment (no process or exported variables). */
  cleanEnv?: boolean;
  /** `env -u NAME curl`: variables taken out of it. */
  unsetEnv?: string[];
  /** Conditions of the commands between the previous curl call and this one (each sets the status to 0 when it runs). */
  before: Condition[];
  when: Condition;
  /** Its exit status is the pipeline's (false when a command after it in a pipe decides). */
  countsStatus: boolean;
  /** `set -e` was on: a failure stops the script (unless the command is followed by && or ||, as bash exempts it). */
  errexit: boolean;
  /** Followed by `||`: the script deals with its failure (it does not make the script's status). */
  handled: boolean;
}

export interface WalkContext {
  env: ShellEnv;
  warn(offset: number, message: string): void;
}

const CURL_NAME = /(^|\/)curl(\.exe)?$/i;
const PREFIXES = new Set(['time', 'command', 'exec', 'nohup', 'sudo', 'builtin']);
/** The prefixes' options that take the next word as their value (sudo -u USER, env -u NAME, time -f FORMAT, exec -a NAME). */
const PREFIX_VALUES: Record<string, string> = { sudo: 'CDghpRrTtUu', env: 'CSu', time: 'fo', exec: 'a', command: '' };
const NOOPS = new Set(['echo', 'printf', 'true', ':', 'sleep', 'wait', 'clear', 'shopt', 'alias', 'read', 'trap', 'umask', 'hash', 'type', 'which', 'pwd']);

export function walkScript(items: ListItem[], ctx: WalkContext): CurlCall[] {
  const at = { offset: 0 };
  try {
    return walkItems(items, ctx, at);
  } catch (e) {
    // `A=$A$A` thirty times, a default nested thousands of levels deep: the command that did it.
    const limit = limitReached(e);
    if (limit !== undefined) throw new ShellSyntaxError(limit, at.offset);
    throw e;
  }
}

function walkItems(items: ListItem[], ctx: WalkContext, at: { offset: number }): CurlCall[] {
  const { env } = ctx;
  const calls: CurlCall[] = [];
  let before: Condition[] = [];
  let prevNext: ListItem['next'] = ';';
  let errexit = false;
  let prevDir = env.cwd;
  /** What `export` gave the commands' environment (proxies, CURL_HOME), as bash passes it to curl. */
  const exported: Record<string, string> = {};
  /** What `unset` took out of the environment sling runs in. */
  const removed = new Set<string>();

  for (const item of items) {
    at.offset = item.pipeline.offset;
    const when: Condition = prevNext === '&&' ? 'ok' : prevNext === '||' ? 'failed' : 'always';
    prevNext = item.next;
    if (item.next === '&') ctx.warn(item.pipeline.offset, "'&' (background) runs the command in order, like ';'");
    const stages = item.pipeline.commands;
    let pipedIn: string | undefined;
    let pipelineHasCurl = false;
    for (let i = 0; i < stages.length; i++) {
      const cmd = stages[i]!;
      const last = i === stages.length - 1;
      if (cmd.group) {
        // `curl ... || { echo "failed"; exit 1; }`: a group that runs no curl is read like its
        // builtins (echo writes nothing sling keeps; exit ends the script where it always runs).
        const kinds = groupCommands(cmd.group, env);
        const curl = kinds.find((k) => CURL_NAME.test(k.name) || (!NOOPS.has(k.name) && !['exit', 'return', 'cat', 'export', 'unset', 'set', 'cd'].includes(k.name)));
        if (curl) throw new ShellSyntaxError(`'${curl.name}' inside a '{ }' group is not supported: write the group's commands one after another`, curl.offset);
        if (kinds.some((k) => k.name === 'exit' || k.name === 'return')) {
          if (when === 'always' && stages.length === 1) return calls;
          ctx.warn(cmd.offset, "'exit' in a '{ }' group after && or || is ignored");
        }
        if (!last) pipedIn = '';
        if (last && !pipelineHasCurl) before.push(when);
        continue;
      }
      const assigns = cmd.assigns.map((a) => [a.name, expandSingle(a.value, env)] as const);
      let fields: { text: string; offset: number }[] = [];
      for (const w of cmd.words) for (const text of expandWord(w, env)) fields.push({ text, offset: w.offset });
      if (!fields.length) {
        // NAME=value alone sets a shell variable (and the exported value, once it is exported).
        for (const [n, v] of assigns) {
          env.assign(n, v);
          // A variable from the environment sling runs in is exported already, as in bash.
          if (n in exported || (!removed.has(n) && env.inherited?.(n))) exported[n] = v;
        }
        if (!last) pipedIn = '';
        continue;
      }
      // `command -v curl`: a look-up (is curl there?), which succeeds; nothing runs.
      if (fields[0]!.text === 'command' && /^-[vV]$/.test(fields[1]?.text ?? '')) fields = [{ text: 'type', offset: fields[0]!.offset }, ...fields.slice(2)];
      // `env A=b curl`, `time curl`, `sudo curl`: what runs is curl.
      let prefixEnv: Record<string, string> = Object.fromEntries(assigns);
      let cleanEnv = false;
      let execs = false;
      const unsetEnv: string[] = [];
      while (fields.length > 1 && (PREFIXES.has(fields[0]!.text) || fields[0]!.text === 'env')) {
        const prefix = fields[0]!.text;
        const isEnv = prefix === 'env';
        if (prefix === 'exec') execs = true;
        const withValue = PREFIX_VALUES[prefix] ?? '';
        fields = fields.slice(1);
        // The prefix's own options (`sudo -E -u deploy curl`, `time -p curl`, `env -i curl`).
        while (fields.length > 1 && fields[0]!.text.startsWith('-')) {
          const opt = fields.shift()!.text;
          if (opt === '--') break;
          // env -i (-, --ignore-environment): curl gets only the variables env names; env -u NAME takes one out.
          if (isEnv && (opt === '-' || opt === '--ignore-environment' || /^-[A-Za-z]*i[A-Za-z]*$/.test(opt))) {
            cleanEnv = true;
            prefixEnv = {};
          }
          const value =
            /^-[A-Za-z]+$/.test(opt) && withValue.includes(opt[opt.length - 1]!)
              ? fields.shift()?.text
              : /^--(user|group|chdir|unset|prompt|format|output|host|other-user|close-from|role|type|command-timeout)$/.test(opt)
                ? fields.shift()?.text
                : undefined;
          const unsetLong = /^--unset=(.*)$/.exec(opt);
          if (isEnv && value !== undefined && (opt.endsWith('u') || opt === '--unset')) unsetEnv.push(value);
          else if (isEnv && unsetLong) unsetEnv.push(unsetLong[1]!);
        }
        while (isEnv && fields.length > 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(fields[0]!.text)) {
          const t = fields.shift()!.text;
          prefixEnv[t.slice(0, t.indexOf('='))] = t.slice(t.indexOf('=') + 1);
        }
      }
      const name = fields[0]!.text;
      if (CURL_NAME.test(name)) {
        if (i > 0 && pipedIn === undefined) throw new ShellSyntaxError("piping one curl's output into another command is not supported", cmd.offset);
        const call: CurlCall = {
          argv: fields.slice(1).map((f) => f.text),
          argOffsets: fields.slice(1).map((f) => f.offset),
          offset: cmd.offset,
          cwd: env.cwd,
          env: cleanEnv ? prefixEnv : { ...exported, ...prefixEnv },
          cleanEnv: cleanEnv || undefined,
          unsetEnv: unsetEnv.length || removed.size ? [...removed].filter((n) => !(n in prefixEnv)).concat(unsetEnv) : undefined,
          before,
          when: pipelineHasCurl ? 'always' : when,
          countsStatus: last,
          // bash: a command before && or || does not trigger set -e (`curl -f URL || true`).
          errexit: errexit && item.next !== '&&' && item.next !== '||',
          handled: last && item.next === '||',
        };
        before = [];
        if (i > 0) call.stdin = { kind: 'data', data: pipedIn ?? '' };
        applyRedirects(cmd, call, env);
        let notRun = false;
        if (!last) {
          const nextName = firstWord(stages[i + 1]!, env);
          if (['echo', 'printf', 'true', ':', 'pwd'].includes(nextName)) call.stdout ??= { kind: 'discard' };
          // `curl ... | cat > file`: cat copies curl's output, so its redirection is curl's.
          else if (nextName === 'cat') {
            if (i + 1 === stages.length - 1 && stages[i + 1]!.words.length === 1) applyRedirects(stages[i + 1]!, call, env);
          } else {
            // `curl ... | jq .` (READMEs, scripts): the request goes as curl alone sends it and its
            // output is printed as curl prints it; the programs after the pipe are not run.
            const rest = stages.slice(i + 1).map((s) => ({ name: firstWord(s, env), offset: s.offset }));
            const curl = rest.find((r) => CURL_NAME.test(r.name));
            if (curl) {
              throw new ShellSyntaxError(`piping curl's output through '${nextName}' into curl is not supported: sling does not run other programs`, curl.offset);
            }
            const names = rest.map((r) => r.name || '{ }').join(' | ');
            ctx.warn(stages[i + 1]!.offset, `the pipe into '${names}' was not run: sling does not run other programs; the response is printed as for the curl command alone`);
            notRun = true;
          }
        }
        calls.push(call);
        pipelineHasCurl = true;
        pipedIn = undefined;
        if (notRun) break;
        // `exec curl ...`: curl takes the shell's place; nothing after it runs.
        if (execs && last && when === 'always') return calls;
        continue;
      }
      // Not curl: a builtin sling can follow, or an error.
      const args = fields.slice(1).map((f) => f.text);
      if (name === 'cd') {
        const target = args[0] === undefined ? env.home : args[0] === '-' ? prevDir : resolve(env.cwd, args[0]);
        prevDir = env.cwd;
        env.cwd = target;
        // As bash keeps them: $PWD and $OLDPWD follow `cd`.
        env.assign('OLDPWD', prevDir);
        env.assign('PWD', target);
      } else if (name === 'export' || name === 'declare' || name === 'typeset' || name === 'local' || name === 'readonly') {
        for (const a of args) {
          const eq = a.indexOf('=');
          if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a.slice(0, eq))) env.assign(a.slice(0, eq), a.slice(eq + 1));
          if (name !== 'export') continue;
          const n = eq > 0 ? a.slice(0, eq) : a;
          const v = eq > 0 ? a.slice(eq + 1) : env.lookup(a);
          if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(n) && v !== undefined) {
            exported[n] = v;
            removed.delete(n);
          }
        }
      } else if (name === 'unset') {
        for (const a of args) {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(a)) continue;
          env.assign(a, undefined);
          delete exported[a];
          // Also one from the environment sling runs in: gone for the commands after it.
          removed.add(a);
        }
      } else if (name === 'set') {
        for (let k = 0; k < args.length; k++) {
          const a = args[k]!;
          if (/^-[a-zA-Z]*e/.test(a)) errexit = true;
          else if (/^\+[a-zA-Z]*e/.test(a)) errexit = false;
          else if (a === '-o' && args[k + 1] === 'errexit') errexit = true;
          else if (a === '+o' && args[k + 1] === 'errexit') errexit = false;
        }
      } else if (name === 'exit' || name === 'return') {
        if (when === 'always' && stages.length === 1) return calls;
        ctx.warn(cmd.offset, `'${name}' after && or || is ignored`);
      } else if (name === 'source' || name === '.' || name === 'eval') {
        throw new ShellSyntaxError(`'${name}' is not supported: sling reads one file of curl commands`, cmd.offset);
      } else if (!NOOPS.has(name) && name !== 'cat') {
        throw new ShellSyntaxError(`'${name}' is not curl: sling runs curl commands and does not run other programs`, fields[0]!.offset);
      }
      if (name === 'cat' && last && i === 0 && args.length === 0 && !cmd.redirects.length) {
        throw new ShellSyntaxError("'cat' without a file would read the terminal", cmd.offset);
      }
      if (!last) {
        // What this builtin writes into the pipe: computed now (echo, printf, cat FILE).
        const stdinText = cmd.redirects.find((r) => r.fd === 0);
        let input = pipedIn ?? '';
        if (stdinText) input = redirectInput(stdinText, env);
        const out = builtinOutput([name, ...args], input, env);
        if (out === undefined) {
          throw new ShellSyntaxError(`piping '${name}' into curl is not supported: only echo, printf, cat FILE and pwd can feed curl`, cmd.offset);
        }
        pipedIn = out;
      }
      if (last && !pipelineHasCurl) before.push(when);
    }
  }
  return calls;
}

/** The commands of a `{ }` group (and of groups in it), by the name they run. */
function groupCommands(items: ListItem[], env: ShellEnv): { name: string; offset: number }[] {
  const out: { name: string; offset: number }[] = [];
  for (const item of items) {
    for (const c of item.pipeline.commands) {
      if (c.group) out.push(...groupCommands(c.group, env));
      else if (c.words.length) out.push({ name: firstWord(c, env), offset: c.offset });
    }
  }
  return out;
}

function firstWord(cmd: SimpleCommand, env: ShellEnv): string {
  for (const w of cmd.words) {
    const f = expandWord(w, env);
    if (f.length) return f[0]!;
  }
  return '';
}

function target(r: Redirect, env: ShellEnv): string {
  if (!r.target) return '';
  return expandSingle(r.target, env);
}

/** The text a redirection gives a command's standard input (here-documents and here-strings). */
function redirectInput(r: Redirect, env: ShellEnv): string {
  if (r.heredoc) return r.heredoc.expand ? expandHeredoc(r.heredoc.body, env) : r.heredoc.body;
  if (r.op === '<<<') return target(r, env) + '\n';
  if (r.op === '<') {
    const out = builtinOutput(['cat', target(r, env)], '', env);
    return out ?? '';
  }
  return '';
}

function applyRedirects(cmd: SimpleCommand, call: CurlCall, env: ShellEnv) {
  for (const r of cmd.redirects) {
    if (r.fd === 0 && (r.op === '<' || r.op === '<<' || r.op === '<<-' || r.op === '<<<')) {
      if (r.op === '<') call.stdin = { kind: 'file', path: resolve(env.cwd, target(r, env)) };
      else call.stdin = { kind: 'data', data: redirectInput(r, env) };
      continue;
    }
    if (r.op === '&>' || r.op === '&>>' || (r.fd === 1 && (r.op === '>' || r.op === '>>' || r.op === '>|'))) {
      const t = target(r, env);
      call.stdout = t === '/dev/null' ? { kind: 'discard' } : { kind: 'file', path: resolve(env.cwd, t), append: r.op.endsWith('>>') };
      continue;
    }
    if (r.fd === 2 && (r.op === '>' || r.op === '>>' || r.op === '>|' || r.op === '>&')) continue; // curl's stderr: sling reports its own way
    if (r.fd === 1 && r.op === '>&') {
      if (target(r, env) !== '2') call.stdout = { kind: 'discard' };
      continue;
    }
    throw new ShellSyntaxError(`the redirection '${r.fd}${r.op}' is not supported`, r.offset);
  }
}
