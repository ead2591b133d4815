import type { Readable } from 'node:stream';
import type { PreparedRequest } from '../model/prepare.js';
import type { ParsedUrl } from '../model/url.js';
import type { HopInfo, ResponseHead } from '../model/exchange.js';

/** One request and its answer on the network (a redirect followed is another hop): the head read, the body coming. */
export interface Hop {
  url: ParsedUrl;
  request: PreparedRequest;
  response: ResponseHead;
  /** The body as it arrives (still Content-Encoded). */
  body: Readable;
  info: HopInfo;
  /**
   * The body handed to `consumer` a piece at a time, straight off the socket (a piece is only
   * valid during the call), resolving at its end: the fast path of a body read to a file
   * (deliver.ts pumpBody). Present on the HTTP/1.1 client's hops (client.ts), absent on HTTP/2's.
   * A hop's body is taken once: by `attach` or by `body`.
   */
  attach?: (consumer: Consumer) => Promise<void>;
}

/**
 * Takes a piece of a body: valid only during the call (the client's read buffer). A promise it
 * returns (its output is full: a pipe whose reader is slow) pauses the reading until it settles;
 * the piece stays valid meanwhile, as nothing is read. What it throws ends the transfer.
 */
export type Consumer = (chunk: Buffer) => void | Promise<void>;
