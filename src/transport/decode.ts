import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';

/**
 * Undoes Content-Encoding (gzip, deflate, br, and lists of them) for display. "deflate" is
 * zlib-wrapped by the spec but raw in the wild: the first byte tells which.
 */
export async function decodeBody(raw: Readable, contentEncoding: string | undefined): Promise<Readable> {
  if (!contentEncoding) return raw;
  // zlib is loaded only for encoded bodies: it is not on the start-up path.
  const zlib = await import('node:zlib');
  const { createBrotliDecompress, createGunzip, constants } = zlib;
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  let stream = raw;
  for (const coding of codings.reverse()) {
    let next: Readable;
    const opts = { finishFlush: constants.Z_SYNC_FLUSH };
    if (coding === 'gzip' || coding === 'x-gzip') next = createGunzip(opts);
    else if (coding === 'br') next = createBrotliDecompress();
    else if (coding === 'deflate') next = sniffDeflate(stream, zlib);
    else return stream; // unknown coding: show the bytes as they came
    if (coding !== 'deflate') {
      const src = stream;
      src.on('error', (e) => next.destroy(e));
      stream = src.pipe(next as unknown as NodeJS.WritableStream) as unknown as Readable;
    } else stream = next;
  }
  return stream;
}

function sniffDeflate(src: Readable, zlib: typeof import('node:zlib')): Readable {
  const { createInflate, createInflateRaw, constants } = zlib;
  const out = new PassThrough();
  let inflater: ReturnType<typeof createInflate> | undefined;
  src.on('error', (e) => out.destroy(e));
  src.on('data', (chunk: Buffer) => {
    if (!inflater) {
      // A zlib header has a compression method of 8 in the low nibble and a valid check value.
      const zlibWrapped = chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
      inflater = zlibWrapped ? createInflate({ finishFlush: constants.Z_SYNC_FLUSH }) : createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH });
      inflater.on('error', (e) => out.destroy(e));
      inflater.pipe(out);
    }
    if (!inflater.write(chunk)) {
      src.pause();
      inflater.once('drain', () => src.resume());
    }
  });
  src.on('end', () => (inflater ? inflater.end() : out.end()));
  return out;
}
