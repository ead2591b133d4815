import { isDeviceName, openToWrite } from '../files.js';
import { join } from 'node:path';
import { BIDI } from '../sanitize.js';

/**
 * File names for downloads. A server-supplied name is reduced to a bare, safe file name: no
 * directory parts (`/`, `\`, `..`), no leading dots (no hidden or dot files), no control characters
 * (bidirectional ones included), no characters Windows forbids, no reserved device names (CON, NUL,
 * COM1, ...), at most 255 bytes.
 */
const MAX_BYTES = 255;
/** Control characters, and bidirectional controls (`invoice\u202egnp.exe` would read as `invoiceexe.png`). */
const NOT_IN_NAMES = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');

export function sanitizeFileName(raw: string): string | undefined {
  let name = raw.split(/[/\\]/).pop() ?? '';
  name = name.replace(NOT_IN_NAMES, '').replace(/[<>:"|?*]/g, '_');
  name = withoutDotsAtEnd(name.replace(/^[.\s]+/, ''));
  if (!name) return undefined;
  if (isDeviceName(name)) name = '_' + name;
  if (Buffer.byteLength(name) > MAX_BYTES) {
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? '';
    // The longest run of whole characters from the start that fits with the extension, in one
    // pass (a name of 100,000 characters was cut one character per pass over all of it).
    let base = '';
    let size = Buffer.byteLength(ext);
    for (const ch of name.slice(0, name.length - ext.length)) {
      size += Buffer.byteLength(ch);
      if (size > MAX_BYTES) break;
      base += ch;
    }
    // The cut may end on a dot or a blank, which Windows drops: not at the end of the name.
    name = (ext ? base : withoutDotsAtEnd(base)) + ext;
  }
  return name;
}

const DOT_OR_BLANK = /[.\s]/;

/**
 * The name without the dots and blanks at its end (Windows drops them), by a loop: `/[.\s]+$/` is
 * quadratic on a long run of them that does not end the name (30,000 took 1.3 s).
 */
function withoutDotsAtEnd(name: string): string {
  let end = name.length;
  while (end > 0 && DOT_OR_BLANK.test(name[end - 1]!)) end--;
  return name.slice(0, end);
}

/**
 * The file name a Content-Disposition header proposes: RFC 5987 `filename*` first, then `filename`
 * (`extended: false`: `filename` only, as curl 7.88's -J reads it). The one reader of this header
 * for every command (sling's -d, a curl command's -J); sanitizeFileName then makes it safe.
 */
export function nameFromContentDisposition(value: string | undefined, { extended = true } = {}): string | undefined {
  if (!value) return undefined;
  // No `\s*` before the charset: the charset is trimmed, and blanks both could take made a long run
  // of them quadratic.
  const star = extended ? /(?:^|;)\s*filename\*\s*=([^';]*)'[^']*'([^;]*)/i.exec(value) : null;
  if (star) {
    const charset = star[1]!.trim().toLowerCase();
    try {
      const bytes = Buffer.from(
        star[2]!.trim().replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
        'latin1',
      );
      const text = charset === 'iso-8859-1' ? bytes.toString('latin1') : bytes.toString('utf8');
      if (text) return text;
    } catch {
      // fall through to filename=
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(value);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const token = /(?:^|;)\s*filename\s*=\s*([^;\s]+)/i.exec(value);
  return token?.[1];
}

const EXTENSIONS: Record<string, string> = {
  'application/json': '.json',
  'text/html': '.html',
  'text/plain': '.txt',
  'text/css': '.css',
  'text/csv': '.csv',
  'text/xml': '.xml',
  'application/xml': '.xml',
  'application/javascript': '.js',
  'text/javascript': '.js',
  'application/pdf': '.pdf',
  'application/zip': '.zip',
  'application/gzip': '.gz',
  'application/x-gzip': '.gz',
  'application/x-tar': '.tar',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/svg+xml': '.svg',
  'image/webp': '.webp',
  'audio/mpeg': '.mp3',
  'video/mp4': '.mp4',
};

export function extensionFor(contentType: string | undefined): string {
  const mime = contentType?.split(';')[0]?.trim().toLowerCase();
  return (mime && EXTENSIONS[mime]) || '';
}

/** docs/decisions.md, Downloads: Content-Disposition, else the last URL path segment (+ extension from the type), else `index`. */
export function chooseFileName(contentDisposition: string | undefined, urlPath: string, contentType: string | undefined): string {
  const fromHeader = sanitizeFileName(nameFromContentDisposition(contentDisposition) ?? '');
  if (fromHeader) return fromHeader;
  const segment = urlPath.split('?')[0]!.split('/').pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // keep it as written
  }
  const fromUrl = sanitizeFileName(decoded);
  const ext = extensionFor(contentType);
  // With the extension, a name may need cutting again (255 bytes).
  if (fromUrl) return fromUrl.includes('.') || !ext ? fromUrl : sanitizeFileName(fromUrl + ext)!;
  return 'index' + ext;
}

/**
 * Creates `name.ext`, or `name-1.ext`, `name-2.ext`, ... in `dir`: the first name nothing holds.
 * Each is created exclusively (O_EXCL, O_NOFOLLOW: openToWrite's `new`), so a file, a folder or a
 * link there, even a link to nowhere, or one that appears meanwhile, is never written through or
 * over: the next number is tried.
 */
export function openUnique(dir: string, name: string): { name: string; fd: number } {
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  for (let i = 0; ; i++) {
    let candidate = name;
    if (i > 0) {
      // Shortened to stay a name the file system takes (sanitizeFileName allows 255 bytes).
      let base = stem;
      while (Buffer.byteLength(`${base}-${i}${ext}`) > MAX_BYTES && base.length > 1) base = [...base].slice(0, -1).join('');
      candidate = `${base}-${i}${ext}`;
    }
    try {
      return { name: candidate, fd: openToWrite(join(dir, candidate), 'new') };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw Object.assign(e as Error, { fileName: candidate });
    }
  }
}
