// Small assertion and parsing helpers shared by the end-to-end tests.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { RunResult } from './cli.js';
import { startHttp, startHttps, startRaw, startConnectProxy, type CaptureServer, type Handler, type HttpsOptions, type ProxyServer, type RawServer } from './servers.js';
import type net from 'node:net';

/** A short description of a run, appended to assertion messages. */
export function show(r: RunResult): string {
  const cut = (s: string) => (s.length > 1500 ? s.slice(0, 1500) + '…' : s);
  return `\n  exit: ${r.code}${r.timedOut ? ' (killed after timeout)' : ''}\n  stdout: ${JSON.stringify(cut(r.stdout))}\n  stderr: ${JSON.stringify(cut(r.stderr))}`;
}

export function assertExit(r: RunResult, code: number): void {
  assert.equal(r.timedOut, false, `sling did not finish in time${show(r)}`);
  assert.equal(r.code, code, `expected exit code ${code}${show(r)}`);
}

export function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at /m, `stderr must not contain a stack trace: ${JSON.stringify(stderr)}`);
}

/** Exit code, a `sling: error: ` line (optionally matching culprit), and no stack trace. */
export function assertError(r: RunResult, code: number, culprit?: RegExp | string): void {
  assertExit(r, code);
  const line = r.stderr.split(/\r?\n/).find((l) => l.startsWith('sling: error: '));
  assert.ok(line, `expected a "sling: error: " line on stderr${show(r)}`);
  if (culprit !== undefined) {
    if (typeof culprit === 'string') {
      assert.ok(r.stderr.includes(culprit), `error should name ${JSON.stringify(culprit)}${show(r)}`);
    } else {
      assert.match(r.stderr, culprit, `error should match ${culprit}${show(r)}`);
    }
  }
  assertNoStack(r.stderr);
}

export function assertWarning(r: RunResult): void {
  assert.match(r.stderr, /^sling: warning: /m, `expected a "sling: warning: " line on stderr${show(r)}`);
}

export interface ParsedMessage {
  startLine: string;
  headers: [string, string][];
  body: string;
}

/**
 * Splits printed HTTP message text: start line, `Name: value` lines up to the first blank line,
 * then everything after as body. Accepts \r\n or \n line endings.
 */
export function parseMessage(text: string): ParsedMessage {
  const m = /\r?\n\r?\n/.exec(text);
  const head = m ? text.slice(0, m.index) : text;
  const body = m ? text.slice(m.index + m[0].length) : '';
  const lines = head.split(/\r?\n/);
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.push([line.slice(0, i), line.slice(i + 1).trim()]);
  }
  return { startLine: lines[0] ?? '', headers, body };
}

/** Lines of text split on \r?\n. */
export function lines(text: string): string[] {
  return text.split(/\r?\n/);
}

// Server starters that register their own cleanup on the test.
export async function httpServer(t: TestContext, handler: Handler): Promise<CaptureServer> {
  const s = await startHttp(handler);
  t.after(() => s.close());
  return s;
}

export async function httpsServer(t: TestContext, handler: Handler, opts: HttpsOptions): Promise<CaptureServer> {
  const s = await startHttps(handler, opts);
  t.after(() => s.close());
  return s;
}

export async function rawServer(t: TestContext, onSocket: (socket: net.Socket, firstChunk: Buffer) => void): Promise<RawServer> {
  const s = await startRaw(onSocket);
  t.after(() => s.close());
  return s;
}

export async function proxyServer(t: TestContext, opts: { failStatus?: number } = {}): Promise<ProxyServer> {
  const s = await startConnectProxy(opts);
  t.after(() => s.close());
  return s;
}

/** A handler answering 200 with a small text body. */
export const okText: Handler = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('ok');
};

/**
 * A hostile server in a line: each request's path picks the raw bytes it gets back, and the
 * connection ends after them (`''` for a path: closed without a byte). Unknown paths get a plain
 * 200 `ok`. Requests are kept as their first line (`GET /x HTTP/1.1`).
 */
export async function bytesServer(t: TestContext, answers: Record<string, string | Buffer>): Promise<RawServer & { seen: string[] }> {
  const seen: string[] = [];
  const s = await startRaw((socket, first) => {
    socket.on('error', () => {});
    const line = first.toString('latin1').split('\r\n')[0]!;
    seen.push(line);
    const path = line.split(' ')[1] ?? '';
    const answer = answers[path] ?? 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok';
    socket.end(answer);
  });
  t.after(() => s.close());
  return { ...s, seen };
}
