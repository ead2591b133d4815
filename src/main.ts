import type { Readable, Writable } from 'node:stream';
import { execArguments, resolveInvocation, type Invocation } from './cli/invocation.js';
import { helpText } from './cli/help.js';
import { configFile, defaultOptions } from './cli/config.js';
import { CliError, limitReached, oneLine, tooDeep } from './errors.js';
import { ExitCode } from './exit.js';
import { VERSION } from './version.js';
import type { Sink } from './output/printer.js';
import type { OutStream } from './fd-writer.js';

/** Everything main needs from the process; bin.ts is the only file that touches `process`. */
export interface Io {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: Readable & { isTTY?: boolean; fd?: number };
  stdout: OutStream;
  stderr: Writable & { isTTY?: boolean };
  /** The scheme of URLs without one: http for sling, https for slings. */
  defaultScheme?: string;
}

export class Reporter {
  /**
   * The main command's output ends in the middle of a line (a body without a final newline): the
   * next message starts on a line of its own, so that `> out 2>&1` keeps `sling: error:` at the
   * start of a line, as `sling exec` does. Says so once.
   */
  openLine?: () => boolean;

  constructor(
    private readonly io: Io,
    public quiet = 0,
    public debugOn = false,
  ) {}
  private get nl(): string {
    return this.openLine?.() ? '\n' : '';
  }
  warn(message: string) {
    if (this.quiet < 2) this.io.stderr.write(`${this.nl}sling: warning: ${oneLine(message)}\n`);
  }
  debug(message: string) {
    if (this.debugOn) this.io.stderr.write(`${this.nl}sling: debug: ${oneLine(message)}\n`);
  }
  error(err: unknown) {
    const nl = this.nl;
    if (err instanceof CliError) {
      this.io.stderr.write(`${nl}sling: error: ${oneLine(err.message)}\n`);
      if (err.hint) this.io.stderr.write(`  hint: ${oneLine(err.hint)}\n`);
    } else if (limitReached(err) !== undefined) {
      // Not a bug: an input nested thousands of levels deep, or grown too large (the places that know which input say so).
      this.io.stderr.write(`${nl}sling: error: ${tooDeep(err) ? 'the input is ' : ''}${limitReached(err)}\n`);
    } else {
      this.io.stderr.write(`${nl}sling: error: unexpected failure: ${oneLine((err as Error)?.message ?? String(err))}\n`);
      this.io.stderr.write('  hint: run again with --debug and report the stack trace\n');
    }
    if (this.debugOn && err instanceof Error && err.stack) this.io.stderr.write(err.stack + '\n');
  }
}

export function stdoutSink(out: Io['stdout']): Sink {
  return {
    write(chunk) {
      if (out.write(chunk)) return;
      return new Promise<void>((resolve) => out.once('drain', resolve));
    },
  };
}

/** Masks credentials before anything is shown in --debug output. */
function maskedInvocation(inv: Invocation): string {
  const copy: Record<string, unknown> = { ...inv };
  if (inv.auth) copy.auth = inv.authType === 'bearer' ? '***' : inv.auth.replace(/:.*/s, ':***');
  if (inv.certKeyPass) copy.certKeyPass = '***';
  copy.items = inv.items.map((i) => (/^authorization$/i.test(i.key) ? `${i.key}${i.sep}***` : i.orig));
  copy.proxies = Object.fromEntries(Object.entries(inv.proxies).map(([k, v]) => [k, v.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')]));
  return JSON.stringify(copy);
}

/**
 * The main command's invocation, config.json's default_options first. When they are what is wrong
 * (an unknown or malformed option), the error says where they come from.
 */
function withDefaults(defaults: string[], io: Io): Invocation {
  try {
    return resolveInvocation([...defaults, ...io.argv], 'main', io.defaultScheme);
  } catch (e) {
    if (!defaults.length || !(e instanceof CliError)) throw e;
    let ownError: unknown;
    try {
      resolveInvocation(io.argv, 'main', io.defaultScheme);
    } catch (own) {
      ownError = own;
    }
    if (ownError instanceof CliError && ownError.message === e.message) throw e;
    throw new CliError(e.message, e.exitCode, `the option comes from "default_options" in ${configFile(io.env)}`);
  }
}

export async function main(io: Io): Promise<number> {
  const reporter = new Reporter(io);
  const debugFlag = io.argv.includes('--debug');
  reporter.debugOn = debugFlag;
  try {
    if (io.argv.length === 1 && io.argv[0] === '-h') {
      io.stdout.write(helpText(VERSION));
      return ExitCode.OK;
    }
    const execArgv = execArguments(io.argv);
    const isExec = execArgv !== undefined;
    if (isExec && execArgv.length === 1 && execArgv[0] === '-h') {
      io.stdout.write(helpText(VERSION, 'exec'));
      return ExitCode.OK;
    }
    // config.json's default_options go first, so the command line can override them (--no-FLAG).
    const defaults = isExec ? [] : defaultOptions(io.env);
    if (defaults.length) reporter.debug(`default options from config.json: ${defaults.join(' ')}`);
    const inv = isExec ? resolveInvocation(execArgv, 'exec', io.defaultScheme) : withDefaults(defaults, io);
    reporter.quiet = inv.quiet;
    // --debug shortened (`--deb`) or from default_options: known only once the line is parsed.
    if (inv.debug) reporter.debugOn = true;
    if (inv.help) {
      io.stdout.write(helpText(VERSION, isExec ? 'exec' : 'main'));
      return ExitCode.OK;
    }
    if (inv.version) {
      io.stdout.write(`sling ${VERSION}\n`);
      return ExitCode.OK;
    }
    if (reporter.debugOn) reporter.debug(`invocation ${maskedInvocation(inv)}`);
    if (isExec) {
      const { runExec } = await import('./exec/runner.js');
      return await runExec(inv, io, reporter);
    }
    const { runRequest } = await import('./run.js');
    return await runRequest(inv, io, reporter);
  } catch (err) {
    reporter.error(err);
    return err instanceof CliError ? err.exitCode : ExitCode.ERROR;
  }
}

