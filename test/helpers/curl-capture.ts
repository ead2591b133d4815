// A loopback HTTP/1.1 capture server on a raw socket (node:http would reject or rewrite some of
// what curl sends: raw UTF-8 in the target, odd header bytes), and the comparison of two request
// lists that the curl-file tests use, byte for byte: what real curl sent against what sling sent.
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { comparisonToolMissing } from './tools.js';

export interface RawRequest {
  /** The request line exactly as received (latin1), without its CRLF. */
  line: string;
  /** The header lines exactly as received (latin1), in order, name case kept, without their CRLFs. */
  rawHeaders: string[];
  method: string;
  /** The request target exactly as received, as a byte string (latin1). */
  target: string;
  headers: [string, string][];
  body: Buffer;
  /** The client's address (TCP only). */
  remoteAddress?: string;
}

export interface CurlCapture {
  port: number;
  url: string;
  requests: RawRequest[];
  close(): Promise<void>;
}

function answer(target: string): { status: number; headers: [string, string][] } {
  const path = target.replace(/^[a-z]+:\/\/[^/]*/i, '');
  const m = /^\/redirect(?:-(\d{3}))?\/(\d+)/.exec(path);
  if (m && Number(m[2]) > 0) return { status: m[1] ? Number(m[1]) : 302, headers: [['Location', `/redirect${m[1] ? '-' + m[1] : ''}/${Number(m[2]) - 1}`]] };
  // /hop[-CODE]?to=URL (URL percent-encoded): a redirect to anywhere, another host included.
  const hop = /^\/hop(?:-(\d{3}))?\?to=(.*)$/.exec(path);
  if (hop) return { status: hop[1] ? Number(hop[1]) : 302, headers: [['Location', decodeURIComponent(hop[2]!)]] };
  const s = /^\/status\/(\d{3})/.exec(path);
  if (s) return { status: Number(s[1]), headers: [] };
  if (path.startsWith('/set-cookie')) return { status: 200, headers: [['Set-Cookie', 'sid=abc; Path=/']] };
  return { status: 200, headers: [] };
}

/** Starts the server on 127.0.0.1 (port 0), or on the Unix socket `path`. Answers 200 JSON, and redirects on /redirect[-CODE]/N and /hop[-CODE]?to=URL. */
export async function startCurlCapture(path?: string): Promise<CurlCapture> {
  const requests: RawRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let pending: { req: RawRequest; need?: number; chunked: boolean } | undefined;
    const respond = (req: RawRequest) => {
      requests.push(req);
      const a = answer(req.target);
      const body = req.method === 'HEAD' ? '' : JSON.stringify({ ok: true, n: requests.length }) + '\n';
      let head = `HTTP/1.1 ${a.status} X\r\nContent-Type: application/json\r\nContent-Length: ${req.method === 'HEAD' ? 0 : Buffer.byteLength(body)}\r\n`;
      for (const [n, v] of a.headers) head += `${n}: ${v}\r\n`;
      socket.write(head + '\r\n' + body);
    };
    const pump = () => {
      for (;;) {
        if (!pending) {
          const end = buf.indexOf('\r\n\r\n');
          if (end === -1) return;
          const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
          buf = buf.subarray(end + 4);
          const [method, target] = lines[0]!.split(' ') as [string, string];
          const headers = lines.slice(1).map((l) => {
            const c = l.indexOf(':');
            return [l.slice(0, c), l.slice(c + 1).trim()] as [string, string];
          });
          const get = (n: string) => headers.find(([h]) => h.toLowerCase() === n)?.[1];
          if (get('expect')?.toLowerCase() === '100-continue') socket.write('HTTP/1.1 100 Continue\r\n\r\n');
          const req: RawRequest = { line: lines[0]!, rawHeaders: lines.slice(1), method, target, headers, body: Buffer.alloc(0), remoteAddress: socket.remoteAddress };
          const te = get('transfer-encoding');
          const cl = get('content-length');
          if (te && /chunked/i.test(te)) pending = { req, chunked: true };
          else if (cl && Number(cl) > 0) pending = { req, need: Number(cl), chunked: false };
          else {
            respond(req);
            continue;
          }
        }
        const p = pending!;
        if (!p.chunked) {
          if (buf.length < p.need!) return;
          p.req.body = buf.subarray(0, p.need!);
          buf = buf.subarray(p.need!);
          pending = undefined;
          respond(p.req);
          continue;
        }
        // Chunked: size line, data, CRLF; a 0 chunk and optional trailers end it.
        const nl = buf.indexOf('\r\n');
        if (nl === -1) return;
        const size = parseInt(buf.subarray(0, nl).toString('latin1'), 16);
        if (size === 0) {
          const end = buf.indexOf('\r\n\r\n', nl - 2 < 0 ? 0 : nl - 2);
          if (end === -1) return;
          buf = buf.subarray(end + 4);
          pending = undefined;
          respond(p.req);
          continue;
        }
        if (buf.length < nl + 2 + size + 2) return;
        p.req.body = Buffer.concat([p.req.body, buf.subarray(nl + 2, nl + 2 + size)]);
        buf = buf.subarray(nl + 2 + size + 2);
      }
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      pump();
    });
  });
  await new Promise<void>((resolve) => (path ? server.listen(path, resolve) : server.listen(0, '127.0.0.1', resolve)));
  const port = path ? 0 : (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Why curl cannot be compared against here, or undefined when curl on PATH runs; under CI=true a missing curl throws (helpers/tools.ts). */
export function curlMissing(): string | undefined {
  return comparisonToolMissing('curl');
}

/** The curl version line (for messages). */
export function curlVersion(): string {
  return spawnSync('curl', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '';
}

/**
 * A difference between the two sides that is known and not fixed yet, allowed by name so that
 * nothing else is: `blanks`, the blanks after that header's colon (and at the end of its line) may
 * differ; `place`, that header's line may stand elsewhere in the head (its bytes must still match).
 */
export interface KnownDifference {
  header: string;
  kind: 'blanks' | 'place';
  /** Why it is allowed: what each side does. */
  why: string;
}

/** The request without its header lines of that name (a header that one side sends on purpose). */
export function withoutHeader(r: RawRequest, name: string): RawRequest {
  const n = name.toLowerCase();
  return { ...r, headers: r.headers.filter(([h]) => h.toLowerCase() !== n), rawHeaders: r.rawHeaders.filter((l) => l.slice(0, l.indexOf(':')).toLowerCase() !== n) };
}

const boundaryOf = (r: RawRequest) => /boundary=([^;\s]+)/.exec(r.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? '')?.[1];

/**
 * The differences between what curl sent and what sling sent, compared as bytes: the request line,
 * the header lines in their order with their case, and the body. Normalised, because they must
 * differ and nothing else may:
 *   - the `User-Agent` line, when the reference sent its default (`curl/VERSION`, `HTTPie/VERSION`;
 *     sling sends its own);
 *   - the value of `Accept-Encoding` (`--compressed`: each program offers the codings it was built
 *     with; the line must still be there, in the same place, with the same name);
 *   - a multipart boundary (each program draws its own), in the headers and the body.
 */
export function diffRequests(expected: RawRequest[], actual: RawRequest[], known: readonly KnownDifference[] = [], reference = 'curl'): string[] {
  const diffs: string[] = [];
  if (expected.length !== actual.length) diffs.push(`request count: ${reference} ${expected.length}, sling ${actual.length}`);
  const defaultUa = (r: RawRequest) => r.rawHeaders.some((l) => /^user-agent: (curl|HTTPie)\//i.test(l));
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    const at = `#${i + 1}`;
    const dropUa = defaultUa(e);
    const norm = (r: RawRequest) => {
      const b = boundaryOf(r);
      const unbound = (t: string) => (b ? t.split(b).join('BOUNDARY') : t);
      const nameOf = (l: string) => l.slice(0, l.indexOf(':')).toLowerCase();
      const kindOf = (l: string, kind: KnownDifference['kind']) => known.some((k) => k.kind === kind && k.header.toLowerCase() === nameOf(l));
      const lines = r.rawHeaders
        .filter((l) => !(dropUa && /^user-agent:/i.test(l)))
        .map((l) => unbound(l.replace(/^(accept-encoding:).*$/i, '$1 (codings)')))
        .map((l) => (kindOf(l, 'blanks') ? l.replace(/^([^:]*):\s*(.*?)\s*$/, '$1: $2') : l));
      const head = [...lines.filter((l) => !kindOf(l, 'place')), ...lines.filter((l) => kindOf(l, 'place')).sort()];
      return { line: r.line, head, body: unbound(r.body.toString('latin1')) };
    };
    const en = norm(e);
    const an = norm(a);
    if (en.line !== an.line) diffs.push(`${at} request line: ${reference} ${JSON.stringify(en.line)}, sling ${JSON.stringify(an.line)}`);
    if (en.head.join('\r\n') !== an.head.join('\r\n')) diffs.push(`${at} header lines: ${reference} ${JSON.stringify(en.head)}, sling ${JSON.stringify(an.head)}`);
    if (en.body !== an.body) diffs.push(`${at} body: ${reference} ${JSON.stringify(en.body.slice(0, 200))}, sling ${JSON.stringify(an.body.slice(0, 200))}`);
  }
  return diffs;
}

/** Runs a script file with bash in `dir` (nothing on stdin, output thrown away), with `home` as HOME: its exit status. */
export function runBash(dir: string, file: string, home: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [file], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', resolve);
  });
}
