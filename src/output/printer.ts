import type { Readable } from 'node:stream';
import type { StreamMessage } from '../model/stream.js';
import type { PreparedRequest } from '../model/prepare.js';
import { bodyChunks, isStreamed, type StreamedBody } from '../model/upload.js';
import type { ResponseHead, HopInfo } from '../model/exchange.js';
import { H2_FORBIDDEN, headerIn, headerInPairs, isCredentialHeader, maskedCredential } from '../model/headers.js';
import { colourJson, formatJson, formatJsonBytes, looksLikeJson, NotFormatted } from './json-format.js';
import { bodyKind, highlightCss, highlightForm, highlightJs, highlightMarkup, indentXml } from './highlight.js';
import type { OutputPlan } from './plan.js';
import { neutralise, neutraliseJson } from '../sanitize.js';
import { bodyCharset, charsetDecoder, decodeBody, decodesToNul, headerCharset, sniffsCharset, type BodyDecoder } from './charset.js';
import { now } from '../clock.js';

import type { Sink } from '../io.js';

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

const paintLine = (colour: string, s: string, p: { reset: string }) => (colour ? colour + s + p.reset : s);

/**
 * The largest body gathered whole to be formatted or coloured (a 13.7 MB JSON document formats in
 * a third of a second); a larger one is shown as it comes, unformatted, so that memory stays bounded
 * whatever a server sends (an endless body, a small gzip body that inflates to gigabytes).
 */
const WHOLE_LIMIT = 32 << 20;

/** How much of a binary body is read (and thrown away) for its size before the note: no more. */
const BINARY_READ_ON = 1 << 20;

/** What a body is, for formatting: by its media type, and JSON when it looks like it (its first bytes). */
function kindOf(plan: OutputPlan, contentType: string | undefined, first: Buffer) {
  const mime = (plan.responseMime ?? contentType)?.split(';')[0]?.trim().toLowerCase();
  let kind = bodyKind(mime);
  if (kind === 'text' && (!mime || mime.startsWith('text/') || mime === 'application/octet-stream') && looksLikeJson(first.subarray(0, 64).toString('latin1'))) kind = 'json';
  if (kind === 'js' && looksLikeJson(first.subarray(0, 64).toString('latin1'))) kind = 'json';
  return kind;
}

/**
 * Binary, not text: its first 8 KiB hold U+0000 once decoded in `charset` (a zero byte; in UTF-16
 * and UTF-32 a code unit of zeros, so their text is text). `offset`: where `buf` is in the body.
 */
function looksBinary(buf: Buffer, charset = 'utf-8', offset = 0): boolean {
  return decodesToNul(buf.subarray(0, 8192), charset, offset);
}

/**
 * Renders exchanges in HTTPie's layout: a head block (start line and headers), a blank line, the
 * body; a blank line between messages. Bodies are streamed when nothing needs the whole of them.
 */
export class Printer {
  /** What was written last: nothing yet, a head block, or a body (and whether it ended in \n). */
  private last: 'none' | 'head' | 'body' = 'none';
  private lastNewline = true;
  /** The body goes somewhere else too (a `>> file`): a binary body on a terminal is read to its end, not given up after its note. */
  readToEnd = false;

  constructor(
    readonly plan: OutputPlan,
    private readonly sink: Sink,
  ) {}

  /** What the sink asked to wait for (backpressure), to be awaited at the end of the current step. */
  private wait?: Promise<void>;

  /** Writes now (synchronously); a sink that wants the writer to wait leaves a promise in `wait`. */
  private put(s: string | Buffer) {
    if (s.length === 0) return;
    const r = this.sink.write(s);
    if (r) this.wait = r;
    const lastByte = typeof s === 'string' ? s.charCodeAt(s.length - 1) : s[s.length - 1];
    this.lastNewline = lastByte === 10;
    this.openLineTold = false;
  }

  private openLineTold = false;
  /**
   * The output so far ends in the middle of a line (a body without a final newline): true once per
   * such line, for a message on stderr to start a line of its own (`> out 2>&1`).
   */
  takeOpenLine(): boolean {
    if (this.lastNewline || this.openLineTold) return false;
    this.openLineTold = true;
    return true;
  }

  /** The promise to await before writing more, if the sink asked for one. */
  private drained(): Promise<void> | undefined {
    const w = this.wait;
    this.wait = undefined;
    return w;
  }

  private async out(s: string | Buffer) {
    this.put(s);
    await this.drained();
  }

  private startMessage() {
    if (this.last === 'none') return;
    if (!this.lastNewline) this.put('\n');
    this.put('\n');
    this.last = 'none';
  }

  private startBody() {
    if (this.last === 'head') this.put('\n');
  }

  private text(s: string, colour = '') {
    const p = this.plan.palette;
    const safe = this.plan.terminal ? neutralise(s, this.plan.colors ? p.control : '', this.plan.colors ? p.reset + colour : '') : s;
    return colour ? colour + safe + p.reset : safe;
  }

  private headLines(start: string, headers: [string, string][]): string {
    const p = this.plan.palette;
    let list = headers;
    if (this.plan.sortHeaders) list = [...headers].sort(([a], [b]) => a.toLowerCase().localeCompare(b.toLowerCase()));
    let out = start + '\n';
    for (const [n, v] of list) out += `${this.text(n, p.headerName)}: ${this.text(v, p.headerValue)}\n`;
    return out;
  }

  /** headLines for a flat [name, value, ...] list (a response head as received). */
  private rawHeadLines(start: string, raw: string[]): string {
    const plan = this.plan;
    if (plan.sortHeaders || plan.terminal || plan.colors) return this.headLines(start, pairs(raw));
    let out = start + '\n';
    for (let i = 0; i < raw.length; i += 2) out += raw[i] + ': ' + raw[i + 1] + '\n';
    return out;
  }

  /**
   * The request as sent (or as it would be sent, with --offline). `h2`: it went over HTTP/2, so
   * `HTTP/2` on its first line and without the connection-specific headers HTTP/2 does not send
   * (Host stays: its value went as `:authority`).
   */
  async request(req: PreparedRequest, h2 = false) {
    const { plan } = this;
    if (!plan.requestHeaders && !plan.requestBody) return;
    this.startMessage();
    const p = plan.palette;
    if (plan.requestHeaders) {
      const start = `${this.text(req.method, p.method)} ${this.text(req.target, p.url)} ${this.text(h2 ? 'HTTP/2' : `HTTP/${req.version ?? '1.1'}`, p.version)}`;
      const sent = h2 ? req.headers.filter(([n]) => !H2_FORBIDDEN.has(n.toLowerCase())) : req.headers;
      const headers = plan.maskCredentials ? sent.map(([n, v]): [string, string] => (isCredentialHeader(n) ? [n, maskedCredential(v)] : [n, v])) : sent;
      this.put(this.headLines(start, headers));
      this.last = 'head';
    }
    if (plan.requestBody && req.body.length > 0) {
      this.startBody();
      if (isStreamed(req.body)) await this.streamedBody(req.body);
      else this.body(req.body, headerInPairs(req.headers, 'content-type'), true);
      this.last = 'body';
    }
    await this.drained();
  }

  /**
   * A request held until its answer is known to be the last one (printingHops' final pair), or,
   * when HTTP/2 was asked for, until its answer says which version carried it (TLS's ALPN decides).
   */
  private held?: PreparedRequest;
  /** The held request asked for HTTP/2 (`settings.http2`): the answer's version decides how it is printed. */
  private heldHttp2?: 'alpn' | 'prior-knowledge';

  /** Prints the request held back, if any: before its answer, or before the failure that ended it. */
  hold(req: PreparedRequest, http2?: 'alpn' | 'prior-knowledge') {
    this.held = req;
    this.heldHttp2 = http2;
  }

  /**
   * `answered`: the HTTP version of the answer to the held request. Without one (the exchange
   * failed), a request asked for with HTTP/2 prior knowledge is shown as HTTP/2, one that left it to
   * ALPN as HTTP/1.1.
   */
  async heldRequest(answered?: string) {
    const req = this.held;
    const http2 = this.heldHttp2;
    this.held = undefined;
    this.heldHttp2 = undefined;
    if (req) await this.request(req, http2 !== undefined && (answered === undefined ? http2 === 'prior-knowledge' : answered === '2'));
  }

  async responseHead(head: ResponseHead) {
    if (this.held) await this.heldRequest(head.httpVersion);
    this.responseHeadNow(head);
    await this.drained();
  }

  private responseHeadNow(head: ResponseHead) {
    const { plan } = this;
    this.startMessage();
    if (!plan.responseHeaders) return;
    const p = plan.palette;
    const statusColour = head.status >= 500 ? p.status5xx : head.status >= 400 ? p.status4xx : head.status >= 300 ? p.status3xx : p.status2xx;
    const start = `${this.text(`HTTP/${head.httpVersion}`, p.version)} ${this.text(`${head.status} ${head.reason}`.trimEnd(), statusColour)}`;
    this.put(this.rawHeadLines(start, head.rawHeaders));
    this.last = 'head';
  }

  /** A response body already read (redirect hops), or streamed from the network. */
  async responseBody(head: ResponseHead, body: Buffer | Readable) {
    if (Buffer.isBuffer(body)) {
      this.responseBodyNow(head, body);
      await this.drained();
      return;
    }
    if (!this.plan.responseBody) {
      for await (const _ of body); // read it so errors (cut short, timeout) surface
      return;
    }
    this.startBody();
    await this.streamBody(body, this.bodyType(head));
    this.last = 'body';
  }

  /** The response's Content-Type, or --response-mime with the header's charset (it changes the formatting, not the decoding). */
  private bodyType(head: ResponseHead): string | undefined {
    const header = headerIn(head.rawHeaders, 'content-type');
    const mime = this.plan.responseMime;
    if (mime === undefined) return header;
    const charset = headerCharset(header);
    return charset !== undefined && headerCharset(mime) === undefined ? `${mime}; charset=${charset}` : mime;
  }

  private responseBodyNow(head: ResponseHead, body: Buffer) {
    if (!this.plan.responseBody) return;
    this.startBody();
    this.body(body, this.bodyType(head));
    this.last = 'body';
  }

  /**
   * A whole response at once, body already read (`sling exec`): head, body, `p` properties and
   * the final newline in one synchronous step. A promise only when the sink asks to wait.
   */
  response(head: ResponseHead, body: Buffer, info: HopInfo, request?: PreparedRequest): Promise<void> | undefined {
    this.responseHeadNow(head);
    this.responseBodyNow(head, body);
    this.metaNow(head, info, body.length, request);
    this.finishNow();
    return this.drained();
  }

  /**
   * One message of a stream (a WebSocket message, a server-sent event, a gRPC message), as it goes
   * or comes: a line saying which way, when, and (an event) its name and id, then its text as a body
   * (JSON formatted and coloured as a JSON body is). A binary message is a note of its size.
   */
  async message(m: StreamMessage) {
    const { plan } = this;
    if (!plan.responseBody) return;
    if (this.last === 'head') this.put('\n');
    else if (!this.lastNewline) this.put('\n');
    const p = plan.palette;
    let line = `${m.direction === 'sent' ? '>>' : '<<'} ${m.direction} ${clockTime(m.at)}`;
    if (m.event !== undefined) line += ` event: ${m.event}`;
    if (m.id !== undefined) line += ` id: ${m.id}`;
    if (m.binary !== undefined) line += ` (binary, ${m.binary} byte${m.binary === 1 ? '' : 's'})`;
    this.put(this.text(line, p.headerName) + '\n');
    if (m.binary === undefined && m.text !== '') {
      const body = Buffer.from(m.text, 'utf8');
      this.body(body, isJsonMessage(m.text) ? 'application/json' : 'text/plain; charset=utf-8');
      if (!this.lastNewline) this.put('\n');
    }
    this.last = 'body';
    await this.drained();
  }

  /** --offline: a message a stream request would send (WebSocket, gRPC), in order, under the request; `when`: what it waits for first (the server's next messages, a time). */
  async outgoing(text: string, when?: string) {
    const { plan } = this;
    if (!plan.requestBody) return;
    if (this.last === 'head') this.put('\n');
    else if (!this.lastNewline) this.put('\n');
    this.put(this.text(when ? `>> to send ${when}` : '>> to send', plan.palette.headerName) + '\n');
    this.body(Buffer.from(text, 'utf8'), isJsonMessage(text) ? 'application/json' : 'text/plain; charset=utf-8', true);
    if (!this.lastNewline) this.put('\n');
    this.last = 'body';
    await this.drained();
  }

  /** The line that says how a stream ended (`-- closed by the server: 1000`, `-- grpc-status: 0 OK`). */
  async streamEnd(text: string) {
    if (!this.plan.responseBody && !this.plan.responseHeaders) return;
    if (!this.lastNewline) this.put('\n');
    this.put(this.text(`-- ${text}`, this.plan.palette.headerName) + '\n');
    this.last = 'body';
    await this.drained();
  }

  /** The `p` print code: the exchange's properties, phase timings and sizes. */
  async meta(head: ResponseHead, info: HopInfo, size: number, request?: PreparedRequest) {
    this.metaNow(head, info, size, request);
    await this.drained();
  }

  private metaNow(head: ResponseHead, info: HopInfo, size: number, request?: PreparedRequest) {
    if (!this.plan.meta) return;
    this.startMessage();
    const t = info.timings;
    const at = (x?: number) => (x === undefined ? '-' : `${(x - t.start).toFixed(1)} ms`);
    const total = (t.end ?? now()) - t.start;
    const headBytes = head.rawHeaders.reduce((n, h) => n + Buffer.byteLength(h, 'latin1'), 0) + (head.rawHeaders.length / 2) * 4;
    const lines = [
      `Status: ${head.status} ${head.reason}`.trimEnd(),
      `HTTP version: HTTP/${head.httpVersion}`,
      `Remote address: ${info.remoteAddress ?? '-'}${info.remotePort ? ':' + info.remotePort : ''}${info.proxy ? ` (via proxy ${info.proxy})` : ''}`,
      ...(info.tlsProtocol ? [`TLS: ${info.tlsProtocol}, ${info.tlsCipher ?? 'unknown cipher'}`] : []),
      `Connection: ${info.reused ? 'reused' : 'new'}`,
      `Timings: DNS ${info.reused ? '(reused)' : at(t.dns)}, connect ${info.reused ? '(reused)' : at(t.connect)}, TLS ${at(t.tls)}, first byte ${at(t.firstByte)}, total ${total.toFixed(1)} ms`,
      ...(request ? [`Request size: ${request.headers.reduce((n, [k, v]) => n + Buffer.byteLength(`${k}: ${v}\r\n`), 0)} B headers, ${request.body.length} B body`] : []),
      `Response size: ${headBytes} B headers, ${size} B body`,
      `Elapsed time: ${(total / 1000).toFixed(3)}s`,
    ];
    this.put(lines.map((l) => this.text(l, this.plan.palette.meta)).join('\n') + '\n');
    this.last = 'head';
  }

  /** A body as text: in --response-charset, else the header's charset, else the document's own (charset.ts). */
  private decodeText(buf: Buffer, contentType: string | undefined): string {
    return decodeBody(buf, bodyCharset(this.plan.responseCharset, contentType, buf));
  }

  /**
   * A body with large files in it (upload.ts), read and written a piece at a time, never whole: as
   * it is (not formatted or coloured), or on a terminal the binary note when its start looks binary
   * (the first 8 KiB, as looksBinary looks at a whole body).
   */
  private async streamedBody(body: StreamedBody) {
    const { plan } = this;
    const decoder = !plan.terminal && !plan.responseCharset ? undefined : new (await import('node:string_decoder')).StringDecoder('utf8');
    const write = (b: Buffer) => this.put(decoder ? this.text(decoder.write(b)) : b);
    /** On a terminal, the start is held until 8 KiB of it say whether it is binary. */
    let start: Buffer[] | undefined = plan.terminal ? [] : undefined;
    let held = 0;
    const decide = (): boolean => {
      const bytes = Buffer.concat(start!, held);
      start = undefined;
      if (looksBinary(bytes)) {
        this.put(this.requestNote(body.length));
        return false;
      }
      write(bytes);
      return true;
    };
    for await (const chunk of bodyChunks(body)) {
      if (start) {
        start.push(chunk);
        held += chunk.length;
        if (held < 8192) continue;
        if (!decide()) return;
      } else write(chunk);
      await this.drained();
    }
    if (start && !decide()) return;
    if (decoder) this.put(this.text(decoder.end()));
  }

  /** `request`: the body sent (its note says so: it is not something to save). */
  private body(buf: Buffer, contentType: string | undefined, request = false) {
    const { plan } = this;
    if (plan.terminal && looksBinary(buf, bodyCharset(plan.responseCharset, contentType, buf))) {
      this.put(request ? this.requestNote(buf.length) : this.binaryNote(buf.length));
      return;
    }
    if (!plan.format && !plan.colors) {
      if (!plan.terminal && !plan.responseCharset) this.put(buf);
      else this.put(this.text(this.decodeText(buf, contentType)));
      return;
    }
    const rendered = this.render(buf, contentType);
    this.put(rendered);
    if (rendered.length && plan.format && !this.lastNewline) this.put('\n');
  }

  /** Formats and colours a whole body by its media type (or what it looks like). */
  private render(buf: Buffer, contentType: string | undefined): string | Buffer {
    const { plan } = this;
    const p = plan.palette;
    const kind = kindOf(plan, contentType, buf);
    const utf8 = bodyCharset(plan.responseCharset, contentType, buf) === 'utf-8';
    if (kind === 'json') {
      if (plan.format && plan.formatJson) {
        const fmt = { indent: plan.indent, sorted: plan.sorted, palette: p };
        try {
          // Valid JSON has no raw C0 control characters; C1 and bidirectional ones are shown as escapes.
          const out = utf8 ? formatJsonBytes(buf, fmt) : Buffer.from(formatJson(this.decodeText(buf, contentType), fmt) ?? '', 'utf8');
          if (out && out.length) return plan.terminal ? neutraliseJson(out) : out;
        } catch (e) {
          if (!(e instanceof NotFormatted)) throw e;
          // As it came, then a line that says why it is not formatted.
          const text = this.safe(this.decodeText(buf, contentType));
          return `${text}${text.endsWith('\n') ? '' : '\n'}${this.text(`[${e.message}: shown as it came, not formatted]`, p.meta)}`;
        }
      } else if (plan.colors) {
        return colourJson(this.safe(this.decodeText(buf, contentType)), p);
      }
    }
    let text = this.safe(this.decodeText(buf, contentType));
    if (kind === 'xml' && plan.format && plan.formatXml) text = indentXml(text, plan.xmlIndent) ?? text;
    if (!plan.colors) return text;
    switch (kind) {
      case 'xml':
      case 'html':
        return highlightMarkup(text, p);
      case 'js':
        return highlightJs(text, p);
      case 'css':
        return highlightCss(text, p);
      case 'form':
        return highlightForm(text, p);
      default:
        return text;
    }
  }

  private safe(text: string): string {
    return shownText(this.plan, text);
  }

  /** A binary request body on a terminal: what it is (it was sent; there is nothing to save). */
  private requestNote(size: number) {
    return this.text(`[binary request body, ${size} bytes, not shown]`, this.plan.palette.meta) + '\n';
  }

  /** `more`: the reading stopped there (a body that goes on is not read to its end). */
  private binaryNote(size: number, more = false) {
    const what = more ? `binary data, not shown on a terminal (reading stopped after ${size} bytes)` : `binary data, ${size} bytes, not shown on a terminal`;
    return this.text(`[${what}: use --output FILE or a pipe to save it]`, this.plan.palette.meta) + '\n';
  }

  private async streamBody(stream: Readable, contentType: string | undefined) {
    const { plan } = this;
    const mime = bodyMime(plan, contentType);
    if (lineStream(plan, mime) && (plan.format || plan.colors || plan.terminal)) return this.streamLines(stream, mime, contentType);
    let whole = Boolean(plan.format || plan.colors || plan.responseCharset);
    if (!whole && !plan.terminal) {
      for await (const c of stream) await this.out(c as Buffer);
      return;
    }
    // Formatting needs the whole body: it is gathered while it stays under WHOLE_LIMIT; past that
    // (or on a terminal without formatting) it is shown as it comes. On a terminal, binary data in
    // its first bytes ends the reading at once with a note.
    const held: Buffer[] = [];
    let size = 0;
    // Shown as it comes, the body is decoded in its charset on a terminal, with --response-charset,
    // and when formatting asked for text in another charset than UTF-8 (piped UTF-8 stays the bytes
    // as received). An HTML or XML body without a charset in the header is held for its first
    // 1024 bytes, where it may declare its own.
    let decoder: BodyDecoder | null | undefined; // null: the bytes as received
    let early: Buffer[] | undefined = sniffsCharset(plan.responseCharset, contentType) ? [] : undefined;
    let earlySize = 0;
    const choose = (first?: Buffer) => {
      const name = bodyCharset(plan.responseCharset, contentType, first);
      const decodes = plan.terminal || plan.responseCharset !== undefined || ((plan.format || plan.colors) && name !== 'utf-8');
      decoder = decodes ? charsetDecoder(name) : null;
    };
    /** The charset binary data is looked for in (decided by the first bytes: a byte order mark). */
    let charset: string | undefined;
    const show = (chunk: Buffer) => this.out(decoder ? this.text(decoder.write(chunk)) : chunk);
    const startShowing = async () => {
      const first = Buffer.concat(early!, earlySize);
      early = undefined;
      choose(first);
      if (first.length) await show(first);
    };
    const asItComes = async (chunk: Buffer) => {
      if (!early) return show(chunk);
      early.push(chunk);
      earlySize += chunk.length;
      if (earlySize >= 1024) await startShowing();
    };
    let tooBig = false;
    for await (const c of stream) {
      const chunk = c as Buffer;
      if (charset === undefined) {
        charset = bodyCharset(plan.responseCharset, contentType, chunk);
        if (!early) choose(chunk);
      }
      if (plan.terminal && looksBinary(chunk, charset, size)) {
        // Read on (without keeping) for its size, up to BINARY_READ_ON: past that, no further.
        let seen = size + chunk.length;
        for await (const more of stream) {
          seen += (more as Buffer).length;
          if (seen > BINARY_READ_ON && !this.readToEnd) {
            stream.destroy();
            await this.out(this.binaryNote(seen, true));
            return;
          }
        }
        await this.out(this.binaryNote(seen));
        return;
      }
      // Plain text has nothing to format: it is shown as it comes (decoded as it comes), never held.
      if (whole && size === 0 && kindOf(plan, contentType, chunk) === 'text') whole = false;
      size += chunk.length;
      if (!whole) {
        await asItComes(chunk);
        continue;
      }
      held.push(chunk);
      if (size > WHOLE_LIMIT) {
        // Too big to format: what came so far, then the rest as it comes; a note at the end.
        whole = false;
        tooBig = true;
        for (const h of held.splice(0)) await asItComes(h);
      }
    }
    if (whole) {
      this.body(Buffer.concat(held, size), contentType);
      await this.drained();
      return;
    }
    if (early) await startShowing();
    if (decoder) await this.out(this.text(decoder.end()));
    // Formatted output ends with a line break, as whole bodies do (render).
    if (plan.format && size && !this.lastNewline) await this.out('\n');
    if (tooBig) await this.out(`${this.lastNewline ? '' : '\n'}${this.text(`[body over ${WHOLE_LIMIT >> 20} MiB (${size} bytes): shown as it came, not formatted]`, plan.palette.meta)}\n`);
  }

  /**
   * Line by line as the lines arrive (--stream, server-sent events, NDJSON): each line coloured.
   * When formatting, a server-sent event's `data:` line that holds a JSON object or array is
   * indented as a JSON body is, after its `data:` (as HTTPie shows it); the other lines stay as
   * they came.
   */
  private async streamLines(stream: Readable, mime: string, contentType: string | undefined) {
    const { plan } = this;
    const p = plan.palette;
    const colours = plan.colors;
    const decoder = charsetDecoder(bodyCharset(plan.responseCharset, contentType));
    const fmt = plan.format && plan.formatJson && mime === 'text/event-stream' ? { indent: plan.indent, sorted: plan.sorted, palette: p } : undefined;
    let pending = '';
    /** The JSON of a `data:` line, formatted; undefined when it is not an object or array, not JSON, or too deep to format. */
    const dataJson = (value: string): string | undefined => {
      if (!fmt || !/^\s*[[{]/.test(value)) return undefined;
      try {
        const out = formatJsonBytes(Buffer.from(value, 'utf8'), fmt);
        if (!out?.length) return undefined;
        return (plan.terminal ? neutraliseJson(out) : out).toString().replace(/\n$/, '');
      } catch (e) {
        if (e instanceof NotFormatted) return undefined;
        throw e;
      }
    };
    const renderLine = (line: string): string => {
      const data = fmt ? /^data(:\s?)(.*)$/s.exec(line) : null;
      const json = data ? dataJson(data[2]!) : undefined;
      if (json !== undefined) return `${colours ? paintLine(p.key, 'data', p) : 'data'}${this.safe(data![1]!)}${json}`;
      const safe = this.safe(line);
      if (!colours) return safe;
      if (mime === 'text/event-stream') {
        const m = /^([\w-]+)(:\s?)(.*)$/s.exec(safe);
        if (!m) return safe.startsWith(':') ? paintLine(p.comment, safe, p) : safe;
        const value = m[1] === 'data' && looksLikeJson(m[3]!) ? colourJson(m[3]!, p) : m[3]!;
        return paintLine(p.key, m[1]!, p) + m[2] + value;
      }
      return looksLikeJson(safe) ? colourJson(safe, p) : safe;
    };
    for await (const c of stream) {
      pending += decoder.write(c as Buffer);
      const lines = pending.split('\n');
      pending = lines.pop()!;
      if (lines.length) await this.out(lines.map((l) => renderLine(l.replace(/\r$/, ''))).join('\n') + '\n');
    }
    pending += decoder.end();
    if (pending) await this.out(renderLine(pending));
  }

  /** On a terminal the output ends with a newline. */
  async finish() {
    this.finishNow();
    await this.drained();
  }

  private finishNow() {
    if (this.plan.terminal && !this.lastNewline) this.put('\n');
  }
}

/**
 * Text from outside for stdout (a body, what a script logged, a test's name and message): control
 * characters neutralised when the output is a terminal, the bytes as they came otherwise
 * (sanitize.ts has the rule).
 */
/** `14:02:03.120`: a message's time of day, local time, to the millisecond. */
function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** A message whose text is a JSON object or array (formatted as JSON). */
function isJsonMessage(text: string): boolean {
  const c = text.trimStart().charCodeAt(0);
  if (c !== 123 && c !== 91) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function shownText(plan: OutputPlan, text: string): string {
  return plan.terminal ? neutralise(text, plan.colors ? plan.palette.control : '', plan.colors ? plan.palette.reset : '') : text;
}

const bodyMime = (plan: OutputPlan, contentType: string | undefined) => (plan.responseMime ?? contentType)?.split(';')[0]?.trim().toLowerCase() ?? '';
const lineStream = (plan: OutputPlan, mime: string) => plan.stream || /^(text\/event-stream|application\/(x-)?ndjson|application\/jsonl|application\/x-jsonlines|application\/json-seq)$/.test(mime);

/**
 * The exchange callbacks that print each hop. With -v / --all: every request and response
 * (redirects followed, digest challenges). Else one pair: with `finalPair` (the request may be
 * followed or answered again), the request that got the final answer, held back until that answer
 * (or a failure) comes; without, the first request, printed as it goes out. Shared by the main
 * command, downloads and exec.
 */
export function printingHops(printer: Printer, finalPair = false, http2?: 'alpn' | 'prior-knowledge') {
  let first = true;
  return {
    onRequest: (prepared: PreparedRequest): Promise<void> | undefined => {
      const { plan } = printer;
      if (!plan.requestHeaders && !plan.requestBody) return undefined;
      if (!plan.intermediate && finalPair) {
        printer.hold(prepared, http2);
        return undefined;
      }
      const print = first || plan.intermediate;
      first = false;
      // HTTP/2 asked for: the request is printed once its answer says which version carried it.
      if (print && http2) {
        printer.hold(prepared, http2);
        return undefined;
      }
      // Nothing to print: no promise (the per-request path of `sling exec`).
      if (print) return printer.request(prepared);
      return undefined;
    },
    onRedirect: async (hop: { response: ResponseHead }, body: Buffer) => {
      if (!printer.plan.intermediate) {
        // The first request, held for its version: printed now, before the hops that follow it.
        if (http2 && !finalPair) await printer.heldRequest(hop.response.httpVersion);
        return;
      }
      await printer.responseHead(hop.response);
      await printer.responseBody(hop.response, body);
    },
  };
}
