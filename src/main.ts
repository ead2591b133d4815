import { execArguments, resolveInvocation, type Invocation } from './cli/invocation.js';
import { helpText } from './cli/help.js';
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
  copy.proxies = Object.fromEntries(Object.entries(inv.proxies).map(([k, v]) => [k, maskedPassword(v)]));
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
    // `sling help [exec]` and `sling completions SHELL`: words of their own, first on the line.
    if (io.argv[0] === 'help' && io.argv.length <= 2) {
      if (io.argv.length === 2 && io.argv[1] !== 'exec') throw new UsageError(`no help for '${io.argv[1]}'`, 'sling help, or sling help exec');
      io.stdout.write(helpText(VERSION, io.argv[1] === 'exec' ? 'exec' : 'main'));
      return ExitCode.OK;
    }
    if (io.argv[0] === 'completions') {
      const { completionScript } = await import('./cli/completions.js');
      io.stdout.write(completionScript(io.argv.slice(1)));
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
