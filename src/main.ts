import { invocationOf, type Invocation } from './cli/invocation.js';
import { joined, parseCommandLine, parseOptions, type ParsedArgs } from './cli/parse.js';
import { completionsHelp, helpText, helpWidth } from './cli/help.js';
import { configFile, defaultOptions } from './cli/config.js';
import { CliError, UsageError } from './errors.js';
import { ExitCode } from './exit.js';
import { VERSION } from './version.js';
import { Reporter, type Io } from './io.js';
import { isCredentialHeader, maskedCredential } from './model/headers.js';
import { maskedPassword } from './model/url.js';

/**
 * Masks credentials before anything is shown in --debug output (docs/usage.md promises it): -a's
 * password (all of a token), the key's passphrase, Authorization, Proxy-Authorization and Cookie
 * items (as the printed request masks them), and the password of the URL and of the proxies.
 */
function maskedInvocation(inv: Invocation): string {
  const copy: Record<string, unknown> = { ...inv };
  if (inv.auth) copy.auth = inv.authType === 'bearer' ? '***' : inv.auth.replace(/:.*/s, ':***');
  if (inv.certKeyPass) copy.certKeyPass = '***';
  if (inv.url !== undefined) copy.url = maskedPassword(inv.url);
  copy.items = inv.items.map((i) => (isCredentialHeader(i.key) && i.value !== '' ? `${i.key}${i.sep}${maskedCredential(i.value)}` : i.orig));
  copy.given = [...inv.given];
  copy.proxies = Object.fromEntries(Object.entries(inv.proxies).map(([k, v]) => [k, maskedPassword(v)]));
  return JSON.stringify(copy);
}

/**
 * The main command's invocation, config.json's default_options first. When they are what is wrong
 * (an unknown or malformed option, or one that clashes with the line's), the error says where
 * they come from.
 */
function withDefaults(defaults: string[], line: ParsedArgs, io: Io): Invocation {
  const fromConfig = (e: unknown) => (e instanceof CliError ? new CliError(e.message, e.exitCode, `the option comes from "default_options" in ${configFile(io.env)}`) : e);
  if (!defaults.length) return invocationOf(line, io.defaultScheme);
  let options: ParsedArgs;
  try {
    options = parseOptions(defaults);
  } catch (e) {
    throw fromConfig(e);
  }
  if (line.error) throw line.error;
  try {
    return invocationOf(joined(options, line), io.defaultScheme);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    let ownError: unknown;
    try {
      invocationOf(line, io.defaultScheme);
    } catch (own) {
      ownError = own;
    }
    if (ownError instanceof CliError && ownError.message === e.message) throw e;
    throw fromConfig(e);
  }
}

/** The width help is laid out for: the terminal's columns, else 80 (a pipe, a file, an unknown width). */
const terminalWidth = (io: Io): number => helpWidth(io.stdout.isTTY ? (io.stdout as { columns?: number }).columns : undefined);

export async function main(io: Io): Promise<number> {
  const reporter = new Reporter(io);
  try {
    // The line, read once; every command works from what this gives.
    const line = parseCommandLine(io.argv);
    // `sling help [exec]`, -h alone, `sling exec -h` and `sling completions SHELL`.
    if (line.command === 'help') {
      const topic = line.positionals[0];
      if (topic !== undefined && topic !== 'exec' && topic !== 'completions') throw new UsageError(`no help for '${topic}'`, 'sling help, sling help exec or sling help completions');
      if (topic === 'completions') {
        const { SHELLS } = await import('./cli/completions.js');
        io.stdout.write(completionsHelp(VERSION, SHELLS, terminalWidth(io)));
      } else io.stdout.write(helpText(VERSION, topic === 'exec' ? 'exec' : 'main', terminalWidth(io)));
      return ExitCode.OK;
    }
    if (line.command === 'completions') {
      const { completionScript, SHELLS } = await import('./cli/completions.js');
      // `sling completions --help` (or -h) alone: what the command does, as `sling help completions`.
      if (line.positionals.length === 1 && (line.positionals[0] === '--help' || line.positionals[0] === '-h')) {
        io.stdout.write(completionsHelp(VERSION, SHELLS, terminalWidth(io)));
        return ExitCode.OK;
      }
      io.stdout.write(completionScript(line.positionals));
      return ExitCode.OK;
    }
    const isExec = line.command === 'exec';
    // --debug (also shortened, `--deb`) is known even when the line has an error further on.
    if (line.flags.get('debug')) reporter.debugOn = true;
    // config.json's default_options go first, so the command line can override them (--no-FLAG).
    const defaults = isExec ? [] : defaultOptions(io.env);
    if (defaults.length) reporter.debug(`default options from config.json: ${defaults.join(' ')}`);
    const inv = isExec ? invocationOf(line, io.defaultScheme) : withDefaults(defaults, line, io);
    reporter.quiet = inv.quiet;
    // --debug from default_options: known only once they are read.
    if (inv.debug) reporter.debugOn = true;
    if (inv.help) {
      io.stdout.write(helpText(VERSION, isExec ? 'exec' : 'main', terminalWidth(io)));
      return ExitCode.OK;
    }
    if (inv.version) {
      io.stdout.write(`sling ${VERSION}\n`);
      return ExitCode.OK;
    }
    if (inv.compressed) reporter.note('sling always asks for compressed answers (Accept-Encoding) and decodes them; --compressed is not needed');
    if (reporter.debugOn) reporter.debug(`invocation ${maskedInvocation(inv)}`);
    if (isExec) {
      const { runExec } = await import('./commands/exec/runner.js');
      return await runExec(inv, io, reporter);
    }
    const { runRequest } = await import('./commands/run.js');
    return await runRequest(inv, io, reporter);
  } catch (err) {
    reporter.error(err);
    return err instanceof CliError ? err.exitCode : ExitCode.ERROR;
  }
}
