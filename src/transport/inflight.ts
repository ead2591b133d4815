import type { HopInfo, ResponseHead } from '../model/exchange.js';

/** What has arrived of a response still being read: its head and the body bytes so far. */
export interface Arrived {
  response: ResponseHead;
  body: Buffer;
  info: HopInfo;
}

/**
 * The response being read right now, for Ctrl-C: `sling exec` prints what arrived of it before
 * exiting (as the main command, which streams, has shown it already). Set by the lane reading the
 * body once the head is in, cleared when the body is whole or has failed.
 */
let current: (() => Arrived | undefined) | undefined;

export function setArriving(fn: (() => Arrived | undefined) | undefined) {
  current = fn;
}

export function arriving(): Arrived | undefined {
  return current?.();
}
