import { matchLong, optionByShort, type CurlOption } from './options.js';

/**
 * A curl command line (the words after `curl`) read the way curl 7.88's tool reads it: short
 * options combine (`-sSL`, `-sSXPOST`), a value sticks to its short option or follows it, long
 * options may be abbreviated, `--no-` turns a boolean off, `--` ends the options, other words are
 * URLs, `-:`/`--next` starts a new set of options, and `-K FILE` reads more from a config file.
 * The result is one Operation per `--next` section, with options still as written (files are read
 * when the request is built).
 */
export class CurlArgError extends Error {
  constructor(
    message: string,
    /** Index into the argument list of the word at fault (-1: unknown). */
    readonly argIndex: number,
  ) {
    super(message);
    this.name = 'CurlArgError';
  }
}

export type DataKind = 'data' | 'ascii' | 'binary' | 'raw' | 'urlencode' | 'json';

export interface UrlNode {
  url?: string;
  /** -o FILE for this URL. */
  output?: string;
  /** -O: name the output after the URL. */
  remoteName?: boolean;
  /** -T FILE for this URL. */
  upload?: string;
}

export type HttpReq = 'unspec' | 'GET' | 'HEAD' | 'MIMEPOST' | 'SIMPLEPOST' | 'PUT';

/** CURLAUTH_* bits, as curl's --basic/--digest/... set them. */
export const AUTH = { BASIC: 1, DIGEST: 2, NEGOTIATE: 4, NTLM: 8, NTLM_WB: 32, BEARER: 64, ANY: 0xffff_ffef } as const;

export interface Operation {
  nodes: UrlNode[];
  method?: string;
  headers: string[];
  data: { kind: DataKind; value: string }[];
  forms: { value: string; literal: boolean }[];
  urlQueries: string[];
  httpReq: HttpReq;
  useGet: boolean;
  noBody: boolean;
  user?: string;
  authMask: number;
  bearer?: string;
  userAgent?: string;
  referer?: string;
  cookies: string[];
  cookieFiles: string[];
  cookieJar?: string;
  junkSessionCookies: boolean;
  compressed: boolean;
  follow: boolean;
  locationTrusted: boolean;
  maxRedirs?: string;
  post301: boolean;
  post302: boolean;
  post303: boolean;
  insecure: boolean;
  cacert?: string;
  cert?: string;
  key?: string;
  pass?: string;
  proxy?: string;
  proxyUser?: string;
  proxyBasic: boolean;
  noproxy?: string;
  maxTime?: string;
  connectTimeout?: string;
  outputDir?: string;
  createDirs: boolean;
  remoteNameAll: boolean;
  remoteHeaderName: boolean;
  removeOnError: boolean;
  noClobber: boolean;
  continueAt?: string;
  globoff: boolean;
  pathAsIs: boolean;
  range?: string;
  timeCond?: string;
  fail: boolean;
  failWithBody: boolean;
  include: boolean;
  silent: boolean;
  writeOut?: string;
  dumpHeader?: string;
  etagCompare?: string;
  etagSave?: string;
  formEscape: boolean;
  disallowUsername: boolean;
  protoDefault?: string;
  requestTarget?: string;
  resolve: string[];
  connectTo: string[];
  /** -h / -M / -V: curl prints something and sends nothing. */
  info?: string;
  /** Options understood but not honoured, and why (a warning each). */
  warnings: { option: string; why: string; argIndex: number }[];
}

export function newOperation(): Operation {
  return {
    nodes: [],
    headers: [],
    data: [],
    forms: [],
    urlQueries: [],
    httpReq: 'unspec',
    useGet: false,
    noBody: false,
    authMask: 0,
    cookies: [],
    cookieFiles: [],
    junkSessionCookies: false,
    compressed: false,
    follow: false,
    locationTrusted: false,
    post301: false,
    post302: false,
    post303: false,
    insecure: false,
    proxyBasic: false,
    createDirs: false,
    remoteNameAll: false,
    remoteHeaderName: false,
    removeOnError: false,
    noClobber: false,
    globoff: false,
    pathAsIs: false,
    fail: false,
    failWithBody: false,
    include: false,
    silent: false,
    formEscape: false,
    disallowUsername: false,
    resolve: [],
    connectTo: [],
    warnings: [],
  };
}

const REQ_NAMES: Record<HttpReq, string> = {
  unspec: '',
  GET: 'GET (-G, --get)',
  HEAD: 'HEAD (-I, --head)',
  MIMEPOST: 'multipart formpost (-F, --form)',
  SIMPLEPOST: 'POST (-d, --data)',
  PUT: 'PUT (-T, --upload-file)',
};

/** curl's SetHTTPrequest: one kind of request per operation. */
export function setRequest(op: Operation, req: HttpReq, argIndex: number) {
  if (op.httpReq === 'unspec' || op.httpReq === req) {
    op.httpReq = req;
    return;
  }
  throw new CurlArgError(`you can only select one HTTP request method: you asked for both ${REQ_NAMES[req]} and ${REQ_NAMES[op.httpReq]}`, argIndex);
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
  const state = { stillOptions: true };
  if (preamble !== undefined && !(args[0] === '-q' || args[0] === '--disable' || (args[0]?.startsWith('-q') ?? false))) {
    applyConfig(preamble, ops, ctx, -1, 0);
  }
  parseInto(args, ops, state, ctx, (i) => i, 0);
  for (const op of ops) finishOperation(op);
  return { operations: ops };
}

/** After all options: -d data without -G makes the request a POST (checked against -I, -T, -F). */
function finishOperation(op: Operation) {
  if (op.data.length && !op.useGet) setRequest(op, 'SIMPLEPOST', -1);
}

function parseInto(args: string[], ops: Operation[], state: { stillOptions: boolean }, ctx: ParseContext, index: (i: number) => number, depth: number) {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const at = index(i);
    const op = ops[ops.length - 1]!;
    if (state.stillOptions && word === '--') {
      state.stillOptions = false;
      continue;
    }
    if (state.stillOptions && word.startsWith('--') && word.length > 2) {
      const m = matchLong(word.slice(2));
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
      // Combined short options: every letter but a value-taking one stands alone; that one takes the
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
    nodeFor(op, 'url').url = word;
  }
}

function apply(opt: CurlOption, value: string | undefined, on: boolean, ops: Operation[], ctx: ParseContext, at: number, depth: number) {
  const op = ops[ops.length - 1]!;
  const name = `--${opt.long}`;
  if (opt.use === 'error') throw new CurlArgError(`${name} ${opt.why}`, at);
  if (opt.use === 'warn') {
    op.warnings.push({ option: name, why: opt.why ?? 'not supported', argIndex: at });
    return;
  }
  if (opt.use === 'quiet') return;
  const v = value ?? '';
  switch (opt.long) {
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
    case 'request':
      op.method = v;
      return;
    case 'header':
      op.headers.push(v);
      return;
    case 'data':
      op.data.push({ kind: 'data', value: v });
      return;
    case 'data-ascii':
      op.data.push({ kind: 'ascii', value: v });
      return;
    case 'data-binary':
      op.data.push({ kind: 'binary', value: v });
      return;
    case 'data-raw':
      op.data.push({ kind: 'raw', value: v });
      return;
    case 'data-urlencode':
      op.data.push({ kind: 'urlencode', value: v });
      return;
    case 'json':
      op.data.push({ kind: 'json', value: v });
      return;
    case 'form':
    case 'form-string':
      op.forms.push({ value: v, literal: opt.long === 'form-string' });
      setRequest(op, 'MIMEPOST', at);
      return;
    case 'form-escape':
      op.formEscape = on;
      return;
    case 'url-query':
      op.urlQueries.push(v);
      return;
    case 'get':
      op.useGet = on;
      return;
    case 'head':
      op.noBody = on;
      setRequest(op, on ? 'HEAD' : 'GET', at);
      return;
    case 'user':
      op.user = v;
      return;
    case 'basic':
      op.authMask = on ? op.authMask | AUTH.BASIC : op.authMask & ~AUTH.BASIC;
      return;
    case 'digest':
      op.authMask = on ? op.authMask | AUTH.DIGEST : op.authMask & ~AUTH.DIGEST;
      return;
    case 'ntlm':
      op.authMask = on ? op.authMask | AUTH.NTLM : op.authMask & ~AUTH.NTLM;
      return;
    case 'ntlm-wb':
      op.authMask = on ? op.authMask | AUTH.NTLM_WB : op.authMask & ~AUTH.NTLM_WB;
      return;
    case 'negotiate':
      op.authMask = on ? op.authMask | AUTH.NEGOTIATE : op.authMask & ~AUTH.NEGOTIATE;
      return;
    case 'anyauth':
      if (on) op.authMask = AUTH.ANY;
      return;
    case 'oauth2-bearer':
      op.bearer = v;
      op.authMask |= AUTH.BEARER;
      return;
    case 'user-agent':
      op.userAgent = v;
      return;
    case 'referer':
      op.referer = v;
      return;
    case 'cookie':
      // curl: a value with '=' is cookie data, anything else a file to read cookies from.
      if (v.includes('=')) op.cookies.push(v);
      else op.cookieFiles.push(v);
      return;
    case 'cookie-jar':
      op.cookieJar = v;
      return;
    case 'junk-session-cookies':
      op.junkSessionCookies = on;
      return;
    case 'compressed':
      op.compressed = on;
      return;
    case 'location':
      op.follow = on;
      return;
    case 'location-trusted':
      op.follow = on || op.follow;
      op.locationTrusted = on;
      return;
    case 'max-redirs':
      op.maxRedirs = v;
      return;
    case 'post301':
      op.post301 = on;
      return;
    case 'post302':
      op.post302 = on;
      return;
    case 'post303':
      op.post303 = on;
      return;
    case 'insecure':
      op.insecure = on;
      return;
    case 'cacert':
      op.cacert = v;
      return;
    case 'cert':
      op.cert = v;
      return;
    case 'key':
      op.key = v;
      return;
    case 'pass':
      op.pass = v;
      return;
    case 'proxy':
    case 'proxy1.0':
      op.proxy = v;
      return;
    case 'proxy-user':
      op.proxyUser = v;
      return;
    case 'proxy-basic':
      op.proxyBasic = on;
      return;
    case 'noproxy':
      op.noproxy = v;
      return;
    case 'max-time':
      op.maxTime = v;
      return;
    case 'connect-timeout':
      op.connectTimeout = v;
      return;
    case 'output-dir':
      op.outputDir = v;
      return;
    case 'create-dirs':
      op.createDirs = on;
      return;
    case 'remote-name-all':
      op.remoteNameAll = on;
      return;
    case 'remote-header-name':
      op.remoteHeaderName = on;
      return;
    case 'remove-on-error':
      op.removeOnError = on;
      return;
    case 'clobber':
      op.noClobber = !on;
      return;
    case 'continue-at':
      op.continueAt = v;
      return;
    case 'globoff':
      op.globoff = on;
      return;
    case 'path-as-is':
      op.pathAsIs = on;
      return;
    case 'range':
      op.range = v;
      return;
    case 'time-cond':
      op.timeCond = v;
      return;
    case 'fail':
      op.fail = on;
      return;
    case 'fail-with-body':
      op.failWithBody = on;
      return;
    case 'include':
      op.include = on;
      return;
    case 'silent':
      op.silent = on;
      return;
    case 'write-out':
      op.writeOut = v;
      return;
    case 'dump-header':
      op.dumpHeader = v;
      return;
    case 'etag-compare':
      op.etagCompare = v;
      return;
    case 'etag-save':
      op.etagSave = v;
      return;
    case 'disallow-username-in-url':
      op.disallowUsername = on;
      return;
    case 'proto-default':
      op.protoDefault = v;
      return;
    case 'request-target':
      op.requestTarget = v;
      return;
    case 'resolve':
      op.resolve.push(v);
      return;
    case 'connect-to':
      op.connectTo.push(v);
      return;
    case 'help':
    case 'manual':
    case 'version':
      if (on) op.info = name;
      return;
    case 'disable':
    case 'ipv4':
    case 'ipv6':
    case 'http1.1':
      return;
    default:
      throw new CurlArgError(`${name} is not handled`, at);
  }
}

/**
 * A curl config file (-K, .curlrc): one option per line, with or without dashes, its value after
 * blanks, `=` or `:`, in double quotes (with \\ \" \t \n \r \v escapes) or up to the next blank.
 */
export function parseConfigText(text: string): string[] {
  const args: string[] = [];
  for (let line of text.split(/\r?\n/)) {
    line = line.replace(/^[ \t]+/, '');
    if (!line || line.startsWith('#')) continue;
    const m = /^([^\s=:]+)/.exec(line);
    if (!m) continue;
    let name = m[1]!;
    let rest = line.slice(name.length);
    const dashed = name.startsWith('-');
    if (!dashed) name = '--' + name;
    args.push(name);
    const takesValue = optionTakesValue(name);
    if (!takesValue) continue;
    rest = rest.replace(/^[ \t]*[=:]?[ \t]*/, '');
    if (rest.startsWith('"')) {
      let value = '';
      let k = 1;
      for (; k < rest.length && rest[k] !== '"'; k++) {
        if (rest[k] === '\\' && k + 1 < rest.length) {
          const n = rest[++k]!;
          value += ({ t: '\t', n: '\n', r: '\r', v: '\v' } as Record<string, string>)[n] ?? n;
        } else value += rest[k];
      }
      args.push(value);
    } else {
      args.push(rest.replace(/[ \t].*$/, ''));
    }
  }
  return args;
}

function optionTakesValue(word: string): boolean {
  if (word.startsWith('--')) {
    const m = matchLong(word.slice(2));
    return !('error' in m) && m.option.arg === 'value';
  }
  const o = optionByShort(word.slice(1, 2));
  return Boolean(o && o.arg === 'value' && word.length === 2);
}

function applyConfig(text: string, ops: Operation[], ctx: ParseContext, at: number, depth: number) {
  const args = parseConfigText(text);
  // URLs in a config file only come from `url = ...`; everything there is an option.
  parseInto(args, ops, { stillOptions: true }, ctx, () => at, depth);
}
