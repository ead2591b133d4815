import { MAX_TIMER_MS } from '../clock.js';
import { UsageError } from '../errors.js';
import { parseItem, tryParseItem, type Item } from './items.js';
import { parseArgv, type ParsedArgs } from './parse.js';
import { EXEC_TABLE, MAIN_TABLE } from './options.js';
import { charsetOption } from '../output/charset.js';
import type { Shell } from '../output/shells.js';
import type { PrintFlags } from '../output/plan.js';
import { transportFlags, type TransportFlags } from './transport-flags.js';

/** The parsed command line, typed, with every flag that implies another resolved here. */
export interface Invocation extends PrintFlags {
  help: boolean;
  version: boolean;
  /** --curl: print the equivalent curl command instead of sending. */
  curl: boolean;
  /** --curl=SHELL: the shell it is written for. */
  curlShell: Shell;
  ignoreStdin: boolean;
  defaultScheme: string;
  json: boolean;
  form: boolean;
  multipart: boolean;
  boundary?: string;
  raw?: string;
  chunked: boolean;
  compress: number;
  /** curl's --compressed was given: it changes nothing (sling always asks for compression); main notes it. */
  compressed: boolean;
  pathAsIs: boolean;
  maxHeaders?: number;
  auth?: string;
  authType: 'basic' | 'bearer' | 'digest';
  authTypeGiven: boolean;
  ignoreNetrc: boolean;
  session?: string;
  sessionReadOnly: boolean;
  follow: boolean;
  /** --no-follow given (exec: requests that follow redirects by default do not). */
  noFollow?: boolean;
  maxRedirects: number;
  timeoutMs?: number;
  proxies: Record<string, string>;
  checkStatus: boolean;
  verify: boolean | string;
  cert?: string;
  certKey?: string;
  certKeyPass?: string;
  /** --http-version, --unix-socket, --resolve, -4/-6, --interface, --ssl, --ciphers. */
  transport: TransportFlags;
  output?: string;
  resume: boolean;
  method?: string;
  url?: string;
  items: Item[];
  /** `sling exec` only. */
  exec?: ExecOptions;
  /**
   * The options the line gave (long names), also those given their default value (`--max-redirects
   * 30`) or undone (`--no-follow`): what `sling exec` lays over a file's own settings.
   */
  given: ReadonlySet<string>;
}

export interface ExecOptions {
  file?: string;
  type?: 'http' | 'curl';
  envName?: string;
  envFile?: string;
  failFast: boolean;
  names: string[];
  lines: number[];
  report?: 'junit';
  reportFile?: string;
  to?: 'curl' | 'http';
  /** --shell: the shell `--to curl` writes for. */
  shell: Shell;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** The value of --curl=SHELL or --shell SHELL (the parser checked it against the table's choices). */
function shellOption(v: string | undefined): Shell {
  return (v ?? 'posix') as Shell;
}

function one(p: ParsedArgs, name: string): string | undefined {
  const v = p.values.get(name);
  return v === undefined ? undefined : v[v.length - 1];
}

/** Seconds as the parser checked them (a positive decimal), in milliseconds. */
const milliseconds = (text: string): number => Math.min(Math.round(Number(text) * 1000), MAX_TIMER_MS);

/**
 * Is the first positional a method? One of the seven (any case) or an all-capital token such as
 * PROPFIND (docs/decisions.md, URL and method); a lower-case word such as `purge` only when the next positional cannot be
 * a request item, i.e. it is the URL (HTTPie upper-cases any word there).
 */
function isMethod(word: string, next: string | undefined): boolean {
  if (next === undefined) return false;
  if (METHODS.has(word.toUpperCase()) && /^[a-zA-Z]+$/.test(word)) return true;
  if (/^[A-Z][A-Z0-9_-]*$/.test(word) && !word.includes('.')) return true;
  return /^[a-zA-Z]+$/.test(word) && tryParseItem(next) === null;
}

/** argv of one command read and resolved (the tests' way in; the program parses once with parseCommandLine). */
export function resolveInvocation(argv: readonly string[], mode: 'main' | 'exec' = 'main', defaultScheme = 'http'): Invocation {
  return invocationOf(parseArgv(argv, mode === 'exec' ? EXEC_TABLE : MAIN_TABLE), defaultScheme);
}

/** The parsed command line, given its meaning: the values the table checked, turned into what the commands use. */
export function invocationOf(p: ParsedArgs, defaultScheme = 'http'): Invocation {
  if (p.error) throw p.error;
  const mode = p.command;
  const flag = (n: string) => p.flags.get(n) === true;
  const count = (n: string) => p.counts.get(n) ?? 0;

  // --print/-h/-b/-m/-v: the last one on the line wins.
  let print: string | undefined;
  const lastChoice = p.printChoices[p.printChoices.length - 1];
  if (lastChoice !== undefined) {
    // The parser checked the codes and wrote m as p.
    if (lastChoice.startsWith('print=')) print = lastChoice.slice(6);
    else if (lastChoice === 'headers') print = 'h';
    else if (lastChoice === 'body') print = 'b';
    else if (lastChoice === 'meta') print = 'p';
    else if (lastChoice === 'verbose') print = count('verbose') >= 2 ? 'HBhbp' : 'HBhb';
  }
  // --debug shows what -v shows (docs/decisions.md, Output), unless the output was chosen explicitly.
  if (print === undefined && flag('debug')) print = 'HBhb';

  const charsetText = one(p, 'response-charset');
  // Checked against the table's choices by the parser, as --auth-type, --verify, --ssl, ... are.
  const pretty = one(p, 'pretty');
  const style = one(p, 'style');
  let jsonIndent = 4;
  let xmlIndent = 2;
  let sorted = flag('sorted') && !flag('unsorted');
  let sortHeaders = sorted;
  let formatJson = true;
  let formatXml = true;
  // KEY:VALUE pairs the parser checked against the table's keys.
  for (const group of p.values.get('format-options') ?? []) {
    for (const pair of group.split(',')) {
      const at = pair.indexOf(':');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (name === 'json.indent') jsonIndent = Number(value);
      else if (name === 'xml.indent') xmlIndent = Number(value);
      else if (name === 'json.sort_keys') sorted = value === 'true';
      else if (name === 'headers.sort') sortHeaders = value === 'true';
      else if (name === 'json.format') formatJson = value === 'true';
      else formatXml = value === 'true';
    }
  }

  const authTypeText = one(p, 'auth-type');
  const authType = (authTypeText ?? MAIN_TABLE.byLong.get('auth-type')!.default) as Invocation['authType'];
  const auth = one(p, 'auth');
  if (authTypeText !== undefined && auth === undefined) {
    throw new UsageError(`--auth-type ${authTypeText} needs credentials: add --auth (-a)`);
  }

  // yes, no (the parser wrote true, 1, false, 0 so) or the path of a CA bundle that exists.
  const verifyText = one(p, 'verify') ?? MAIN_TABLE.byLong.get('verify')!.default!;
  const verify: boolean | string = verifyText === 'yes' ? true : verifyText === 'no' ? false : verifyText;

  const proxies: Record<string, string> = {};
  for (const spec of p.values.get('proxy') ?? []) {
    const m = /^(https?|all):(?!\/\/)(.+)$/i.exec(spec);
    if (m) proxies[m[1]!.toLowerCase()] = m[2]!;
    else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) proxies.all = spec;
    else throw new UsageError(`--proxy '${spec}' is not a proxy URL (use URL or SCHEME:URL, e.g. http:http://127.0.0.1:3128)`);
  }

  const timeout = one(p, 'timeout');
  const maxRedirects = one(p, 'max-redirects');
  const maxHeaders = one(p, 'max-headers');
  const output = one(p, 'output');

  if (flag('continue') && !flag('download') && output === undefined) {
    throw new UsageError('--continue resumes a download: use it with --download and --output FILE', 'sling -d -C -o FILE URL');
  }

  const positionals = p.positionals;
  let method: string | undefined;
  let rest = positionals;
  let url: string | undefined;
  let items: Item[] = [];
  let exec: ExecOptions | undefined;
  if (mode === 'exec') {
    const report = one(p, 'report');
    let reportFile = one(p, 'report-file');
    let files = positionals;
    // `--report junit FILE` (before or after the requests' file): the file right after
    // `--report junit` is the report's when two files are named, or when it is one by its name
    // (`.xml`, a folder's trailing `/`) and the requests come on standard input.
    if (report !== undefined && reportFile === undefined && (positionals.length === 2 || positionals.length === 1)) {
      const last = p.occurrences.filter((o) => o.def.long === 'report').at(-1);
      const k = last === undefined ? -1 : p.positionalAt.indexOf(last.end + 1);
      const next = positionals[k];
      if (k !== -1 && (positionals.length === 2 || /\.xml$|[/\\]$/i.test(next!))) {
        reportFile = positionals[k];
        files = positionals.filter((_, i) => i !== k);
      }
    }
    if (files.length > 1) throw new UsageError(`sling exec runs one file; got ${files.length}: ${files.join(' ')}`);
    const type = one(p, 'type');
    const to = one(p, 'to');
    exec = {
      file: files[0],
      type: type as ExecOptions['type'],
      envName: one(p, 'env'),
      envFile: one(p, 'env-file'),
      failFast: flag('fail-fast'),
      names: p.values.get('name') ?? [],
      lines: (p.values.get('line') ?? []).map(Number),
      report: report as ExecOptions['report'],
      reportFile,
      to: to as ExecOptions['to'],
      shell: shellOption(one(p, 'shell')),
    };
    if (one(p, 'shell') !== undefined && to !== 'curl') throw new UsageError('--shell goes with --to curl');
  } else {
    if (positionals.length >= 2 && isMethod(positionals[0]!, positionals[1])) {
      method = positionals[0]!.toUpperCase();
      rest = positionals.slice(1);
    } else if (positionals.length === 1 && METHODS.has(positionals[0]!)) {
      // `sling GET` alone: a method without its URL (not a request to the host "get").
      method = positionals[0];
      rest = [];
    }
    url = rest[0];
    items = rest.slice(1).map(parseItem);
  }

  return {
    help: flag('help'),
    version: flag('version'),
    debug: flag('debug'),
    offline: flag('offline'),
    curl: flag('curl'),
    curlShell: shellOption(one(p, 'curl')),
    ignoreStdin: flag('ignore-stdin'),
    defaultScheme: one(p, 'default-scheme') ?? defaultScheme,
    print,
    verbose: count('verbose'),
    all: flag('all'),
    quiet: count('quiet'),
    pretty: pretty as Invocation['pretty'],
    style,
    sorted,
    sortHeaders,
    jsonIndent,
    xmlIndent,
    formatJson,
    formatXml,
    stream: flag('stream'),
    responseCharset: charsetText === undefined ? undefined : charsetOption(charsetText),
    responseMime: one(p, 'response-mime'),
    json: p.bodyType === 'json',
    form: p.bodyType === 'form',
    multipart: p.bodyType === 'multipart',
    boundary: one(p, 'boundary'),
    raw: one(p, 'raw'),
    chunked: flag('chunked'),
    compress: count('compress'),
    compressed: flag('compressed'),
    pathAsIs: flag('path-as-is'),
    maxHeaders: maxHeaders === undefined ? undefined : Number(maxHeaders),
    auth,
    authType,
    authTypeGiven: authTypeText !== undefined,
    ignoreNetrc: flag('ignore-netrc'),
    session: one(p, 'session-read-only') ?? one(p, 'session'),
    sessionReadOnly: one(p, 'session-read-only') !== undefined,
    follow: flag('follow'),
    noFollow: p.flags.get('follow') === false,
    maxRedirects: Number(maxRedirects ?? MAIN_TABLE.byLong.get('max-redirects')!.default),
    timeoutMs: timeout === undefined ? undefined : milliseconds(timeout),
    proxies,
    checkStatus: flag('check-status'),
    verify,
    cert: one(p, 'cert'),
    certKey: one(p, 'cert-key'),
    certKeyPass: one(p, 'cert-key-pass'),
    transport: transportFlags({ one: (n) => one(p, n), all: (n) => p.values.get(n) ?? [], flag }),
    download: flag('download') || output !== undefined,
    output,
    resume: flag('continue'),
    method,
    url,
    items,
    exec,
    given: p.given,
  };
}
