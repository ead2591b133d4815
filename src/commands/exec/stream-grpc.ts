/** A gRPC call (`GRPC host:port/package.Service/Method`) over sling's own gRPC client (transport/grpc.ts). */
import { CliError, TimeoutError } from '../../errors.js';
import { ExitCode } from '../../exit.js';
import type { RequestSpec } from '../../model/spec.js';
import type { StreamEnd } from '../../model/stream.js';
import { Conversation, idleTime, watchHandlers, type StreamOptions, type StreamRun } from './stream-pace.js';

/** gRPC status codes as the HTTP status class of an error they stand for (the exit code, as for an HTTP error): 4xx for what the caller asked wrong, 5xx for the server's trouble. */
const CLIENT_SIDE = new Set([1, 3, 5, 6, 7, 8, 9, 10, 11, 16]);

export async function runGrpc(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  const stream = spec.stream!;
  const grpc = stream.grpc!;
  const { grpcCall } = await import('../../transport/grpc.js');
  const idle = idleTime(spec);
  const talk = new Conversation(idle, o.message, { keep: o.keepMessages, limit: o.maxMessage });
  const outgoing = (async function* () {
    for await (const text of talk.outgoing(stream.messages, stream.endAfterMs)) {
      talk.add({ direction: 'sent', text });
      yield text;
    }
  })();
  let opened: Promise<void> | void | undefined;
  const proto = grpc.protos[grpc.protos.length - 1];
  // The idle time is sling's: the transport's own timeout covers connecting and the answer's head only.
  const settings = spec.settings;
  let outcome: Awaited<ReturnType<typeof grpcCall>>;
  try {
    outcome = await grpcCall({ url: spec.url, path: grpc.path }, proto ? { proto } : {}, {
      settings,
      env: o.env,
      metadata: spec.headers.map(([n, v]): [string, string] => [n.toLowerCase(), v]),
      outgoing,
      onMessage: (json) => talk.add({ direction: 'received', text: json }),
      onHeaders: (head) => {
        opened = o.opened(undefined, head, true);
        // The handlers' trials (unsubscribe()) see the call as sent so far.
        const request = { method: 'POST', target: grpc.path, headers: spec.headers, body: Buffer.alloc(0) };
        watchHandlers(talk, spec, { url: spec.url, request, response: head, info: { reused: false, timings: { start: Date.now() } }, messages: talk.messages, idleMs: idle }, o);
      },
      maxMessage: o.maxMessage,
      signal: talk.signal,
      readFile: o.readFile,
      debug: o.debug,
    });
  } catch (e) {
    talk.close();
    await talk.flushed();
    throw e;
  } finally {
    await opened;
  }
  talk.close();
  await talk.flushed();
  const base = { url: spec.url, request: outcome.request, response: outcome.response, info: outcome.info, messages: talk.messages, idleMs: idle, trailers: outcome.trailers };
  const bySling = talk.stopped !== undefined && outcome.cancelledByClient === true;
  const end: StreamEnd = bySling ? { how: talk.stopped! } : { how: 'closed', code: outcome.status, text: statusText(outcome.statusName, outcome.message) };
  // The messages outgrew what sling holds; or a call that expects one answer got none in the idle
  // time (a timeout, not the stream's end); or a status other than OK.
  let failure: CliError | undefined = talk.failure;
  const oneAnswer = outcome.kind === 'unary' || outcome.kind === 'client-streaming';
  if (!failure && talk.stopped === 'idle' && oneAnswer && talk.receivedCount === 0)
    failure = new TimeoutError(`${spec.url.hostHeader}${grpc.path} gave no answer in ${idle % 1000 === 0 ? `${idle / 1000} s` : `${idle} ms`} (the idle time: # @timeout, --timeout)`);
  else if (!failure && !bySling && outcome.status !== 0) {
    const exit = CLIENT_SIDE.has(outcome.status) ? ExitCode.CLIENT_ERROR : ExitCode.SERVER_ERROR;
    failure = new CliError(`${spec.url.hostHeader}${grpc.path} answered gRPC status ${outcome.status} ${statusText(outcome.statusName, outcome.message)}`, exit);
  }
  return { ...base, end, count: talk.count, failure };
}

/** `NOT_FOUND: no such item`; the name alone when the message says nothing more (grpc-message `OK`). */
function statusText(name: string, message: string): string {
  return message && message !== name ? `${name}: ${message}` : name;
}
