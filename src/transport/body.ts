import type { Readable } from 'node:stream';
import { CliError, heldBodyTooLarge, NetworkError, TimeoutError } from '../errors.js';
import { headerIn } from '../model/headers.js';
import { decodeBody } from './decode.js';
import { h2Code } from './errors.js';
import { setArriving } from './inflight.js';
import type { Hop } from './hop.js';

/** A body that ended before its end (`why`: how the connection ended), as every lane says it: with the Content-Length it promised. */
export function cutShort(where: string, rawHeaders: readonly string[], why: string, cause?: unknown): NetworkError {
  const length = headerIn(rawHeaders, 'content-length');
  return new NetworkError(`the response body from ${where} was cut short${length ? ` (Content-Length was ${length})` : ''}: ${why}`, undefined, cause === undefined ? undefined : { cause });
}

/** Maps what can go wrong while the body streams: --timeout, a cut-off body, a broken encoding. */
export function bodyError(hop: Hop, err: unknown, received: number): Error {
  const where = hop.url.hostHeader;
  if (hop.info.timedOut || err instanceof TimeoutError) {
    return new TimeoutError(`${where} stopped sending the response body for longer than --timeout (after ${received} bytes)`);
  }
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ERR_HTTP2_SESSION_ERROR' || e?.code === 'ERR_HTTP2_GOAWAY_SESSION') {
    return new NetworkError(`the response body from ${where} was cut short: the server closed the HTTP/2 connection (${h2Code(e.message)})`);
  }
  const reset = e?.code === 'ERR_HTTP2_STREAM_ERROR';
  if (reset || e?.code === 'ECONNRESET' || e?.message === 'aborted' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE') {
    const why = reset ? `HTTP/2 stream reset (${h2Code(e.message)})` : e?.code === 'ECONNRESET' && e.message !== 'aborted' ? 'connection reset' : 'connection closed';
    return cutShort(where, hop.response.rawHeaders, why);
  }
  if (e?.code?.startsWith?.('Z_') || e?.code === 'ERR__ERROR' || /incorrect header|invalid|unexpected end/i.test(e?.message ?? '')) {
    return new NetworkError(`the response body from ${where} could not be decoded (${headerIn(hop.response.rawHeaders, 'content-encoding')}): ${e.message}`);
  }
  return new NetworkError(`reading the response body from ${where} failed: ${e?.message ?? String(err)}`);
}

/** The response body as a stream, Content-Encoding undone, with errors mapped to CliErrors. */
export async function decodedBody(hop: Hop): Promise<Readable> {
  const raw = hop.body;
  let received = 0;
  raw.on('data', (c: Buffer) => (hop.info.bodyBytes = received += c.length));
  const encoding = hop.request.method === 'HEAD' ? undefined : headerIn(hop.response.rawHeaders, 'content-encoding');
  const decoded = await decodeBody(raw, encoding);
  if (decoded !== raw) raw.on('error', (e) => decoded.destroy(bodyError(hop, e, received)));
  return decoded;
}

/**
 * The body client.ts has read already, when there is nothing to decode (no stream, no await).
 * `keepEncoding`: the bytes as they came, encoded or not (curl without --compressed).
 */
export function wholeBody(hop: Hop, keepEncoding = false): Buffer | undefined {
  const whole = (hop as Hop & { whole?: Buffer }).whole;
  if (whole && (keepEncoding || hop.request.method === 'HEAD' || headerIn(hop.response.rawHeaders, 'content-encoding') === undefined)) return whole;
  return undefined;
}

/** Reads the whole body: decoded, or with `keepEncoding` as it came (curl without --compressed saves gzip as gzip). */
/**
 * `limit`: past so many bytes (decoded) the reading stops (and the connection goes): with
 * heldBodyTooLarge() (`sling exec`), or with `stop`, quietly, with what came (`hop.info.bodyCut` set).
 */
export async function readBody(hop: Hop, keepEncoding = false, limit?: number, stop = false): Promise<Buffer> {
  // client.ts has read the whole body already: no stream to go through unless it is encoded.
  const whole = wholeBody(hop, keepEncoding);
  if (whole) return whole;
  const stream = keepEncoding ? hop.body : await decodedBody(hop);
  const chunks: Buffer[] = [];
  let received = 0;
  // A body of a known length, as it comes (not decoded): one buffer of that size, each piece copied
  // in as it arrives, so the body is held once, not twice (its pieces, then their concatenation)
  // when it is whole: a 256 MiB body held for a script or an assertion took 512 MiB at its end.
  let into = hop.request.method === 'HEAD' || hop.response.status === 204 || hop.response.status === 304 ? undefined : knownLength(hop, keepEncoding, limit);
  const sofar = () => (into ? into.subarray(0, received) : Buffer.concat(chunks, received));
  // Ctrl-C while the body comes: `sling exec` prints what arrived.
  setArriving(() => ({ response: hop.response, body: sofar(), info: hop.info }));
  // A body cut short or stalled: what came of it goes with the error (printed before it), as the
  // HTTP/1.1 client does, when it needed no decoding.
  const withPartial = (e: NetworkError | TimeoutError) => {
    // The chunks are the body as it is shown (decoded when it is decoded): what came of it.
    if (!e.partial) {
      e.partial = { response: hop.response, body: sofar(), info: hop.info, request: hop.request, url: hop.url };
    }
    return e;
  };
  try {
    for await (const c of stream) {
      const piece = c as Buffer;
      if (into && received + piece.length > into.length) {
        // More than the length said (a lane would have cut it): the pieces from here on.
        chunks.push(into.subarray(0, received));
        into = undefined;
      }
      if (into) piece.copy(into, received);
      else chunks.push(piece);
      received += piece.length;
      if (limit !== undefined && received > limit) {
        hop.body.destroy();
        if (!stop) throw heldBodyTooLarge(limit);
        hop.info.bodyCut = true;
        break;
      }
    }
  } catch (e) {
    if (e instanceof CliError && !(e instanceof NetworkError || e instanceof TimeoutError)) throw e;
    throw withPartial(e instanceof NetworkError || e instanceof TimeoutError ? e : (bodyError(hop, e, received) as NetworkError | TimeoutError));
  } finally {
    setArriving(undefined);
  }
  if (hop.info.timedOut) throw withPartial(bodyError(hop, new TimeoutError('timeout'), received) as TimeoutError);
  return sofar();
}

/** The body's length on the wire when it is what readBody returns (no decoding) and within `limit`; else undefined. */
function knownLength(hop: Hop, keepEncoding: boolean, limit: number | undefined): Buffer | undefined {
  if (!keepEncoding && headerIn(hop.response.rawHeaders, 'content-encoding') !== undefined) return undefined;
  const text = headerIn(hop.response.rawHeaders, 'content-length');
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  const length = Number(text);
  // Small bodies as before; a body past the limit fails as it comes, without a buffer of its size.
  if (length < 65536 || (limit !== undefined && length > limit)) return undefined;
  return Buffer.allocUnsafe(length);
}

/** The most of an intermediate answer's body (a redirect, a digest challenge, a status retried) that is read. */
export const HOP_BODY_LIMIT = 1 << 20;

/**
 * The body of an answer that is not the last (a redirect, a digest challenge, a status retried):
 * shown only with --all, so at most HOP_BODY_LIMIT of it is read; past that the connection is closed
 * rather than read on (a 302 with an endless body took 9.5 GB).
 */
export function readHopBody(hop: Hop): Promise<Buffer> {
  return readBody(hop, false, HOP_BODY_LIMIT, true);
}

/** Undoes the Content-Encoding of a body that was cut short, as far as its bytes go (curl writes what it could decode). */
export async function decodeCut(bytes: Buffer, contentEncoding: string | undefined): Promise<Buffer> {
  const { Readable } = await import('node:stream');
  const chunks: Buffer[] = [];
  try {
    for await (const c of await decodeBody(Readable.from([bytes]), contentEncoding)) chunks.push(c as Buffer);
  } catch {
    // The rest cannot be decoded: what could be is kept.
  }
  return Buffer.concat(chunks);
}
