import type { Sink } from '../../io.js';

/**
 * stdout of `sling exec` when it is a pipe or a file: output gathered across requests and written
 * in large pieces (a file of a thousand requests is a handful of writes, not a thousand). Written
 * when 64 kB are waiting, at most `delayMs` after the first waiting byte (a slow server still shows
 * each response at once, to a person), before anything goes to stderr (both streams keep their
 * order), on Ctrl-C and at the end of the run. On a terminal nothing is held: every piece shows as
 * it comes.
 */
export class OutputBatch implements Sink {
  private chunks: (string | Buffer)[] = [];
  private size = 0;
  private timer?: ReturnType<typeof setTimeout>;
  /** A write that asked to wait (a full pipe): the next writer waits for it. */
  private waiting?: Promise<void>;
  /** What went out last does not end its line (a body without a final newline). */
  lineOpen = false;

  constructor(
    private readonly out: Sink,
    private readonly delayMs = 20,
  ) {}

  write(chunk: string | Buffer): void | Promise<void> {
    if (chunk.length === 0) return this.takeWaiting();
    this.lineOpen = (typeof chunk === 'string' ? chunk.charCodeAt(chunk.length - 1) : chunk[chunk.length - 1]) !== 10;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= 64 * 1024) return this.flush();
    if (!this.timer) {
      this.timer = setTimeout(this.onTimer, this.delayMs);
      // The run ends with flush(): a waiting timer never keeps the process alive.
      this.timer.unref?.();
    }
    return this.takeWaiting();
  }

  private readonly onTimer = () => {
    this.timer = undefined;
    const w = this.flush();
    if (w) this.waiting = w;
  };

  private takeWaiting(): Promise<void> | undefined {
    const w = this.waiting;
    this.waiting = undefined;
    return w;
  }

  /** Writes what is waiting now. */
  flush(): void | Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.chunks.length === 0) return this.takeWaiting();
    const chunks = this.chunks;
    const size = this.size;
    this.chunks = [];
    this.size = 0;
    let w: void | Promise<void> = undefined;
    if (chunks.length === 1) w = this.out.write(chunks[0]!);
    // A large body is written as it is rather than copied into one buffer with its title and head.
    else if (size > 1 << 20) for (const part of joinStrings(chunks)) w = this.out.write(part) ?? w;
    else w = this.out.write(join(chunks));
    return w ?? this.takeWaiting();
  }
}

/**
 * One request's output (title, request, response, script lines), held until the request's turn to
 * print comes (response N is printed while request N+1 is on the wire: N+1's title waits), then
 * handed on as a whole. On a terminal every piece is written at once.
 */
export class RequestSink implements Sink {
  private chunks: (string | Buffer | (() => void))[] | undefined;

  constructor(
    private readonly out: Sink,
    private buffered: boolean,
  ) {}

  /** A function is something for stderr, run when the output before it has been handed on. */
  write(chunk: string | Buffer | (() => void)): void | Promise<void> {
    if (!this.buffered) return typeof chunk === 'function' ? chunk() : this.out.write(chunk);
    (this.chunks ??= []).push(chunk);
  }

  /** What is held goes out now, and from here on every piece as it comes (a body printed as it arrives). */
  unbuffer(): void | Promise<void> {
    const waiting = this.flush();
    this.buffered = false;
    return waiting;
  }

  flush(): void | Promise<void> {
    const chunks = this.chunks;
    if (!chunks) return;
    this.chunks = undefined;
    let waiting: void | Promise<void> = undefined;
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      if (typeof c === 'function') c();
      else waiting = this.out.write(c) ?? waiting;
    }
    return waiting;
  }
}

/** Runs of strings joined (one conversion per run later, not one per piece); buffers as they are. */
function joinStrings(chunks: (string | Buffer)[]): (string | Buffer)[] {
  const parts: (string | Buffer)[] = [];
  let text = '';
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    if (typeof c === 'string') text += c;
    else {
      if (text) parts.push(text);
      text = '';
      parts.push(c);
    }
  }
  if (text) parts.push(text);
  return parts;
}

/** Strings and buffers in one buffer (strings as UTF-8), or one string when there are no buffers. */
function join(chunks: (string | Buffer)[]): string | Buffer {
  const parts = joinStrings(chunks);
  if (parts.length === 1) return parts[0]!;
  let bytes = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    bytes += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
  }
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    at += typeof p === 'string' ? out.write(p, at, 'utf8') : p.copy(out, at);
  }
  return out;
}

/**
 * stderr while a response waits to be printed (runner.ts prints response N once request N+1 is on
 * the wire): messages are held and written after that response, so stdout and stderr keep the
 * order they would have had without the overlap. `before` runs before anything reaches stderr
 * (it writes out what stdout holds); it says true when stdout's last line is open (a body without
 * a final newline), and the message then starts on a line of its own, as HTTPie's do, so that
 * `> out.txt 2>&1` keeps `sling: error:` at the start of a line.
 */
export class HeldWriter {
  private held: string[] | undefined;

  constructor(
    private readonly out: { write(chunk: string): unknown },
    private readonly before?: () => boolean,
  ) {}

  write(chunk: string): boolean {
    if (this.held) this.held.push(chunk);
    else this.now(chunk);
    return true;
  }

  /** Writes at once, held or not (after what stdout holds). */
  now(chunk: string) {
    this.out.write(this.before?.() ? '\n' + chunk : chunk);
  }

  hold() {
    this.held ??= [];
  }

  release() {
    const held = this.held;
    this.held = undefined;
    if (held?.length) this.now(held.join(''));
  }
}
