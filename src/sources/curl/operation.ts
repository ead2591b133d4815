import type { TlsVersion } from '../../model/spec.js';
/**
 * One `--next` section of a curl command line, as curl's tool keeps it (its OperationConfig):
 * options still as written (files are read when the request is built), URLs paired with their -o,
 * -O and -T in order.
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
  /** --unix-socket, -4/-6, --http2 / --http2-prior-knowledge, --retry family. */
  unixSocket?: string;
  family?: 4 | 6;
  http2?: 'alpn' | 'prior-knowledge';
  /** --http1.0 / -0. */
  http10?: boolean;
  /** --interface (its `if!` / `host!` prefix taken off). */
  interface?: string;
  /** --tlsv1.x (the oldest version), --tls-max (the newest), --ciphers, --tls13-ciphers. */
  tlsMin?: TlsVersion;
  tlsMax?: TlsVersion;
  ciphers?: string;
  tls13Ciphers?: string;
  retry?: string;
  retryDelay?: string;
  retryMaxTime?: string;
  retryAllErrors: boolean;
  retryConnrefused: boolean;
  cacert?: string;
  cert?: string;
  key?: string;
  pass?: string;
  proxy?: string;
  proxyUser?: string;
  proxyBasic: boolean;
  noproxy?: string;
  maxTime?: string;
  /** -Y / -y: a transfer slower than speedLimit bytes a second for speedTime seconds is given up. */
  speedLimit?: string;
  speedTime?: string;
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
    retryAllErrors: false,
    retryConnrefused: false,
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
