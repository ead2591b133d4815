/**
 * The output side of a run (run.ts's Run extends it, through results.ts): stdout (batched when it is
 * a pipe or a file), stderr (held back while a response waits to be printed), the messages of a
 * request being built, one output plan per method, and the printing of the previous response
 * deferred until the next request is on the wire. It does not send, read bodies or count failures.
 */
import type { Invocation } from '../../cli/invocation.js';
import { Reporter, stdoutIsStderr, stdoutSink, type Io } from '../../io.js';
import { makePlan, printParts, type OutputPlan } from '../../output/plan.js';
import { HeldWriter, OutputBatch, type RequestSink } from './sink.js';
import type { Sink } from '../../io.js';

/** A message about a request, made while it was built. */
export interface Note {
  warn: boolean;
  message: string;
}

const noop = () => {};

/**
 * What a run writes and in which order. When stdout is a pipe or a file, output is gathered per
 * request and handed to a batch written in large pieces (sink.ts). There, a response is also printed
 * while the next request is on the wire: the printing of response N waits until request N+1 has been
 * written (never for N+1's answer), and anything for stderr in the meantime is held back so both
 * streams keep their order.
 */
export class RunOutput {
  readonly stderr: HeldWriter;
  protected readonly rep: Reporter;
  /** The same, writing at once even while stderr is held (messages shown under a title). */
  protected readonly repNow: Reporter;
  /** Messages about the request being built (a variable shown as written, --debug resolution), shown under its title. */
  protected building?: Note[];
  /** The output of the request being sent: messages of its exchange (--debug, a retry) go there, under its title. */
  protected live?: RequestSink;
  protected readonly out: Sink;
  /** stdout gathered across requests (a pipe or a file). */
  protected readonly batch?: OutputBatch;
  protected stopOnInterrupt?: () => void;
  protected readonly buffered: boolean;
  /** A snapshot: the environment is read for every request (proxies, colours), and each read of process.env is a system call. */
  protected readonly env: NodeJS.ProcessEnv;
  protected printedAny = false;
  protected readonly plans = new Map<string, OutputPlan>();
  /** The previous response's printing, while it waits for the next request to be written. */
  protected deferred?: () => Promise<void> | undefined;
  /** That printing, once started. */
  protected printing?: Promise<void>;

  constructor(
    protected readonly inv: Invocation,
    protected readonly io: Io,
    reporter: Reporter,
  ) {
    this.buffered = !io.stdout.isTTY;
    this.out = this.buffered ? (this.batch = new OutputBatch(stdoutSink(io.stdout))) : stdoutSink(io.stdout);
    // io.stderr is read at the first write: the stream is made only if something is written.
    this.stderr = new HeldWriter({ write: (chunk: string) => io.stderr.write(chunk) }, this.batch ? () => this.closeLine() : undefined);
    // The same Io with stderr replaced (not spread: that would create the stdin stream).
    const repIo = Object.create(io, { stderr: { value: this.stderr } }) as Io;
    this.rep = new Reporter(repIo, reporter.quiet, reporter.debugOn);
    const nowIo = Object.create(io, { stderr: { value: { write: (chunk: string) => this.stderr.now(chunk) } } }) as Io;
    this.repNow = new Reporter(nowIo, reporter.quiet, reporter.debugOn);
    this.env = { ...io.env };
  }

  /** Before anything goes to stderr: what stdout holds goes out; true when its last line is open (then the line is taken as ended). */
  protected closeLine(): boolean {
    const batch = this.batch!;
    void batch.flush();
    const open = batch.lineOpen;
    batch.lineOpen = false;
    // Only where both go to the same place (`> out 2>&1`): a stderr of its own needs no line ended.
    return open && stdoutIsStderr();
  }

  /** The end of the run: what stdout still holds, then what stderr held back. */
  async close() {
    this.stopOnInterrupt?.();
    const waiting = this.batch?.flush();
    this.stderr.release();
    if (waiting) await waiting;
  }

  warn(message: string) {
    if (this.building) this.building.push({ warn: true, message });
    else if (this.live) this.live.write(() => this.repNow.warn(message));
    else this.rep.warn(message);
  }

  debug(message: string) {
    if (!this.rep.debugOn) return;
    if (this.building) this.building.push({ warn: false, message });
    else if (this.live) this.live.write(() => this.repNow.debug(message));
    else this.rep.debug(message);
  }

  /** Messages of a build, now (to stderr in order with what stdout holds, even while stderr is held back) or through the held stream. */
  protected showNotes(notes: Note[], now: boolean) {
    const r = now ? this.repNow : this.rep;
    for (const n of notes) {
      if (n.warn) r.warn(n.message);
      else r.debug(n.message);
    }
  }

  /** One output plan per method and per-entry print codes (the flags do not change during a run). */
  protected planFor(method: string, print: string | undefined): OutputPlan {
    const key = print === undefined ? method : `${method} ${print}`;
    let plan = this.plans.get(key);
    if (!plan) {
      plan = makePlan(this.inv, method, { isTTY: Boolean(this.io.stdout.isTTY), env: this.env });
      if (print !== undefined) plan = { ...plan, ...printParts(print) };
      this.plans.set(key, plan);
    }
    return plan;
  }

  /** Prints the previous response now (if it is still waiting), then what stderr held back. */
  settle(): Promise<void> | undefined {
    this.startPrinting();
    const printing = this.printing;
    this.printing = undefined;
    if (!printing) {
      this.stderr.release();
      return undefined;
    }
    return printing.finally(() => this.stderr.release());
  }

  /** Starts printing the previous response (when the next request is on the wire). */
  protected readonly startPrinting = () => {
    const work = this.deferred;
    if (!work) return;
    this.deferred = undefined;
    // Usually synchronous (a promise only when stdout asks to wait); a failure surfaces where
    // settle() awaits the printing.
    let printing: Promise<void> | undefined;
    try {
      printing = work();
    } catch (e) {
      printing = Promise.reject(e);
    }
    if (printing) {
      this.printing = printing;
      printing.catch(noop);
    }
  };
}
