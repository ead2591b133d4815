import { createHash, createHmac, randomBytes } from 'node:crypto';
import { jsonPath } from './jsonpath.js';

/**
 * sling's side of the script realms' host operations that need Node (script.ts answers each
 * realm's one host function and hands these here): the digests of the JetBrains crypto API and
 * JSONPath (engine/jetbrains.ts asks), the hashes and random bytes of `require('crypto')`
 * (engine/lib.ts asks), and `checked`, which reads a JetBrains script's result back as data.
 * Every value that crosses is a string (JSON for structures). The code that runs inside the
 * engine is in engine/ (ARCHITECTURE.md, "Scripts").
 */

/** A host operation of the JetBrains realm that needs Node: a digest of the crypto API, or JSONPath. */
export function jetbrainsHelper(op: string, a: (string | undefined)[]): string | undefined {
  if (op === 'digest') return JSON.stringify(digest(a[0] ?? '', a[1] ?? 'null', a[2] ?? '[]', a[3] ?? 'crypto'));
  if (op === 'jsonPath') {
    try {
      return JSON.stringify(jsonPath(JSON.parse(a[0] ?? 'null'), a[1] ?? ''));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The library's host operations (engine/lib.ts): a hash or HMAC of hex bytes, random bytes. Hex text both ways. */
export function libraryHelper(op: string, a: (string | undefined)[]): string | undefined {
  if (op === 'hash') {
    const [alg = '', key, data = ''] = a;
    if (!['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'].includes(alg) || !/^(?:[0-9a-f]{2})*$/.test(data)) return undefined;
    if (key !== undefined && !/^(?:[0-9a-f]{2})*$/.test(key)) return undefined;
    const h = key === undefined ? createHash(alg) : createHmac(alg, Buffer.from(key, 'hex'));
    return h.update(Buffer.from(data, 'hex')).digest('hex');
  }
  if (op === 'random') {
    const n = Number(a[0]);
    return Number.isInteger(n) && n >= 0 && n <= 65536 ? randomBytes(n).toString('hex') : undefined;
  }
  return undefined;
}

type Piece = [kind: string, data: string, how?: string];

/** Bytes of an input or a secret of the crypto API (`updateWithText(t, encoding)`, `withHexSecret(h)`, ...). */
function bytesOf(p: Piece, name: string): Buffer {
  const [kind, data, how] = p;
  if (kind === 'hex') {
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(data)) throw new Error(`${name}: '${short(data)}' is not hexadecimal (an even number of 0-9, a-f)`);
    return Buffer.from(data, 'hex');
  }
  if (kind === 'base64') {
    const ok = how === 'url' ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/;
    if (!ok.test(data)) throw new Error(`${name}: '${short(data)}' is not ${how === 'url' ? 'URL-safe ' : ''}Base64`);
    return Buffer.from(data, how === 'url' ? 'base64url' : 'base64');
  }
  const enc = (how ?? 'UTF-8').toLowerCase().replace(/_/g, '-');
  if (enc === 'utf-8' || enc === 'utf8') return Buffer.from(data, 'utf8');
  if (enc === 'iso-8859-1' || enc === 'latin1' || enc === 'iso8859-1') return Buffer.from(data, 'latin1');
  if (enc === 'us-ascii' || enc === 'ascii') return Buffer.from(data.replace(/[^\x00-\x7f]/g, '?'), 'latin1');
  if (enc === 'utf-16le') return Buffer.from(data, 'utf16le');
  if (enc === 'utf-16be' || enc === 'utf-16') return Buffer.from(data, 'utf16le').swap16();
  throw new Error(`${name}: unknown encoding '${short(how ?? '')}' (UTF-8, ISO-8859-1, US-ASCII, UTF-16LE, UTF-16BE)`);
}

const short = (s: string) => (s.length > 40 ? s.slice(0, 40) + '...' : s);

/** crypto.<alg>() and crypto.hmac.<alg>(): the digest of the pieces, in hex and Base64, or what is wrong. */
function digest(alg: string, secretJson: string, piecesJson: string, name: string): { hex: string; base64: string; base64url: string } | { error: string } {
  try {
    if (!['md5', 'sha1', 'sha256', 'sha384', 'sha512'].includes(alg)) throw new Error(`${name}: unknown hash`);
    const secret = JSON.parse(secretJson) as Piece | null;
    const pieces = JSON.parse(piecesJson) as Piece[];
    const hmac = name.startsWith('crypto.hmac.');
    if (hmac && !secret) throw new Error(`${name}: no secret (withTextSecret, withHexSecret or withBase64Secret comes first)`);
    const h = hmac ? createHmac(alg, bytesOf(secret!, name)) : createHash(alg);
    for (const p of pieces) h.update(bytesOf(p, name));
    const out = h.digest();
    return { hex: out.toString('hex'), base64: out.toString('base64'), base64url: out.toString('base64url') };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The sandbox's result (JSON made inside it, where a script may have replaced JSON.stringify), read back as data. */
export function checked(out: unknown): unknown {
  const broken = { tests: [], logs: [], exit: false, error: 'the script broke the sandbox (its result is not readable)' };
  if (typeof out !== 'string') return broken;
  let r: { tests?: unknown; logs?: unknown; exit?: unknown; error?: unknown };
  try {
    r = JSON.parse(out) as typeof r;
  } catch {
    return broken;
  }
  if (r === null || typeof r !== 'object' || !Array.isArray(r.tests) || !Array.isArray(r.logs)) return broken;
  const tests = r.tests.filter((t): t is [string, string | null] => Array.isArray(t) && typeof t[0] === 'string' && (t[1] === null || typeof t[1] === 'string'));
  const logs = r.logs.filter((l): l is string => typeof l === 'string');
  const at = (r as { at?: unknown }).at;
  return {
    tests,
    logs,
    exit: r.exit === true,
    ...((r as { unsubscribed?: unknown }).unsubscribed === true ? { unsubscribed: true } : {}),
    ...(typeof r.error === 'string' ? { error: r.error } : {}),
    ...(Array.isArray(at) && at.length === 2 && at.every((n) => Number.isInteger(n) && n > 0) ? { at: at as [number, number] } : {}),
  };
}
