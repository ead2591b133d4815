import { stringifyJson } from './json.js';
import type { Body, BodyPiece, Header, RequestSpec } from './spec.js';
import { StreamedBody, isStreamed, pieceLength, wholeBody, type WireBody } from './upload.js';
import { encodePairs, requestTarget } from './url.js';

/**
 * A request in its wire form: what the transport writes and what `--offline` and `-v` print,
 * so the two can never disagree. Host comes first (as curl and browsers send it); the length
 * header is computed from the encoded body.
 */
export interface PreparedRequest {
  method: string;
  target: string;
  headers: Header[];
  /** The bytes, or (large files in it, upload.ts) pieces that are read as they are sent. */
  body: WireBody;
  /** The HTTP version on the request line when not 1.1 (settings.http10). */
  version?: '1.0';
}

export function encodeBody(body: Body): WireBody {
  switch (body.kind) {
    case 'none':
      return Buffer.alloc(0);
    case 'json':
      return Buffer.from(stringifyJson(body.value), 'utf8');
    case 'form':
      return Buffer.from(encodePairs(body.pairs), 'utf8');
    case 'bytes':
    case 'stdin':
      return body.data;
    case 'stream':
      return streamed(body.pieces);
    case 'multipart': {
      const chunks: BodyPiece[] = [];
      for (const part of body.parts) {
        let head = `--${body.boundary}\r\nContent-Disposition: form-data; name="${escapeQuoted(part.name)}"`;
        if (part.filename !== undefined) head += `; filename="${escapeQuoted(part.filename)}"`;
        head += '\r\n';
        if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
        chunks.push(Buffer.from(head + '\r\n', 'utf8'), part.data, Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from(`--${body.boundary}--\r\n`));
      return streamed(chunks);
    }
  }
}

/** Pieces as one Buffer when they are all bytes (the usual case), else a StreamedBody. */
export function streamed(pieces: BodyPiece[]): WireBody {
  let length = 0;
  let files = false;
  for (const p of pieces) {
    length += pieceLength(p);
    if (!Buffer.isBuffer(p)) files = true;
  }
  if (!files) return Buffer.concat(pieces as Buffer[], length);
  return new StreamedBody(pieces, length);
}

// Quotes, CR and LF in field and file names are percent-encoded, as HTML forms (and HTTPie) do.
const escapeQuoted = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

function has(headers: Header[], name: string): boolean {
  for (let i = 0; i < headers.length; i++) {
    const n = headers[i]![0];
    if (n.length === name.length && n.toLowerCase() === name) return true;
  }
  return false;
}

/** The wire form of a request that asks for no compression (no await: the per-request path of `sling exec`). */
export function prepareUncompressed(spec: RequestSpec): PreparedRequest {
  return finishPrepared(spec, encodeBody(spec.body), [...spec.headers]);
}

export async function prepareRequest(spec: RequestSpec): Promise<PreparedRequest> {
  let body = encodeBody(spec.body);
  const headers: Header[] = [...spec.headers];
  if (body.length > 0 && spec.settings.compress > 0) {
    // Deflating needs the body whole (HTTPie reads a file it compresses too): it is read now.
    const deflated = await deflate(isStreamed(body) ? wholeBody(body) : body);
    if (spec.settings.compress > 1 || deflated.length < body.length) {
      body = deflated;
      headers.push(['Content-Encoding', 'deflate']);
    }
  }
  return finishPrepared(spec, body, headers);
}

/**
 * --compress: zlib deflate at level 6, as HTTPie (Python's zlib) makes it. Node's bundled zlib is a
 * fork whose output differs from zlib's own: on small bodies it can be longer (a 65-byte XML file
 * comes out 65 bytes from Node, 63 from zlib), so HTTPie would compress a body sling sent as it
 * was. pako writes zlib's exact bytes; it is ~5 times slower than Node's native zlib, so bodies over
 * 1 MiB (where a few bytes make no difference to "smaller?") use Node's. Both are loaded only when
 * asked for: neither is on the start-up path.
 */
async function deflate(body: Buffer): Promise<Buffer> {
  if (body.length > 1024 * 1024) return (await import('node:zlib')).deflateSync(body);
  const pako = (await import('pako/lib/deflate.js')).default;
  const out = pako.deflate(body);
  return Buffer.from(out.buffer, out.byteOffset, out.length);
}

function finishPrepared(spec: RequestSpec, body: WireBody, headers: Header[]): PreparedRequest {
  if (!has(headers, 'host')) headers.unshift(['Host', spec.url.hostHeader]);
  if (!has(headers, 'content-length') && !has(headers, 'transfer-encoding')) {
    if (spec.settings.chunked && body.length > 0) headers.push(['Transfer-Encoding', 'chunked']);
    // Like HTTPie (and Python's requests), a body-less request states its empty length unless
    // the method never carries a body; curl only when there is a body, even an empty one (-d '').
    else if (body.length > 0 || spec.body.kind !== 'none' || (!spec.settings.curlFraming && !(spec.method === 'GET' || spec.method === 'HEAD' || spec.method === 'OPTIONS'))) {
      headers.push(['Content-Length', String(body.length)]);
    }
  }
  return {
    method: spec.method,
    target: requestTarget(spec.url, encodePairs(spec.query)),
    headers,
    body,
    ...(spec.settings.http10 ? { version: '1.0' as const } : {}),
  };
}
