#!/usr/bin/env node
// A small loopback HTTP server for demos and manual trials of sling, in the spirit of httpbin:
// each route echoes what it received or answers with one specific kind of response.
//
//   import { startDemoServer } from './demo/server.mjs';
//   const srv = await startDemoServer();   // { port, url, close, stats }
//
//   node demo/server.mjs [--port N]        // prints its URL, runs until Ctrl-C
//
// One port speaks HTTP/1.1 (the routes below, server-sent events at /events, WebSocket at /ws and
// /graphql: demo/websocket.mjs) and, to a client that starts with HTTP/2's connection preface
// (h2c with prior knowledge), gRPC: the services of demo/demo.proto and server reflection
// (demo/grpc.mjs). A net.Server in front looks at the first bytes of each connection and hands it
// to the HTTP/1.1 or the HTTP/2 server.
//
// It only ever listens on 127.0.0.1 and uses nothing but Node's own modules.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { acceptWebSocket, MAX_COUNTDOWN, MAX_MESSAGE, wantsWebSocket } from './websocket.mjs';
import { GRPC_METHODS, serveGrpc } from './grpc.mjs';

const HOST = '127.0.0.1';
const MAX_BODY = 10 * 1024 * 1024; // echoing bigger bodies than this is not what a demo is for
const MAX_BYTES = 100 * 1024; // /bytes/:n cap, as httpbin's
const MAX_DELAY = 10; // seconds
const MAX_REDIRECTS = 100;
const FILE_BYTES = 4096; // /files/:name
const BIG_BYTES = 1024 * 1024; // /big
const MAX_EVENTS = 100; // /events?count=N
const MAX_INTERVAL = 2000; // /events?interval=MS
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

const ROUTES = [
  ['GET', '/', 'this list of routes'],
  ['GET', '/get', 'echo the method, query arguments and headers'],
  ['POST, PUT, PATCH', '/post', 'echo the method, headers and the body (JSON, form or multipart parsed)'],
  ['any', '/anything', 'echo whatever is sent, with any method'],
  ['GET', '/status/:code', 'answer with that status code (200-599)'],
  ['GET', '/redirect/:n', 'redirect n times (302), ending at /get'],
  ['GET', '/gzip', 'gzip-encoded JSON'],
  ['GET', '/bytes/:n', `n bytes of binary data (at most ${MAX_BYTES})`],
  ['GET', '/basic-auth/:user/:pass', '200 with the right basic credentials, else 401 with WWW-Authenticate'],
  ['GET', '/delay/:seconds', `answer after a delay (at most ${MAX_DELAY} s)`],
  ['GET', '/html', 'a small HTML page'],
  ['any', '/users, /items, /upload, /doc, /search, /me', "echo, as /anything (the routes the documentation's examples use)"],
  ['any', '/login', 'set a session cookie and answer a token (JSON), echoing the request'],
  ['GET', '/health', '{"status": "ok"}'],
  ['GET', '/files/:name', `${FILE_BYTES} bytes of binary data, offered for download as that name (Content-Disposition)`],
  ['GET', '/big', `${BIG_BYTES} bytes of binary data; a Range request gets the part it asks for (206)`],
  [
    'GET',
    '/events',
    `server-sent events: ?count=N (default 3, at most ${MAX_EVENTS}) events "tick", id 1..N, data {"n": 1}, one every ?interval=MS (default 100, at most ${MAX_INTERVAL}), then the end`,
  ],
  ['GET', '/ws', `WebSocket echo (text and binary, ping, close); ?greet=1 first sends {"hello": "sling"}; a message over ${MAX_MESSAGE} bytes closes with 1009`],
  ['GET', '/graphql', `GraphQL subscriptions over WebSocket (subprotocol graphql-transport-ws): subscription { countdown(from: N) } counts down to 0 (N at most ${MAX_COUNTDOWN})`],
  ['gRPC', GRPC_METHODS.join(', '), 'gRPC over h2c with prior knowledge on this port: the services of demo/demo.proto and server reflection'],
];

// ------------------------------------------------------------------ helpers --

function sendJson(res, status, value, extraHeaders = {}) {
  const body = Buffer.from(JSON.stringify(value, null, 2) + '\n');
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length, ...extraHeaders });
  res.end(body);
}

function sendError(res, status, message, extraHeaders) {
  sendJson(res, status, { error: message, status }, extraHeaders);
}

// Headers as the client wrote them (original case, wire order); repeated names are joined with ", "
// the way HTTP allows, so a client's exact spelling is visible in the echo.
function echoHeaders(req) {
  const out = {};
  const seen = new Map(); // lower-case name -> spelling first used
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const value = req.rawHeaders[i + 1];
    const key = seen.get(name.toLowerCase());
    if (key === undefined) {
      seen.set(name.toLowerCase(), name);
      out[name] = value;
    } else {
      out[key] += ', ' + value;
    }
  }
  return out;
}

// Query or form pairs as an object; a repeated name becomes an array of its values.
function pairsToObject(params) {
  const out = {};
  for (const [k, v] of params) {
    if (!Object.hasOwn(out, k)) out[k] = v;
    else if (Array.isArray(out[k])) out[k].push(v);
    else out[k] = [out[k], v];
  }
  return out;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error(`request body larger than ${MAX_BODY} bytes`), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function mediaType(contentType) {
  return (contentType || '').split(';')[0].trim().toLowerCase();
}

function headerParam(headerValue, param) {
  const re = new RegExp(`(?:^|;)\\s*${param}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i');
  const m = re.exec(headerValue || '');
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

// Text if the bytes are valid UTF-8, else a base64 data URL (as httpbin shows binary uploads).
function bytesForEcho(buf, type = 'application/octet-stream') {
  const text = buf.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(buf)) return text;
  return `data:${type};base64,${buf.toString('base64')}`;
}

// Just enough multipart/form-data parsing to echo fields and uploaded files.
function parseMultipart(buf, boundary) {
  const form = {};
  const files = {};
  const add = (obj, k, v) => {
    if (!Object.hasOwn(obj, k)) obj[k] = v;
    else if (Array.isArray(obj[k])) obj[k].push(v);
    else obj[k] = [obj[k], v];
  };
  const delim = Buffer.from('--' + boundary);
  let pos = buf.indexOf(delim);
  while (pos !== -1) {
    let start = pos + delim.length;
    if (buf.subarray(start, start + 2).toString() === '--') break; // closing delimiter
    start = buf.indexOf('\r\n', start);
    if (start === -1) break;
    start += 2;
    const next = buf.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), start);
    if (next === -1) break;
    const part = buf.subarray(start, next);
    const headEnd = part.indexOf('\r\n\r\n');
    const head = headEnd === -1 ? '' : part.subarray(0, headEnd).toString('latin1');
    const content = headEnd === -1 ? part : part.subarray(headEnd + 4);
    const headers = {};
    for (const line of head.split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const disposition = headers['content-disposition'] || '';
    const name = headerParam(disposition, 'name') ?? '';
    const filename = headerParam(disposition, 'filename');
    if (filename !== undefined) add(files, name, bytesForEcho(content, headers['content-type']));
    else add(form, name, content.toString('utf8'));
    pos = next + 2;
  }
  return { form, files };
}

function parseBody(req, buf) {
  const type = mediaType(req.headers['content-type']);
  const out = { data: '', json: null, form: {}, files: {} };
  if (!buf.length) return out;
  if (type === 'multipart/form-data') {
    Object.assign(out, parseMultipart(buf, headerParam(req.headers['content-type'], 'boundary') || ''));
    return out;
  }
  out.data = bytesForEcho(buf, type || undefined);
  if (type === 'application/x-www-form-urlencoded') {
    out.form = pairsToObject(new URLSearchParams(buf.toString('utf8')));
  } else {
    // Like httpbin: a body that parses as JSON is shown as JSON whatever its Content-Type says.
    try {
      out.json = JSON.parse(buf.toString('utf8'));
    } catch {
      out.json = null;
    }
  }
  return out;
}

function requestInfo(req, url) {
  return {
    method: req.method,
    url: url.href,
    args: pairsToObject(url.searchParams),
    headers: echoHeaders(req),
    origin: req.socket.remoteAddress,
  };
}

function parseUnsigned(text) {
  return /^\d{1,9}$/.test(text) ? Number(text) : NaN;
}

// ------------------------------------------------------------------- routes --

function welcome(res, base) {
  sendJson(res, 200, {
    name: 'sling demo server',
    description: 'A loopback HTTP server to try sling against. Every route below is relative to this URL.',
    url: base,
    routes: ROUTES.map(([methods, path, description]) => ({ methods, path, description })),
  });
}

function html(res) {
  const body = Buffer.from(`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>sling demo</title>
</head>
<body>
  <h1>Hello from the sling demo server</h1>
  <p>This page is <code>text/html</code>; try <code>sling :PORT/get</code> for JSON.</p>
</body>
</html>
`);
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}

function gzip(req, res, url) {
  const body = zlib.gzipSync(JSON.stringify({ gzipped: true, ...requestInfo(req, url) }, null, 2) + '\n');
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Encoding': 'gzip',
    'Content-Length': body.length,
  });
  res.end(body);
}

// Deterministic bytes (not random) so that a download can be compared run to run.
function someBytes(n) {
  const body = Buffer.alloc(n);
  let x = 0x2545f491;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5; // xorshift32
    body[i] = x & 0xff;
  }
  return body;
}

function bytes(res, n) {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': n });
  res.end(someBytes(n));
}

// A file to download under its own name: /files/report.pdf is offered as report.pdf.
function file(res, name) {
  const type = name.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream';
  const safe = name.replace(/["\\\r\n]/g, '_');
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': FILE_BYTES, 'Content-Disposition': `attachment; filename="${safe}"` });
  res.end(someBytes(FILE_BYTES));
}

// A large body that a resumed download (Range: bytes=N-) can ask the rest of.
let bigBody;
function big(req, res) {
  bigBody ??= someBytes(BIG_BYTES);
  const headers = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes' };
  const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range || '');
  if (!m) {
    res.writeHead(200, { ...headers, 'Content-Length': BIG_BYTES });
    return res.end(bigBody);
  }
  const start = Number(m[1]);
  const end = Math.min(m[2] ? Number(m[2]) : BIG_BYTES - 1, BIG_BYTES - 1);
  if (start >= BIG_BYTES || start > end) {
    res.writeHead(416, { ...headers, 'Content-Range': `bytes */${BIG_BYTES}`, 'Content-Length': 0 });
    return res.end();
  }
  res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${BIG_BYTES}`, 'Content-Length': end - start + 1 });
  res.end(bigBody.subarray(start, end + 1));
}

// A login: a session cookie and a token, with the request echoed.
async function login(req, res, url) {
  const buf = await readBody(req);
  sendJson(res, 200, { token: 'demo-token-42', ...requestInfo(req, url), ...parseBody(req, buf) }, { 'Set-Cookie': 'sid=demo-session; Path=/; HttpOnly' });
}

function basicAuth(req, res, url, user, pass) {
  const m = /^Basic\s+([A-Za-z0-9+/=]*)\s*$/i.exec(req.headers.authorization || '');
  const given = m ? Buffer.from(m[1], 'base64').toString('utf8') : null;
  if (given !== null && given === `${user}:${pass}`) {
    sendJson(res, 200, { authenticated: true, user });
  } else {
    sendJson(
      res,
      401,
      { authenticated: false, error: given === null ? 'no basic credentials' : 'wrong credentials' },
      {
        'WWW-Authenticate': 'Basic realm="sling demo"',
      },
    );
  }
}

function status(res, code) {
  const reason = http.STATUS_CODES[code] || 'Unknown';
  const headers = {};
  if (code >= 300 && code < 400 && code !== 304) headers.Location = '/get';
  if (code === 401) headers['WWW-Authenticate'] = 'Basic realm="sling demo"';
  if (code === 204 || code === 304) {
    res.writeHead(code, headers);
    res.end();
  } else {
    sendJson(res, code, { status: code, reason }, headers);
  }
}

// Server-sent events: the first event at once, then one every `interval` ms, then the answer ends.
function events(res, url, state) {
  const number = (name, fallback, max) => {
    const text = url.searchParams.get(name);
    if (text === null) return fallback;
    const n = parseUnsigned(text);
    return n <= max ? n : NaN;
  };
  const count = number('count', 3, MAX_EVENTS);
  const interval = number('interval', 100, MAX_INTERVAL);
  if (Number.isNaN(count)) return sendError(res, 400, `count must be a number from 0 to ${MAX_EVENTS}`);
  if (Number.isNaN(interval)) return sendError(res, 400, `interval must be a number of milliseconds from 0 to ${MAX_INTERVAL}`);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  let timer;
  const stop = () => {
    clearTimeout(timer);
    state.timers.delete(timer);
  };
  res.on('close', stop);
  const send = (n) => {
    if (n > count) return res.end();
    res.write(`event: tick\nid: ${n}\ndata: {"n": ${n}}\n\n`);
    if (n === count) return res.end();
    timer = setTimeout(() => {
      state.timers.delete(timer);
      send(n + 1);
    }, interval);
    state.timers.add(timer);
  };
  send(1);
}

async function handle(req, res, state) {
  const url = new URL(req.url, `http://${req.headers.host || `${HOST}:${state.port}`}`);
  const parts = url.pathname
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const route = '/' + (parts[0] ?? '');
  const method = req.method === 'HEAD' ? 'GET' : req.method; // Node leaves the body out of HEAD answers
  const only = (...allowed) => {
    if (allowed.includes(method)) return true;
    const allow = allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed;
    sendError(res, 405, `${req.method} not allowed on ${url.pathname}`, { Allow: allow.join(', ') });
    return false;
  };

  switch (route) {
    case '/':
      if (parts.length === 0 && only('GET')) welcome(res, state.url);
      else if (parts.length !== 0) break;
      return;
    case '/get':
      if (parts.length === 1 && only('GET')) sendJson(res, 200, requestInfo(req, url));
      else if (parts.length !== 1) break;
      return;
    case '/login':
      if (parts.length !== 1) break;
      await login(req, res, url);
      return;
    case '/health':
      if (parts.length === 1 && only('GET')) sendJson(res, 200, { status: 'ok' });
      else if (parts.length !== 1) break;
      return;
    case '/files':
      if (parts.length !== 2) break;
      if (only('GET')) file(res, parts[1]);
      return;
    case '/big':
      if (parts.length === 1 && only('GET')) big(req, res);
      else if (parts.length !== 1) break;
      return;
    case '/post':
    case '/anything':
    case '/users':
    case '/items':
    case '/upload':
    case '/doc':
    case '/search':
    case '/me': {
      if (route === '/post' && parts.length !== 1) break;
      if (route === '/post' && !only('POST', 'PUT', 'PATCH')) return;
      const buf = await readBody(req);
      sendJson(res, 200, { ...requestInfo(req, url), ...parseBody(req, buf) });
      return;
    }
    case '/status': {
      if (parts.length !== 2) break;
      const code = parseUnsigned(parts[1]);
      if (!(code >= 200 && code <= 599)) return sendError(res, 400, 'status code must be a number from 200 to 599');
      if (only('GET', 'POST', 'PUT', 'PATCH', 'DELETE')) status(res, code);
      return;
    }
    case '/redirect': {
      if (parts.length !== 2) break;
      const n = parseUnsigned(parts[1]);
      if (!(n >= 1 && n <= MAX_REDIRECTS)) return sendError(res, 400, `n must be a number from 1 to ${MAX_REDIRECTS}`);
      if (!only('GET')) return;
      const location = n === 1 ? '/get' : `/redirect/${n - 1}`;
      sendJson(res, 302, { redirect: location, remaining: n - 1 }, { Location: location });
      return;
    }
    case '/gzip':
      if (parts.length === 1 && only('GET')) gzip(req, res, url);
      else if (parts.length !== 1) break;
      return;
    case '/bytes': {
      if (parts.length !== 2) break;
      const n = parseUnsigned(parts[1]);
      if (!(n >= 0 && n <= MAX_BYTES)) return sendError(res, 400, `n must be a number from 0 to ${MAX_BYTES}`);
      if (only('GET')) bytes(res, n);
      return;
    }
    case '/basic-auth':
      if (parts.length !== 3) break;
      if (only('GET')) basicAuth(req, res, url, parts[1], parts[2]);
      return;
    case '/delay': {
      if (parts.length !== 2) break;
      const seconds = /^\d+(\.\d+)?$/.test(parts[1]) ? Number(parts[1]) : NaN;
      if (!(seconds >= 0 && seconds <= MAX_DELAY)) return sendError(res, 400, `seconds must be a number from 0 to ${MAX_DELAY}`);
      if (!only('GET')) return;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        state.timers.add(timer);
        // A client that gives up (e.g. sling --timeout) should not keep the timer alive.
        res.on('close', () => {
          clearTimeout(timer);
          state.timers.delete(timer);
          resolve();
        });
      });
      if (!res.destroyed) sendJson(res, 200, { delay: seconds, ...requestInfo(req, url) });
      return;
    }
    case '/html':
      if (parts.length === 1 && only('GET')) html(res);
      else if (parts.length !== 1) break;
      return;
    case '/events':
      if (parts.length === 1 && only('GET')) events(res, url, state);
      else if (parts.length !== 1) break;
      return;
    case '/ws':
    case '/graphql':
      // A WebSocket handshake never gets here (the 'upgrade' event takes it): this is a plain GET.
      if (parts.length === 1 && only('GET')) sendError(res, 426, `${url.pathname} speaks WebSocket: send Upgrade: websocket`, { Upgrade: 'websocket', Connection: 'Upgrade' });
      else if (parts.length !== 1) break;
      return;
  }
  state.stats.noRoute++;
  sendError(res, 404, `no route for ${req.method} ${url.pathname}; GET / lists the routes`);
}

// ---------------------------------------------------------------- lifecycle --

/**
 * Starts the demo server on 127.0.0.1: HTTP/1.1, WebSocket and gRPC (h2c) on one port.
 * @param {{port?: number}} [options] port 0 (the default) picks a free port
 * @returns {Promise<{port: number, url: string, close: () => Promise<void>,
 *   stats: {requests: number, noRoute: number, last: {method: string, path: string, status: number} | null}}>}
 */
export function startDemoServer({ port = 0 } = {}) {
  // stats.requests: every request, WebSocket handshake and gRPC call; stats.last: method, path and
  // status of the latest answered one (the demo checks it); stats.noRoute: those no route answered
  // (404 "no route for ...", a gRPC method the demo does not have, HTTP/2 that is not gRPC).
  const state = { port: 0, url: '', timers: new Set(), stats: { requests: 0, last: null, noRoute: 0 } };
  // Only a WebSocket handshake to /ws or /graphql is taken as an upgrade; any other offer (the h2c
  // offer of curl's --http2 and sling's) is answered as HTTP/1.1. Node 22.23, 24 and later ask
  // shouldUpgradeCallback; Node 20 emits 'upgrade' for every offer, and declineUpgrade does the same.
  const takeUpgrade = (req) => wantsWebSocket(req, new URL(req.url, state.url).pathname);
  const server = http.createServer({ shouldUpgradeCallback: takeUpgrade }, (req, res) => {
    state.stats.requests++;
    res.on('finish', () => {
      state.stats.last = { method: req.method, path: req.url.split('?')[0], status: res.statusCode };
    });
    handle(req, res, state).catch((err) => {
      if (res.headersSent) return res.destroy();
      sendError(res, err.status || 500, err.message);
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url, state.url);
    if (!takeUpgrade(req)) return declineUpgrade(server, req, socket, head);
    state.stats.requests++;
    const status = acceptWebSocket(req, socket, head, url, state);
    state.stats.last = { method: req.method, path: url.pathname, status };
  });

  const h2server = http2.createServer();
  const sessions = new Set();
  h2server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  h2server.on('stream', (stream, headers) => {
    state.stats.requests++;
    const method = headers[':method'];
    const path = (headers[':path'] || '').split('?')[0];
    let status = 200;
    if (method === 'POST' && /^application\/grpc(\+proto)?\s*(;|$)/i.test(headers['content-type'] || '')) {
      if (!serveGrpc(stream, headers, state)) state.stats.noRoute++;
    } else {
      // The HTTP routes are HTTP/1.1's: over HTTP/2 this port answers gRPC only.
      state.stats.noRoute++;
      status = 505;
      stream.on('error', () => {});
      const body = JSON.stringify({ error: `over HTTP/2 this server answers gRPC only (POST, content-type application/grpc); ${method} ${path} is an HTTP/1.1 route`, status }, null, 2) + '\n';
      stream.respond({ ':status': status, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      stream.end(body);
    }
    state.stats.last = { method, path, status };
  });

  // In front: each connection goes to the HTTP/2 server when it starts with HTTP/2's connection
  // preface, else to the HTTP/1.1 server, with the bytes read to decide put back first.
  const sockets = new Set();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let seen = Buffer.alloc(0);
    const onError = () => socket.destroy();
    const onData = (chunk) => {
      seen = Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, H2_PREFACE.length);
      const h2 = seen.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (h2 && seen.length < H2_PREFACE.length) return; // the first bytes of the preface, or of "POST": wait for more
      socket.off('data', onData);
      socket.off('error', onError);
      socket.pause();
      socket.unshift(seen);
      if (h2) h2server.emit('connection', socket);
      else {
        server.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
    socket.on('error', onError);
  });

  return new Promise((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, HOST, () => {
      front.off('error', reject);
      state.port = front.address().port;
      state.url = `http://${HOST}:${state.port}`;
      let closing;
      const close = () => {
        closing ??= new Promise((done) => {
          for (const t of state.timers) clearTimeout(t);
          state.timers.clear();
          front.close(() => done());
          // Kept-alive HTTP/1.1 connections, WebSockets, HTTP/2 sessions would otherwise hold close() open.
          for (const session of sessions) session.destroy();
          for (const socket of sockets) socket.destroy();
        });
        return closing;
      };
      resolve({ port: state.port, url: state.url, close, stats: state.stats });
    });
  });
}

/**
 * On Node 20, an upgrade the demo does not take (the h2c offer of curl's --http2 and sling's, a
 * WebSocket handshake to another route): the request goes back to the HTTP/1.1 server without `upgrade` in
 * its Connection header, and is answered there as HTTP/1.1, as a server that ignores the offer
 * answers it (RFC 9110, section 7.8).
 */
function declineUpgrade(server, req, socket, head) {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    let value = req.rawHeaders[i + 1];
    if (name.toLowerCase() === 'connection') {
      value = value
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t.toLowerCase() !== 'upgrade')
        .join(', ');
      if (!value) continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), head]));
  server.emit('connection', socket);
}

// --------------------------------------------------------------- standalone --

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

function parsePortArg(argv) {
  let port = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    let value;
    if (a === '--port' || a === '-p') value = argv[++i];
    else if (a.startsWith('--port=')) value = a.slice('--port='.length);
    else if (a === '--help' || a === '-h') {
      console.log('usage: node demo/server.mjs [--port N]\nServes the sling demo routes on 127.0.0.1 until Ctrl-C.');
      process.exit(0);
    } else {
      console.error(`demo server: unknown argument '${a}'\nusage: node demo/server.mjs [--port N]`);
      process.exit(2);
    }
    if (value === undefined || !/^\d+$/.test(value) || Number(value) > 65535) {
      console.error(`demo server: --port needs a number from 0 to 65535, got '${value ?? ''}'`);
      process.exit(2);
    }
    port = Number(value);
  }
  return port;
}

if (isMain()) {
  const port = parsePortArg(process.argv.slice(2));
  startDemoServer({ port }).then(
    (srv) => {
      console.log(`sling demo server listening on ${srv.url}  (Ctrl-C to stop)`);
      console.log(`try:  node dist/sling.js :${srv.port}/get hello==world`);
      const stop = () => srv.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err) => {
      console.error(`demo server: cannot listen on ${HOST}:${port}: ${err.message}`);
      process.exit(1);
    },
  );
}
