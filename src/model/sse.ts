/**
 * The text/event-stream format (the HTML standard's "server-sent events"), read as it arrives:
 * bytes in any pieces → events (data, event name, id). A server's bytes are a stranger's: one
 * event's text is bounded (`limit`), and a longer one fails the reader instead of filling memory.
 */

export interface ServerEvent {
  data: string;
  event?: string;
  id?: string;
}

/** An event past the reader's limit. `events`: those the same piece completed before it, in order (not lost with the failure). */
export class EventTooLargeError extends Error {
  constructor(
    limit: number,
    readonly events: ServerEvent[],
  ) {
    super(`an event of more than ${Math.floor(limit)} bytes`);
  }
}

export class EventStreamReader {
  /** UTF-8, as the standard decodes the stream: the decoder drops one byte order mark at its start (split across pieces too), and only that one. */
  private readonly decoder = new TextDecoder('utf-8');
  /** Text of the line being read (no line end seen yet). */
  private line = '';
  /** The last piece ended in CR: an LF that starts the next one belongs to that line end. */
  private afterCr = false;
  private data: string[] = [];
  private size = 0;
  private event?: string;
  private id?: string;

  constructor(private readonly limit: number) {}

  /** The events the piece completes, in order. */
  push(chunk: Buffer): ServerEvent[] {
    const text = this.decoder.decode(chunk, { stream: true });
    const out: ServerEvent[] = [];
    let from = 0;
    if (this.afterCr && text.charCodeAt(0) === 10) from = 1;
    this.afterCr = false;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (!this.take(this.line + text.slice(from, i), out)) throw new EventTooLargeError(this.limit, out);
      this.line = '';
      if (c === 13) {
        if (i + 1 === text.length) this.afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      from = i + 1;
    }
    this.line += text.slice(from);
    if (this.line.length + this.size > this.limit) throw new EventTooLargeError(this.limit, out);
    return out;
  }

  /** The stream ended: an event not followed by a blank line is not dispatched (as a browser does). */
  end(): void {
    this.line = '';
    this.data = [];
  }

  /** One line of the stream; false when it takes the event past the limit. */
  private take(line: string, out: ServerEvent[]): boolean {
    if (line === '') {
      if (this.data.length) {
        const e: ServerEvent = { data: this.data.join('\n') };
        if (this.event !== undefined && this.event !== '') e.event = this.event;
        if (this.id !== undefined) e.id = this.id;
        out.push(e);
      }
      this.data = [];
      this.size = 0;
      this.event = undefined;
      return true;
    }
    if (line.charCodeAt(0) === 58 /* : */) return true;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'data':
        this.size += value.length + 1;
        if (this.size > this.limit) return false;
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        // The id is kept from one event to the next (the last event ID); one with NUL is ignored.
        if (!value.includes('\0')) this.id = value;
        break;
      default:
      // `retry` (a browser's reconnection time) and unknown fields: nothing for sling to do.
    }
    return true;
  }
}
