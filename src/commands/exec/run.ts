/**
 * One run of a file's entries, in order: each entry built, sent, its response read (streamed, to
 * files, or whole) and handed to the entry's hooks, printed or deferred behind the next request.
 * The class is in three files, one concern each: output.ts (stdout and stderr, their order, the
 * deferred printing), results.ts (what after-hooks said, failures, exit code, JUnit report), and this
 * one (building, sending and reading). Titles are print.ts's, files save.ts's; reading the file and
 * choosing entries is runner.ts's.
 */
import type { Invocation } from '../../cli/invocation.js';
import { CliError, beyondLimits, heldBodyLimit } from '../../errors.js';
import { readLimited, SETTINGS_FILE_LIMIT } from '../../files.js';
import type { Reporter, Io } from '../../io.js';
import type { OutputPlan } from '../../output/plan.js';
import { Printer, shownText } from '../../output/printer.js';
import { loadTransport, printOffline, printResponse, send } from '../deliver.js';
import type { RequestSpec } from '../../model/spec.js';
import type { CookieJar } from '../../model/cookies.js';
import { titleLine, type ReportCase } from './report.js';
import { RequestSink } from './sink.js';
import { onInterrupt } from '../../interrupt.js';
import type { ExecContext, ExecEntry, SavedFile } from '../../model/exec.js';
import { FileTee, pumpToFiles } from './save.js';
import type { Hop } from '../../transport/hop.js';
import type { ResponseHead } from '../../model/exchange.js';
import { applyFlags, withSession } from './requests.js';
import { RunResults } from './results.js';
import type { Note } from './output.js';
import { at, printWhole, streamsBody, title, titleText } from './print.js';

type ExchangeOptions = import('../../transport/exchange.js').ExchangeOptions;
type ReadBody = typeof import('../../transport/body.js').readBody;
type Sessions = import('../../request/session.js').SessionStore;

/**
 * One run of a file's entries. Small methods rather than one long async function: V8 optimises what
 * runs a thousand times, and a long function with many awaits costs far more to optimise than it
 * saves.
 */
export class Run extends RunResults {
  private warnedVerify = false;
  private transport?: typeof import('../../transport/inflight.js');
  private readBody?: ReadBody;
  private wholeBody?: typeof import('../../transport/body.js').wholeBody;
  sessions?: Sessions;
  /** Every exchange's options (onSent: the previous response is printed once this request is on the wire). */
  private hopOptions!: ExchangeOptions;
  /** The same for a response whose body may be printed as it comes. */
  private hopOptionsStream!: ExchangeOptions;
  /** The output plan of the request being sent with those (what the lane's `streamable` asks). */
  private streamPlan?: OutputPlan;

  constructor(
    inv: Invocation,
    io: Io,
    reporter: Reporter,
    ctx: ExecContext,
    display: string,
    private readonly type: 'http' | 'curl' = 'http',
  ) {
    super(inv, io, reporter, display, ctx);
    ctx.warn = (m) => this.warn(m);
    ctx.debug = (m) => this.debug(m);
    ctx.debugging = this.rep.debugOn;
  }

  async start() {
    const inv = this.inv;
    if (!inv.offline) {
      // Loaded here, once: deliver.ts's send then starts each exchange without waiting for it.
      const t = await loadTransport();
      this.transport = await import('../../transport/inflight.js');
      this.readBody = t.readBody;
      this.wholeBody = t.wholeBody;
    }
    this.hopOptions = { env: this.env, readWhole: true, debug: this.rep.debugOn ? this.ctx.debug : undefined, warn: this.ctx.warn, onSent: this.onSent };
    // The lane hands over a body as a stream when nothing reads it after it is printed (see streamsBody).
    // Also a body the printer would hold to format it: past the lane's threshold (or of unknown
    // length) it is not read whole either; the printer's own bounds apply (as in the main command).
    const streamable = (_head: ResponseHead) => this.streamPlan !== undefined;
    this.hopOptionsStream = { ...this.hopOptions, streamable };
    // Ctrl-C: what stdout holds is written before the process exits.
    this.stopOnInterrupt = onInterrupt(() => this.interrupted());
    // --session: one store for the run; each request uses (and updates) the session of its host.
    if (inv.session !== undefined)
      this.sessions = new (await import('../../request/session.js')).SessionStore(inv.session, this.io.env, this.io.cwd, this.io.pid, inv.sessionReadOnly, (m) => this.rep.note(m));
  }

  /** The request being sent or read: its printer and output, for Ctrl-C. */
  private sending?: { printer: Printer; sink: RequestSink; request?: import('../../model/prepare.js').PreparedRequest };

  /**
   * Ctrl-C (synchronous, the process exits next): the response waiting to be printed, what arrived
   * of the one being read (head and bytes so far), then everything stdout holds.
   */
  private interrupted(): string | undefined {
    const s = this.sending;
    try {
      this.startPrinting();
      const got = s && this.transport?.arriving();
      if (s && got && this.inv.quiet === 0) {
        void s.printer.response(got.response, got.body, got.info, s.request);
        void s.sink.flush();
      } else if (s) void s.sink.flush();
    } finally {
      void this.batch?.flush();
    }
    // bin.ts's message next: on a line of its own after a body without its last newline (`> out 2>&1`).
    if (this.batch && !this.io.stderr.isTTY && this.closeLine()) this.io.stderr.write('\n');
    return this.runningAt ? `at ${this.runningAt}` : undefined;
  }

  /** A request is on the wire: the response before it is printed, and its title goes out (also when no answer ever comes). */
  private readonly onSent = () => {
    this.startPrinting();
    // Printed at once (as usual): what stderr held about it goes next, then this request's title.
    // Else (stdout asked to wait) settle() does both when the answer comes.
    if (this.printing) return;
    this.stderr.release();
    void this.sending?.sink.flush();
  };

  /** Runs an entry; false when the run stops here. */
  async entry(entry: ExecEntry): Promise<boolean> {
    // Ctrl-C while it is built (a `# @sleep`, a pre-request script): which request.
    const name = entry.name ?? entry.shownName;
    this.runningAt = `${entry.file ?? this.display}:${entry.line}${name ? ` (${name})` : ''}`;
    let specs: RequestSpec[];
    const notes: Note[] = (this.building = []);
    try {
      let built = entry.build(this.ctx);
      if (built instanceof Promise) built = await built;
      this.building = undefined;
      if (built === null) {
        if (notes.length) this.showNotes(notes, false);
        this.runningAt = undefined;
        return true;
      }
      specs = Array.isArray(built) ? built.map((s) => applyFlags(s, this.inv)) : [applyFlags(built, this.inv)];
      if (this.sessions) specs = specs.map((s) => withSession(s, this.sessions!));
    } catch (caught) {
      this.building = undefined;
      const file = entry.file ?? this.display;
      const e = caught instanceof CliError ? caught : beyondLimits(caught, `${file}:${entry.line}`);
      if (!e) throw caught;
      // Which request, also when the cause is elsewhere (an `<@` include, an environment value, a `run` line).
      if (!e.message.startsWith(`${file}:`)) e.message = `${file}:${entry.line}: ${e.message}`;
      await this.settle();
      // The request's title (as written: it could not be built), then what its building said, then why.
      if (this.inv.quiet === 0) {
        const w = this.out.write((this.printedAny ? '\n' : '') + titleText(entry, entry.label, this.planFor('GET', entry.output?.print)) + '\n');
        if (w) await w;
        this.printedAny = true;
      }
      if (notes.length) this.showNotes(notes, false);
      this.rep.error(e);
      this.report?.error(entry, e.message);
      this.fail(e.exitCode, entry);
      this.runningAt = undefined;
      return !this.inv.exec!.failFast;
    }
    for (let i = 0; i < specs.length; i++) if (!(await this.request(entry, specs[i]!, i === 0 && notes.length ? notes : undefined))) return false;
    return !this.failFast;
  }

  /** Sends one request and prints it (or defers the printing); false when the run stops here. */
  private async request(entry: ExecEntry, spec: RequestSpec, notes?: Note[]): Promise<boolean> {
    // Which request Ctrl-C stopped (`sling: interrupted at api.http:12 (login)`).
    this.runningAt = at(entry, spec);
    try {
      return await this.requestOnce(entry, spec, notes);
    } finally {
      this.runningAt = undefined;
    }
  }

  /** heldBodyLimit(), once read. */
  private heldLimit?: number;

  /** The request being run (for the message on Ctrl-C). */
  private runningAt?: string;

  private async requestOnce(entry: ExecEntry, spec: RequestSpec, notes?: Note[]): Promise<boolean> {
    const { inv } = this;
    const plan = this.planFor(spec.method, entry.output?.print);
    const sink = new RequestSink(this.out, this.buffered);
    const printer = new Printer(plan, sink);
    // Named as written (`GET {{base}}/b`), as a request that was skipped or could not be built is:
    // one name for one request whatever happened to it, in every environment.
    const rc = this.report?.begin(entry, titleLine(entry, entry.label));
    // A printed request goes out as it is sent: the previous response must be out first.
    if (this.deferred && (plan.requestHeaders || plan.requestBody)) await this.settle();
    if (inv.quiet === 0) {
      sink.write((this.printedAny ? '\n' : '') + title(entry, spec, plan) + '\n');
      this.printedAny = true;
      // Under the title: stderr written when the sink reaches this point (after the title on stdout).
      if (notes) sink.write(() => this.showNotes(notes, true));
      const before = entry.before?.(spec);
      if (before?.length) sink.write(shownText(plan, before.join('\n') + '\n'));
    } else if (notes) this.showNotes(notes, false);
    if (inv.offline) {
      if (spec.stream) await (await import('./streams.js')).offlineStream(spec, printer, this.jarFor(entry, spec));
      else await printOffline(spec, printer, this.jarFor(entry, spec));
      await sink.flush();
      if (rc) {
        rc.skipped = '--offline: not sent';
        this.report!.end(rc);
      }
      return true;
    }
    if (spec.stream) return this.streamRequest(entry, spec, printer, sink, rc);
    let stop = false;
    let print: (() => Promise<void> | undefined) | undefined;
    let hop: Hop | undefined;
    let bodyRead = false;
    /** The files the body is being written to as it comes (what they hold if it fails midway). */
    const saving: { files?: SavedFile[] } = {};
    try {
      // A title was written: what the exchange has to say goes under it.
      if (inv.quiet === 0) this.live = sink;
      const sending: NonNullable<Run['sending']> = (this.sending = { printer, sink });
      if (!this.warnedVerify && spec.settings.tls.verify === false && spec.url.scheme === 'https') {
        this.warnedVerify = true;
        this.warn(`${inv.verify === false ? '--verify=no' : this.type === 'curl' ? '-k' : '# @no-reject-unauthorized'}: server certificates are not checked`);
      }
      // Nothing reads this response's body after it is printed: a large or open-ended body may
      // be printed as it comes (server-sent events, a big download), never held whole.
      // (Not with --retry: a body that fails while it is printed could not be tried again.)
      const retrying = Boolean(spec.settings.retry?.count);
      const streamable = entry.bodyUnused?.(spec) === true && !retrying;
      // A body that may go to files only (curl's -o, `>> file`): the lane hands it over as it comes too.
      try {
        // A large or open-ended body is handed over as it comes (then printed, saved, or read whole up
        // to heldBodyLimit()), except with --retry, where the lane reads it whole to send it again.
        hop = await this.send(spec, printer, entry, !retrying);
      } finally {
        this.live = undefined;
      }
      sending.request = hop.request;
      const keep = spec.settings.keepEncoding;
      // curl's -f: an HTTP error's body is not read (the keep-alive lane has not read it either).
      const skipBody = spec.settings.failAtHead === true && hop.response.status >= 400;
      // Written to its files as it arrives, never held whole (not with --retry, which sends it again).
      const files = !skipBody && !retrying ? entry.bodyFiles?.({ spec, request: hop.request, url: hop.url, response: hop.response, info: hop.info }) : undefined;
      if (files?.print || (!files && streamable && !skipBody && streamsBody(hop, spec.settings.keepEncoding))) {
        this.sending = undefined;
        bodyRead = true;
        const stopHere = await this.streamResponse(entry, spec, hop, printer, sink, rc, files && new FileTee(files.files, !files.keepPartial, this.io.pid), saving);
        if (rc) this.report!.end(rc);
        return !stopHere;
      }
      // What goes to stderr about this response (a status, a failed test) waits for its printing
      // (on a terminal too: response handlers now run before the response is printed).
      this.stderr.hold();
      if (skipBody) hop.body.destroy();
      let body: Buffer;
      if (files) {
        await pumpToFiles(hop, files, this.io.pid, keep, saving);
        body = EMPTY;
      } else body = skipBody ? EMPTY : (this.wholeBody!(hop, keep) ?? (await this.readBody!(hop, keep, (this.heldLimit ??= heldBodyLimit(this.env)))));
      bodyRead = true;
      this.sending = undefined;
      if (inv.checkStatus) this.checkStatus(entry, spec, hop.response, rc);
      let lines: string[] | undefined;
      if (entry.after) {
        let result = entry.after({ spec, request: hop.request, url: hop.url, response: hop.response, body, info: hop.info, saved: saving.files }, this.ctx);
        if (result instanceof Promise) result = await result;
        lines = this.afterResult(entry, spec, result, plan, body, rc);
        if (result.stop) stop = true;
      }
      const done = hop;
      print = () => printWhole(printer, sink, done, body, lines);
    } catch (caught) {
      this.sending = undefined;
      if (await this.requestFailed(caught, entry, spec, printer, sink, rc, hop, bodyRead, saving)) stop = true;
    }
    if (rc) this.report!.end(rc);
    if (print) {
      // Held back for the next request only when there is one to send.
      if (this.buffered && !stop && !this.failFast) {
        this.deferred = print;
        this.stderr.hold();
      } else {
        const waiting = print();
        if (waiting) await waiting;
        this.stderr.release();
      }
    }
    return !stop;
  }

  /**
   * A WebSocket session, server-sent events, a gRPC call (streams.ts): printed as it goes, the
   * response before it first; then the entry's handlers get every message. False when the run stops here.
   */
  private async streamRequest(entry: ExecEntry, spec: RequestSpec, printer: Printer, sink: RequestSink, rc: ReportCase | undefined): Promise<boolean> {
    await this.settle();
    const waiting = sink.unbuffer();
    if (waiting) await waiting;
    const streams = await import('./streams.js');
    let run: import('./streams.js').StreamRun;
    try {
      if (this.inv.quiet === 0) this.live = sink;
      this.sending = { printer, sink };
      run = await streams.runStream(spec, {
        env: this.env,
        jar: this.jarFor(entry, spec),
        maxMessage: (this.heldLimit ??= heldBodyLimit(this.env)),
        keepMessages: entry.bodyUnused?.(spec) !== true,
        readFile: (path) => readLimited(path, SETTINGS_FILE_LIMIT, path, 'a proto file'),
        send: (s) => this.send(s, printer, entry, true),
        opened: async (request, response, http2) => {
          if (request) await printer.request(request, http2);
          // The head only when it is printed (a gRPC call's comes after its first message is sent).
          if (printer.plan.responseHeaders) await printer.responseHead(response);
        },
        message: (m) => printer.message(m),
        ends: entry.streamEnds ? (sofar) => entry.streamEnds!(sofar) : undefined,
        debug: this.rep.debugOn ? this.ctx.debug : undefined,
      });
    } catch (caught) {
      this.sending = undefined;
      this.live = undefined;
      const stop = await this.requestFailed(caught, entry, spec, printer, sink, rc, undefined, true, {});
      if (rc) this.report!.end(rc);
      return !stop;
    }
    this.sending = undefined;
    this.live = undefined;
    if (!run.failure || (run.count ?? run.messages.length)) await printer.streamEnd(streams.endText(run));
    await printer.finish();
    this.stderr.hold();
    let stop = false;
    try {
      if (run.failure) {
        const e = run.failure;
        const src = spec.source;
        if (src && !e.message.startsWith(`${src.file}:`)) e.message = `${src.file}:${src.line}: ${e.message}`;
        this.rep.error(e);
        if (rc) rc.error = e.message;
        this.fail(e.exitCode, entry);
      }
      if (entry.after) {
        const body = streams.messagesBody(run);
        let result = entry.after({ spec, request: run.request, url: run.url, response: run.response, body, info: run.info, messages: run.messages, end: run.end }, this.ctx);
        if (result instanceof Promise) result = await result;
        const lines = this.afterResult(entry, spec, result, printer.plan, EMPTY, rc);
        if (lines) {
          const w = sink.write(lines.join('\n') + '\n');
          if (w) await w;
        }
        stop = result.stop === true;
      }
      await sink.flush();
    } finally {
      this.stderr.release();
    }
    if (rc) this.report!.end(rc);
    return !stop && !(run.failure && this.inv.exec!.failFast);
  }

  /** The cookie jar the request goes with: a --session's, else the entry's own (the .http run's, a curl command's engine); none with `noCookies`. */
  private jarFor(entry: ExecEntry, spec: RequestSpec): CookieJar | undefined {
    if (spec.settings.noCookies) return undefined;
    return this.sessions ? this.sessions.jar : entry.cookieJar?.(spec);
  }

  /**
   * Starts the exchange. A response still waiting to be printed is printed as soon as this
   * request is on the wire (or has failed), and always before this one's answer is looked at.
   */
  private send(spec: RequestSpec, printer: Printer, entry: ExecEntry, streamable: boolean): Promise<Hop> {
    const plan = printer.plan;
    if (streamable) this.streamPlan = plan;
    const deferred = this.deferred !== undefined;
    const options = streamable ? this.hopOptionsStream : this.hopOptions;
    const jar = this.jarFor(entry, spec);
    return send(spec, printer, jar ? { ...options, jar } : options, {
      // Nothing of the request or of intermediate hops is printed (the usual case): no printing hooks.
      printHops: plan.requestHeaders || plan.requestBody || plan.intermediate,
      // Redirects followed or a digest answer: the request printed is the one that got the final answer.
      final: spec.settings.follow || spec.settings.digest !== undefined,
      // The heads of the hops before the last (redirects, a digest challenge), for an entry that
      // writes them (curl's -D and -i after -L write every hop's headers).
      earlierHeads: entry.wantsEarlierHeads && spec.settings.follow ? [] : undefined,
      // The response waiting to be printed goes out before this request (held for its answer) is printed.
      settled: deferred ? () => this.settle() : undefined,
    });
  }

  /**
   * A response printed as its body arrives (nothing reads the body afterwards): the response waiting
   * before it first, then this request's output goes straight through, as the main command prints
   * it; the body is never held whole.
   */
  private async streamResponse(
    entry: ExecEntry,
    spec: RequestSpec,
    hop: Hop,
    printer: Printer,
    sink: RequestSink,
    rc: ReportCase | undefined,
    tee?: FileTee,
    saving?: { files?: SavedFile[] },
  ): Promise<boolean> {
    if (tee && saving) saving.files = tee.saved;
    if (tee) printer.readToEnd = true;
    await this.settle();
    const waiting = sink.unbuffer();
    if (waiting) await waiting;
    /** The body's last byte (lines printed after it start on a line of their own). */
    let last: number | undefined;
    await printResponse(hop, printer, {
      keepEncoding: spec.settings.keepEncoding,
      save: tee,
      onData: (c) => {
        if (c.length) last = c[c.length - 1];
      },
      onFailure: () => {
        // Nothing more is read: the connection is closed rather than left reading (a server that
        // goes on sending a body that cannot be decoded would keep the run waiting).
        hop.body.destroy();
        // What arrived ends its line before the error (on a terminal; a pipe's batch knows its last line).
        return printer.finish();
      },
    });
    await printer.finish();
    // As for a response read whole: what goes to stderr about it comes after the lines printed under it.
    this.stderr.hold();
    try {
      if (this.inv.checkStatus) this.checkStatus(entry, spec, hop.response, rc);
      if (!entry.after) return false;
      let result = entry.after({ spec, request: hop.request, url: hop.url, response: hop.response, body: EMPTY, info: hop.info, saved: tee?.saved }, this.ctx);
      if (result instanceof Promise) result = await result;
      const lines = this.afterResult(entry, spec, result, printer.plan, last === undefined ? EMPTY : Buffer.from([last]), rc);
      if (lines) {
        const w = sink.write(lines.join('\n') + '\n');
        if (w) await w;
      }
      return result.stop === true;
    } finally {
      this.stderr.release();
    }
  }
}

const EMPTY = Buffer.alloc(0);
