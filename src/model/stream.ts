/**
 * Requests that are not one question and one answer: a WebSocket session, a stream of server-sent
 * events, a gRPC call. The request model carries them as data (RequestSpec.stream): what kind,
 * the messages to send and when, where a gRPC method's description comes from. The messages that
 * go back and forth are StreamMessages, for printing and for the file's response handlers.
 */

export type StreamKind = 'websocket' | 'sse' | 'grpc';

/** One message a file asks to send (a WebSocket frame, a gRPC request message). */
export interface OutgoingMessage {
  /** The message's text (JSON for gRPC). */
  text: string;
  /** JetBrains' `=== wait-for-server` before it: sent once a message came from the server after the previous one. */
  waitForServer: boolean;
  /** httpyac's `{{@streaming}}` block: sent this long after the message before it (ms). */
  delayMs?: number;
  /** The separator repeated (`=== wait-for-server` on two lines or more): how many messages from the server it waits for; absent: one. */
  waitCount?: number;
}

/** A .proto file a gRPC request's method is described by (httpyac's `proto < ./file.proto` and its options). */
export interface ProtoSource {
  /** Absolute path. */
  file: string;
  /** Absolute folders its imports are looked up in (its own folder first). */
  includeDirs: string[];
  /** httpyac's proto-loader options (keepCase, longs, enums, defaults, oneofs). */
  options: Record<string, unknown>;
}

export interface StreamRequest {
  kind: StreamKind;
  /** The request's keyword as written (WEBSOCKET, WS, WSS, SSE, EVENTSOURCE, GRPC, GRAPHQL), for titles. */
  keyword: string;
  /** What to send, in order (the request's body, split at JetBrains' `===` lines). */
  messages: OutgoingMessage[];
  /** gRPC: the method's path (`/package.Service/Method`) and its descriptions (none: server reflection). */
  grpc?: { path: string; protos: ProtoSource[] };
  /** A GraphQL subscription over WebSocket (the `graphql-transport-ws` protocol): the operation. */
  graphql?: { query: string; variables?: unknown; operationName?: string };
  /** httpyac's `{{@streaming}}` block: the stream ends this long (ms) after its last message is sent (when the block's promise settled). */
  endAfterMs?: number;
}

/** A message that went back or forth, as it is printed and handed to response handlers. */
export interface StreamMessage {
  direction: 'sent' | 'received';
  /** When (Date.now()). */
  at: number;
  /** Its text (UTF-8; for a binary message, empty). */
  text: string;
  /** A binary WebSocket message: its length in bytes. */
  binary?: number;
  /** Server-sent events: the event's name and id, when given. */
  event?: string;
  id?: string;
}

/** How a stream ended, for the summary line and the exit code. */
export interface StreamEnd {
  /**
   * closed: the server ended it (a WebSocket's close, the end of an event stream, gRPC's trailers,
   * a subscription's complete); idle: nothing came for the idle time; unsubscribed: a response
   * handler's unsubscribe(); timeline: an httpyac `{{@streaming}}` block's end; held: the messages
   * kept for what reads them after the stream outgrew the held-body limit (the request fails).
   */
  how: 'closed' | 'idle' | 'unsubscribed' | 'timeline' | 'held';
  /** A WebSocket close code, a gRPC status. */
  code?: number;
  /** Its reason / message / status name. */
  text?: string;
}

/** The quiet time after which sling closes a stream nobody ends, when neither `# @timeout` nor `--timeout` says. */
export const DEFAULT_STREAM_IDLE_MS = 10_000;
