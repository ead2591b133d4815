import type { StreamKind } from '../../../model/stream.js';
import { freshPending, NONE, type Pass } from './pass.js';

// The request line: `METHOD URL [HTTP/version]`, or a bare URL (a GET); also what tells a line
// that starts the next request (startsRequest), inside a body or after a request's handlers.

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT']);
/** Requests of protocols sling does not speak: skipped with a warning. */
const OTHER_METHODS: Record<string, string> = {
  MQTT: 'MQTT requests (httpyac)',
  AMQP: 'AMQP requests (httpyac)',
};
/** Requests that are streams (model/stream.ts): a WebSocket session, server-sent events, a gRPC call. */
const STREAM_METHODS: Record<string, StreamKind> = {
  WS: 'websocket',
  WSS: 'websocket',
  WEBSOCKET: 'websocket',
  SSE: 'sse',
  EVENTSOURCE: 'sse',
  GRPC: 'grpc',
};
/**
 * A method token (RFC 9110 `token`) in capitals, of two characters or more: MERGE, CHECKOUT,
 * M-SEARCH, VERSION-CONTROL, ... any method, as the first word of a line that starts a request.
 */
const METHOD_TOKEN = "[A-Z][A-Z0-9!#$%&'*+.^_`|~-]+";
/** An httpyac request that starts after a blank line inside another request's body. */
const STRICT_REQUEST = new RegExp(`^${METHOD_TOKEN}\\s+(https?:\\/\\/|\\/|\\{\\{)(\\{\\{[^}]*\\}\\}|[^\\s{])*(\\s+HTTP\\/\\d+(\\.\\d+)?)?\\s*$`);
/** The same for the requests of other protocols: their targets may have no scheme (`GRPC host:port/Service/Method`). */
const PROTOCOL_REQUEST = new RegExp(
  `^(${[...Object.keys(OTHER_METHODS), ...Object.keys(STREAM_METHODS)].join('|')})\\s+([A-Za-z][A-Za-z0-9+.-]*:\\/\\/|\\/|\\{\\{|[\\w.-]+:\\d+)\\S*(\\s+HTTP\\/\\d+(\\.\\d+)?)?\\s*$`,
);
/** A line that starts a request when it follows a blank line in a body (also what `--to http` must not leave as it is). */
export const startsRequest = (line: string) => {
  // Every method both expressions know is upper-case: most lines (a JSON body) are told apart
  // without running them (the first run of each also compiles it).
  const c = line.charCodeAt(0);
  return c >= 65 && c <= 90 && (STRICT_REQUEST.test(line) || PROTOCOL_REQUEST.test(line));
};
const METHOD_WORD = new RegExp(`^${METHOD_TOKEN}$`);

/** `GET /x`: the first word is a method token in capitals and a space follows (cheap test before startsRequest). */
export function isMethodWord(line: string): boolean {
  const sp = line.indexOf(' ');
  return sp >= 2 && METHOD_WORD.test(line.slice(0, sp));
}

/**
 * A line that starts with a placeholder and reads as a URL: `{{host}}/path`, `{{ base }}?q={{q}}`,
 * `{{$dotenv BASE}}/x`, `{{host}}` (an optional HTTP version after it). What is not (`{{`, `{{@request`,
 * `{{ console.log(1) }}`, `{{exports.a = 1}}`) is an httpyac script block. The first placeholder
 * must name a variable (`$name args` for a dynamic one); outside placeholders, no blank.
 */
export function urlTemplate(t: string): boolean {
  const close = t.indexOf('}}', 2);
  if (close === -1) return false;
  const first = t.slice(2, close).trim();
  if (!/^[\p{L}\p{N}_.-]+$/u.test(first) && !/^\$[\p{L}\p{N}_.-]+(?:\s+[^\s{}()=;]+)*$/u.test(first)) return false;
  const rest = t.slice(close + 2).replace(/(?<!\s)\s+HTTP\/\d+(\.\d+)?$/i, '');
  return !/\s/.test(rest.replace(/\{\{[^{}]*\}\}/g, 'x'));
}

function looksLikeUrl(s: string): boolean {
  if (/\s/.test(s) || s === '') return false;
  if (/^(https?:\/\/|\/|\{\{|:\d)/i.test(s)) return true;
  return /^[\p{L}\p{N}_.-]+(:\d+)?([/?#]|$)/u.test(s) && /[.:]|^localhost/.test(s);
}

/**
 * The current line as a request line (line number `ln`): starts the request (its headers come
 * next) with what the lines before it said, or skips a request of another protocol with a
 * warning. False when the line is no request line.
 */
export function requestLine(p: Pass, line: string, ln: number): boolean {
  const indent = line.length - line.trimStart().length;
  const t = line.trim();
  let method = 'GET';
  let rest = t;
  let urlCol = indent + 1;
  const m = /^([A-Za-z][A-Za-z0-9_-]*)(\s+)(\S.*)$/.exec(t);
  if (m && (METHODS.has(m[1]!.toUpperCase()) || /^[A-Z][A-Z0-9_-]*$/.test(m[1]!))) {
    method = m[1]!.toUpperCase();
    rest = m[3]!;
    urlCol = indent + m[1]!.length + m[2]!.length + 1;
    // `POST HTTP/1.1`: the URL is missing, not `HTTP/1.1` a host name.
    if (/^HTTP\/\d+(\.\d+)?(\s+\(prior knowledge\))?$/i.test(rest)) p.fail(ln, urlCol, `a request line needs a URL after '${m[1]}' (found only the HTTP version)`);
  } else if (!looksLikeUrl(t.replace(/(?<!\s)\s+HTTP\/\d+(\.\d+)?$/i, '')) && !(t.startsWith('{{') && urlTemplate(t))) {
    return false;
  }
  if (OTHER_METHODS[method]) {
    p.warn(ln, indent + 1, `${OTHER_METHODS[method]} are not supported: skipped`);
    p.blockHasRequest = true;
    p.pending = freshPending();
    p.req = undefined;
    p.state = 'skip';
    p.blankBefore = false;
    return true;
  }
  let version: string | undefined;
  // `... HTTP/1.1` or JetBrains' `... HTTP/2 (Prior Knowledge)` at the end (the regular
  // expression only when the line ends with a digit or a parenthesis; `(?<!\s)`: tried from the
  // first blank of a run only, not again from each blank in it, which was quadratic).
  const last = rest.charCodeAt(rest.length - 1);
  const v = (last >= 48 && last <= 57) || last === 41 ? /(?<!\s)\s+(HTTP\/\d+(?:\.\d+)?)(\s+\(prior knowledge\))?$/i.exec(rest) : null;
  if (v) {
    version = v[1]!.toUpperCase() + (v[2] ? ' (Prior Knowledge)' : '');
    rest = rest.slice(0, v.index);
  }
  rest = rest.trimEnd();
  let graphql = false;
  if (method === 'GRAPHQL') {
    method = 'POST';
    graphql = true;
  }
  const streamKind = STREAM_METHODS[method];
  const keyword = method;
  // A WebSocket session and server-sent events open with a GET; a gRPC call is a POST over HTTP/2.
  if (streamKind) method = streamKind === 'grpc' ? 'POST' : 'GET';
  const pending = p.pending;
  p.req = {
    kind: 'request',
    line: ln,
    urlCol,
    start: p.blockHasRequest ? ln : Math.min(p.blockStart, ln),
    atName: pending.atName,
    title: p.title,
    method,
    url: p.template(rest, ln, urlCol, true),
    version,
    headers: NONE,
    body: NONE,
    graphql,
    fragments: p.out.fragments,
    pre: pending.pre,
    handlers: pending.post ?? NONE,
    asserts: pending.asserts,
    outputs: NONE,
    directives: pending.directives,
  };
  if (streamKind) p.req.stream = { kind: streamKind, keyword };
  if (pending.streaming) {
    if (streamKind) p.req.streaming = pending.streaming;
    else p.warn(pending.streaming.line, 1, "httpyac's '{{@streaming' block is for a WebSocket or gRPC request, and this one is neither: skipped");
  }
  p.title = undefined;
  p.pending = freshPending();
  p.blockHasRequest = true;
  p.state = 'headers';
  p.urlOpen = true;
  p.reqIndent = indent;
  p.blankBefore = false;
  p.bodyStarted = false;
  p.varParagraph = false;
  return true;
}
