import { statSync } from 'node:fs';
import { FileTooLargeError, readLimited, SETTINGS_FILE_LIMIT, TEXT_FILE_LIMIT } from '../../files.js';
import { largeFile } from '../../model/upload.js';
import { isatty } from 'node:tty';
import { spoolStdinSync } from '../stdin.js';
import type { FileBody } from '../../model/spec.js';
import { homedir, platform } from 'node:os';
import { resolve } from 'node:path';
import { fileProblem, UsageError } from '../../errors.js';
import type { AfterResult, BodyFiles, ExecContext, ExecEntry, Script, SourceOptions } from '../../model/exec.js';
import { now } from '../../clock.js';
import { loadPublicSuffixes } from '../../model/cookies.js';
import { loadEnvironment } from '../http/env.js';
import { CurlArgError, parseCurlArgs, type Operation } from './args.js';
import { CurlBodyError } from './body.js';
import { CurlBuildError, CommandBuilder, planTransfers, type Transfer } from './build.js';
import { looksLikeCmd, parseCmdScript } from './cmd.js';
import { curlrcPaths } from './config.js';
import { looksLikePowerShell, parsePowerShell } from './powershell.js';
import type { ShellEnv } from './expand.js';
import { type CurlOutput, isStdout, type OutputContext } from './outputs.js';
import { walkScript, type Condition, type CurlCall } from './script.js';
import { parseShell, position, ShellSyntaxError } from './shell.js';
import { CurlUrlError } from './url.js';

/**
 * `sling exec` for files of curl commands: the file is read like bash reads it (shell.ts,
 * script.ts), each curl command line like curl 7.88 reads it (args.ts, options.ts), and each
 * transfer becomes the request curl would send (build.ts), byte for byte but the User-Agent.
 * Everything that can be checked without sending is checked first: a malformed file sends nothing.
 */
export const parseCurlFile = async (text: string, opts: CurlSourceOptions): Promise<Script> => parseCurlText(text, opts);

/** What the curl front end is given besides a source's options: who writes what its commands ask to be written (commands/exec). */
export interface CurlSourceOptions extends SourceOptions {
  curlOutput: CurlOutput;
}

/** What a curl command inside a .http file needs besides (see sources/http/curl-entry.ts). */
export interface CurlTextOptions {
  /** The folder the commands run in, when not where sling runs (SourceOptions.cwd): a .http file's own folder. */
  cwd?: string;
  /**
   * Each argument as the shell gave it (bytes as a latin1 string), with its place in the text:
   * what curl gets instead (bytes as a latin1 string). A .http file puts its placeholders' values in.
   */
  word?: (arg: string, line: number, column: number) => string;
}

/** parseCurlFile, synchronous, with a .http file's extras. */
export function parseCurlText(text: string, opts: CurlSourceOptions, extra: CurlTextOptions = {}): Script {
  // Work on bytes (latin1 strings): $'\xff' and UTF-8 both reach curl as bytes. CRLF files read as LF.
  const bytes = Buffer.from(text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n'), 'utf8').toString('latin1');
  const where = (offset: number) => {
    const p = position(bytes, offset);
    return `${opts.file}:${p.line}:${p.column}`;
  };
  const fail = (offset: number, message: string): never => {
    throw new UsageError(`${where(offset)}: ${message}`);
  };

  const cwd = extra.cwd ?? opts.cwd;
  const fileVars = new Map<string, string | undefined>();
  const envVars = opts.envName !== undefined || opts.envFile !== undefined ? loadEnvironment(opts.dir, opts.envName, opts.envFile, cwd, (m) => opts.warn(m)).vars : new Map<string, string>();
  const warnedUnset = new Set<string>();
  const shellEnv: ShellEnv = {
    lookup: (name) => {
      if (fileVars.has(name)) return fileVars.get(name);
      // Own properties only: `$constructor` is a variable like any other, not Object.prototype's.
      const v = envVars.get(name) ?? (Object.hasOwn(opts.env, name) ? opts.env[name] : undefined);
      return v === undefined ? undefined : Buffer.from(v, 'utf8').toString('latin1');
    },
    assign: (name, value) => void fileVars.set(name, value),
    inherited: (name) => Object.hasOwn(opts.env, name),
    cwd,
    home: opts.env.HOME ?? homedir(),
    pid: opts.pid,
    unset: (name, offset) => {
      if (warnedUnset.has(name)) return;
      warnedUnset.add(name);
      opts.warn(`${where(offset)}: $${name} is not set: it expands to nothing, as in a shell`);
    },
  };

  let calls: CurlCall[];
  const cmdFile = looksLikeCmd(bytes);
  const psFile = !cmdFile && looksLikePowerShell(bytes);
  try {
    if (cmdFile) calls = parseCmdScript(bytes, shellEnv);
    else if (psFile) calls = parsePowerShell(bytes, shellEnv);
    else calls = walkScript(parseShell(stripPrompts(bytes)), { env: shellEnv, warn: (offset, m) => opts.warn(`${where(offset)}: ${m}`) });
  } catch (e) {
    if (e instanceof ShellSyntaxError) fail(e.offset, e.message);
    throw e;
  }

  const curlrc = readCurlrc(opts.env);
  const state: RunState = { status: 0, stopped: false, cookieLimits: new Set() };
  let stdinCache: string | undefined;
  /** The process's standard input, read once: its bytes, or past 1 MiB a temporary file (upload.ts). */
  let spooled: Buffer | FileBody | undefined;
  const spoolStdin = () => {
    // isatty, not process.stdin.isTTY: creating process.stdin makes a pipe non-blocking, and a
    // read then fails (EAGAIN) as soon as the pipe is empty for a moment: a body piped into
    // `curl -T -` went out empty. spoolStdinSync waits out EAGAIN too.
    spooled ??= isatty(0) ? Buffer.alloc(0) : spoolStdinSync();
    return spooled;
  };
  const processStdin = () => {
    if (stdinCache !== undefined) return '';
    try {
      const got = spoolStdin();
      stdinCache = (Buffer.isBuffer(got) ? got : readLimited(got.path, TEXT_FILE_LIMIT, got.shown, CURL_READ)).toString('latin1');
    } catch (e) {
      if (e instanceof FileTooLargeError) throw e;
      stdinCache = '';
    }
    return stdinCache;
  };
  /** Standard input as a large file, when it is one and was not read yet. */
  const processStdinLarge = (textLines: boolean): FileBody | undefined => {
    if (stdinCache !== undefined) return undefined;
    let got: Buffer | FileBody;
    try {
      got = spoolStdin();
    } catch {
      return undefined;
    }
    if (Buffer.isBuffer(got)) return undefined;
    stdinCache = '';
    return largeFile(got.path, got.shown, textLines);
  };

  const entries: ExecEntry[] = [];
  for (const call of calls) {
    const argAt = (i: number) => (i >= 0 && i < call.argOffsets.length ? call.argOffsets[i]! : call.offset);
    const callEnv = commandEnv(call, opts.env);
    let ops: Operation[];
    let transfers: Transfer[];
    try {
      // `-K -`: the config comes from the command's standard input (a here-document, a pipe, `< file`).
      const configStdin = () =>
        call.stdin?.kind === 'data'
          ? call.stdin.data
          : call.stdin?.kind === 'file'
            ? readLimited(resolve(call.cwd, call.stdin.path), SETTINGS_FILE_LIMIT, call.stdin.path, CURL_CONFIG).toString('latin1')
            : processStdin();
      // A CURL_HOME or HOME the file sets for curl (`export`, `HOME=/d curl ...`) moves its .curlrc.
      const rc = call.cleanEnv || call.unsetEnv || CURLRC_VARS.some((v) => call.env[v] !== undefined) ? readCurlrc(callEnv) : curlrc;
      const word = extra.word;
      const argv = word ? call.argv.map((a, i) => word(a, ...lineCol(bytes, argAt(i)))) : call.argv;
      ops = parseCurlArgs(argv, { readConfig: (p) => (p === '-' ? configStdin() : readLimited(resolve(call.cwd, p), SETTINGS_FILE_LIMIT, p, CURL_CONFIG).toString('latin1')) }, rc).operations;
      transfers = planTransfers(ops);
    } catch (e) {
      if (e instanceof CurlArgError) fail(argAt(e.argIndex), e.message);
      if (e instanceof CurlBuildError || e instanceof CurlUrlError) fail(call.offset, e.message);
      throw e;
    }
    for (const op of ops) {
      for (const w of op.warnings) opts.warn(`${where(argAt(w.argIndex))}: ${w.option}: ${w.why}`);
      if (op.info) opts.warn(`${where(call.offset)}: curl ${op.info} prints ${op.info === '--version' ? 'its version' : 'help'} and sends nothing; sling skips it`);
    }
    const mangled = cmdFile || psFile ? undefined : mangledWindowsPath(call.argv, call.argOffsets, bytes);
    entries.push(makeEntry(call, transfers, ops, state, processStdin, processStdinLarge, where(call.offset), opts, position(bytes, call.offset).line, mangled));
  }
  return { entries };
}

/**
 * A Windows path written unquoted in a bash-style file (`-d @C:\\data\\x.json`): bash takes each
 * backslash out as the escape of the next character, and curl would get `@C:datax.json`, read
 * nothing and send an empty body. Found where an argument has a drive letter and a colon followed by
 * no slash (`C:datax.json`, at its start or after `@`, `=` or `<`) and the file's own text of that
 * word has the drive letter, colon and backslash: the reason to refuse the command, in words.
 */
export function mangledWindowsPath(argv: string[], offsets: number[], text: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const m = /(?:^|[@=<])([A-Za-z]):(?![\s\\/])/.exec(argv[i]!);
    if (!m) continue;
    const raw = /^\S*/.exec(text.slice(offsets[i] ?? 0, (offsets[i] ?? 0) + 4096))![0];
    const written = new RegExp(`(?:^|[^A-Za-z])(${m[1]}:\\\\[^\\s'"]*)`).exec(raw);
    if (!written) continue;
    const path = written[1]!;
    const got = argv[i]!.slice(m.index + (m[0].length - 2)).split(/[\s;,]/)[0]!;
    return `bash takes the backslashes out of the unquoted Windows path ${path} (curl would get '${got}'): quote it ('${path}') or write it with / (${path.replace(/\\/g, '/')}); the command is not run`;
  }
  return undefined;
}

function lineCol(bytes: string, offset: number): [number, number] {
  const p = position(bytes, offset);
  return [p.line, p.column];
}

/**
 * A pasted terminal session (`$ curl ...` lines, their `> ` continuations, and the output in
 * between): only the commands are kept. Other lines become blank, so positions stay right.
 */
export function stripPrompts(text: string): string {
  const lines = text.split('\n');
  if (!lines.some((l) => /^\s*\$ +curl(\.exe)?(\s|$)/.test(l))) return text;
  let continued = false;
  return lines
    .map((l) => {
      if (continued) {
        continued = /\\$/.test(l);
        // bash shows continuation lines with its PS2 prompt, '> '.
        return l.replace(/^> ?/, (m) => ' '.repeat(m.length));
      }
      const m = /^(\s*\$ +)(.*)$/.exec(l);
      if (!m) return '';
      continued = /\\$/.test(l);
      return ' '.repeat(m[1]!.length) + m[2];
    })
    .join('\n');
}

interface RunState {
  /** Exit status of the last command that ran (for && and ||). */
  status: number;
  /** `set -e` and a command failed: nothing more runs. */
  stopped: boolean;
  /** The bounds of the cookie jars (one a command) already warned about: each is said once a run. */
  cookieLimits: Set<string>;
}

const runs = (c: Condition, status: number) => c === 'always' || (c === 'ok' ? status === 0 : status !== 0);

function makeEntry(
  call: CurlCall,
  transfers: Transfer[],
  ops: Operation[],
  state: RunState,
  processStdin: () => string,
  processStdinLarge: (textLines: boolean) => FileBody | undefined,
  at: string,
  opts: CurlSourceOptions,
  line: number,
  refused?: string,
): ExecEntry {
  const first = transfers[0];
  const label = first ? `${guessMethod(first)} ${first.urlText}` : 'curl';
  let builder: CommandBuilder | undefined;
  let pending = 0;
  let failed = false;
  let started = 0;
  const stdoutStarted = { value: false };
  const output = opts.curlOutput;
  return {
    line,
    label,
    failureHandled: call.handled || undefined,
    wantsEarlierHeads: ops.some((o) => o.dumpHeader !== undefined || o.include || o.noBody) || undefined,
    async build(ctx) {
      for (const b of call.before) if (runs(b, state.status)) state.status = 0;
      if (state.stopped) {
        ctx.warn(`${at}: skipped: set -e, and a command before it failed`);
        return null;
      }
      if (!runs(call.when, state.status)) {
        ctx.warn(`${at}: skipped: the command before ${call.when === 'ok' ? '&&' : '||'} ${call.when === 'ok' ? 'failed' : 'succeeded'}`);
        return null;
      }
      if (!transfers.length) return null;
      if (refused !== undefined) {
        state.status = 1;
        if (call.errexit && call.countsStatus) state.stopped = true;
        throw new UsageError(`${at}: ${refused}`);
      }
      state.status = ctx.offline ? 0 : 1;
      // Under `set -e`, a command that never gets to its end (a network error, a body file that
      // cannot be read) stops the script as its failure would in bash; after() clears it on success.
      // (Not in a pipe whose last command decides its status: `curl -f URL | cat` does not stop bash.)
      if (call.errexit && call.countsStatus && !ctx.offline) state.stopped = true;
      // `> file` is opened by the shell before curl starts: emptied (or made) even when the command
      // then fails, and a file that cannot be opened means the command never runs.
      const out = call.stdout;
      if (out?.kind === 'file' && !ctx.offline) {
        try {
          // Never through a link in the file's place (files.ts openToWrite), which bash would follow.
          output.openStdout(out.path, out.append);
          stdoutStarted.value = true;
        } catch (e) {
          throw new UsageError(`${at}: cannot open '${out.path}' for the command's output: ${fileProblem(e)}; the command is not run (as in bash)`);
        }
      }
      pending = transfers.length;
      failed = false;
      started = now();
      const stdin = () => {
        if (!call.stdin) return processStdin();
        if (call.stdin.kind === 'data') return call.stdin.data;
        try {
          return readLimited(call.stdin.path, TEXT_FILE_LIMIT, call.stdin.path, CURL_READ).toString('latin1');
        } catch (e) {
          if (e instanceof FileTooLargeError) throw new UsageError(`${at}: ${e.message}`);
          throw new UsageError(`${at}: cannot read '${call.stdin.path}' for standard input`);
        }
      };
      const stdinLarge = (textLines: boolean) => {
        if (!call.stdin) return processStdinLarge(textLines);
        if (call.stdin.kind === 'data') return undefined;
        return largeFile(resolve(call.stdin.path), call.stdin.path, textLines);
      };
      builder = new CommandBuilder(transfers, {
        files: {
          read: (p) => {
            try {
              return readLimited(resolve(call.cwd, p), TEXT_FILE_LIMIT, p, CURL_READ).toString('latin1');
            } catch (e) {
              if (e instanceof FileTooLargeError) throw new UsageError(`${at}: ${e.message}`);
              return undefined;
            }
          },
          large: (p, textLines) => largeFile(resolve(call.cwd, p), p, textLines),
          stat: (p) => {
            try {
              return statSync(resolve(call.cwd, p));
            } catch {
              return undefined;
            }
          },
          warn: (m) => ctx.warn(`${at}: ${m}`),
        },
        stdin,
        stdinLarge,
        env: commandEnv(call, opts.env),
        warn: (m) => ctx.warn(`${at}: ${m}`),
        cookieWarn: (m, limit) => {
          if (state.cookieLimits.has(limit)) return;
          state.cookieLimits.add(limit);
          ctx.warn(`${at}: ${m}`);
        },
        source: { file: opts.file, line },
      });
      // The cookie engine (-b FILE, -c) checks Domain attributes against the Public Suffix List.
      if (ops.some((o) => o.cookieFiles.length || o.cookieJar !== undefined)) await loadPublicSuffixes();
      try {
        return builder.build();
      } catch (e) {
        if (e instanceof CurlBuildError || e instanceof CurlUrlError || e instanceof CurlBodyError) throw new UsageError(`${at}: ${e.message}`);
        throw e;
      }
    },
    cookieJar: () => builder?.jar,
    bodyUnused(spec) {
      // The body only goes to sling's output (no -o/-O file, no `> file` of the command's own):
      // a large or open-ended one may be printed as it arrives. -w, -D and the cookie jar need the head only.
      const t = builder?.runs.get(spec.source!)?.transfer;
      if (!t || call.stdout?.kind === 'file') return false;
      return t.output === undefined ? !t.remoteName : isStdout(t.output);
    },
    bodyFiles(answer): BodyFiles | undefined {
      // -o/-O: the body goes to its file as it arrives (not to the command's `> file`, which takes -w's text and -D - too).
      const run = builder?.runs.get(answer.spec.source!);
      if (!run) return undefined;
      const plan = output.planBody(run.transfer, run.url, answer, call.cwd);
      if (plan.outFile === undefined) return undefined;
      run.bodyPlan = plan;
      return { files: plan.path === undefined ? [] : [{ path: plan.path, how: plan.how, prefix: plan.prefix }], print: false, keepPartial: true };
    },
    async after(done, ctx): Promise<AfterResult> {
      const run = builder?.runs.get(done.spec.source!);
      if (!run) return { failures: [] };
      const result = output.afterTransfer(run.transfer, run.url, done, outputContext(ctx), done.saved ? run.bodyPlan : undefined);
      if (result.errors) result.errors = result.errors.map((m) => `${at}: ${m}`);
      if (result.exitCode) failed = true;
      return commandDone(result);
    },
    failed(spec, error, ctx, answered): AfterResult | undefined {
      const run = builder?.runs.get(spec.source!);
      if (!run) return undefined;
      failed = true;
      const result = output.afterFailedTransfer(
        run.transfer,
        run.url,
        { method: spec.method, exitCode: output.exitCode(error), message: error.message, started, answered },
        outputContext(ctx),
        answered?.saved ? run.bodyPlan : undefined,
      );
      return commandDone(result);
    },
  };

  function outputContext(ctx: ExecContext): OutputContext {
    return { cwd: call.cwd, stdout: call.stdout, stdoutStarted, warn: (m) => ctx.warn(`${at}: ${m}`) };
  }

  /** After each transfer: when it was the command's last, the cookie jar (-c) is written and the command's exit status settled. */
  function commandDone(result: AfterResult): AfterResult {
    if (--pending === 0) {
      // The command is over: write the cookie jar (-c) and settle its exit status.
      const jarOp = ops.find((o) => o.cookieJar !== undefined);
      if (jarOp && builder?.jar) {
        const text = builder.jar.toNetscape();
        if (isStdout(jarOp.cookieJar!)) {
          // `-c -`: the jar goes to the command's standard output, after the body.
          const out = call.stdout;
          if (out?.kind === 'file') {
            try {
              output.writeFile(out.path, Buffer.from(text), 'append');
            } catch (e) {
              (result.errors ??= []).push(`${at}: cannot write '${out.path}': ${fileProblem(e)}`);
            }
          } else if (out?.kind !== 'discard') result.log = [...(result.log ?? []), ...text.replace(/\n$/, '').split('\n')];
        } else {
          try {
            output.writeFile(resolve(call.cwd, jarOp.cookieJar!), Buffer.from(text), 'replace');
          } catch (e) {
            (result.errors ??= []).push(`${at}: -c: cannot write the cookie jar '${jarOp.cookieJar}': ${fileProblem(e)}`);
            result.exitCode ??= 1;
          }
        }
      }
      if (result.exitCode) failed = true;
      state.status = call.countsStatus && failed ? 1 : 0;
      state.stopped = failed && call.errexit && call.countsStatus;
    }
    return result;
  }
}

function guessMethod(t: Transfer): string {
  const op = t.op;
  if (op.method) return op.method;
  if (t.upload !== undefined) return 'PUT';
  if (op.httpReq === 'HEAD') return 'HEAD';
  if (op.httpReq === 'MIMEPOST' || (op.data.length && !op.useGet)) return 'POST';
  return 'GET';
}

/** What the limits of files.ts say a curl command reads whole: a file (-d @, -H @, -b, -F, a small -T, `< file`) and a config. */
const CURL_READ = 'a file a curl command reads whole (-d @, -H @, -b, -F)';
const CURL_CONFIG = 'a curl config file (-K, .curlrc)';
/** The variables that say where the default config file is (curlrcPaths). */
const CURLRC_VARS = ['CURL_HOME', 'XDG_CONFIG_HOME', 'HOME', 'USERPROFILE', 'APPDATA'];

/** A command's environment: the process's and the file's exports, unless `env -i`; less what `env -u` took out. */
function commandEnv(call: CurlCall, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = call.cleanEnv ? { ...call.env } : { ...env, ...call.env };
  for (const name of call.unsetEnv ?? []) delete out[name];
  return out;
}

/** curl reads its default config file (config.ts curlrcPaths: ~/.curlrc, %USERPROFILE%\\_curlrc, ...) before the command line. */
function readCurlrc(env: NodeJS.ProcessEnv): string | undefined {
  for (const path of curlrcPaths(env, platform(), homedir())) {
    try {
      return readLimited(path, SETTINGS_FILE_LIMIT, path, CURL_CONFIG).toString('latin1');
    } catch (e) {
      if (e instanceof FileTooLargeError) throw e;
      // next
    }
  }
  return undefined;
}
