import type { TlsVersion } from '../../model/spec.js';
import { parseConfigText } from './config.js';
import { AUTH, CurlArgError, newOperation, setRequest, type DataKind, type Operation, type UrlNode } from './operation.js';
import { matchLong, optionByShort, type CurlOption } from './options.js';

export { AUTH, CurlArgError, setRequest, type DataKind, type HttpReq, type Operation, type UrlNode } from './operation.js';
export { parseConfigText } from './config.js';

/**
 * A curl command line (the words after `curl`) read the way curl 7.88's tool reads it: short
 * options combine (`-sSL`, `-sSXPOST`), a value sticks to its short option or follows it, long
 * options may be abbreviated, `--no-` turns a boolean off, `--` ends the options, other words are
 * URLs, `-:`/`--next` starts a new set of options, and `-K FILE` reads more from a config file.
 * The result is one Operation per `--next` section.
 */
export interface ParseContext {
  /** Reads a config file (-K); '-' is standard input. Returns its text (a byte string). */
  readConfig(path: string): string;
}

export interface ParsedCommand {
  operations: Operation[];
}

/**
 * Parses the arguments of one curl command. `preamble` holds options from .curlrc (read first,
 * unless the first argument is -q/--disable).
 */
export function parseCurlArgs(args: string[], ctx: ParseContext, preamble?: string): ParsedCommand {
  const ops: Operation[] = [newOperation()];
  const first = args[0] ?? '';
  if (preamble !== undefined && !(first === '--disable' || /^-q/.test(first))) {
    try {
      applyConfig(preamble, ops, ctx, -1, 0);
    } catch (e) {
      if (e instanceof CurlArgError) throw new CurlArgError(`in .curlrc: ${e.message}`, -1);
      throw e;
    }
    for (const w of ops[0]!.warnings) w.option = `.curlrc: ${w.option}`;
  }
  parseInto(args, ops, { stillOptions: true }, ctx, (i) => i, 0);
  // -d data without -G makes the request a POST, which -I, -T and -F rule out.
  for (const op of ops) if (op.data.length && !op.useGet) setRequest(op, 'SIMPLEPOST', -1);
  return { operations: ops };
}

function parseInto(args: string[], ops: Operation[], state: { stillOptions: boolean; config?: boolean }, ctx: ParseContext, index: (i: number) => number, depth: number) {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const at = index(i);
    if (state.stillOptions && word === '--') {
      state.stillOptions = false;
      continue;
    }
    if (state.stillOptions && word.startsWith('--') && word.length > 2) {
      const m = matchLong(word.slice(2));
      if ('error' in m && state.config) {
        // A config file's unknown option: curl warns and goes on.
        ops[ops.length - 1]!.warnings.push({ option: word, why: 'not a curl option (in a config file, curl warns and goes on): ignored', argIndex: at });
        continue;
      }
      if ('error' in m) throw new CurlArgError(m.error, at);
      let value: string | undefined;
      if (m.option.arg === 'value') {
        if (i + 1 >= args.length) throw new CurlArgError(`option --${m.option.long}: needs a value`, at);
        value = args[++i]!;
      }
      apply(m.option, value, !m.negated, ops, ctx, at, depth);
      continue;
    }
    if (state.stillOptions && word.startsWith('-') && word.length > 1) {
      // Combined short options: every letter stands alone but a value-taking one, which takes the
      // rest of the word, or the next word.
      for (let k = 1; k < word.length; k++) {
        const letter = word[k]!;
        const opt = optionByShort(letter);
        if (!opt) throw new CurlArgError(`option -${letter}: is unknown`, at);
        if (opt.arg === 'value') {
          let value = word.slice(k + 1);
          if (!value) {
            if (i + 1 >= args.length) throw new CurlArgError(`option -${letter}: needs a value`, at);
            value = args[++i]!;
          }
          apply(opt, value, true, ops, ctx, at, depth);
          break;
        }
        apply(opt, undefined, true, ops, ctx, at, depth);
      }
      continue;
    }
    nodeFor(ops[ops.length - 1]!, 'url').url = word;
  }
}

/** The node that takes the next value of this kind: the first one without it, else a new one. */
function nodeFor(op: Operation, field: keyof UrlNode): UrlNode {
  let node = op.nodes.find((n) => n[field] === undefined);
  if (!node) {
    node = {};
    op.nodes.push(node);
  }
  return node;
}

type StringField = { [K in keyof Operation]: Operation[K] extends string | undefined ? K : never }[keyof Operation];
type BoolField = { [K in keyof Operation]: Operation[K] extends boolean ? K : never }[keyof Operation];
type ListField = { [K in keyof Operation]: Operation[K] extends string[] ? K : never }[keyof Operation];

/** Options that set one value (the last one wins, as in curl). */
const STRINGS: Record<string, StringField> = {
  request: 'method',
  user: 'user',
  'user-agent': 'userAgent',
  referer: 'referer',
  'cookie-jar': 'cookieJar',
  'max-redirs': 'maxRedirs',
  cacert: 'cacert',
  cert: 'cert',
  key: 'key',
  pass: 'pass',
  proxy: 'proxy',
  'proxy1.0': 'proxy',
  'proxy-user': 'proxyUser',
  noproxy: 'noproxy',
  'max-time': 'maxTime',
  'speed-limit': 'speedLimit',
  'speed-time': 'speedTime',
  'connect-timeout': 'connectTimeout',
  'output-dir': 'outputDir',
  'continue-at': 'continueAt',
  range: 'range',
  'time-cond': 'timeCond',
  'write-out': 'writeOut',
  'dump-header': 'dumpHeader',
  'etag-compare': 'etagCompare',
  'etag-save': 'etagSave',
  'proto-default': 'protoDefault',
  'request-target': 'requestTarget',
  'unix-socket': 'unixSocket',
  retry: 'retry',
  'retry-delay': 'retryDelay',
  'retry-max-time': 'retryMaxTime',
};

/** Boolean options (`--no-` turns them off). */
const BOOLS: Record<string, BoolField> = {
  get: 'useGet',
  'junk-session-cookies': 'junkSessionCookies',
  compressed: 'compressed',
  location: 'follow',
  post301: 'post301',
  post302: 'post302',
  post303: 'post303',
  insecure: 'insecure',
  'retry-all-errors': 'retryAllErrors',
  'retry-connrefused': 'retryConnrefused',
  'proxy-basic': 'proxyBasic',
  'create-dirs': 'createDirs',
  'remote-name-all': 'remoteNameAll',
  'remote-header-name': 'remoteHeaderName',
  'remove-on-error': 'removeOnError',
  globoff: 'globoff',
  'path-as-is': 'pathAsIs',
  fail: 'fail',
  'fail-with-body': 'failWithBody',
  include: 'include',
  silent: 'silent',
  'form-escape': 'formEscape',
  'disallow-username-in-url': 'disallowUsername',
};

/** Options whose value must be a number: seconds (decimals allowed) or a count (--max-redirs -1: no limit). */
// What curl's strtod takes: decimals with an exponent (`1e1`), hexadecimal (`0x10`).
const SECONDS = /^\+?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)$/;
const NUMBERS: Record<string, RegExp> = {
  'max-time': SECONDS,
  'speed-time': SECONDS,
  'speed-limit': /^\d+[kKmMgG]?$/,
  'connect-timeout': SECONDS,
  'retry-delay': SECONDS,
  'retry-max-time': SECONDS,
  retry: /^\d+$/,
  'max-redirs': /^-?\d+$/,
};

/** Options that accumulate. */
const LISTS: Record<string, ListField> = { header: 'headers', 'url-query': 'urlQueries', resolve: 'resolve', 'connect-to': 'connectTo' };

const DATA: Record<string, DataKind> = { data: 'data', 'data-ascii': 'ascii', 'data-binary': 'binary', 'data-raw': 'raw', 'data-urlencode': 'urlencode', json: 'json' };

/** --basic, --digest, ... set or clear one bit of curl's auth mask. */
const AUTH_BITS: Record<string, number> = { basic: AUTH.BASIC, digest: AUTH.DIGEST, ntlm: AUTH.NTLM, 'ntlm-wb': AUTH.NTLM_WB, negotiate: AUTH.NEGOTIATE };

/** Accepted and without effect on the request (-4/-6 name resolution, -q handled up front). */
const NO_EFFECT = new Set(['disable']);

function apply(opt: CurlOption, value: string | undefined, on: boolean, ops: Operation[], ctx: ParseContext, at: number, depth: number) {
  const op = ops[ops.length - 1]!;
  const name = `--${opt.long}`;
  const v = value ?? '';
  const long = opt.long;
  if (opt.use === 'error') throw new CurlArgError(`${name} ${opt.why}`, at);
  if (opt.use === 'warn') {
    op.warnings.push({ option: name, why: opt.why ?? 'not supported', argIndex: at });
    return;
  }
  if (opt.use === 'quiet' || NO_EFFECT.has(long)) return;
  // curl refuses what is not a number here (exit 2, "expected a proper numerical parameter").
  const number = NUMBERS[long];
  if (number && !number.test(v.trim())) {
    const negative = number === SECONDS && /^-/.test(v.trim()) && SECONDS.test(v.trim().slice(1));
    throw new CurlArgError(`option ${name}: expected a ${negative ? 'positive' : 'proper'} numerical parameter, got '${v}'`, at);
  }
  if (long in STRINGS) (op[STRINGS[long]!] as string | undefined) = v;
  else if (long in BOOLS) (op[BOOLS[long]!] as boolean) = on;
  else if (long in LISTS) op[LISTS[long]!].push(v);
  else if (long in DATA) op.data.push({ kind: DATA[long]!, value: v });
  else if (long in AUTH_BITS) op.authMask = on ? op.authMask | AUTH_BITS[long]! : op.authMask & ~AUTH_BITS[long]!;
  else special(long, v, on, ops, op, ctx, at, depth);
}

function special(long: string, v: string, on: boolean, ops: Operation[], op: Operation, ctx: ParseContext, at: number, depth: number) {
  switch (long) {
    case 'ipv4':
      op.family = 4;
      return;
    case 'ipv6':
      op.family = 6;
      return;
    // The last HTTP version option wins, as in curl.
    case 'http1.0':
      op.http10 = true;
      op.http2 = undefined;
      return;
    case 'http1.1':
      op.http10 = undefined;
      op.http2 = undefined;
      return;
    case 'http2':
      op.http10 = undefined;
      op.http2 = on ? 'alpn' : undefined;
      return;
    case 'http2-prior-knowledge':
      op.http10 = undefined;
      op.http2 = on ? 'prior-knowledge' : undefined;
      return;
    case 'interface':
      op.interface = v.replace(/^(if|host)!/, '');
      return;
    case 'tlsv1':
    case 'tlsv1.0':
      op.tlsMin = 'TLSv1';
      return;
    case 'tlsv1.1':
    case 'tlsv1.2':
    case 'tlsv1.3':
      op.tlsMin = `TLSv${long.slice(4)}` as TlsVersion;
      return;
    case 'tls-max': {
      const max = ({ '1.0': 'TLSv1', '1.1': 'TLSv1.1', '1.2': 'TLSv1.2', '1.3': 'TLSv1.3', default: undefined } as Record<string, TlsVersion | undefined>)[v.trim()];
      if (max === undefined && v.trim() !== 'default') throw new CurlArgError(`option --tls-max: takes 1.0, 1.1, 1.2, 1.3 or default, got '${v}'`, at);
      op.tlsMax = max;
      return;
    }
    case 'ciphers':
      op.ciphers = v;
      return;
    case 'tls13-ciphers':
      op.tls13Ciphers = v;
      return;
    case 'next':
      ops.push(newOperation());
      return;
    case 'config': {
      if (depth > 10) throw new CurlArgError('-K: config files nest too deep', at);
      let text: string;
      try {
        text = ctx.readConfig(v);
      } catch (e) {
        throw new CurlArgError(`-K: cannot read config file '${v}': ${(e as Error).message}`, at);
      }
      applyConfig(text, ops, ctx, at, depth + 1);
      return;
    }
    case 'url':
      nodeFor(op, 'url').url = v;
      return;
    case 'output':
      nodeFor(op, 'output').output = v;
      return;
    case 'remote-name':
      nodeFor(op, 'remoteName').remoteName = on;
      return;
    case 'upload-file':
      nodeFor(op, 'upload').upload = v;
      setRequest(op, 'PUT', at);
      return;
    case 'form':
    case 'form-string':
      op.forms.push({ value: v, literal: long === 'form-string' });
      setRequest(op, 'MIMEPOST', at);
      return;
    case 'head':
      op.noBody = on;
      setRequest(op, on ? 'HEAD' : 'GET', at);
      return;
    case 'anyauth':
      if (on) op.authMask = AUTH.ANY;
      return;
    case 'oauth2-bearer':
      op.bearer = v;
      op.authMask |= AUTH.BEARER;
      return;
    case 'cookie':
      // curl: a value with '=' is cookie data, anything else a file to read cookies from.
      if (v.includes('=')) op.cookies.push(v);
      else op.cookieFiles.push(v);
      return;
    case 'location-trusted':
      op.follow = on || op.follow;
      op.locationTrusted = on;
      return;
    case 'clobber':
      op.noClobber = !on;
      return;
    case 'help':
    case 'manual':
    case 'version':
      if (on) op.info = `--${long}`;
      return;
    default:
      throw new CurlArgError(`--${long} is not handled`, at);
  }
}

function applyConfig(text: string, ops: Operation[], ctx: ParseContext, at: number, depth: number) {
  // URLs in a config file only come from `url = ...`; everything there is an option.
  parseInto(parseConfigText(text), ops, { stillOptions: true, config: true }, ctx, () => at, depth);
}
