/**
 * A WebSocket session (JetBrains' `WEBSOCKET`, httpyac's `WS`/`WSS`) and a GraphQL subscription over
 * one (`graphql-transport-ws`), over sling's own WebSocket client (transport/websocket.ts,
 * transport/graphql-ws.ts).
 */
import { CliError } from '../../errors.js';
import { ExitCode } from '../../exit.js';
import type { RequestSpec } from '../../model/spec.js';
import type { StreamEnd } from '../../model/stream.js';
import type { WebSocketClose, WebSocketSession } from '../../transport/websocket.js';
import { Conversation, idleTime, watchHandlers, type StreamOptions, type StreamRun } from './stream-pace.js';

export async function runWebSocket(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  const stream = spec.stream!;
  if (stream.graphql) return runSubscription(spec, o);
  const { openWebSocket } = await import('../../transport/websocket.js');
  const idle = idleTime(spec);
  const talk = new Conversation(idle, o.message, { keep: o.keepMessages, limit: o.maxMessage });
  let session: WebSocketSession;
  try {
    session = await openWebSocket(spec, {
      env: o.env,
      jar: o.jar,
      maxMessage: o.maxMessage,
      onMessage: (data, binary) => talk.add(binary ? { direction: 'received', text: '', binary: data.length } : { direction: 'received', text: data.toString('utf8') }),
      debug: o.debug,
    });
  } catch (e) {
    talk.close();
    throw e;
  }
  await o.opened(session.request, session.response, false);
  const base = { url: spec.url, request: session.request, response: session.response, info: session.info, messages: talk.messages, idleMs: idle };
  watchHandlers(talk, spec, base, o);
  // sling ends it (idle time, a handler's unsubscribe(), a timeline's end): the closing handshake.
  const onStop = () => void session.close(1000);
  talk.signal.addEventListener('abort', onStop, { once: true });
  const sending = (async () => {
    for await (const text of talk.outgoing(stream.messages, stream.endAfterMs)) {
      await session.send(text);
      talk.add({ direction: 'sent', text });
      await talk.flushed();
    }
    if (talk.timelineDone) talk.end('timeline');
  })().catch(() => {
    // A send fails only once the session is closing: its end (session.closed) says why.
  });
  const closed = await session.closed;
  talk.close();
  await sending;
  await talk.flushed();
  const end: StreamEnd = talk.stopped ? { how: talk.stopped } : { how: 'closed', ...(closed.code !== undefined ? { code: closed.code } : {}), ...(closed.reason ? { text: closed.reason } : {}) };
  return { ...base, end, count: talk.count, failure: talk.failure ?? closeFailure(session.where, closed, talk.stopped !== undefined) };
}

/** A WebSocket's end as a failure of the request, or none: a normal close (1000, 1001, none), or one sling asked for. */
function closeFailure(where: string, closed: WebSocketClose, bySling: boolean): CliError | undefined {
  if (closed.error) return closed.error;
  if (bySling) return undefined;
  const code = closed.code;
  if (code === undefined || code === 1000 || code === 1001 || code === 1005) return undefined;
  const reason = closed.reason ? `: ${closed.reason}` : '';
  // The server's trouble (1011 internal error, 1012 restart, 1013 try later, 1014 bad gateway) as a 5xx; what it refused as a 4xx.
  const exit = code >= 1011 && code <= 1014 ? ExitCode.SERVER_ERROR : ExitCode.CLIENT_ERROR;
  return new CliError(`${where} closed the WebSocket with ${code}${reason}`, exit);
}

/** A GraphQL subscription: each `next` payload a message, until the server completes it (or errors), or sling ends it. */
async function runSubscription(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  const stream = spec.stream!;
  const g = stream.graphql!;
  const { subscribeGraphql } = await import('../../transport/graphql-ws.js');
  const idle = idleTime(spec);
  const talk = new Conversation(idle, o.message, { keep: o.keepMessages, limit: o.maxMessage });
  let sub: Awaited<ReturnType<typeof subscribeGraphql>>;
  try {
    sub = await subscribeGraphql(
      spec,
      { query: g.query, ...(g.variables !== undefined ? { variables: JSON.stringify(g.variables) } : {}), ...(g.operationName !== undefined ? { operationName: g.operationName } : {}) },
      { env: o.env, jar: o.jar, maxMessage: o.maxMessage, onMessage: (json) => talk.add({ direction: 'received', text: json }), debug: o.debug },
    );
  } catch (e) {
    talk.close();
    throw e;
  }
  const session = sub.session;
  await o.opened(session.request, session.response, false);
  talk.add({ direction: 'sent', text: JSON.stringify({ type: 'subscribe', payload: g }) });
  const base = { url: spec.url, request: session.request, response: session.response, info: session.info, messages: talk.messages, idleMs: idle };
  watchHandlers(talk, spec, base, o);
  talk.signal.addEventListener('abort', () => void sub.stop(), { once: true });
  const done = await sub.done;
  talk.close();
  await talk.flushed();
  const end: StreamEnd = talk.stopped ? { how: talk.stopped } : { how: 'closed', text: done.outcome === 'complete' ? 'complete' : done.outcome };
  let failure: CliError | undefined;
  if (done.outcome === 'error') failure = new CliError(`${session.where}: the subscription failed: ${done.errors ?? 'error'}`, ExitCode.CLIENT_ERROR);
  else if (done.outcome === 'failed') failure = done.error ?? new CliError(`${session.where}: the subscription failed`, ExitCode.NETWORK);
  else if (!talk.stopped) failure = closeFailure(session.where, done.close, false);
  return { ...base, end, count: talk.count, failure: talk.failure ?? failure };
}
