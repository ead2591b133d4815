// curl options that need the transport: --unix-socket, --retry, --http2 / --http2-prior-knowledge,
// -4. Each is sent by real curl and by `sling exec` to the same loopback server and compared. Also
// what only sling does there: the h2c upgrade accepted, HTTP/2 failures, and the HTTP/2 request
// lines of .http files (the same transport settings).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing, diffRequests, startCurlCapture, type RawRequest } from '../helpers/curl-capture.js';
import { closedPort, makeCerts, certsUnavailableReason } from '../helpers/servers.js';
import { httpServer, httpsServer, okText, proxyServer } from '../helpers/assert.js';

const noCurl = curlMissing();
const dir = () => mkdtempSync(join(tmpdir(), 'sling-curl-tr-'));
const home = mkdtempSync(join(tmpdir(), 'sling-curl-tr-home-'));

interface Seen {
  method: string;
  url: string;
  version: string;
  host?: string;
  authority?: string;
  h2settings?: string;
}

/** Runs one curl command line with real curl, then with sling exec (as a one-line file). */
async function both(line: string): Promise<{ curl: number | null; sling: number | null; stderr: string }> {
  const d = dir();
  // Asynchronous: the servers live in this process and must keep answering while curl runs.
  const c = await new Promise<{ status: number | null }>((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd: d, env: { ...process.env, HOME: home }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status });
    });
  });
  writeFileSync(join(d, 'c.sh'), line + '\n');
  const s = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  return { curl: c.status, sling: s.code, stderr: s.stderr };
}

test("--unix-socket: the request goes to the socket, Host from the URL; the bytes are curl's", { skip: noCurl }, async (t) => {
  const sock = join(dir(), 's.sock');
  const srv = await startCurlCapture(sock);
  t.after(() => srv.close());
  const r = await both(`curl -s -o /dev/null --unix-socket ${sock} http://api.local/v1/x?y=1`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(srv.requests.length, 2);
  const [byCurl, bySling] = srv.requests as [RawRequest, RawRequest];
  assert.deepEqual(diffRequests([byCurl], [bySling]), []);
  assert.equal(byCurl.line, 'GET /v1/x?y=1 HTTP/1.1');
  assert.equal(byCurl.rawHeaders[0], 'Host: api.local');
});

test('--retry: transient 503s are retried as curl retries them', { skip: noCurl }, async (t) => {
  let n = 0;
  const counts: number[] = [];
  const srv = http.createServer((req, res) => {
    n++;
    // Every third request of a run succeeds: two 503s, then 200.
    if (n % 3 !== 0) {
      res.writeHead(503, { 'Retry-After': '1' });
      res.end('busy');
    } else res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r)));
  const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/r`;
  const r = await both(`curl -s -o out.txt --retry 3 --retry-delay 1 ${url}`);
  counts.push(n);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(n, 6, 'both sent 3 requests: two 503s and the 200');
  assert.match(r.stderr, /HTTP 503 from 127\.0\.0\.1:\d+: retrying in 1s \(3 retries left\)/);
  // Without --retry, one request and its 503.
  n = 0;
  const once = await both(`curl -s -o /dev/null ${url}`);
  assert.deepEqual([once.curl, once.sling, n], [0, 0, 2]);
});

test('--retry-connrefused retries a refused connection, then fails like curl (exit 6 / 7)', { skip: noCurl }, async () => {
  const r = await both('curl -s -o /dev/null --retry 1 --retry-delay 1 --retry-connrefused http://127.0.0.1:9/');
  assert.equal(r.curl, 7);
  assert.equal(r.sling, 6);
  assert.match(r.stderr, /connection refused by 127\.0\.0\.1:9: retrying in 1s \(1 retry left\)/);
});

test('--http2-prior-knowledge speaks h2 in clear text, as curl does', { skip: noCurl }, async (t) => {
  const seen: Seen[] = [];
  const srv = http2.createServer();
  srv.on('request', (req, res) => {
    seen.push({ method: req.method, url: req.url, version: req.httpVersion, authority: req.headers[':authority'] as string });
    // The body read first: an answer that ends the stream while the client still uploads resets it,
    // and curl then exits 92 (a race that a loaded machine loses now and then).
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => void srv.close());
  const port = (srv.address() as { port: number }).port;
  const r = await both(`curl -s -o /dev/null --http2-prior-knowledge -X PUT -d x=1 http://127.0.0.1:${port}/h2?q=1`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1], seen[0]);
  assert.deepEqual(seen[0], { method: 'PUT', url: '/h2?q=1', version: '2.0', authority: `127.0.0.1:${port}` });
});

const certs = makeCerts();
test('--http2 over TLS negotiates h2 with ALPN (and HTTP/1.1 when the server only has that)', { skip: noCurl ?? (certs ? undefined : certsUnavailableReason()) }, async (t) => {
  const seen: Seen[] = [];
  const srv = http2.createSecureServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert), allowHTTP1: true });
  srv.on('request', (req, res) => {
    seen.push({ method: req.method, url: req.url, version: req.httpVersion });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  // An http2 server's close() waits for sessions it no longer counts as handles: do not wait.
  t.after(() => void srv.close());
  const port = (srv.address() as { port: number }).port;
  const r = await both(`curl -s -o /dev/null --http2 --cacert ${certs!.caCert} https://127.0.0.1:${port}/tls`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.deepEqual(
    seen.map((s) => s.version),
    ['2.0', '2.0'],
  );
  // Without --http2: HTTP/1.1 for both.
  const h1 = await both(`curl -s -o /dev/null --http1.1 --cacert ${certs!.caCert} https://127.0.0.1:${port}/tls`);
  assert.deepEqual([h1.curl, h1.sling], [0, 0], h1.stderr);
  assert.deepEqual(
    seen.slice(2).map((s) => s.version),
    ['1.1', '1.1'],
  );
});

test("--resolve and --connect-to in a curl file change only where the connection goes: Host, SNI and the certificate name stay the URL's host, as curl does", {
  skip: certs ? undefined : certsUnavailableReason(),
}, async (t) => {
  // The certificate names lanes.test and no address: checking it against 127.0.0.1 would fail.
  const seen: { url: string; host?: string; sni?: string }[] = [];
  const srv = https.createServer({ key: readFileSync(certs!.lanesKey), cert: readFileSync(certs!.lanesCert) }, (req, res) => {
    const sni = (req.socket as import('node:tls').TLSSocket & { servername?: string }).servername;
    seen.push({ url: req.url ?? '', host: req.headers.host, sni: sni || undefined });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => void srv.close());
  const port = (srv.address() as { port: number }).port;
  const ca = certs!.caCert;
  const script = [
    `curl -s -o /dev/null --cacert ${ca} --resolve lanes.test:${port}:127.0.0.1 https://lanes.test:${port}/resolve`,
    `curl -s -o /dev/null --cacert ${ca} --connect-to lanes.test:443:127.0.0.1:${port} https://lanes.test/connect-to`,
    // --connect-to first, then --resolve on the host it names.
    `curl -s -o /dev/null --cacert ${ca} --connect-to lanes.test:443:far.test:${port} --resolve far.test:${port}:127.0.0.1 https://lanes.test/both`,
    // A rule for another host or port changes nothing: this one would send the request nowhere.
    `curl -s -o /dev/null --cacert ${ca} --resolve lanes.test:1:192.0.2.1 --resolve other.test:${port}:192.0.2.1 --resolve lanes.test:${port}:127.0.0.1 https://lanes.test:${port}/first-match`,
    '',
  ].join('\n');
  const expected = [
    { url: '/resolve', host: `lanes.test:${port}`, sni: 'lanes.test' },
    { url: '/connect-to', host: 'lanes.test', sni: 'lanes.test' },
    { url: '/both', host: 'lanes.test', sni: 'lanes.test' },
    { url: '/first-match', host: `lanes.test:${port}`, sni: 'lanes.test' },
  ];
  const d = dir();
  writeFileSync(join(d, 'c.sh'), script);
  const s = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(s.code, 0, s.stderr);
  assert.deepEqual(seen, expected);
  if (noCurl) return;
  // Real curl, given the same file, sees the same.
  seen.length = 0;
  const c = await new Promise<number | null>((resolve) => {
    const child = spawn('bash', ['c.sh'], { cwd: d, env: { ...process.env, HOME: home }, stdio: 'ignore' });
    child.on('close', (status) => resolve(status));
  });
  assert.equal(c, 0);
  assert.deepEqual(seen, expected);
});

test("-4 resolves localhost to IPv4; the bytes are curl's", { skip: noCurl }, async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const r = await both(`curl -s -o /dev/null -4 http://localhost:${srv.port}/four`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(srv.requests.length, 2);
  assert.deepEqual(diffRequests(srv.requests.slice(0, 1), srv.requests.slice(1)), []);
  assert.equal(srv.requests[0]!.rawHeaders[0], `Host: localhost:${srv.port}`);
});

test('--http2 on http:// sends one HTTP/1.1 request with the h2c upgrade offer curl sends, to a server without h2c', { skip: noCurl }, async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const offer = ['Connection: Upgrade, HTTP2-Settings', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA'];
  for (const [line, own] of [
    [`curl -s -o /dev/null --http2 ${srv.url}/plain`, []],
    // With a body, and next to the user's own Connection header (a line of its own after the offer).
    [`curl -s -o /dev/null --http2 -d abc ${srv.url}/post`, []],
    [`curl -s -o /dev/null --http2 -H 'Connection: close' ${srv.url}/close`, ['Connection: close']],
  ] as const) {
    srv.requests.length = 0;
    const r = await both(line);
    assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
    assert.equal(srv.requests.length, 2, line);
    assert.deepEqual(diffRequests(srv.requests.slice(0, 1), srv.requests.slice(1)), [], line);
    for (const h of [...offer, ...own]) assert.ok(srv.requests[0]!.rawHeaders.includes(h), `${line}: ${h} in ${srv.requests[0]!.rawHeaders.join(' | ')}`);
  }
});

/**
 * A server that accepts the h2c upgrade (101 Switching Protocols) on HTTP/1.1 connections and speaks
 * HTTP/2 to clients that start with the connection preface (those are handed to a node:http2 server).
 */
async function h2cServer(t: { after(fn: () => unknown): void }) {
  const log: string[] = [];
  const h2 = http2.createServer();
  h2.on('stream', (stream, headers) => {
    log.push(`h2 ${headers[':method']} ${headers[':path']}`);
    stream.respond({ ':status': 200, 'content-type': 'text/plain' });
    stream.end(`hello over h2 ${headers[':path']}`);
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  const h2port = (h2.address() as { port: number }).port;
  const front = net.createServer((socket) => {
    socket.once('data', (first: Buffer) => {
      if (first.toString('latin1').startsWith('PRI * HTTP/2.0')) {
        const back = net.connect(h2port, '127.0.0.1', () => {
          back.write(first);
          socket.pipe(back).pipe(socket);
        });
        back.on('error', () => socket.destroy());
        socket.on('error', () => back.destroy());
        return;
      }
      const head = first.toString('latin1');
      log.push(`h1 ${head.split('\r\n')[0]} upgrade=${/\r\nUpgrade: h2c\r\n/i.test(head)}`);
      socket.on('error', () => {});
      socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n');
    });
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  t.after(() => {
    front.close();
    h2.close();
  });
  return { port: (front.address() as { port: number }).port, log };
}

test('--http2 on http:// to a server that accepts h2c: the request is repeated over HTTP/2 (no body), then HTTP/2 at once', async (t) => {
  const { port, log } = await h2cServer(t);
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl --http2 http://127.0.0.1:${port}/one\ncurl --http2 http://127.0.0.1:${port}/two\n`);
  const r = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(log, ['h1 GET /one HTTP/1.1 upgrade=true', 'h2 GET /one', 'h2 GET /two']);
  assert.match(r.stdout, /HTTP\/2 200[\s\S]*hello over h2 \/one[\s\S]*HTTP\/2 200[\s\S]*hello over h2 \/two/);
});

test('--http2 on http:// to a server that accepts h2c: a request with a body is not sent twice (clear error, exit 6)', async (t) => {
  const { port, log } = await h2cServer(t);
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl --http2 -d a=1 http://127.0.0.1:${port}/post\n`);
  const r = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 6, r.stderr);
  assert.deepEqual(log, ['h1 POST /post HTTP/1.1 upgrade=true']);
  const lines = r.stderr.trim().split('\n');
  assert.match(
    lines[0]!,
    /^sling: error: c\.sh:1: 127\.0\.0\.1:\d+ switched to HTTP\/2 \(101 Switching Protocols, accepting the h2c upgrade offer\): sling cannot go on with that connection and does not send a POST request with a body twice$/,
  );
  assert.equal(lines[1], "  hint: ask for HTTP/2 with prior knowledge: curl's --http2-prior-knowledge, or `HTTP/2 (Prior Knowledge)` at the end of a .http request line");
  assert.equal(lines.length, 2, r.stderr);
});

test('HTTP/2 failures are one line and exit 6: refused, stream reset, GOAWAY, closed without answer, body cut short', async (t) => {
  const conns: net.Socket[] = [];
  const srv = http2.createServer();
  srv.on('connection', (c: net.Socket) => conns.push(c));
  srv.on('session', (s) => s.on('error', () => {}));
  srv.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    const half = () => {
      stream.respond({ ':status': 200, 'content-length': '100' });
      stream.write('abc');
    };
    switch (headers[':path']) {
      case '/rst':
        return stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      case '/noanswer':
        return stream.close(http2.constants.NGHTTP2_NO_ERROR);
      case '/goaway':
        return stream.session!.goaway(http2.constants.NGHTTP2_PROTOCOL_ERROR);
      case '/cancel':
        half();
        return setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), 50);
      case '/dies':
        half();
        return setTimeout(() => conns.forEach((c) => c.destroy()), 50);
      default:
        stream.respond({ ':status': 200 });
        stream.end('fine');
    }
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => {
    conns.forEach((c) => c.destroy());
    srv.close();
  });
  const port = (srv.address() as { port: number }).port;
  const where = `127.0.0.1:${port}`;
  const d = dir();
  const run = async (path: string, target = where) => {
    writeFileSync(join(d, 'c.sh'), `curl --http2-prior-knowledge http://${target}${path} -o out.bin\n`);
    const r = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
    const lines = r.stderr.trim().split('\n');
    return { code: r.code, line: lines[0], count: lines.length, file: existsSync(join(d, 'out.bin')) };
  };
  const closed = await closedPort();
  assert.deepEqual(await run('/x', `127.0.0.1:${closed}`), { code: 6, line: `sling: error: c.sh:1: connection refused by 127.0.0.1:${closed}`, count: 2, file: false });
  assert.deepEqual(await run('/rst'), { code: 6, line: `sling: error: c.sh:1: ${where} reset the HTTP/2 stream (INTERNAL_ERROR)`, count: 1, file: false });
  assert.deepEqual(await run('/noanswer'), { code: 6, line: `sling: error: c.sh:1: ${where} closed the HTTP/2 stream without answering (NO_ERROR)`, count: 1, file: false });
  assert.deepEqual(await run('/goaway'), { code: 6, line: `sling: error: c.sh:1: ${where} closed the HTTP/2 connection (PROTOCOL_ERROR)`, count: 1, file: false });
  for (const path of ['/cancel', '/dies']) {
    const r = await run(path);
    assert.equal(r.code, 6, path);
    assert.match(r.line, new RegExp(`^sling: error: c\\.sh:1: the response body from ${where.replace(/\./g, '\\.')} was cut short \\(Content-Length was 100\\): `), path);
    assert.equal(r.count, 1, path);
    // The bytes that came are left in the -o file, as curl leaves them.
    assert.equal(r.file ? readFileSync(join(d, 'out.bin'), 'utf8') : '(no file)', 'abc', path);
    rmSync(join(d, 'out.bin'));
  }
  // And the same server answers a good request.
  assert.deepEqual(await run('/ok'), { code: 0, line: '', count: 1, file: true });
  assert.equal(readFileSync(join(d, 'out.bin'), 'utf8'), 'fine');
});

test('.http request lines: HTTP/2 (ALPN over TLS, h2c offer over http://) and HTTP/2 (Prior Knowledge)', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const seen: string[] = [];
  const tlsSrv = http2.createSecureServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert), allowHTTP1: true });
  tlsSrv.on('request', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    seen.push(`tls ${req.url} ${req.httpVersion}`);
    res.end('ok');
  });
  const h2c = http2.createServer((req, res) => {
    seen.push(`h2c ${req.url} ${req.httpVersion}`);
    res.end('ok');
  });
  const plain = http.createServer((req, res) => {
    seen.push(`plain ${req.url} ${req.httpVersion} upgrade=${req.headers.upgrade}`);
    res.end('ok');
  });
  for (const s of [tlsSrv, h2c, plain]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.after(() => {
    tlsSrv.close();
    h2c.close();
    plain.close();
  });
  const port = (s: { address(): unknown }) => (s.address() as { port: number }).port;
  const d = dir();
  writeFileSync(
    join(d, 'v.http'),
    [
      `GET https://localhost:${port(tlsSrv)}/alpn HTTP/2`,
      '###',
      `GET https://localhost:${port(tlsSrv)}/one HTTP/1.1`,
      '###',
      `GET http://127.0.0.1:${port(h2c)}/prior HTTP/2 (Prior Knowledge)`,
      '###',
      `GET http://127.0.0.1:${port(plain)}/offer HTTP/2`,
      '###',
      `GET http://127.0.0.1:${port(plain)}/none`,
      '',
    ].join('\n'),
  );
  const r = await runSling(['--verify', certs!.caCert, 'exec', 'v.http'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(seen, ['tls /alpn 2.0', 'tls /one 1.1', 'h2c /prior 2.0', 'plain /offer 1.1 upgrade=h2c', 'plain /none 1.1 upgrade=undefined']);
  // --to curl keeps the choice.
  const c = await runSling(['exec', '--to', 'curl', 'v.http'], { cwd: d, env: { HOME: home } });
  assert.deepEqual(c.stdout.match(/--http2\S*/g), ['--http2', '--http2-prior-knowledge', '--http2']);
});

test('-m bounds the whole transfer (redirects and a body that keeps trickling) and --connect-timeout only connecting, as curl does; over HTTP/1.1, HTTPS and HTTP/2', async (t) => {
  const trickle = (write: (s: string) => boolean, end: () => void, closed: (fn: () => void) => void) => {
    let n = 0;
    const timer = setInterval(() => {
      write('x');
      if (++n >= 40) {
        clearInterval(timer);
        end();
      }
    }, 100);
    closed(() => clearInterval(timer));
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('late answer'), 700);
    if (req.url === '/redir') return void setTimeout(() => res.writeHead(302, { Location: '/trickle' }).end(), 300);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    trickle(
      (s) => res.write(s),
      () => res.end(),
      (fn) => res.on('close', fn),
    );
  };
  const plain = http.createServer(handler);
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  t.after(() => plain.closeAllConnections());
  t.after(() => new Promise((r) => plain.close(r)));
  const h2 = http2.createServer();
  h2.on('stream', (stream, headers) => {
    stream.on('error', () => {}); // the client gave up on it
    if (headers[':path'] === '/slow') return void setTimeout(() => (stream.respond({ ':status': 200 }), stream.end('late answer')), 700);
    stream.respond({ ':status': 200, 'content-type': 'text/plain' });
    trickle(
      (s) => stream.write(s),
      () => stream.end(),
      (fn) => stream.on('close', fn),
    );
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  t.after(() => h2.close());
  const port = (s: net.Server) => (s.address() as { port: number }).port;
  const origins = [`http://127.0.0.1:${port(plain)}`];
  const secure = makeCerts() ? await import('../helpers/servers.js').then((m) => m.startHttps(handler, { cert: 'good' })) : undefined;
  if (secure) {
    t.after(() => secure.close());
    origins.push(secure.url);
  } else t.diagnostic(`HTTPS part skipped: ${certsUnavailableReason()}`);
  const w = `-w '%{http_code} %{size_download} %{exitcode}\\n'`;
  const lines: string[] = [];
  origins.forEach((o, i) => {
    lines.push(`curl -s -k -m 0.5 -o t${i}.txt ${w} ${o}/trickle`, `curl -s -k -L -m 0.5 -o r${i}.txt ${w} ${o}/redir`, `curl -s -k --connect-timeout 0.3 -o s${i}.txt ${w} ${o}/slow`);
  });
  const h2o = `http://127.0.0.1:${port(h2)}`;
  lines.push(`curl -s --http2-prior-knowledge -m 0.5 -o t9.txt ${w} ${h2o}/trickle`, `curl -s --http2-prior-knowledge --connect-timeout 0.3 -o s9.txt ${w} ${h2o}/slow`);
  const d = dir();
  writeFileSync(join(d, 'c.sh'), lines.join('\n') + '\n');
  const r = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 2, r.stderr);
  // Each -w line comes right after the body (which has no newline of its own).
  const outs = r.stdout.match(/\d{3} \d+ \d+$/gm) ?? [];
  assert.equal(outs.length, lines.length, r.stdout);
  const files = [...origins.flatMap((_, i) => [`t${i}`, `r${i}`, `s${i}`]), 't9', 's9'];
  outs.forEach((line, i) => {
    const [status, size, code] = line.split(' ');
    const name = files[i]!;
    if (name.startsWith('s')) {
      assert.equal(line, '200 11 0', `${name}: --connect-timeout does not bound the wait for the answer`);
      assert.equal(readFileSync(join(d, `${name}.txt`), 'utf8'), 'late answer');
    } else {
      assert.equal(status, '200', name);
      assert.equal(code, '28', `${name}: -m ends the transfer`);
      assert.ok(Number(size) < 40, `${name}: stopped before the body ended (${size} bytes)`);
      // The bytes that came are in the file, as curl leaves them.
      assert.equal(readFileSync(join(d, `${name}.txt`), 'utf8'), 'x'.repeat(Number(size)), name);
    }
  });
  assert.equal((r.stderr.match(/took longer than 0\.5s \(--max-time\)/g) ?? []).length, origins.length * 2 + 1, r.stderr);
});

test('--http2-prior-knowledge to an HTTP/1.1 server: one line, exit 6, and -w %{exitcode} 52 as curl reports it', async (t) => {
  const srv = http.createServer((_req, res) => res.end('h1'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s --http2-prior-knowledge -w '%{exitcode}\\n' http://127.0.0.1:${(srv.address() as { port: number }).port}/x\n`);
  const r = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stdout, /^52$/m, r.stdout);
  assert.match(r.stderr, /did not answer in HTTP\/2/);
});

test('an HTTP/2-only server, or one that does not speak HTTP, asked in HTTP/1.1: one line that says so at once, exit 6, -w %{exitcode} 1 as curl', async (t) => {
  const h2 = http2.createServer();
  h2.on('stream', (stream) => (stream.respond({ ':status': 200 }), stream.end('h2')));
  h2.on('session', (s) => s.on('error', () => {}));
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  t.after(() => h2.close());
  // A banner and then silence (an SSH server on the port): no waiting for a timeout.
  const banner = net.createServer((c) => c.write('SSH-2.0-OpenSSH_9.2\r\n'));
  const held: net.Socket[] = [];
  banner.on('connection', (c) => held.push(c));
  await new Promise<void>((r) => banner.listen(0, '127.0.0.1', r));
  t.after(() => (held.forEach((c) => c.destroy()), banner.close()));
  const h2url = `http://127.0.0.1:${(h2.address() as { port: number }).port}/`;
  const bannerUrl = `http://127.0.0.1:${(banner.address() as { port: number }).port}/`;
  const w = `-w '%{exitcode}\\n'`;
  const d = dir();
  writeFileSync(join(d, 'c.sh'), [`curl -s --http2 ${w} ${h2url}`, `curl -s ${w} ${h2url}`, `curl -s ${w} ${bannerUrl}`].join('\n') + '\n');
  const r = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 6, r.stderr);
  assert.equal((r.stdout.match(/^1$/gm) ?? []).length, 3, r.stdout);
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('sling: error:'));
  assert.deepEqual(errors, [
    `sling: error: c.sh:1: ${h2url.slice(7, -1)} answered in HTTP/2 to an HTTP/1.1 request: it speaks HTTP/2 only`,
    `sling: error: c.sh:2: ${h2url.slice(7, -1)} answered in HTTP/2 to an HTTP/1.1 request: it speaks HTTP/2 only`,
    `sling: error: c.sh:3: ${bannerUrl.slice(7, -1)} did not answer in HTTP: its answer begins 'SSH-2.0-OpenSSH_9.2..'`,
  ]);
  assert.match(r.stderr, /hint: ask for HTTP\/2 with prior knowledge: curl's --http2-prior-knowledge/);
  // The main command says the same (no --timeout needed to end it).
  const main = await runSling([bannerUrl], { env: { HOME: home } });
  assert.equal(main.code, 6, main.stderr);
  assert.match(main.stderr, /did not answer in HTTP: its answer begins 'SSH-2\.0-/);
});

test("-f ends the transfer at an HTTP error's head, as curl does: the body is not waited for (HTTP/1.1 and HTTP/2)", async (t) => {
  const raw = net.createServer((c) => c.once('data', () => c.write('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 10\r\n\r\nab')));
  const held: net.Socket[] = [];
  raw.on('connection', (c) => held.push(c));
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  t.after(() => (held.forEach((c) => c.destroy()), raw.close()));
  const h2 = http2.createServer();
  h2.on('stream', (stream) => {
    stream.on('error', () => {});
    stream.respond({ ':status': 500, 'content-length': '10' });
    stream.write('ab');
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  t.after(() => h2.close());
  const port = (s: net.Server) => (s.address() as { port: number }).port;
  const w = `-w '%{http_code} %{size_download} %{exitcode}\\n'`;
  const d = dir();
  writeFileSync(
    join(d, 'c.sh'),
    [
      `curl -s -f -m 5 ${w} http://127.0.0.1:${port(raw)}/`,
      `curl -s -f -m 5 --http2-prior-knowledge ${w} http://127.0.0.1:${port(h2)}/`,
      `curl -s -f -m 5 -o x.bin ${w} http://127.0.0.1:${port(raw)}/`,
    ].join('\n') + '\n',
  );
  const r = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  // With the body waited for, -m would end each one with a timeout (exit 2, %{exitcode} 28).
  assert.equal(r.code, 5, r.stderr);
  assert.deepEqual(r.stdout.match(/^\d{3} \d+ \d+$/gm), ['500 0 22', '500 0 22', '500 0 22'], r.stdout);
  assert.equal(existsSync(join(d, 'x.bin')), false, '-f writes no file for an HTTP error');
  assert.equal((r.stderr.match(/the requested URL returned error: 500 Internal Server Error \(-f\)/g) ?? []).length, 3, r.stderr);
});

test('--retry-max-time: another try while the time so far is within it, the wait before it not counted (as curl 7.88)', async (t) => {
  let hits = 0;
  const srv = http.createServer((_req, res) => {
    hits++;
    setTimeout(() => res.end('late'), 3000);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s -o /dev/null -m 0.5 --retry 3 --retry-delay 1 --retry-max-time 1.5 http://127.0.0.1:${(srv.address() as { port: number }).port}/\n`);
  const r = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 2, r.stderr);
  // 0.5 s in (within 1.5 s): tried again after 1 s; 2 s in: no more.
  assert.equal(hits, 2, r.stderr);
  assert.equal((r.stderr.match(/retrying in 1s/g) ?? []).length, 1, r.stderr);
});

test('-L then a hop that fails: -w reports the last answer (302), the redirects so far and the failing URL, -D has their heads, as curl does', async (t) => {
  const srv = http.createServer((req, res) => {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
    setTimeout(() => (n > 0 ? res.writeHead(302, { Location: `/redir?n=${n - 1}` }).end() : res.end('done')), 400);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
  const d = dir();
  writeFileSync(
    join(d, 'c.sh'),
    `curl -s -L -m 1.4 -D heads.txt -o /dev/null -w '%{http_code} %{num_redirects} %{url_effective} %{exitcode}\\n' '${base}/redir?n=5'\ncurl -s -L --max-redirs 1 -o /dev/null '${base}/redir?n=5'\n`,
  );
  const r = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 2, r.stderr);
  // 0.4 s a hop: three redirects came within 1.4 s; the fourth request (n=2) ran out of time.
  assert.match(r.stdout, new RegExp(`^302 3 ${base.replace(/\./g, '\\.')}/redir\\?n=2 28$`, 'm'), r.stdout);
  assert.equal((readFileSync(join(d, 'heads.txt'), 'latin1').match(/^HTTP\/1\.1 302 Found\r$/gm) ?? []).length, 3);
  assert.match(r.stderr, /too many redirects: more than 1[\s\S]*hint: raise the limit with --max-redirs N/);
});

test('--speed-limit / --speed-time: a transfer without a byte for that long is given up (exit 2, %{exitcode} 28); a limit above 1 byte/s is warned about', async (t) => {
  const held: net.Socket[] = [];
  const srv = net.createServer((c) => (held.push(c), c.once('data', () => c.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'))));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => (held.forEach((c) => c.destroy()), srv.close()));
  const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/`;
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s --speed-limit 1 --speed-time 0.5 -w '%{http_code} %{size_download} %{exitcode}\\n' ${url}\ncurl -s -Y 1000 -y 0.5 -o /dev/null ${url}\n`);
  const r = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stdout, /200 3 28$/m, r.stdout);
  assert.equal((r.stderr.match(/stopped sending the response body for longer than 0\.5s \(--speed-time\) after 3 bytes/g) ?? []).length, 2, r.stderr);
  assert.match(r.stderr, /c\.sh:2:1: --speed-limit 1000: sling gives up after --speed-time seconds without a byte/);
});

test("as curl: -f -i keeps the error's head; past --max-redirs -w reports the last redirect's size, count and URL; Retry-After wins over --retry-delay unless it passes --retry-max-time", async (t) => {
  const hits = new Map<string, number>();
  const srv = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    if (u.pathname === '/404') return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('nope');
    if (u.pathname === '/redir') {
      const n = Number(u.searchParams.get('n'));
      return void (n > 0 ? res.writeHead(302, { Location: `/redir?n=${n - 1}` }).end('moved!') : res.end('done'));
    }
    // First a 503 that asks for a retry after 1 s (/soon) or 5 s (/late), then 200.
    if (hits.get(u.pathname)! === 1) return void res.writeHead(503, { 'Retry-After': u.pathname === '/late' ? '5' : '1' }).end('busy');
    res.end('fine');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
  const d = dir();
  writeFileSync(
    join(d, 'c.sh'),
    [
      `curl -s -f -i ${base}/404 > head.txt`,
      `curl -s -f -o /dev/null -w 'e=%{errormsg}\\n' ${base}/404`,
      `curl -s -L --max-redirs 1 -o /dev/null -w '%{size_download} %{num_redirects} %{url_effective}\\n' '${base}/redir?n=3'`,
      `curl -s -o /dev/null --retry 1 --retry-delay 3 ${base}/soon`,
      `curl -s -o /dev/null --retry 1 --retry-max-time 2 ${base}/late`,
    ].join('\n') + '\n',
  );
  const r = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  // The first failure's code: -f on the 404.
  assert.equal(r.code, 4, r.stderr);
  assert.match(readFileSync(join(d, 'head.txt'), 'latin1'), /^HTTP\/1\.1 404 Not Found\r\n[\s\S]*\r\n\r\n$/);
  assert.match(r.stdout, /^e=The requested URL returned error: 404$/m, r.stdout);
  assert.match(r.stdout, new RegExp(`^6 1 ${base.replace(/\./g, '\\.')}/redir\\?n=2$`, 'm'), r.stdout);
  assert.match(r.stderr, /HTTP 503 from [^ ]+: retrying in 1s \(1 retry left\)/);
  assert.match(r.stderr, /HTTP 503 from [^ ]+ asks to retry after 5s, past --retry-max-time: not retried/);
  assert.deepEqual([hits.get('/soon'), hits.get('/late')], [2, 1]);
});

test('--http1.0 / -0 and --interface: the request line and the local address curl gives, and no warning', { skip: noCurl }, async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const port = srv.port;
  for (const [line, expected] of [
    [`curl -s -o /dev/null --http1.0 http://127.0.0.1:${port}/old`, 'GET /old HTTP/1.0 from 127.0.0.1'],
    [`curl -s -o /dev/null -0 -d a=1 http://127.0.0.1:${port}/post`, 'POST /post HTTP/1.0 from 127.0.0.1'],
    [`curl -s -o /dev/null --http1.0 --http1.1 http://127.0.0.1:${port}/back`, 'GET /back HTTP/1.1 from 127.0.0.1'],
    [`curl -s -o /dev/null --interface 127.0.0.4 http://127.0.0.1:${port}/bound`, 'GET /bound HTTP/1.1 from 127.0.0.4'],
    [`curl -s -o /dev/null --interface if!lo http://127.0.0.1:${port}/lo`, 'GET /lo HTTP/1.1 from 127.0.0.1'],
  ] as const) {
    srv.requests.length = 0;
    const r = await both(line);
    assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
    assert.deepEqual(
      srv.requests.map((q) => `${q.line} from ${q.remoteAddress}`),
      [expected, expected],
      line,
    );
    assert.deepEqual(diffRequests(srv.requests.slice(0, 1), srv.requests.slice(1)), [], line);
    assert.doesNotMatch(r.stderr, /warning/, line);
  }
});

test('--tlsv1.x, --tls-max, --ciphers, --tls13-ciphers: the TLS version and cipher curl gets', { skip: noCurl ?? (certs ? undefined : certsUnavailableReason()) }, async (t) => {
  const seen: string[] = [];
  const https = await import('node:https');
  const srv = https.createServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) }, (req, res) => {
    const s = req.socket as import('node:tls').TLSSocket;
    seen.push(`${s.getProtocol()} ${s.getCipher().name}`);
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r)));
  const port = (srv.address() as { port: number }).port;
  const url = `--cacert ${certs!.caCert} https://localhost:${port}/`;
  for (const [opts, expected] of [
    ['--tls-max 1.2 --ciphers ECDHE-ECDSA-AES256-GCM-SHA384', 'TLSv1.2 ECDHE-ECDSA-AES256-GCM-SHA384'],
    ['--tlsv1.2 --tls-max 1.2', 'TLSv1.2 '],
    ['--tlsv1.3 --tls13-ciphers TLS_CHACHA20_POLY1305_SHA256', 'TLSv1.3 TLS_CHACHA20_POLY1305_SHA256'],
  ] as const) {
    const before = seen.length;
    const r = await both(`curl -s -o /dev/null ${opts} ${url}`);
    assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
    // The same version and cipher for both (a version alone: the server picks the cipher).
    assert.equal(seen.length, before + 2, opts);
    assert.equal(seen[before + 1], seen[before], opts);
    assert.ok(seen[before]!.startsWith(expected), `${opts}: ${seen[before]}`);
    assert.doesNotMatch(r.stderr, /warning/, opts);
  }
});

test("sling exec's --timeout bounds every hop of a curl file's -L, as in a .http file: a redirect to a slow answer ends with exit 2", async (t) => {
  const timers = new Set<NodeJS.Timeout>();
  const srv = http.createServer((req, res) => {
    if (req.url === '/moved') return void res.writeHead(302, { Location: '/slow' }).end();
    // Answers after 3 s: past the run's 1 s of silence.
    const timer = setTimeout(() => (timers.delete(timer), res.end('late')), 3000);
    timers.add(timer);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => (timers.forEach(clearTimeout), srv.closeAllConnections()));
  t.after(() => new Promise((r) => srv.close(r)));
  const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s -L ${base}/moved\n`);
  writeFileSync(join(d, 'a.http'), `GET ${base}/moved\n`);
  for (const file of ['c.sh', 'a.http']) {
    const r = await runSling(['exec', '--timeout', '1', file], { cwd: d, env: { HOME: home } });
    assert.equal(r.code, 2, `${file}: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /late/, file);
    assert.match(r.stderr, /within 1s \(--timeout\)/, `${file}: ${r.stderr}`);
  }
});

/** A loopback server where `/redir?n=N` redirects N more times, then answers `done`: its base URL. */
async function redirectChain(t: TestContext): Promise<string> {
  const srv = http.createServer((req, res) => {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
    if (n > 0) return void res.writeHead(302, { Location: `/redir?n=${n - 1}` }).end();
    res.end('done');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  return `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
}

test("sling exec's --max-redirects limits a curl file's -L (exit 3, hint --max-redirects); a command's own --max-redirs wins for that command", async (t) => {
  const base = await redirectChain(t);
  const d = dir();
  const w = `-o /dev/null -w '%{num_redirects} %{exitcode}\\n'`;
  writeFileSync(join(d, 'c.sh'), [`curl -s -L ${w} '${base}/redir?n=3'`, `curl -s -L --max-redirs 2 ${w} '${base}/redir?n=2'`, `curl -s -L --max-redirs 0 ${w} '${base}/redir?n=1'`].join('\n') + '\n');
  const r = await runSling(['exec', '-b', '--max-redirects', '1', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 3, r.stderr);
  // Past sling's limit of 1; then the command's own 2 (over sling's 1); then its own 0.
  assert.deepEqual(r.stdout.match(/^\d+ \d+$/gm), ['1 47', '2 0', '0 47'], r.stdout);
  assert.match(r.stderr, /too many redirects: more than 1 [^\n]*\n(?:[^\n]*\n)*?[^\n]*hint: raise the limit with --max-redirects N/, r.stderr);
  assert.match(r.stderr, /too many redirects: more than 0 [^\n]*\n(?:[^\n]*\n)*?[^\n]*hint: raise the limit with --max-redirs N/, r.stderr);
  assert.equal((r.stderr.match(/too many redirects/g) ?? []).length, 2, r.stderr);
});

test("sling exec's transport flags over a curl file reach every hop of its -L, not only the first: --proxy, --resolve, --verify with --cert, --http-version 1.0, --interface", {
  skip: certs ? undefined : certsUnavailableReason(),
}, async (t) => {
  const c = certs!;
  // The first server sends every request on to the URL after `/to?`.
  const first = await httpServer(t, (q, res) => {
    res.writeHead(302, { Location: decodeURIComponent(q.url!.slice('/to?'.length)) });
    res.end();
  });
  const seen: string[] = [];
  const second = await httpServer(t, (q, res) => {
    seen.push(`${q.url} HTTP/${q.httpVersion} Host ${q.headers.host} from ${q.socket.remoteAddress}`);
    res.end('second\n');
  });
  const secure = await httpsServer(t, okText, { cert: 'good', requestClientCert: true });
  const proxy = await proxyServer(t);
  const d = dir();
  const run = async (flags: string[], target: string) => {
    writeFileSync(join(d, 'c.sh'), `curl -s -L '${first.url}/to?${encodeURIComponent(target)}'\n`);
    const r = await runSling(['exec', '-b', ...flags, 'c.sh'], { cwd: d, env: { HOME: home } });
    assert.equal(r.code, 0, `${flags.join(' ')}: ${r.stderr}`);
    return r;
  };

  await run(['--proxy', `http:${proxy.url}`], `${second.url}/via-proxy`);
  assert.deepEqual(
    proxy.plainRequests.map((p) => p.url.replace(/\?.*/, '')),
    [`${first.url}/to`, `${second.url}/via-proxy`],
    'both hops through the proxy',
  );

  await run(['--resolve', `second.test:${second.port}:127.0.0.1`], `http://second.test:${second.port}/resolved`);
  await run(['--http-version', '1.0'], `${second.url}/old`);
  await run(['--interface', '127.0.0.4'], `${second.url}/bound`);
  assert.deepEqual(seen, [
    `/via-proxy HTTP/1.1 Host 127.0.0.1:${second.port} from 127.0.0.1`,
    `/resolved HTTP/1.1 Host second.test:${second.port} from 127.0.0.1`,
    `/old HTTP/1.0 Host 127.0.0.1:${second.port} from 127.0.0.1`,
    `/bound HTTP/1.1 Host 127.0.0.1:${second.port} from 127.0.0.4`,
  ]);

  // An https:// hop after an http:// one: the CA to trust and the client certificate go with it.
  const r = await run(['--verify', c.caCert, '--cert', c.clientCert, '--cert-key', c.clientKey], `${secure.url}/tls`);
  assert.equal(r.stdout.includes('ok'), true, r.stdout);
  assert.deepEqual(
    secure.requests.map((q) => [q.url, q.clientCertCN]),
    [['/tls', 'sling-test-client']],
  );
});

test('sling exec -6 over a curl file holds on every hop of its -L: a host with no IPv6 address is not reached on the second hop', async (t) => {
  // The first server on ::1 (IPv6 loopback), the second on 127.0.0.1 only, named `localhost`.
  const six = http.createServer((q, res) => void res.writeHead(302, { Location: decodeURIComponent(q.url!.slice('/to?'.length)) }).end());
  const listening = await new Promise<boolean>((resolve) => {
    six.once('error', () => resolve(false));
    six.listen(0, '::1', () => resolve(true));
  });
  if (!listening) return t.skip('no IPv6 loopback (::1) here');
  t.after(() => new Promise((r) => six.close(r)));
  const reached: string[] = [];
  const four = await httpServer(t, (q, res) => (reached.push(q.url!), res.end('four\n')));
  const d = dir();
  const line = `curl -s -L 'http://[::1]:${(six.address() as { port: number }).port}/to?${encodeURIComponent(`http://localhost:${four.port}/four`)}'\n`;
  writeFileSync(join(d, 'c.sh'), line);
  // Without -6 the redirect reaches the second server.
  assert.equal((await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } })).code, 0);
  assert.deepEqual(reached.splice(0), ['/four']);
  const r = await runSling(['exec', '-b', '-6', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /^sling: error: c\.sh:1: .*localhost.*\(redirect 1 of 1 to http:\/\/localhost:\d+\/four\)$/m, r.stderr);
  assert.deepEqual(reached, [], 'the second hop kept to IPv6');
});

test("sling exec --max-redirects 30 is given even at its default: it limits a curl file's -L (curl's own limit is 50), and a command's own --max-redirs 2 still wins", async (t) => {
  const base = await redirectChain(t);
  const d = dir();
  const w = `-o /dev/null -w '%{num_redirects} %{exitcode}\\n'`;
  writeFileSync(join(d, 'c.sh'), [`curl -s -L ${w} '${base}/redir?n=31'`, `curl -s -L --max-redirs 2 ${w} '${base}/redir?n=3'`].join('\n') + '\n');
  const given = await runSling(['exec', '-b', '--max-redirects', '30', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(given.code, 3, given.stderr);
  // 30 redirects, the 31st refused (curl's 47); then the command's own 2 over sling's 30.
  assert.deepEqual(given.stdout.match(/^\d+ \d+$/gm), ['30 47', '2 47'], given.stdout);
  assert.match(given.stderr, /too many redirects: more than 30 [^\n]*\n(?:[^\n]*\n)*?[^\n]*hint: raise the limit with --max-redirects N/, given.stderr);
  assert.match(given.stderr, /too many redirects: more than 2 [^\n]*\n(?:[^\n]*\n)*?[^\n]*hint: raise the limit with --max-redirs N/, given.stderr);
  // Not given: curl's own limit (50) for the first command.
  const none = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.deepEqual(none.stdout.match(/^\d+ \d+$/gm), ['31 0', '2 47'], none.stdout);
});

test("sling exec --verify yes is given even at its default: it checks the certificate of a curl command with -k; not given, -k is the command's own", {
  skip: certs ? undefined : certsUnavailableReason(),
}, async (t) => {
  const srv = https.createServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) }, (_req, res) => res.end('secret'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s -k https://localhost:${(srv.address() as { port: number }).port}/\n`);
  const given = await runSling(['exec', '-b', '--verify', 'yes', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(given.code, 6, given.stderr);
  assert.doesNotMatch(given.stdout, /secret/);
  assert.match(given.stderr, /certificate/, given.stderr);
  const none = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /secret/);
});

test("sling exec --ssl auto is given even at its default: it lifts a curl command's --tlsv1.3 pin, as --ssl tls1.2 replaces it", { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  // A server that speaks TLS 1.2 at most.
  const srv = https.createServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert), maxVersion: 'TLSv1.2' }, (req, res) =>
    res.end(`on ${(req.socket as import('node:tls').TLSSocket).getProtocol()}`),
  );
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.closeAllConnections());
  t.after(() => new Promise((r) => srv.close(r)));
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s --tlsv1.3 --cacert ${certs!.caCert} https://localhost:${(srv.address() as { port: number }).port}/\n`);
  const pinned = await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } });
  assert.equal(pinned.code, 6, pinned.stderr);
  for (const ssl of ['auto', 'tls1.2']) {
    const r = await runSling(['exec', '-b', '--ssl', ssl, 'c.sh'], { cwd: d, env: { HOME: home } });
    assert.equal(r.code, 0, `--ssl ${ssl}: ${r.stderr}`);
    assert.match(r.stdout, /on TLSv1\.2/, ssl);
  }
});
