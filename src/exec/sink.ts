import type { Sink } from '../output/printer.js';

/**
 * Output of `sling exec` gathered per request and written at once: a title, a head and a body
 * are one write instead of five (a file of a thousand requests is a thousand writes, not five
 * thousand). Only when stdout is not a terminal: on a terminal every piece shows as it comes, in
 * step with what goes to stderr.
 */
export class RequestSink implements Sink {
  private chunks: (string | Buffer)[] = [];
  private size = 0;

  constructor(
    private readonly out: Sink,
    private readonly buffered: boolean,
  ) {}

  write(chunk: string | Buffer): void | Promise<void> {
    if (!this.buffered) return this.out.write(chunk);
    this.chunks.push(chunk);
    this.size += chunk.length;
    // A large body goes out now rather than waiting in memory.
    if (this.size > 1 << 20) return this.flush();
  }

  flush(): void | Promise<void> {
    if (this.chunks.length === 0) return;
    const chunks = this.chunks;
    this.chunks = [];
    this.size = 0;
    if (chunks.length === 1) return this.out.write(chunks[0]!);
    if (chunks.every((c) => typeof c === 'string')) return this.out.write(chunks.join(''));
    return this.out.write(Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c))));
  }
}

/**
 * stderr while a response waits to be printed (runner.ts prints response N once request N+1 is on
 * the wire): messages are held and written after that response, so stdout and stderr keep the
 * order they would have had without the overlap.
 */
export class HeldWriter {
  private held: string[] | undefined;

  constructor(private readonly out: { write(chunk: string): unknown }) {}

  write(chunk: string): boolean {
    if (this.held) this.held.push(chunk);
    else this.out.write(chunk);
    return true;
  }

  hold() {
    this.held ??= [];
  }

  release() {
    const held = this.held;
    this.held = undefined;
    if (held?.length) this.out.write(held.join(''));
  }
}
