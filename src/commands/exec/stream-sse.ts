/** Server-sent events (httpyac's `SSE`/`EVENTSOURCE`): a GET over the HTTP client, its text/event-stream read as events. */
import { CliError, NetworkError, TimeoutError } from '../../errors.js';
import { ExitCode, exitCodeForStatus } from '../../exit.js';
import type { ServerEvent } from '../../model/sse.js';
import { headerIn } from '../../model/headers.js';
import type { RequestSpec } from '../../model/spec.js';
import { hostAndPort } from '../../model/url.js';
import { Conversation, idleTime, watchHandlers, type StreamOptions, type StreamRun } from './stream-pace.js';

/** Server-sent events: a GET answered with text/event-stream, each event a message, until the server ends it or it goes quiet. */
export async function runEvents(spec: RequestSpec, o: StreamOptions): Promise<StreamRun> {
  // The idle time is sling's end of the stream, not a failure: the transport's own timeout is off for the body.
  const idle = idleTime(spec);
  const hop = await o.send(spec);
  const where = hostAndPort(hop.url);
  const talk = new Conversation(idle, o.message, { keep: o.keepMessages, limit: o.maxMessage });
  await o.opened(undefined, hop.response, hop.response.httpVersion === '2');
  const base = { url: hop.url, request: hop.request, response: hop.response, info: hop.info, messages: talk.messages, idleMs: idle };
  watchHandlers(talk, spec, base, o);
  const type = (headerIn(hop.response.rawHeaders, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (hop.response.status >= 300 || type !== 'text/event-stream') {
    talk.close();
    hop.body.destroy();
    const status = `${hop.response.status} ${hop.response.reason}`.trimEnd();
    // A status as --check-status counts it (a 3xx not followed is 3); a 2xx that is no event stream is a bad answer.
    const code = hop.response.status >= 300 ? exitCodeForStatus(hop.response.status) : ExitCode.NETWORK;
    const why = hop.response.status >= 300 ? `answered ${status}` : `answered ${type === '' ? 'without a Content-Type' : type}, not text/event-stream`;
    return { ...base, end: { how: 'closed' }, failure: new CliError(`${where} ${why}`, code) };
  }
  const { decodedBody } = await import('../../transport/body.js');
  const { EventStreamReader } = await import('../../model/sse.js');
  const reader = new EventStreamReader(o.maxMessage);
  const received = (e: ServerEvent) => talk.add({ direction: 'received', text: e.data, ...(e.event !== undefined ? { event: e.event } : {}), ...(e.id !== undefined ? { id: e.id } : {}) });
  const body = await decodedBody(hop);
  const onStop = () => body.destroy();
  talk.signal.addEventListener('abort', onStop);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      for (const e of reader.push(chunk)) received(e);
      // The next piece is read once these are printed: a terminal or pipe slower than the server holds the stream back, not the memory.
      await talk.flushed();
    }
    reader.end();
  } catch (e) {
    // The transport's --timeout / # @timeout between two pieces of the body: the stream went quiet.
    if (e instanceof TimeoutError && !talk.stopped) talk.end('idle');
    else if (!talk.stopped) {
      const { EventTooLargeError } = await import('../../model/sse.js');
      // The events that came before the one too large are printed before the failure.
      if (e instanceof EventTooLargeError) for (const ev of e.events) received(ev);
      talk.close();
      await talk.flushed();
      if (e instanceof CliError) throw e;
      if (e instanceof EventTooLargeError) throw new NetworkError(`${where} sent ${e.message}`);
      throw e;
    }
  } finally {
    talk.signal.removeEventListener('abort', onStop);
    talk.close();
  }
  await talk.flushed();
  return { ...base, end: { how: talk.stopped ?? 'closed' }, count: talk.count, ...(talk.failure ? { failure: talk.failure } : {}) };
}
