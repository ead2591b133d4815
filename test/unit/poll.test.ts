// transport/poll.ts: after a request is written the keep-alive lane polls for its answer, one
// turn of the event loop after another, unless told not to (SLING_NO_POLL in the environment the
// commands hand the exchange: exchange.ts passes `poll: false`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { awaitAnswer } from '../../src/transport/poll.js';

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test('awaitAnswer asks whether the answer came on the next turns only when polling is allowed', { skip: availableParallelism() > 1 ? undefined : 'one CPU: sling never polls' }, async () => {
  let asked = 0;
  awaitAnswer(() => {
    asked++;
    return true;
  }, false);
  await turns(3);
  assert.equal(asked, 0, 'not allowed (SLING_NO_POLL): the loop sleeps at once');
  awaitAnswer(() => {
    asked++;
    return true;
  }, true);
  assert.equal(asked, 0, 'not on the turn the request was written in');
  await turns(3);
  assert.equal(asked, 1, 'asked on the next turn; answered, the polling stops');
});
