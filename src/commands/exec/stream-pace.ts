/**
 * The pace of a stream request (commands/exec/streams.ts runs it): what it is handed and gives
 * back (StreamOptions, StreamRun), the Conversation that keeps its messages, its idle time and the
 * waits of its outgoing messages, and the file's handlers asked whether they end it.
 */
import type { CookieJar } from '../../model/cookies.js';
import type { Completed } from '../../model/exec.js';
import type { HopInfo, ResponseHead } from '../../model/exchange.js';
import { CliError } from '../../errors.js';
import type { PreparedRequest } from '../../model/prepare.js';
import type { RequestSpec } from '../../model/spec.js';
import { DEFAULT_STREAM_IDLE_MS, type OutgoingMessage, type StreamEnd, type StreamMessage } from '../../model/stream.js';
import type { ParsedUrl } from '../../model/url.js';
import type { Hop } from '../../transport/hop.js';

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
  /** After each message from the server: whether the file's handlers end the stream by now (ExecEntry.streamEnds). */
  ends?(sofar: Completed): false | Promise<boolean>;
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
  /** Why sling stopped it (idle time, a handler's unsubscribe(), a timeline's end), once it has. */
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

  /** How many messages came from the server. */
  get receivedCount(): number {
    return this.received;
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
        this.end('held');
      }
    }
    if (m.direction === 'received') {
      this.received++;
      const w = this.waiting;
      this.waiting = undefined;
      w?.();
      if (this.check) void this.ask();
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
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  private closed = false;

  private restart() {
    if (this.stopped || this.closed) return;
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(() => this.end('idle'), this.idleMs);
  }

  /**
   * The file's messages as they are to go: each one after a message from the server when it asks to
   * wait for one (one that came since the previous message was sent counts), or after its delay (an
   * httpyac `{{@streaming}}` timeline, whose last wait ends it: `endAfterMs`). Ends early when the
   * stream stops. The idle time does not run while a delay does.
   */
  async *outgoing(list: OutgoingMessage[], endAfterMs?: number): AsyncGenerator<string> {
    let seen = this.received;
    for (const m of list) {
      if (this.stopped) return;
      if (m.delayMs) await this.pause(m.delayMs);
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
    if (endAfterMs !== undefined) {
      if (endAfterMs) await this.pause(endAfterMs);
      this.timelineDone = true;
    }
  }

  private check?: () => false | Promise<boolean>;
  private asking = false;
  private askAgain = false;

  /** Asks `check` after each message from the server whether the stream ends now (a handler's unsubscribe()): it ends 'stopped' when it says so. */
  watch(check: () => false | Promise<boolean>): void {
    this.check = check;
  }

  private async ask() {
    if (this.asking) {
      this.askAgain = true;
      return;
    }
    this.asking = true;
    try {
      do {
        this.askAgain = false;
        if (this.stopped || this.closed) return;
        // Each trial goes through every message so far: past a bound, the handlers are no longer
        // asked (the stream then ends as any other), so a stream of many messages costs no more.
        if (this.count > TRIAL_MESSAGES || this.held > TRIAL_BYTES) {
          this.check = undefined;
          return;
        }
        if (await this.check!()) {
          this.end('unsubscribed');
          return;
        }
      } while (this.askAgain);
    } catch {
      // A handler that fails here fails again when it runs for real, where its failure is reported.
    } finally {
      this.asking = false;
    }
  }

  /** A timeline's messages are all sent and its last wait is over: the stream's end is the caller's to make. */
  timelineDone = false;

  /** Waits `ms` (or until the stream stops), the idle timer held meanwhile. */
  private async pause(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.stop.signal.addEventListener('abort', done, { once: true });
    });
    this.restart();
  }
}

/** The most messages, and bytes of them, the handlers' trials (their unsubscribe()) go through. */
const TRIAL_MESSAGES = 1000;
const TRIAL_BYTES = 1 << 20;

/** The idle time of a stream: `# @timeout` or `--timeout`, else the default. */
export function idleTime(spec: RequestSpec): number {
  return spec.settings.timeoutMs ?? DEFAULT_STREAM_IDLE_MS;
}

/** The file's handlers asked after each message whether they end the stream (JetBrains' unsubscribe()). */
export function watchHandlers(talk: Conversation, spec: RequestSpec, base: Omit<StreamRun, 'end'>, o: StreamOptions) {
  const ends = o.ends;
  if (!ends) return;
  talk.watch(() => {
    const run = { ...base, messages: talk.messages.slice(), end: { how: 'unsubscribed' as const } };
    return ends({ spec, request: run.request, url: run.url, response: run.response, info: run.info, body: messagesBody(run), messages: run.messages, end: run.end });
  });
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
