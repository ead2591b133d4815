/**
 * How exec shows a request: the title line above each response, the `file:line (name)` that
 * messages about a request start with, and the printing of a response read whole. Also which bodies
 * are worth printing as they arrive. It does not decide when to print (run.ts does) nor batch stdout
 * (sink.ts).
 */
import { originText } from '../../model/url.js';
import type { OutputPlan } from '../../output/plan.js';
import { neutralise } from '../../sanitize.js';
import type { Printer } from '../../output/printer.js';
import type { RequestSpec } from '../../model/spec.js';
import { titleLine } from './report.js';
import type { RequestSink } from './sink.js';
import type { ExecEntry } from '../../model/exec.js';
import type { Hop } from '../../transport/hop.js';
import { headerIn } from '../../model/headers.js';
import { STREAM_FROM } from '../../transport/head.js';

/** A body worth printing as it comes: large, of unknown length, or compressed (its decoded size is unknown until it is inflated). */
export function streamsBody(hop: Hop, keepEncoding: boolean | undefined): boolean {
  if (hop.request.method === 'HEAD' || hop.response.status === 204 || hop.response.status === 304) return false;
  // A compressed body's length says nothing of what it inflates to (2 MB of gzip can be 2 GiB).
  if (!keepEncoding && headerIn(hop.response.rawHeaders, 'content-encoding') !== undefined) return true;
  if ('whole' in hop) return false;
  const length = headerIn(hop.response.rawHeaders, 'content-length');
  return length === undefined || !(Number(length) <= STREAM_FROM);
}

/** Prints a response whose body was read whole: synchronous unless stdout asks to wait. */
export function printWhole(printer: Printer, sink: RequestSink, hop: Hop, body: Buffer, lines: string[] | undefined): Promise<void> | undefined {
  const waiting = printer.response(hop.response, body, hop.info, hop.request);
  if (waiting) return waiting.then(() => printRest(sink, lines));
  return printRest(sink, lines);
}

function printRest(sink: RequestSink, lines: string[] | undefined): Promise<void> | undefined {
  if (lines) sink.write(lines.join('\n') + '\n');
  return sink.flush() ?? undefined;
}

/** Which request a line on stderr is about, also in a log of stderr alone: `api.http:12 (login)`. */
export function at(entry: ExecEntry, spec: RequestSpec): string {
  const src = spec.source;
  const where = src ? `${src.file}:${src.line}` : entry.label;
  const name = entry.name ?? entry.shownName;
  return name ? `${where} (${name})` : where;
}

export function title(entry: ExecEntry, spec: RequestSpec, plan: OutputPlan): string {
  let where = `${originText(spec.url)}${spec.url.path}${spec.url.query ? '?' + spec.url.query : ''}`;
  const stream = spec.stream;
  // A stream under its own keyword, a WebSocket's URL with the scheme it was written with (ws://, wss://).
  if (stream?.kind === 'websocket' && spec.url.shownOrigin === undefined) where = where.replace(/^http/, 'ws');
  if (stream?.kind === 'grpc' && spec.url.shownOrigin === undefined) where = where.replace(/^http/, 'grpc');
  return titleText(entry, `${stream ? stream.keyword : spec.method} ${where}`, plan);
}

/** The title line; on a terminal its control characters (in a request's name, say) are neutralised, as a body's are. */
export function titleText(entry: ExecEntry, request: string, plan: OutputPlan): string {
  const line = titleLine(entry, request);
  const text = `### ${plan.terminal ? neutralise(line) : line}`;
  return plan.colors ? `\x1b[1;33m${text}\x1b[0m` : text;
}
