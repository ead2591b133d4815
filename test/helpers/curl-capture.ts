// A loopback HTTP/1.1 capture server on a raw socket (node:http would reject or rewrite some of
// what curl sends: raw UTF-8 in the target, odd header bytes), and the lenient comparison of two
// request lists that the curl-file tests use: what real curl sent against what sling sent.
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { comparisonToolMissing } from './tools.js';

export interface RawRequest {
  method: string;
  /** The request target exactly as received, as a byte string (latin1). */
  target: string;
  headers: [string, string][];
  body: Buffer;
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
  const s = /^\/status\/(\d{3})/.exec(path);
  if (s) return { status: Number(s[1]), headers: [] };
  if (path.startsWith('/set-cookie')) return { status: 200, headers: [['Set-Cookie', 'sid=abc; Path=/']] };
  return { status: 200, headers: [] };
}

/** Starts the server on 127.0.0.1 (port 0). Answers 200 JSON, and redirects on /redirect[-CODE]/N. */
export async function startCurlCapture(): Promise<CurlCapture> {
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
          const req: RawRequest = { method, target, headers, body: Buffer.alloc(0) };
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
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

const boundaryOf = (r: RawRequest) => /boundary=([^;\s]+)/.exec(r.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? '')?.[1];

/**
 * The differences between what curl sent and what sling sent, as curldiff counts them (without
 * --lenient-transport): the User-Agent is ignored when curl sent its default, Accept-Encoding is
 * compared by presence, multipart boundaries are ignored; connection management counts
 * (`Connection`, `Expect`, `Proxy-Connection`, `Content-Length: 0`).
 */
export function diffRequests(expected: RawRequest[], actual: RawRequest[]): string[] {
  const diffs: string[] = [];
  if (expected.length !== actual.length) diffs.push(`request count: curl ${expected.length}, sling ${actual.length}`);
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    const at = `#${i + 1}`;
    if (e.method !== a.method) diffs.push(`${at} method: curl ${e.method}, sling ${a.method}`);
    if (e.target !== a.target) diffs.push(`${at} target: curl ${JSON.stringify(e.target)}, sling ${JSON.stringify(a.target)}`);
    const eb = boundaryOf(e);
    const ab = boundaryOf(a);
    const body = (r: RawRequest, b?: string) => (b ? r.body.toString('latin1').split(b).join('BOUNDARY') : r.body.toString('latin1'));
    if (body(e, eb) !== body(a, ab)) diffs.push(`${at} body: curl ${JSON.stringify(body(e, eb).slice(0, 200))}, sling ${JSON.stringify(body(a, ab).slice(0, 200))}`);
    const norm = (r: RawRequest, b?: string) => {
      const out: string[] = [];
      for (const [n, v0] of r.headers) {
        const name = n.toLowerCase();
        let v = v0;
        if (name === 'user-agent' && (e.headers.find(([h]) => h.toLowerCase() === 'user-agent')?.[1] ?? '').startsWith('curl/')) continue;
        if (name === 'accept-encoding') v = '(present)';
        if (b) v = v.split(b).join('BOUNDARY');
        out.push(`${name}: ${v}`);
      }
      return out.sort();
    };
    const eh = norm(e, eb);
    const ah = norm(a, ab);
    const missing = eh.filter((h) => !ah.includes(h) || eh.filter((x) => x === h).length > ah.filter((x) => x === h).length);
    const extra = ah.filter((h) => !eh.includes(h) || ah.filter((x) => x === h).length > eh.filter((x) => x === h).length);
    if (missing.length || extra.length) diffs.push(`${at} headers: curl only ${JSON.stringify([...new Set(missing)])}, sling only ${JSON.stringify([...new Set(extra)])}`);
  }
  return diffs;
}
