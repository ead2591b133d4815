import { availableParallelism } from 'node:os';
import { now } from '../clock.js';

/**
 * Polling for an answer instead of sleeping (the HTTP/1.1 client, client.ts, for every command;
 * off with SLING_NO_POLL). After a request is written the event loop is kept turning
 * (one setImmediate after another, so libuv polls the sockets without blocking) for up to POLL_MS,
 * and only then sleeps in the kernel until the answer comes. On a virtual machine a process that
 * sleeps lets its virtual CPU halt, and waking it when a loopback answer arrives costs ~90 µs on
 * this project's machines (the bare Node loop of bench/exec-http.mjs sends 3,000 requests in
 * ~0.40 s polling, ~0.72 s sleeping); an answer from a local server usually comes well within the
 * window. The cost is CPU: at most POLL_MS of it a request, when the server is slower. Only with a
 * second CPU (with one, the spin would take the time a local server needs to answer), and
 * SLING_NO_POLL=1 turns it off (exchange.ts reads it from the environment the commands hand it,
 * ExchangeOptions.env, and tells the lane: LaneOptions.poll).
 */
const POLL_MS = 0.25;
let pollFor: (() => boolean) | undefined;
let pollUntil = 0;
let polling = false;
let cpus: boolean | undefined;

/**
 * A request was written: poll until `answered()` (its answer's head is in) or the window closes.
 * `allowed` false (SLING_NO_POLL): the loop sleeps at once.
 */
export function awaitAnswer(answered: () => boolean, allowed: boolean) {
  if (!allowed || !(cpus ??= availableParallelism() > 1)) return;
  pollFor = answered;
  pollUntil = now() + POLL_MS;
  if (!polling) {
    polling = true;
    setImmediate(pollTick);
  }
}

let ticks = 0;

/** One turn of the loop: the clock is read every fourth turn only (each read allocates; a turn is a few µs). */
function pollTick() {
  if (pollFor && !pollFor() && ((++ticks & 3) !== 0 || now() < pollUntil)) setImmediate(pollTick);
  else {
    polling = false;
    // The exchange's closure is not kept alive past its wait.
    pollFor = undefined;
  }
}
