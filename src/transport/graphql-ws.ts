import { randomUUID } from 'node:crypto';
import { type CliError, NetworkError, TimeoutError, UsageError } from '../errors.js';
import type { CookieJar } from '../model/cookies.js';
import type { RequestSpec } from '../model/spec.js';
import { openWebSocket, type WebSocketClose, type WebSocketSession } from './websocket.js';

/**
 * A GraphQL subscription over a WebSocket, in the `graphql-transport-ws` protocol (the graphql-ws
 * library's; the subprotocol offered and required):
 *
 *   sling                                   server
 *   connection_init {payload?}      →
 *                                   ←       connection_ack
 *   subscribe {id, payload: {query, variables?, operationName?, extensions?}}  →
 *                                   ←       next {id, payload}   (any number)
 *                                   ←       complete {id}  or  error {id, payload: [GraphQLError]}
 *   close 1000                      →
 *
 * and `ping` answered with `pong` at any time. The API:
 *
 *   const sub = await subscribeGraphql(spec, { query, variables }, { env, jar, maxMessage, onMessage, debug });
 *   sub.session            // the WebSocket: its handshake (request, response, info) for printing
 *   await sub.done         // how it ended: { outcome, errors?, error?, close }
 *   await sub.stop()       // the caller ends it: `complete` sent, then close 1000; resolves as done does
 *
 * subscribeGraphql resolves once the server acknowledged the connection and the subscription has
 * been sent, and rejects (one line, the socket closed) when the WebSocket cannot be opened, the
 * server closes or answers anything but connection_ack first, or no acknowledgement comes within
 * the spec's --timeout (`# @timeout`), else within `ackTimeoutMs` when given. Variables that are
 * not JSON are the caller's error (exit 1), before anything is sent. `onMessage` gets the payload
 * of each `next` message (an execution result, `{"data": ...}`, perhaps with `errors`) as compact
 * JSON text, never before subscribeGraphql resolved.
 *
 * `done` never rejects. Its outcome: `complete` (the server completed the subscription),
 * `error` (the server's `error` message; `errors` is its payload as JSON text: the operation was
 * refused, a validation error, say), `stopped` (by stop()), `failed` (`error` says why: the
 * connection closed before the subscription ended, a message that breaks the protocol, which
 * closes the connection with 4400, as the protocol says).
 */

/**
 * The operation to subscribe to: the `payload` of the `subscribe` message. `variables` and
 * `extensions` are JSON text (a .http file's variables block as written: its numbers go as they
 * are), put into the message as they are once they read as JSON.
 */
export interface GraphqlOperation {
  query: string;
  variables?: string;
  operationName?: string;
  extensions?: string;
}

export interface GraphqlWsOptions {
  env: NodeJS.ProcessEnv;
  jar?: CookieJar;
  /** Bytes of one WebSocket message at most (websocket.ts). */
  maxMessage: number;
  /** The payload of each `next` message, as compact JSON text. */
  onMessage(json: string): void;
  debug?(message: string): void;
  /**
   * How long to wait for connection_ack when the spec has no --timeout (`# @timeout`) of its own;
   * neither: as long as it takes (the graphql-ws library's default too).
   */
  ackTimeoutMs?: number;
  /** The payload of `connection_init` as JSON text (the protocol's connection parameters: a token, say). */
  connectionParams?: string;
}

export interface GraphqlEnd {
  outcome: 'complete' | 'error' | 'stopped' | 'failed';
  /** With `error`: the server's `error` payload (a list of GraphQL errors) as JSON text. */
  errors?: string;
  /** With `failed`: why, in one line. */
  error?: CliError;
  /** How the WebSocket ended. */
  close: WebSocketClose;
}

export interface GraphqlSubscription {
  session: WebSocketSession;
  /** The subscription's id (the `id` of its messages). */
  id: string;
  done: Promise<GraphqlEnd>;
  /** Ends the subscription from this side: `complete`, then close 1000. Resolves as `done` does; after the end, with the end it had. */
  stop(): Promise<GraphqlEnd>;
}

export const GRAPHQL_WS_PROTOCOL = 'graphql-transport-ws';

/** The protocol's close code for a message it cannot take (graphql-ws: 4400 Bad request). */
const BAD_MESSAGE = 4400;
/** What the graphql-ws client closes with when no connection_ack comes in time. */
const ACK_TIMEOUT = 4504;

export async function subscribeGraphql(spec: RequestSpec, operation: GraphqlOperation, opts: GraphqlWsOptions): Promise<GraphqlSubscription> {
  checkJson(operation.variables, 'variables');
  checkJson(operation.extensions, 'extensions');
  checkJson(opts.connectionParams, 'connection parameters');
  const id = randomUUID();
  let phase: 'ack' | 'running' | 'ended' = 'ack';
  let outcome: Omit<GraphqlEnd, 'close'> | undefined;
  let session: WebSocketSession | undefined;
  let acked!: () => void;
  let ackFailed!: (e: CliError) => void;
  const ack = new Promise<void>((resolve, reject) => {
    acked = resolve;
    ackFailed = reject;
  });
  // No unhandled rejection while the WebSocket is still opening.
  ack.catch(() => {});

  const where = () => session?.where ?? spec.url.hostHeader;
  const send = (message: Record<string, unknown> | string) => {
    session?.send(typeof message === 'string' ? message : JSON.stringify(message)).catch(() => {});
  };
  /** The server broke the protocol: close 4400, and the subscription (or the wait for its ack) fails. */
  const bad = (what: string) => {
    const error = new NetworkError(`${where()} sent ${what}, which breaks the graphql-transport-ws protocol`);
    if (phase === 'ack') ackFailed(error);
    else if (!outcome) outcome = { outcome: 'failed', error };
    phase = 'ended';
    session?.close(BAD_MESSAGE, 'bad message').catch(() => {});
  };
  const end = (o: Omit<GraphqlEnd, 'close'>) => {
    if (phase === 'ended') return;
    phase = 'ended';
    outcome ??= o;
    session?.close(1000, '').catch(() => {});
  };

  const onMessage = (data: Buffer, binary: boolean) => {
    if (phase === 'ended') return;
    if (binary) return bad('a binary message');
    let message: { type?: unknown; id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(data.toString('utf8'));
    } catch {
      return bad(`a message that is not JSON ('${clip(data.toString('utf8'))}')`);
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message) || typeof message.type !== 'string') return bad(`a message without a type ('${clip(data.toString('utf8'))}')`);
    const type = message.type;
    if (type === 'ping') {
      opts.debug?.(`GraphQL over WebSocket: ping from ${where()}, pong sent`);
      return send(message.payload === undefined ? { type: 'pong' } : { type: 'pong', payload: message.payload });
    }
    if (type === 'pong') return;
    if (phase === 'ack') {
      if (type !== 'connection_ack') return bad(`'${clip(type)}' before connection_ack`);
      phase = 'running';
      return acked();
    }
    if (type === 'connection_ack') return bad('a second connection_ack');
    if (type !== 'next' && type !== 'error' && type !== 'complete') return bad(`a message of unknown type '${clip(type)}'`);
    if (message.id !== id) return bad(`a ${type} message for the subscription '${clip(String(message.id))}', not this one`);
    if (type === 'next') {
      if (message.payload === null || typeof message.payload !== 'object') return bad('a next message without a result as its payload');
      return opts.onMessage(JSON.stringify(message.payload));
    }
    if (type === 'error') return end({ outcome: 'error', errors: JSON.stringify(message.payload ?? []) });
    end({ outcome: 'complete' });
  };

  session = await openWebSocket(spec, { env: opts.env, jar: opts.jar, maxMessage: opts.maxMessage, subprotocols: [GRAPHQL_WS_PROTOCOL], onMessage, debug: opts.debug });
  const s = session;
  if (s.protocol !== GRAPHQL_WS_PROTOCOL) {
    await s.close(1002, '').catch(() => undefined);
    throw new NetworkError(`${s.where} accepted the WebSocket without the subprotocol ${GRAPHQL_WS_PROTOCOL}: it does not speak GraphQL over WebSocket that way`);
  }
  // The end of the WebSocket before the acknowledgement fails the wait for it.
  s.closed.then((c) => {
    if (phase === 'ack') {
      phase = 'ended';
      ackFailed(c.error ?? new NetworkError(`${s.where} closed the WebSocket (${closeText(c)}) before acknowledging the GraphQL connection`));
    }
  });
  send(opts.connectionParams === undefined ? { type: 'connection_init' } : `{"type":"connection_init","payload":${opts.connectionParams}}`);
  const limit = spec.settings.timeoutMs ?? opts.ackTimeoutMs;
  const from = spec.settings.timeoutMs !== undefined ? (spec.settings.timeoutFrom ?? '--timeout') : 'the wait for connection_ack';
  const timer = limit
    ? setTimeout(() => {
        if (phase !== 'ack') return;
        phase = 'ended';
        ackFailed(new TimeoutError(`no connection_ack from ${s.where} within ${limit / 1000}s (${from})`));
        s.close(ACK_TIMEOUT, 'connection acknowledgement timeout').catch(() => {});
      }, limit)
    : undefined;
  try {
    await ack;
  } catch (e) {
    await s.closed;
    throw e;
  } finally {
    if (timer) clearTimeout(timer);
  }
  send(subscribeMessage(id, operation));

  const done = s.closed.then((close): GraphqlEnd => {
    if (outcome) return { ...outcome, close };
    phase = 'ended';
    const error = close.error ?? new NetworkError(`${s.where} closed the WebSocket (${closeText(close)}) before the subscription completed`);
    outcome = { outcome: 'failed', error };
    return { ...outcome, close };
  });
  return {
    session: s,
    id,
    done,
    stop() {
      if (phase === 'running') {
        phase = 'ended';
        outcome = { outcome: 'stopped' };
        send({ id, type: 'complete' });
        s.close(1000, '').catch(() => {});
      }
      return done;
    },
  };
}

/** The JSON text of a subscribe message; the JSON parts of the operation go in as written. */
function subscribeMessage(id: string, operation: GraphqlOperation): string {
  let payload = `{"query":${JSON.stringify(operation.query)}`;
  if (operation.variables !== undefined) payload += `,"variables":${operation.variables}`;
  if (operation.operationName !== undefined) payload += `,"operationName":${JSON.stringify(operation.operationName)}`;
  if (operation.extensions !== undefined) payload += `,"extensions":${operation.extensions}`;
  return `{"id":${JSON.stringify(id)},"type":"subscribe","payload":${payload}}}`;
}

/** JSON text given for a part of a message: it must read as JSON (else the message would break), or the caller's error. */
function checkJson(text: string | undefined, what: string): void {
  if (text === undefined) return;
  try {
    JSON.parse(text);
  } catch (e) {
    throw new UsageError(`the GraphQL ${what} are not JSON: ${(e as Error).message}`);
  }
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);

function closeText(c: WebSocketClose): string {
  return c.code === undefined ? 'no close code' : `close code ${c.code}${c.reason ? `: ${clip(c.reason)}` : ''}`;
}
