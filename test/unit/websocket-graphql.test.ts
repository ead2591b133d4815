// GraphQL subscriptions over WebSocket (src/transport/graphql-ws.ts, the graphql-transport-ws
// protocol) against a small server of that protocol written here with `ws` (no GraphQL library:
// it answers a subscribe with N `next` messages, then `complete`, or with an `error`).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { WebSocket } from 'ws';
import { CliError } from '../../src/errors.js';
import { subscribeGraphql, type GraphqlWsOptions } from '../../src/transport/graphql-ws.js';
import { until } from '../helpers/wait.js';
import { specFor, wsServer } from '../helpers/websocket.js';

interface Behaviour {
  /** What the server does with a subscribe: `next` this many times then `complete`, an `error`, or nothing (it runs until stopped). */
  answer: { next: number } | 'error' | 'forever';
  /** Sends a ping before the acknowledgement. */
  pingFirst?: boolean;
  /** Never acknowledges. */
  noAck?: boolean;
  /** Sends this instead of the acknowledgement. */
  insteadOfAck?: string;
}

/** A graphql-transport-ws server: what it received, in order, per connection. */
async function graphqlServer(t: TestContext, behaviour: Behaviour) {
  const srv = await wsServer(t, { handleProtocols: (p) => (p.has('graphql-transport-ws') ? 'graphql-transport-ws' : false) });
  const received: Record<string, unknown>[] = [];
  const closes: number[] = [];
  srv.wss.on('connection', (ws: WebSocket) => {
    ws.on('close', (code) => closes.push(code));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      received.push(m);
      if (m.type === 'connection_init') {
        if (behaviour.pingFirst) ws.send(JSON.stringify({ type: 'ping', payload: { n: 1 } }));
        if (behaviour.insteadOfAck) return ws.send(behaviour.insteadOfAck);
        if (!behaviour.noAck) ws.send(JSON.stringify({ type: 'connection_ack' }));
      } else if (m.type === 'subscribe') {
        const a = behaviour.answer;
        if (a === 'error') return ws.send(JSON.stringify({ id: m.id, type: 'error', payload: [{ message: 'Cannot query field "nope" on type "Subscription".' }] }));
        if (a === 'forever') return ws.send(JSON.stringify({ id: m.id, type: 'next', payload: { data: { tick: 0 } } }));
        for (let i = 1; i <= a.next; i++) ws.send(JSON.stringify({ id: m.id, type: 'next', payload: { data: { count: i, vars: m.payload.variables ?? null } } }));
        ws.send(JSON.stringify({ id: m.id, type: 'complete' }));
      }
    });
  });
  return { ...srv, received, closes };
}

function options(extra: Partial<GraphqlWsOptions> = {}) {
  const messages: string[] = [];
  const opts: GraphqlWsOptions = { env: {}, maxMessage: 1 << 20, onMessage: (json) => messages.push(json), ...extra };
  return { messages, opts };
}

test('a subscription: connection_init, ack, subscribe with the operation, every next payload, then complete and close 1000', async (t) => {
  const srv = await graphqlServer(t, { answer: { next: 3 }, pingFirst: true });
  const { messages, opts } = options({ connectionParams: '{"token": "t0k"}' });
  const sub = await subscribeGraphql(specFor(`http://127.0.0.1:${srv.port}/graphql`), { query: 'subscription { count }', variables: '{"from": 1}', operationName: 'Count' }, opts);
  assert.equal(srv.handshakes[0]!.headers['sec-websocket-protocol'], 'graphql-transport-ws');
  assert.equal(sub.session.protocol, 'graphql-transport-ws');
  const end = await sub.done;
  assert.equal(end.outcome, 'complete');
  assert.deepEqual(end.close, { code: 1000, reason: '', clean: true });
  assert.deepEqual(
    messages,
    [1, 2, 3].map((i) => JSON.stringify({ data: { count: i, vars: { from: 1 } } })),
  );
  assert.deepEqual(srv.received, [
    { type: 'connection_init', payload: { token: 't0k' } },
    { type: 'pong', payload: { n: 1 } },
    { id: sub.id, type: 'subscribe', payload: { query: 'subscription { count }', variables: { from: 1 }, operationName: 'Count' } },
  ]);
  await until('the server saw the close', () => srv.closes.length === 1);
  assert.deepEqual(srv.closes, [1000]);
});

test("the server's error message ends the subscription with outcome error and its errors as JSON", async (t) => {
  const srv = await graphqlServer(t, { answer: 'error' });
  const { messages, opts } = options();
  const sub = await subscribeGraphql(specFor(`http://127.0.0.1:${srv.port}/graphql`), { query: 'subscription { nope }' }, opts);
  const end = await sub.done;
  assert.equal(end.outcome, 'error');
  assert.deepEqual(JSON.parse(end.errors!), [{ message: 'Cannot query field "nope" on type "Subscription".' }]);
  assert.equal(messages.length, 0);
  assert.equal(end.close.code, 1000);
});

test('stop() sends complete for the subscription, then closes with 1000', async (t) => {
  const srv = await graphqlServer(t, { answer: 'forever' });
  const { messages, opts } = options();
  const sub = await subscribeGraphql(specFor(`http://127.0.0.1:${srv.port}/graphql`), { query: 'subscription { tick }' }, opts);
  await until('the first tick', () => messages.length === 1);
  const end = await sub.stop();
  assert.equal(end.outcome, 'stopped');
  assert.equal(end.close.clean, true);
  assert.deepEqual(srv.received.at(-1), { id: sub.id, type: 'complete' });
  await until('the server saw the close', () => srv.closes.length === 1);
  assert.deepEqual(srv.closes, [1000]);
  assert.equal(await sub.stop(), end, 'a second stop gives the same end');
});

test('no connection_ack within --timeout fails with exit 2; something else first fails with 4400', async (t) => {
  const silent = await graphqlServer(t, { answer: { next: 1 }, noAck: true });
  await assert.rejects(subscribeGraphql(specFor(`http://127.0.0.1:${silent.port}/graphql`, { timeoutMs: 300 }), { query: 'subscription { a }' }, options().opts), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.exitCode, 2);
    assert.equal(e.message, `no connection_ack from ws://127.0.0.1:${silent.port}/graphql within 0.3s (--timeout)`);
    return true;
  });
  await until('the server saw the close', () => silent.closes.length === 1);
  assert.deepEqual(silent.closes, [4504]);
  // Without a --timeout, the caller's own wait.
  await assert.rejects(
    subscribeGraphql(specFor(`http://127.0.0.1:${silent.port}/graphql`), { query: 'subscription { a }' }, options({ ackTimeoutMs: 200 }).opts),
    (e: unknown) => e instanceof CliError && e.exitCode === 2 && e.message === `no connection_ack from ws://127.0.0.1:${silent.port}/graphql within 0.2s (the wait for connection_ack)`,
  );
  // Variables that are not JSON: nothing is sent.
  await assert.rejects(
    subscribeGraphql(specFor(`http://127.0.0.1:${silent.port}/graphql`), { query: 'subscription { a }', variables: '{"a": }' }, options().opts),
    (e: unknown) => e instanceof CliError && e.exitCode === 1 && /^the GraphQL variables are not JSON: /.test(e.message),
  );
  assert.equal(silent.handshakes.length, 2, 'no handshake for the variables that are not JSON');
  const rude = await graphqlServer(t, { answer: { next: 1 }, insteadOfAck: '{"type":"next","id":"x","payload":{}}' });
  await assert.rejects(
    subscribeGraphql(specFor(`http://127.0.0.1:${rude.port}/graphql`), { query: 'subscription { a }' }, options().opts),
    (e: unknown) => e instanceof CliError && e.exitCode === 6 && e.message === `ws://127.0.0.1:${rude.port}/graphql sent 'next' before connection_ack, which breaks the graphql-transport-ws protocol`,
  );
  await until('the server saw the close', () => rude.closes.length === 1);
  assert.deepEqual(rude.closes, [4400]);
  assert.equal(rude.received.length, 1, 'no subscribe was sent');
});

test('a server that closes during the subscription fails it with the close code; one that does not speak the protocol is refused', async (t) => {
  const srv = await graphqlServer(t, { answer: 'forever' });
  const { messages, opts } = options();
  const sub = await subscribeGraphql(specFor(`http://127.0.0.1:${srv.port}/graphql`), { query: 'subscription { tick }' }, opts);
  await until('the first tick', () => messages.length === 1);
  srv.clients[0]!.close(4409, 'Subscriber for x already exists');
  const end = await sub.done;
  assert.equal(end.outcome, 'failed');
  assert.equal(end.error!.message, `ws://127.0.0.1:${srv.port}/graphql closed the WebSocket (close code 4409: Subscriber for x already exists) before the subscription completed`);
  // A WebSocket server that takes none of the subprotocols offered.
  const plain = await wsServer(t, { handleProtocols: () => false });
  await assert.rejects(
    subscribeGraphql(specFor(`http://127.0.0.1:${plain.port}/`), { query: 'subscription { a }' }, options().opts),
    /accepted the WebSocket without the subprotocol graphql-transport-ws/,
  );
});
