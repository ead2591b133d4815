import { MAX_TIMER_MS } from '../clock.js';
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { parseItem, tryParseItem, type Item } from './items.js';
import { parseArgv, type ParsedArgs } from './parse.js';
import { bothTables, EXEC_TABLE, MAIN_TABLE, type OptionTable } from './options.js';
import { isStyle, unknownStyle } from '../output/palette.js';
import { charsetOption } from '../output/charset.js';
import type { PrintFlags } from '../output/plan.js';
import { transportFlags, type TransportFlags } from './transport-flags.js';

/** The parsed command line, typed, with every flag that implies another resolved here. */
export interface Invocation extends PrintFlags {
  help: boolean;
  version: boolean;
  /** --curl: print the equivalent curl command instead of sending. */
  curl: boolean;
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
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const PRINT_CODES = /^[HBhbpm]+$/;

function one(p: ParsedArgs, name: string): string | undefined {
  const v = p.values.get(name);
  return v === undefined ? undefined : v[v.length - 1];
}

function positiveSeconds(text: string, flag: string): number {
  if (!/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text) || !(Number(text) > 0)) {
    throw new UsageError(`${flag} needs a positive number of seconds, got '${text}'`);
  }
  return Math.min(Math.round(Number(text) * 1000), MAX_TIMER_MS);
}

function nonNegativeInt(text: string, flag: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${flag} needs a whole number, got '${text}'`);
  return Number(text);
}

/**
 * Is the first positional a method? One of the seven (any case) or an all-capital token such as
 * PROPFIND (DECISIONS.md); a lower-case word such as `purge` only when the next positional cannot be
 * a request item, i.e. it is the URL (HTTPie upper-cases any word there).
 */
function isMethod(word: string, next: string | undefined): boolean {
  if (next === undefined) return false;
  if (METHODS.has(word.toUpperCase()) && /^[a-zA-Z]+$/.test(word)) return true;
  if (/^[A-Z][A-Z0-9_-]*$/.test(word) && !word.includes('.')) return true;
  return /^[a-zA-Z]+$/.test(word) && tryParseItem(next) === null;
}

/**
 * The arguments of `sling exec`, when argv runs it: `exec` first, or options first and then `exec`
 * as the first word that is not an option (`sling -v --timeout 5 exec api.http`). Undefined for the
 * main command.
 */
export function execArguments(argv: readonly string[]): string[] | undefined {
  if (argv[0] === 'exec') return argv.slice(1);
  if (!argv.includes('exec')) return undefined;
  let at: number | undefined;
  try {
    const p = parseArgv(argv, bothTables());
    if (p.positionals[0] === 'exec') at = p.firstPositionalAt;
  } catch {
    return undefined; // the main command reports what is wrong
  }
  return at === undefined ? undefined : [...argv.slice(0, at), ...argv.slice(at + 1)];
}

/**
 * Which of --json/--form/--multipart is in effect: the last one given, as in HTTPie (where each of
 * them sets the one request type); `--no-X` undoes X when X is the one in effect. The parser keeps no
 * order, so argv is read again an argument at a time (a short cluster a letter more at a time) with
 * the same parser, so that clusters, `=` values and spellings read as they do there.
 */
function bodyType(argv: readonly string[], table: OptionTable): 'json' | 'form' | 'multipart' | undefined {
  const TYPES = ['json', 'form', 'multipart'] as const;
  const tryParse = (args: string[]) => {
    try {
      return parseArgv(args, table);
    } catch {
      return undefined;
    }
  };
  let chosen: (typeof TYPES)[number] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') continue;
    const steps = arg.startsWith('--') ? [arg] : Array.from({ length: arg.length - 1 }, (_, k) => arg.slice(0, k + 2));
    let before: ParsedArgs | undefined;
    for (const step of steps) {
      const now = tryParse([step]) ?? tryParse([step, argv[i + 1] ?? '']);
      if (!now) continue;
      for (const t of TYPES) {
        const v = now.flags.get(t);
        if (v === true && before?.flags.get(t) !== true) chosen = t;
        else if (v === false && chosen === t) chosen = undefined;
      }
      before = now;
    }
    // An option that takes the next argument as its value (`--raw -j`, `-a user`): that one is no option.
    if (!tryParse([arg]) && i + 1 < argv.length && tryParse([arg, argv[i + 1]!])) i++;
  }
  return chosen;
}

const bodyTypeFlags = (t: ReturnType<typeof bodyType>) => ({ json: t === 'json', form: t === 'form', multipart: t === 'multipart' });

export function resolveInvocation(argv: readonly string[], mode: 'main' | 'exec' = 'main', defaultScheme = 'http'): Invocation {
  const table = mode === 'exec' ? EXEC_TABLE : MAIN_TABLE;
  const p = parseArgv(argv, table);
  const flag = (n: string) => p.flags.get(n) === true;
  const count = (n: string) => p.counts.get(n) ?? 0;

  // --print/-h/-b/-m/-v: the last one on the line wins.
  let print: string | undefined;
  const lastChoice = p.printChoices[p.printChoices.length - 1];
  if (lastChoice !== undefined) {
    if (lastChoice.startsWith('print=')) {
      const codes = lastChoice.slice(6);
      if (!PRINT_CODES.test(codes)) {
        throw new UsageError(`--print '${codes}' has an unknown code: use H (request headers), B (request body), h (response headers), b (response body), p (properties)`);
      }
      print = codes.replace(/m/g, 'p');
    } else if (lastChoice === 'headers') print = 'h';
    else if (lastChoice === 'body') print = 'b';
    else if (lastChoice === 'meta') print = 'p';
    else if (lastChoice === 'verbose') print = count('verbose') >= 2 ? 'HBhbp' : 'HBhb';
  }
  // --debug shows what -v shows (DECISIONS.md), unless the output was chosen explicitly.
  if (print === undefined && flag('debug')) print = 'HBhb';

  const charsetText = one(p, 'response-charset');
  const pretty = one(p, 'pretty');
  if (pretty !== undefined && !['all', 'colors', 'format', 'none'].includes(pretty)) {
    throw new UsageError(`--pretty must be all, colors, format or none, got '${pretty}'`);
  }
  const style = one(p, 'style');
  if (style !== undefined && !isStyle(style)) throw unknownStyle(style);
  let jsonIndent = 4;
  let xmlIndent = 2;
  let sorted = flag('sorted') && !flag('unsorted');
  let sortHeaders = sorted;
  let formatJson = true;
  let formatXml = true;
  const bool = (v: string, opt: string) => {
    if (v.trim() === 'true') return true;
    if (v.trim() === 'false') return false;
    throw new UsageError(`--format-options ${opt} must be true or false, got '${v}'`);
  };
  for (const group of p.values.get('format-options') ?? []) {
    for (const opt of group.split(',')) {
      const m = /^\s*(json\.indent|json\.sort_keys|json\.format|headers\.sort|xml\.format|xml\.indent):(.*)$/.exec(opt);
      if (!m) throw new UsageError(`--format-options: unknown option '${opt}' (json.indent:N, json.sort_keys:BOOL, json.format:BOOL, headers.sort:BOOL, xml.indent:N, xml.format:BOOL)`);
      const [, name, value] = m as unknown as [string, string, string];
      if (name === 'json.indent') jsonIndent = nonNegativeInt(value, '--format-options json.indent');
      else if (name === 'xml.indent') xmlIndent = nonNegativeInt(value, '--format-options xml.indent');
      else if (name === 'json.sort_keys') sorted = bool(value, name);
      else if (name === 'headers.sort') sortHeaders = bool(value, name);
      else if (name === 'json.format') formatJson = bool(value, name);
      else formatXml = bool(value, name);
    }
  }

  const authTypeText = one(p, 'auth-type');
  let authType: Invocation['authType'] = 'basic';
  if (authTypeText !== undefined) {
    if (authTypeText !== 'basic' && authTypeText !== 'bearer' && authTypeText !== 'digest') {
      throw new UsageError(`--auth-type must be basic, bearer or digest, got '${authTypeText}'`);
    }
    authType = authTypeText;
  }
  const auth = one(p, 'auth');
  if (authTypeText !== undefined && auth === undefined) {
    throw new UsageError(`--auth-type ${authTypeText} needs credentials: add --auth (-a)`);
  }

  let verify: boolean | string = true;
  const verifyText = one(p, 'verify');
  if (verifyText !== undefined) {
    const v = verifyText.toLowerCase();
    if (['yes', 'true', '1'].includes(v)) verify = true;
    else if (['no', 'false', '0'].includes(v)) verify = false;
    else if (existsSync(verifyText)) verify = verifyText;
    else throw new UsageError(`--verify must be yes, no or the path of a CA bundle; '${verifyText}' is none of these (no such file)`);
  }

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
    if (report !== undefined && report !== 'junit') throw new UsageError(`--report must be junit, got '${report}'`);
    let reportFile = one(p, 'report-file');
    let files = positionals;
    // `--report junit FILE` (before or after the requests' file): the file right after
    // `--report junit` is the report's when two files are named, or when it is one by its name
    // (`.xml`, a folder's trailing `/`) and the requests come on standard input.
    if (report !== undefined && reportFile === undefined && (positionals.length === 2 || positionals.length === 1)) {
      const at = argv.findIndex((a, k) => a === '--report=junit' || (a === '--report' && argv[k + 1] === 'junit'));
      const next = at === -1 ? undefined : argv[at + (argv[at] === '--report' ? 2 : 1)];
      const k = next === undefined ? -1 : positionals.indexOf(next);
      if (k !== -1 && (positionals.length === 2 || /\.xml$|[/\\]$/i.test(next!))) {
        reportFile = positionals[k];
        files = positionals.filter((_, i) => i !== k);
      }
    }
    if (files.length > 1) throw new UsageError(`sling exec runs one file; got ${files.length}: ${files.join(' ')}`);
    const type = one(p, 'type');
    if (type !== undefined && type !== 'http' && type !== 'curl') throw new UsageError(`--type must be http or curl, got '${type}'`);
    const to = one(p, 'to');
    if (to !== undefined && to !== 'http' && to !== 'curl') throw new UsageError(`--to must be curl or http, got '${to}'`);
    exec = {
      file: files[0],
      type: type as ExecOptions['type'],
      envName: one(p, 'env'),
      envFile: one(p, 'env-file'),
      failFast: flag('fail-fast'),
      names: p.values.get('name') ?? [],
      lines: (p.values.get('line') ?? []).map((l) => nonNegativeInt(l, '--line')),
      report: report as ExecOptions['report'],
      reportFile,
      to: to as ExecOptions['to'],
    };
  } else {
    if (positionals.length >= 2 && isMethod(positionals[0]!, positionals[1])) {
      method = positionals[0]!.toUpperCase();
      rest = positionals.slice(1);
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
    ...bodyTypeFlags(flag('json') || flag('form') || flag('multipart') ? bodyType(argv, table) : undefined),
    boundary: one(p, 'boundary'),
    raw: one(p, 'raw'),
    chunked: flag('chunked'),
    compress: count('compress'),
    compressed: flag('compressed'),
    pathAsIs: flag('path-as-is'),
    maxHeaders: maxHeaders === undefined ? undefined : nonNegativeInt(maxHeaders, '--max-headers'),
    auth,
    authType,
    authTypeGiven: authTypeText !== undefined,
    ignoreNetrc: flag('ignore-netrc'),
    session: one(p, 'session-read-only') ?? one(p, 'session'),
    sessionReadOnly: one(p, 'session-read-only') !== undefined,
    follow: flag('follow'),
    noFollow: p.flags.get('follow') === false,
    maxRedirects: maxRedirects === undefined ? 30 : nonNegativeInt(maxRedirects, '--max-redirects'),
    timeoutMs: timeout === undefined ? undefined : positiveSeconds(timeout, '--timeout'),
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
  };
}
