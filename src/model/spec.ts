import type { CurlUrl } from './curl-url.js';
import type { JsonValue } from './json.js';
import type { ParsedUrl } from './url.js';

/**
 * The one request model. The HTTPie-style command line, .http files and curl command lines all
 * produce RequestSpecs; the transport sends them, `--offline` prints them, exporters convert them.
 */
export type Header = [name: string, value: string];

export interface MultipartPart {
  name: string;
  /** Set for file parts. */
  filename?: string;
  contentType?: string;
  /** The part's bytes, or a large file read as it is sent (upload.ts). */
  data: Buffer | FileBody;
}

/**
 * A file of STREAM_THRESHOLD bytes or more in a body (upload.ts): never held whole in memory, but
 * opened and read as it is sent, anew for each send (a 307/308 redirect, a retry, a digest round
 * trip). Its length is known when the request is built, so Content-Length is sent as for any body.
 */
export interface FileBody {
  kind: 'file';
  /** Absolute path. */
  path: string;
  /** The name as the user wrote it, for messages. */
  shown: string;
  /** The file's size when the request was built; a different size when it is sent is an error. */
  fileSize: number;
  /** The bytes it adds to the body: fileSize, or fewer when read as curl's -d @file reads text (textLines). */
  length: number;
  /** curl's -d @file: read in lines, each cut at its first CR, LF or NUL (curl body.ts textLines). */
  textLines?: boolean;
}

/** A piece of a streamed body: bytes, or a file read as it is sent. */
export type BodyPiece = Buffer | FileBody;

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: JsonValue }
  | { kind: 'form'; pairs: [string, string][] }
  | { kind: 'multipart'; parts: MultipartPart[]; boundary: string }
  | { kind: 'bytes'; data: Buffer }
  | { kind: 'stdin'; data: Buffer }
  /** Bytes and large files (upload.ts), sent in order as they are read; `stdin`: the body came from standard input. */
  | { kind: 'stream'; pieces: BodyPiece[]; stdin?: boolean };

export interface Auth {
  type: 'basic' | 'bearer';
  user: string;
  password?: string;
}

export interface TlsSettings {
  /** false: skip verification; a string: path of a CA bundle to trust. */
  verify: boolean | string;
  cert?: string;
  certKey?: string;
  certKeyPass?: string;
  /** The oldest and newest TLS version to agree to (xh's and HTTPie's --ssl pin both to one; curl's --tlsv1.2 / --tls-max). */
  minVersion?: TlsVersion;
  maxVersion?: TlsVersion;
  /** OpenSSL cipher list (TLS 1.3 suites may be named in it too): HTTPie's and curl's --ciphers. */
  ciphers?: string;
}

/** TLS versions by Node's names (tls.connect's minVersion / maxVersion). */
export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

/**
 * A host name answered without asking DNS (curl's and xh's --resolve): connections to `host` (on
 * `port` only, when given) go to `address`; the URL, the Host header and the TLS name stay the host's.
 */
export interface ResolveRule {
  /** Lower case, without brackets; `*`: every host (curl). */
  host: string;
  port?: number;
  address: string;
}

/**
 * curl's --connect-to: connections for `host` on `port` (undefined: any) go to `toHost` on
 * `toPort` (undefined: unchanged) instead, before --resolve applies; the URL, the Host header and
 * the TLS name stay the URL's host.
 */
export interface ConnectToRule {
  /** Lower case, without brackets. */
  host?: string;
  port?: number;
  toHost?: string;
  toPort?: number;
}

export interface RequestSettings {
  follow: boolean;
  maxRedirects: number;
  /** Where maxRedirects came from, for messages (curl's `--max-redirs`); unset: `--max-redirects`. */
  maxRedirectsFrom?: string;
  /** Connect and idle time limit in milliseconds; undefined = none. */
  timeoutMs?: number;
  /** Where that limit came from, for messages (`# @timeout`, curl's `--max-time`); unset: `--timeout`. */
  timeoutFrom?: string;
  /** The file fixed whether this request follows redirects (`# @no-redirect`): --follow / --no-follow leave it. */
  followFrom?: string;
  /** A separate limit for establishing the connection (JetBrains `# @connection-timeout`, curl's --connect-timeout). */
  connectTimeoutMs?: number;
  /** Where connectTimeoutMs came from, for messages (`# @connection-timeout`, `--connect-timeout`). */
  connectFrom?: string;
  /**
   * The longest the whole transfer may take, redirects and the body included, however steadily
   * bytes come (curl's -m / --max-time); undefined = none. exchange() turns it into `deadline`.
   */
  maxTimeMs?: number;
  /** curl's -f (without --fail-with-body): a 4xx/5xx answer ends the transfer at its head, its body unread. */
  failAtHead?: boolean;
  /** When the transfer must be over (Date.now() time), from maxTimeMs; set by exchange() for each attempt. */
  deadline?: number;
  tls: TlsSettings;
  /** Proxy URL by scheme ('http', 'https', or 'all'), from --proxy; environment proxies are read by the transport. */
  proxies: Record<string, string>;
  /** Deflate the body: 1 when smaller, 2 always. */
  compress: number;
  chunked: boolean;
  /** The response body as it came, not decoded (curl without --compressed: it did not ask for an encoding, so it keeps one it gets). */
  keepEncoding?: boolean;
  /** Give up when the response has more header lines than this. */
  maxHeaders?: number;
  /** The environment proxies are taken from (http_proxy, NO_PROXY...) when not the process's: a curl command's own, with the file's `export`s and `VAR=x curl` prefixes. */
  proxyEnv?: NodeJS.ProcessEnv;
  /**
   * The request neither sends nor stores cookies, not even a --session's (`# @no-cookie-jar`).
   * Otherwise the cookies of the jar the caller hands the exchange (ExchangeOptions.jar: exec's of
   * the run, a --session's, a curl command's) are sent and stored on every hop.
   */
  noCookies?: boolean;
  /** Digest authentication: answered by the transport when the server asks (401 + WWW-Authenticate: Digest). */
  digest?: { user: string; password: string };
  /**
   * A curl command's rules (curl files), as data: how transport/redirect.ts makes each hop of its
   * -L from the one before, and where its cookies go. Undefined: the redirect rules of docs/decisions.md, Network.
   */
  curl?: CurlRules;
  /** Connect to this Unix domain socket instead of the URL's host (curl's --unix-socket). */
  unixSocket?: string;
  /** Resolve the host to IPv4 or IPv6 addresses only (curl's -4 / -6). */
  family?: 4 | 6;
  /**
   * HTTP/2: 'alpn' offers h2 over TLS and falls back to HTTP/1.1 (curl's --http2 on https://);
   * 'prior-knowledge' speaks h2 from the first byte, also without TLS.
   */
  http2?: 'alpn' | 'prior-knowledge';
  /**
   * With http2 'alpn': HTTP/2 only where TLS negotiates it (xh's --http-version 2); a hop to http://
   * goes as plain HTTP/1.1, without the h2c upgrade offer curl's --http2 makes there.
   */
  noH2cUpgrade?: boolean;
  /** Send the request as HTTP/1.0 (xh's --http-version 1.0, curl's --http1.0). */
  http10?: boolean;
  /** Host names answered without DNS (--resolve), the first rule that matches wins. */
  resolve?: ResolveRule[];
  /** curl's --connect-to rules, the first match applied (transport/connect.ts). */
  connectTo?: ConnectToRule[];
  /**
   * Connections go out from this local address, or from the address of the network interface of
   * this name (xh's and curl's --interface); the transport looks the name up.
   */
  interface?: string;
  /**
   * Frame the request as curl does (curl files): no `Connection` header unless one is given (the
   * transports add `Connection: keep-alive` otherwise) and no `Content-Length: 0` on a request
   * without a body (`-X POST` with no data).
   */
  curlFraming?: boolean;
  /** Retry transient failures (curl's --retry family). */
  retry?: { count: number; delayMs?: number; maxTimeMs?: number; allErrors: boolean; connRefused: boolean };
}

/**
 * What curl decides again for each hop of a `curl -L` (curl 7.88), as data the transport reads
 * (transport/redirect.ts): nothing here is a function or a live object, and every other setting of
 * the first hop (TLS, proxy, --resolve, HTTP version, limits) goes on to every hop as it is.
 */
export interface CurlRules {
  /** This hop's URL as curl reads it: a Location is resolved against it, `--referer ';auto'` names it. */
  url: CurlUrl;
  /** The first URL's origin (model/url.ts originOf): credentials go to it only (unless `trusted`). */
  firstOrigin: string;
  /** The kind of request curl makes on this hop (-X sets only the method on the wire). */
  kind: 'GET' | 'HEAD' | 'POST' | 'PUT';
  /** -X: the method of every hop, whatever the kind becomes. */
  method?: string;
  /** --post301 / --post302 / --post303: that answer keeps a POST a POST, with its body. */
  post301: boolean;
  post302: boolean;
  post303: boolean;
  /** --location-trusted: -u, Authorization and -H Cookie go to every host. */
  trusted: boolean;
  /** --referer ';auto': each hop sends the URL of the one before as Referer. */
  autoReferer: boolean;
  /** A -H Host header: sent on hops to the first origin only (null: `-H 'Host:'` removes Host there). */
  host?: Header | null;
  /** curl's own Authorization (-u, --oauth2-bearer, NTLM): on hops to the first origin, or all with `trusted`. */
  authorization?: string;
  /** --digest credentials: answered on trusted hops only. */
  digest?: { user: string; password: string };
  /** curl's own -x: its Proxy-Authorization value and whether curl adds Proxy-Connection (plain http:// through it). */
  proxy?: { authorization?: string; connection: boolean };
  /** --noproxy: hosts that go direct (curl's list syntax). */
  noProxy?: string;
  /** The proxies of the hops that do not go direct, kept while a hop to a --noproxy host does. */
  heldProxies?: { proxies: Record<string, string>; proxyEnv?: NodeJS.ProcessEnv };
  /**
   * How many headers at the start are curl's own (Host, Proxy-Authorization, Authorization,
   * Range, User-Agent, Accept, Accept-Encoding, Referer, Proxy-Connection): the Cookie header of
   * the jar and -b goes right after them, before the -H headers.
   */
  own: number;
  /** -b NAME=VALUE strings (unless -H Cookie): sent with the jar's cookies, on every hop, to every host. */
  cookies?: string;
  /** Names (lower case) of the headers curl added for the body, last in the list: dropped with the body. */
  bodyHeaders: string[];
  /** -r / -C: the range (`100-`, `0-99`); an upload's Content-Range becomes `Range: bytes=...` on a hop that drops the body. */
  range?: string;
  /** A -H Content-Type that a -F body's multipart type stands in for, with its place after `own`: sent once the body is dropped. */
  formType?: { at: number; header: Header };
  /** -H Authorization and -H Cookie kept back on a hop to another host, with their places after `own`, to come back on a hop to the first. */
  withheld?: { at: number; header: Header }[];
  /** --request-target: the target of every hop. */
  requestTarget?: string;
  /**
   * What stands between the colon and the value of a -H header, by lower-case name, where it is not
   * one space (`-H 'X-A:1'`, `-H 'X-A:   1'`): curl sends a -H line as written, and so does h1.ts.
   */
  headerGaps?: Record<string, string>;
}

export interface RequestSpec {
  method: string;
  url: ParsedUrl;
  /** Query items (`name==value`), appended to the URL's own query. */
  query: [string, string][];
  /** In order, case and duplicates kept; these are the headers sent (before Host and Content-Length). */
  headers: Header[];
  body: Body;
  settings: RequestSettings;
  /** Where the request came from, for error messages (file and line for exec). */
  source?: { file: string; line: number };
  /** A WebSocket, server-sent events or gRPC request of a .http file (stream.ts); absent for a plain HTTP request. */
  stream?: import('./stream.js').StreamRequest;
}
