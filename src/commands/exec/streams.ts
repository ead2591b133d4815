/**
 * A stream request of a .http file (model/stream.ts) run to its end: the connection opened through
 * the transport (transport/websocket.ts, transport/grpc.ts; server-sent events over the HTTP
 * client), the file's messages sent in order (JetBrains' `=== wait-for-server` waits for the
 * server's next message), every message handed on as it goes or comes, and the end rules: the
 * server ends it, nothing comes for the idle time (`# @timeout`, `--timeout`, else 10 s), or
 * Ctrl-C (the process's interrupt handling). What is printed is the caller's (run.ts).
 */
import type { CookieJar } from '../../model/cookies.js';
import type { RequestSpec } from '../../model/spec.js';
import type { Printer } from '../../output/printer.js';
import { wouldSend } from '../deliver.js';
import type { StreamOptions, StreamRun } from './stream-pace.js';

export type { StreamOptions, StreamRun } from './stream-pace.js';
export { messagesBody } from './stream-pace.js';

export async function runStream(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  switch (spec.stream!.kind) {
    case 'sse':
      return (await import('./stream-sse.js')).runEvents(spec, o);
    case 'websocket':
      return (await import('./stream-ws.js')).runWebSocket(spec, o);
    case 'grpc':
      return (await import('./stream-grpc.js')).runGrpc(spec, o);
  }
}

/** The line under a stream's messages that says how it ended. */
export function endText(run: StreamRun): string {
  const { end } = run;
  const code = end.code !== undefined ? ` (${end.code}${end.text ? ` ${end.text}` : ''})` : end.text ? ` (${end.text})` : '';
  switch (end.how) {
    case 'idle':
      return `closed by sling: nothing came for ${idleText(run)}`;
    case 'unsubscribed':
      return 'closed by sling: a response handler unsubscribed';
    case 'timeline':
      return 'closed by sling: the {{@streaming}} block ended';
    case 'held':
      return 'closed by sling: its messages outgrew what sling holds for what reads them';
    default:
      return `closed by the server${code}`;
  }
}

function idleText(run: StreamRun): string {
  const ms = run.idleMs;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * --offline: a stream request as it would open (a WebSocket's upgrade request, a gRPC call's
 * HTTP/2 HEADERS; what the transport adds shown too) and the messages it would send then (a
 * GraphQL subscription's operation).
 */
export async function offlineStream(spec: RequestSpec, printer: Printer, jar: CookieJar | undefined): Promise<void> {
  const stream = spec.stream!;
  const request = await wouldSend(spec, jar);
  let headers = request.headers.filter(([n]) => n.toLowerCase() !== 'content-length');
  if (stream.kind === 'websocket')
    headers = [
      ...headers,
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
      ['Sec-WebSocket-Version', '13'],
      ...(stream.graphql ? [['Sec-WebSocket-Protocol', 'graphql-transport-ws'] as [string, string]] : []),
    ];
  if (stream.kind === 'grpc') headers = [...headers, ['Content-Type', 'application/grpc'], ['TE', 'trailers']];
  await printer.request({ ...request, method: stream.kind === 'grpc' ? 'POST' : 'GET', headers }, stream.kind === 'grpc');
  if (stream.graphql) await printer.outgoing(JSON.stringify({ type: 'subscribe', payload: stream.graphql }));
  for (const m of stream.messages) {
    const waits = m.waitForServer ? (m.waitCount ?? 1) : 0;
    await printer.outgoing(m.text, waits > 1 ? `after the server's next ${waits} messages` : waits ? "after the server's next message" : m.delayMs ? `after ${m.delayMs} ms` : undefined);
  }
  await printer.finish();
}
