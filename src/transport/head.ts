import { NetworkError } from '../errors.js';
import type { RequestSettings } from '../model/spec.js';
import type { ResponseHead } from '../model/exchange.js';

const STATUS = /^HTTP\/(\d(?:\.\d)?)[ \t]+(\d{3})(?:[ \t](.*))?$/;

/**
 * `sling exec` prints a body this large (or of unknown length) as it arrives when nothing reads it
 * afterwards (client.ts hands it over as a stream, runner.ts prints it so); smaller ones are
 * read whole first.
 */
export const STREAM_FROM = 1 << 20;

/**
 * A response head as received (status line and header lines, without the blank line after them),
 * read by the one HTTP/1.1 client's codec (h1.ts), by the rules of ARCHITECTURE.md ("One HTTP/1.1
 * client"): LF or CRLF line ends (RFC 9112 §2.2), `HTTP/1.1` or `HTTP/2`, blanks around names and
 * values dropped (`X-B : v` is `X-B`, as curl takes it), a folded line (obs-fold) joined to the
 * value before it with one space (RFC 9112 §5.2, as curl does), a CR inside a value read as a
 * space (RFC 9110 §5.5); a NUL anywhere in the head, or a header line without a colon, makes the
 * response malformed (curl: "Nul byte in header", "Header without colon").
 */
export function parseResponseHead(text: string, where: string): ResponseHead {
  let nl = text.indexOf('\n');
  let first = nl === -1 ? text : text.slice(0, nl);
  if (first.charCodeAt(first.length - 1) === 13) first = first.slice(0, -1);
  const m = STATUS.exec(first);
  if (!m) throw new NetworkError(`${where} sent a malformed HTTP response (status line '${first.slice(0, 80)}')`);
  if (text.indexOf('\0') !== -1) throw new NetworkError(`${where} sent a malformed HTTP response (a NUL character in its head)`);
  const rawHeaders: string[] = [];
  while (nl !== -1) {
    const from = nl + 1;
    nl = text.indexOf('\n', from);
    const end = nl === -1 ? text.length : nl;
    if (isBlank(text.charCodeAt(from)) && from < end) {
      // A folded continuation line (obs-fold): one space and its text, onto the value before it.
      // Blank lines before the first header are consumed without being read (RFC 9112 §2.2).
      let c = from;
      let e = end;
      while (c < e && isBlank(text.charCodeAt(c))) c++;
      while (e > c && isBlank(text.charCodeAt(e - 1))) e--;
      if (rawHeaders.length && c < e) rawHeaders[rawHeaders.length - 1] = `${rawHeaders[rawHeaders.length - 1]} ${inValue(text.slice(c, e))}`.trimStart();
      continue;
    }
    const colon = text.indexOf(':', from);
    if (colon === -1 || colon >= end || colon === from) {
      // Any other line without a name and a colon makes the head malformed, as curl treats it.
      const line = text.slice(from, end).replace(/\r$/, '');
      if (line === '') continue;
      throw new NetworkError(`${where} sent a malformed HTTP response (a header line without a colon: '${line.slice(0, 60)}')`);
    }
    // Name and value without the blanks around them (and the CR before the LF).
    let a = from;
    let b = colon;
    while (a < b && isBlank(text.charCodeAt(a))) a++;
    while (b > a && isBlank(text.charCodeAt(b - 1))) b--;
    let c = colon + 1;
    let e = end;
    while (c < e && isBlank(text.charCodeAt(c))) c++;
    while (e > c && isBlank(text.charCodeAt(e - 1))) e--;
    rawHeaders.push(text.slice(a, b), inValue(text.slice(c, e)));
  }
  return { httpVersion: m[1]!.length === 1 ? `${m[1]}.0` : m[1]!, status: Number(m[2]), reason: m[3] ?? '', rawHeaders };
}

/** A CR inside a header value, as RFC 9110 §5.5 lets a recipient take it: a space. */
const inValue = (v: string) => (v.indexOf('\r') === -1 ? v : v.replace(/\r/g, ' '));

/** What String.prototype.trim removes in a latin1 head: space, tab, CR, LF, VT, FF, NBSP. */
const isBlank = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 160;

/** --max-headers: the error for a head with more headers than allowed, if it has them. */
export function maxHeadersError(head: ResponseHead, settings: RequestSettings, where: string): NetworkError | undefined {
  const count = head.rawHeaders.length / 2;
  if (settings.maxHeaders === undefined || count <= settings.maxHeaders) return undefined;
  return new NetworkError(`${where} sent ${count} headers, more than --max-headers ${settings.maxHeaders}`);
}

/**
 * The body length a head gives with Content-Length, for the codec (h1.ts): undefined when it gives
 * none. A value that is not a number (`abc`, `-5`) or several that disagree (`2` and `5`; a list
 * of equal values such as `2, 2` is that value, RFC 9110 §8.6) make the response malformed, as
 * RFC 9112 §6.3 says a recipient must (curl takes `+5` and the last of `5` and `6`): the body's end could not be known.
 */
export function contentLength(raw: string[], where: string): number | undefined {
  let length: number | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== 14 || raw[i]!.toLowerCase() !== 'content-length') continue;
    const parts = raw[i + 1]!.split(',');
    for (let k = 0; k < parts.length; k++) {
      const v = parts[k]!.trim();
      const n = Number(v);
      // Past 2^53 a JavaScript number no longer says where the body ends (`9007199254740993` reads
      // as ...992, 400 digits as Infinity): malformed, as llhttp and curl call a length past what
      // they can hold (2^64, 2^63).
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new NetworkError(`${where} sent a malformed HTTP response (Content-Length '${raw[i + 1]!.slice(0, 40)}')`);
      if (length !== undefined && n !== length) throw new NetworkError(`${where} sent a malformed HTTP response (Content-Length ${length} and ${n} disagree)`);
      length = n;
    }
  }
  return length;
}

/**
 * The first bytes of an answer that cannot be an HTTP/1.x head (curl: "Received HTTP/0.9 when not
 * allowed"): a server that speaks only HTTP/2, or no HTTP at all. Undefined while the bytes may
 * still become `HTTP/...`.
 */
export function notHttp1(where: string, bytes: Buffer | undefined): NetworkError | undefined {
  if (!bytes?.length) return undefined;
  // `HTTP/` (the usual case, on every answer of a kept-alive connection: no string made).
  if (bytes[0] === 72 && (bytes.length < 5 || (bytes[1] === 84 && bytes[2] === 84 && bytes[3] === 80 && bytes[4] === 47))) return undefined;
  const n = Math.min(bytes.length, 5);
  if (bytes.toString('latin1', 0, n) === 'HTTP/'.slice(0, n)) return undefined;
  // An HTTP/2 frame on stream 0: SETTINGS (4) or GOAWAY (7), the first thing an h2 server sends.
  if (bytes.length >= 9 && (bytes[3] === 4 || bytes[3] === 7) && bytes[5] === 0 && bytes[6] === 0 && bytes[7] === 0 && bytes[8] === 0) {
    return new NetworkError(
      `${where} answered in HTTP/2 to an HTTP/1.1 request: it speaks HTTP/2 only`,
      "ask for HTTP/2 with prior knowledge: curl's --http2-prior-knowledge, or `HTTP/2 (Prior Knowledge)` at the end of a .http request line",
    );
  }
  const text = bytes.toString('latin1', 0, Math.min(bytes.length, 40)).replace(/[^\x20-\x7e]/g, '.');
  return new NetworkError(`${where} did not answer in HTTP: its answer begins '${text}'`, 'is it an HTTP server, and is the port right?');
}

/** The connection closed after bytes that never made a complete response head (HTTP/0.9, a head cut off). */
export function incompleteHead(where: string): NetworkError {
  return new NetworkError(`${where} sent a malformed HTTP response (the connection closed before a complete status line and headers)`);
}

/**
 * A `101 Switching Protocols` to a request that offered no protocol switch (the h2c offer is the
 * only one sling makes): the connection now speaks something else, and no answer will come.
 */
export function unaskedSwitch(where: string, upgrade: string | undefined): NetworkError {
  return new NetworkError(`${where} answered 101 Switching Protocols${upgrade ? ` (to ${upgrade})` : ''} to a request that did not ask to switch protocols: there is no HTTP answer to show`);
}

/** The most interim (1xx) answers taken before a request's answer (curl stops at its 300 kB of heads). */
export const MAX_INTERIM = 100;

export function tooManyInterim(where: string): NetworkError {
  return new NetworkError(`${where} sent more than ${MAX_INTERIM} interim (1xx) answers and no answer`);
}
