/**
 * A stream request of a .http file (model/stream.ts) run to its end: the connection opened through
 * the transport (transport/websocket.ts, transport/grpc.ts; server-sent events over the HTTP
 * client), the file's messages sent in order (JetBrains' `=== wait-for-server` waits for the
 * server's next message), every message handed on as it goes or comes, and the end rules: the
 * server ends it, nothing comes for the idle time (`# @timeout`, `--timeout`, else 10 s), or
 * Ctrl-C (the process's interrupt handling). What is printed is the caller's (run.ts).
 */
import { CliError, NetworkError, TimeoutError } from '../../errors.js';
import { ExitCode, exitCodeForStatus } from '../../exit.js';
import type { CookieJar } from '../../model/cookies.js';
import type { HopInfo, ResponseHead } from '../../model/exchange.js';
import { headerIn } from '../../model/headers.js';
import type { PreparedRequest } from '../../model/prepare.js';
import type { ServerEvent } from '../../model/sse.js';
import type { RequestSpec } from '../../model/spec.js';
import { DEFAULT_STREAM_IDLE_MS, type OutgoingMessage, type StreamEnd, type StreamMessage } from '../../model/stream.js';
import { hostAndPort, type ParsedUrl } from '../../model/url.js';
import type { Hop } from '../../transport/hop.js';
import type { Printer } from '../../output/printer.js';
import { wouldSend } from '../deliver.js';

export interface StreamOptions {
  env: NodeJS.ProcessEnv;
  jar?: CookieJar;
  /** Bytes of one message at most, and of the messages kept for what reads them after the stream. */
  maxMessage: number;
  /** Something reads the messages after the stream (a handler, an assertion, `>> file`): keep them, up to maxMessage bytes in all. */
  keepMessages: boolean;
  /** Reads a file the request names (a .proto), within sling's limits. */
  readFile(path: string): Buffer;
  /** Sends the opening HTTP request of a stream that is one (server-sent events), printing as the run prints a request. */
  send(spec: RequestSpec): Promise<Hop>;
  /** The stream is open: the request as sent and the answer's head, to print (a request sent through `send` is printed already). */
  opened(request: PreparedRequest | undefined, response: ResponseHead, http2: boolean): void | Promise<void>;
  message(m: StreamMessage): void | Promise<void>;
  debug?(message: string): void;
}

export interface StreamRun {
  url: ParsedUrl;
  request: PreparedRequest;
  response: ResponseHead;
  info: HopInfo;
  messages: StreamMessage[];
  end: StreamEnd;
  /** What the end means for the run: a failure to report (a WebSocket closed with an error code, a gRPC status other than OK). */
  failure?: CliError;
  /** The idle time it had (for the line that says it went quiet). */
  idleMs: number;
  /** How many messages went or came (`messages` holds only those kept); undefined: messages.length. */
  count?: number;
  /** gRPC: the trailers, printed after the messages. */
  trailers?: [string, string][];
}

/**
 * The pace of one stream: the messages so far, the idle timer (restarted by every message), and
 * the wait of `=== wait-for-server` (for a message from the server after the last one sent).
 */
export class Conversation {
  /** The messages kept for what reads them after the stream (handlers, assertions, `>> file`): none when nothing does. */
  readonly messages: StreamMessage[] = [];
  /** How many messages went or came, kept or not. */
  count = 0;
  /** The bytes of the messages kept so far. */
  private held = 0;
  /** The messages to keep outgrew the held-body limit: the stream was ended, and the request fails with this. */
  failure?: CliError;
  private received = 0;
  private waiting?: () => void;
  private timer?: NodeJS.Timeout;
  private readonly stop = new AbortController();
  /** Why it stopped (idle, the handler's end), once it has. */
  stopped?: StreamEnd['how'];
  /** Printing in order: each message waits for the one before it to be written. */
  private printed: Promise<void> = Promise.resolve();

  /**
   * `keep`: how the messages are kept for after the stream. Undefined: all of them (a caller that
   * says nothing); `limit` bytes at most (SLING_HELD_BODY_MB), past which the stream ends and the
   * request fails; or, `keep: false`, none (nothing reads them: a stream that runs for hours
   * holds nothing).
   */
  constructor(
    private readonly idleMs: number,
    private readonly show: (m: StreamMessage) => void | Promise<void>,
    private readonly keep: { keep: boolean; limit: number } = { keep: true, limit: Number.POSITIVE_INFINITY },
  ) {
    this.restart();
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** A message went or came. */
  add(m: Omit<StreamMessage, 'at'>): void {
    const full: StreamMessage = { ...m, at: Date.now() };
    this.count++;
    if (this.keep.keep && !this.failure) {
      this.held += Buffer.byteLength(m.text, 'utf8');
      if (this.held <= this.keep.limit) this.messages.push(full);
      else {
        const limit = this.keep.limit >= 1048576 ? `${Math.round(this.keep.limit / 1048576)} MiB` : `${Math.floor(this.keep.limit)} bytes`;
        this.failure = new CliError(
          `the stream's messages are over ${limit}, more than sling holds for a response handler, an assertion or a '>> file' (a stream only printed holds nothing; SLING_HELD_BODY_MB raises the limit)`,
        );
        this.end('stopped');
      }
    }
    if (m.direction === 'received') {
      this.received++;
      const w = this.waiting;
      this.waiting = undefined;
      w?.();
    }
    this.restart();
    this.printed = this.printed.then(() => this.show(full));
  }

  /** Everything handed to `show` has been written. */
  flushed(): Promise<void> {
    return this.printed;
  }

  /** Ends the stream from sling's side (idle time, a protocol's end): the signal fires once. */
  end(how: StreamEnd['how']): void {
    if (this.stopped) return;
    this.stopped = how;
    if (this.timer) clearTimeout(this.timer);
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
    this.stop.abort();
  }

  /** The session is over (however it ended): no timer keeps the process alive. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  private restart() {
    if (this.stopped) return;
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(() => this.end('idle'), this.idleMs);
  }

  /**
   * The file's messages as they are to go: each one after as many messages from the server as it
   * asks to wait for (those that came since the previous message was sent count). Ends early when
   * the stream stops.
   */
  async *outgoing(list: OutgoingMessage[]): AsyncGenerator<string> {
    let seen = this.received;
    for (const m of list) {
      if (this.stopped) return;
      const waits = m.waitForServer ? (m.waitCount ?? 1) : 0;
      while (this.received - seen < waits) {
        await new Promise<void>((resolve) => {
          this.waiting = resolve;
        });
        if (this.stopped) return;
      }
      seen = this.received;
      yield m.text;
    }
  }
}

/** The idle time of a stream: `# @timeout` or `--timeout`, else the default. */
export function idleTime(spec: RequestSpec): number {
  return spec.settings.timeoutMs ?? DEFAULT_STREAM_IDLE_MS;
}

export async function runStream(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  switch (spec.stream!.kind) {
    case 'sse':
      return runEvents(spec, o);
    default:
      throw new CliError(`${spec.stream!.keyword} requests are not supported yet`, ExitCode.ERROR);
  }
}

/** Server-sent events: a GET answered with text/event-stream, each event a message, until the server ends it or it goes quiet. */
async function runEvents(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  // The idle time is sling's end of the stream, not a failure: the transport's own timeout is off for the body.
  const idle = idleTime(spec);
  const hop = await o.send(spec);
  const where = hostAndPort(hop.url);
  const talk = new Conversation(idle, o.message, { keep: o.keepMessages, limit: o.maxMessage });
  await o.opened(undefined, hop.response, hop.response.httpVersion === '2');
  const base = { url: hop.url, request: hop.request, response: hop.response, info: hop.info, messages: talk.messages, idleMs: idle };
  const type = (headerIn(hop.response.rawHeaders, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (hop.response.status >= 300 || type !== 'text/event-stream') {
    talk.close();
    hop.body.destroy();
    const status = `${hop.response.status} ${hop.response.reason}`.trimEnd();
    // A status as --check-status counts it (a 3xx not followed is 3); a 2xx that is no event stream is a bad answer.
    const code = hop.response.status >= 300 ? exitCodeForStatus(hop.response.status) : ExitCode.NETWORK;
    const why = hop.response.status >= 300 ? `answered ${status}` : `answered ${type === '' ? 'without a Content-Type' : type}, not text/event-stream`;
    return { ...base, end: { how: 'closed' }, failure: new CliError(`${where} ${why}`, code) };
  }
  const { decodedBody } = await import('../../transport/body.js');
  const { EventStreamReader } = await import('../../model/sse.js');
  const reader = new EventStreamReader(o.maxMessage);
  const received = (e: ServerEvent) => talk.add({ direction: 'received', text: e.data, ...(e.event !== undefined ? { event: e.event } : {}), ...(e.id !== undefined ? { id: e.id } : {}) });
  const body = await decodedBody(hop);
  const onStop = () => body.destroy();
  talk.signal.addEventListener('abort', onStop);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      for (const e of reader.push(chunk)) received(e);
      // The next piece is read once these are printed: a terminal or pipe slower than the server holds the stream back, not the memory.
      await talk.flushed();
    }
    reader.end();
  } catch (e) {
    // The transport's --timeout / # @timeout between two pieces of the body: the stream went quiet.
    if (e instanceof TimeoutError && !talk.stopped) talk.end('idle');
    else if (!talk.stopped) {
      const { EventTooLargeError } = await import('../../model/sse.js');
      // The events that came before the one too large are printed before the failure.
      if (e instanceof EventTooLargeError) for (const ev of e.events) received(ev);
      talk.close();
      await talk.flushed();
      if (e instanceof CliError) throw e;
      if (e instanceof EventTooLargeError) throw new NetworkError(`${where} sent ${e.message}`);
      throw e;
    }
  } finally {
    talk.signal.removeEventListener('abort', onStop);
    talk.close();
  }
  await talk.flushed();
  return { ...base, end: { how: talk.stopped ?? 'closed' }, count: talk.count, ...(talk.failure ? { failure: talk.failure } : {}) };
}

/** The line under a stream's messages that says how it ended. */
export function endText(run: StreamRun): string {
  const { end } = run;
  const code = end.code !== undefined ? ` (${end.code}${end.text ? ` ${end.text}` : ''})` : end.text ? ` (${end.text})` : '';
  switch (end.how) {
    case 'idle':
      return `closed by sling: nothing came for ${idleText(run)}`;
    case 'stopped':
      return `ended${code}`;
    case 'interrupted':
      return 'interrupted';
    default:
      return `closed by the server${code}`;
  }
}

function idleText(run: StreamRun): string {
  const ms = run.idleMs;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The server's messages as a JSON array (what a script or an assertion reads as the body): JSON messages parsed, others as text. */
export function messagesBody(run: StreamRun): Buffer {
  const values: unknown[] = [];
  for (const m of run.messages) {
    if (m.direction !== 'received' || m.binary !== undefined) continue;
    let v: unknown = m.text;
    const c = m.text.trimStart().charCodeAt(0);
    if (c === 123 || c === 91) {
      try {
        v = JSON.parse(m.text);
      } catch {
        v = m.text;
      }
    }
    values.push(v);
  }
  return Buffer.from(JSON.stringify(values), 'utf8');
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
  if (stream.graphql) await printer.outgoing(JSON.stringify({ type: 'subscribe', payload: stream.graphql }), 0);
  for (const m of stream.messages) await printer.outgoing(m.text, m.waitForServer ? (m.waitCount ?? 1) : 0);
  await printer.finish();
}
