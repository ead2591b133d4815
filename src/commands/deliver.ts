import { CliError, TooManyRedirectsError } from '../errors.js';
import { ExitCode } from '../exit.js';
import { withJarCookies, type CookieJar } from '../model/cookies.js';
import type { ResponseHead } from '../model/exchange.js';
import { prepareRequest, type PreparedRequest } from '../model/prepare.js';
import type { RequestSpec } from '../model/spec.js';
import { type Printer, printingHops } from '../output/printer.js';
import type { ExchangeOptions } from '../transport/exchange.js';
import type { Hop } from '../transport/hop.js';

/**
 * One send-and-print for every command (the main command, --download, `sling exec`): a request goes
 * out through transport's `exchange`, each request of its hops is printed as it is sent (and with
 * --all each response between them), then the final response: printed as it comes, handed to a
 * saver (a download's file), or handed back unread (exec decides per entry whether to read it whole,
 * stream it or write it to files). `--offline` is the same path stopped before the network.
 */

type Transport = typeof import('../transport/exchange.js') & typeof import('../transport/body.js');

let transport: Transport | undefined;

/** The transport modules, loaded on first use (an --offline or --curl run never loads them). */
export async function loadTransport(): Promise<Transport> {
  if (!transport) {
    const [exchange, body] = await Promise.all([import('../transport/exchange.js'), import('../transport/body.js')]);
    transport = { ...exchange, ...body };
  }
  return transport;
}

/**
 * The request as the model would send it: the cookies of the jar the request goes with (as the
 * exchange adds them, `noCookies` aside) added, the body prepared (what --offline prints, --curl
 * and `exec --to` write).
 */
export function wouldSend(spec: RequestSpec, jar?: CookieJar): Promise<PreparedRequest> {
  const cookieJar = spec.settings.noCookies ? undefined : jar;
  return prepareRequest(cookieJar || spec.settings.curl ? withJarCookies(spec, cookieJar) : spec);
}

/** --offline: the request printed as it would be sent; nothing goes on the network. */
export async function printOffline(spec: RequestSpec, printer: Printer, jar?: CookieJar): Promise<void> {
  await printer.request(await wouldSend(spec, jar));
  await printer.finish();
}

/** What is printed of a request's hops, and when. */
export interface HopPrinting {
  /**
   * Print the requests of the hops (and with --all the responses between them); off: nothing of
   * the request is printed (the plan shows none of it) and the exchange's options go as they are.
   */
  printHops?: boolean;
  /** Redirects followed or a digest challenge answered: the request printed is the one that got the final answer. */
  final?: boolean;
  /** Collects the heads of the hops before the last (curl's -D and -i after -L write each hop's headers). */
  earlierHeads?: ResponseHead[];
  /** Runs once the exchange is over (answered or failed), before the request held for the final answer is printed. */
  settled?(): Promise<void> | undefined;
}

/**
 * Sends a request and resolves with the final hop, its body unread and its head not yet printed.
 * The request held for the final answer is printed before the answer, or before the failure that
 * ended the exchange. `options`: the exchange's own (lane, messages, onSent, streamable).
 */
export async function send(spec: RequestSpec, printer: Printer, options: ExchangeOptions, printing: HopPrinting = {}): Promise<Hop> {
  const t = transport ?? (await loadTransport());
  const { printHops = true, final = false, earlierHeads: earlier, settled } = printing;
  let opts = printHops ? { ...options, ...printingHops(printer, final, spec.settings.http2) } : options;
  if (earlier) {
    const inner = opts.onRedirect;
    opts = { ...opts, onRedirect: (hop, body) => (earlier.push(hop.response), inner?.(hop, body)) };
  }
  let hop: Hop;
  /** The version of the final answer: the request held for it is printed in that version's form. */
  let answered: string | undefined;
  try {
    hop = await t.exchange(spec, opts);
    answered = hop.response.httpVersion;
  } catch (e) {
    // A later hop failed: the heads of the redirects before it (-D, -i). The answer reported is
    // the last redirect (its head is the last of them) or, past --max-redirs, the one after them.
    if (earlier?.length && e instanceof CliError) {
      if (e.partial) e.partial.info.earlierHeads = earlier;
      else if (e.lastAnswer) e.lastAnswer.info.earlierHeads = e instanceof TooManyRedirectsError ? earlier : earlier.slice(0, -1);
    }
    throw e;
  } finally {
    if (settled) await settled();
    await printer.heldRequest(answered);
  }
  if (earlier?.length) hop.info.earlierHeads = earlier;
  return hop;
}

/** How a response is printed as it comes. */
export interface PrintOptions {
  /** The bytes as they came, not decoded (curl without --compressed). */
  keepEncoding?: boolean;
  /** Each piece of the body as it is read. */
  onData?(chunk: Buffer): void;
  /** Files the body is written to beside the printing (a .http `>> file`, curl's -o with -i): closed complete once the body has come, else not. */
  save?: { write(chunk: Buffer): void; close(complete: boolean): unknown };
  /** The main command: a body the formatter gave up on is said to be that, not a network failure; a --timeout that ended the body is one. */
  strict?: boolean;
  /** Before a failure of the body is thrown (exec: the files closed, the connection dropped, the printed line ended). */
  onFailure?(): Promise<void> | void;
}

/**
 * Prints the final response as its body arrives, never holding it whole beyond the printer's own
 * bounds: head, body, the `p` properties. Resolves with the body's size as it came; a failure of
 * the body is its bodyError (transport/body.ts).
 */
export async function printResponse(hop: Hop, printer: Printer, options: PrintOptions = {}): Promise<number> {
  const t = transport ?? (await loadTransport());
  const { keepEncoding: keep, onData, save, strict, onFailure } = options;
  let size = 0;
  let streamFailed = false;
  try {
    await printer.responseHead(hop.response);
    const body = keep ? hop.body : await t.decodedBody(hop);
    // The bytes as they came (curl's %{size_download}); decodedBody counts them itself.
    body.on('data', (c: Buffer) => {
      size += c.length;
      if (keep) hop.info.bodyBytes = size;
      onData?.(c);
      save?.write(c);
    });
    if (strict) body.once('error', () => (streamFailed = true));
    await printer.responseBody(hop.response, body);
    save?.close(true);
  } catch (e) {
    save?.close(false);
    if (onFailure) await onFailure();
    if (e instanceof CliError) throw e;
    // The body arrived whole but the formatter gave up on it (a document nested too deep or
    // too large to lay out): not a network failure.
    if (strict && !streamFailed && !hop.info.timedOut && e instanceof RangeError) {
      throw new CliError(`the response body (${size} bytes) could not be formatted: ${e.message}`, ExitCode.ERROR, 'print it as it came with --pretty=none');
    }
    throw t.bodyError(hop, e, size);
  }
  if (strict && hop.info.timedOut) throw t.bodyError(hop, new Error('timeout'), size);
  await printer.meta(hop.response, hop.info, size, hop.request);
  return size;
}

/** How a body is read to its files without being printed. */
export interface PumpOptions {
  /** The bytes as they came, not decoded (a download of a .gz, curl without --compressed). */
  keepEncoding?: boolean;
  /**
   * Each piece, in order (valid only during the call); what it throws (a full disk) ends the reading
   * as it is, a promise it returns (a full pipe) holds the reading until it settles.
   */
  write(chunk: Buffer): void | Promise<void>;
  /** Before a failure of the body is thrown (exec: the connection dropped). */
  onFailure?(): void;
}

/**
 * Reads the final response's body a piece at a time into `write`, never whole: decoded unless
 * keepEncoding, and from the HTTP/1.1 client straight off the socket (`attach`) when nothing is
 * decoded. A failure of the body is its bodyError (transport/body.ts), with the bytes handed over.
 */
export async function pumpBody(hop: Hop, options: PumpOptions): Promise<void> {
  const t = transport ?? (await loadTransport());
  const { keepEncoding: keep, write, onFailure } = options;
  let size = 0;
  const take = (c: Buffer) => {
    const wait = write(c);
    size += c.length;
    // The bytes so far, for a --timeout that fires next (decodedBody counts them itself).
    if (keep) hop.info.bodyBytes = size;
    return wait;
  };
  try {
    if (keep && hop.attach) await hop.attach(take);
    else
      for await (const c of keep ? hop.body : await t.decodedBody(hop)) {
        const wait = take(c as Buffer);
        if (wait) await wait;
      }
  } catch (e) {
    onFailure?.();
    throw e instanceof CliError ? e : t.bodyError(hop, e, size);
  }
}

/** Where the final response's body goes. */
export type BodyDestination =
  /** Printed under its head as it comes (the main command). */
  | { print: PrintOptions }
  /** Saved by the caller once the head is printed (a download: a file, the progress bar, a resume). */
  | { save(hop: Hop): Promise<number> };

export interface Delivery extends HopPrinting {
  printer: Printer;
  /** Print the request(s) the model would send, and send nothing. */
  offline?: boolean;
  /** The exchange's options (lane, messages). */
  exchange: ExchangeOptions;
  body: BodyDestination;
}

/** What came of a delivery: the final hop (none offline) and the code its body's destination gave (the saver's), or the size printed. */
export interface Outcome {
  hop?: Hop;
  result: number;
}

/**
 * Request → hops → printer: sends the request (or with --offline prints it and stops), prints each
 * hop, then takes the final response's body where the delivery says.
 */
export async function deliver(spec: RequestSpec, delivery: Delivery): Promise<Outcome> {
  const { printer, offline, body } = delivery;
  if (offline) {
    await printOffline(spec, printer, delivery.exchange.jar);
    return { result: 0 };
  }
  const hop = await send(spec, printer, delivery.exchange, delivery);
  if ('print' in body) return { hop, result: await printResponse(hop, printer, body.print) };
  await printer.responseHead(hop.response);
  await printer.finish();
  return { hop, result: await body.save(hop) };
}
