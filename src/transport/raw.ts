import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { CliError, TimeoutError } from '../errors.js';
import { isStreamed, writeStreamed } from '../model/upload.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { mapNetworkError } from './errors.js';
import { socketTarget } from './connect.js';
import { BodyReader, HeadReader, requestBytes, sendsChunked, writeRequest } from './h1.js';
import { incompleteHead } from './head.js';
import { checkHead } from './wire.js';
import type { Hop } from './send.js';
import type { HopInfo, Timings } from '../model/exchange.js';
import { now } from '../clock.js';

/**
 * The download fast lane: a minimal HTTP/1.1 exchange on a plain TCP socket that reads into one
 * reused 1 MiB buffer (net's `onread`) and hands body bytes straight to the consumer, without
 * node:http's parser and stream layers. Node's http client tops out near half of curl's speed for
 * a 1 GiB file; this reaches curl (bench/download.mjs). Used only for downloads over plain HTTP
 * without a proxy; everything else goes through send.ts. The bytes of the exchange are h1.ts's,
 * as keepalive.ts's are: this lane's policy is one connection per request, closed after its
 * answer, the body handed to the consumer as it is read (a file), never held.
 */
const READ_BUFFER = 1 << 20;

/** Takes a chunk (valid only during the call); a promise it returns pauses the socket until it settles. */
type Consumer = (chunk: Buffer) => void | Promise<void>;

export async function sendRaw(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings): Promise<Hop> {
  // Before connecting: a head that cannot go on the wire opens no connection (requestBytes holds the line too).
  checkHead(request.method, request.target, request.headers);
  const net = await import('node:net');
  const timings: Timings = { start: now() };
  const where = hostAndPort(url);
  const info: HopInfo = { reused: false, timings };

  return await new Promise<Hop>((resolve, reject) => {
    let phase: 'head' | 'body' | 'done' = 'head';
    const heads = new HeadReader(where, where, settings);
    let reader: BodyReader | undefined;
    let consumer: Consumer | undefined;
    let finish: ((err?: Error) => void) | undefined;
    let pending: Buffer[] = []; // body bytes that arrived before a consumer attached
    let received = 0;
    let settled = false;

    const deliver = (bytes: Buffer) => {
      if (phase !== 'body' || bytes.length === 0) return;
      received += bytes.length;
      if (consumer) {
        // A consumer that cannot take the bytes (a full disk) ends the transfer with its error,
        // which reaches whoever attached it; thrown here it would escape the socket's callback.
        try {
          const wait = consumer(bytes);
          // The consumer's output is full (a pipe whose reader is slow): read on once it drains.
          // While it waits, --timeout does not run: the server is not the one who is slow.
          if (wait) {
            socket.pause();
            if (settings.timeoutMs) socket.setTimeout(0);
            wait.then(
              () => {
                if (phase !== 'body') return;
                if (settings.timeoutMs) socket.setTimeout(settings.timeoutMs);
                socket.resume();
              },
              (e) => end(e as Error),
            );
          }
        } catch (e) {
          end(e as Error);
        }
      } else pending.push(Buffer.from(bytes)); // the read buffer is reused: keep a copy
    };
    const end = (err?: Error) => {
      if (phase === 'done') return;
      phase = 'done';
      timings.end = now();
      socket.destroy();
      if (finish) finish(err);
      else endError = err ?? null;
    };
    let endError: Error | null | undefined; // set when the body ended before anyone attached

    const body = (data: Buffer) => {
      try {
        if (reader!.feed(data)) end();
      } catch (e) {
        end(e as Error);
      }
    };

    const onData = (data: Buffer) => {
      if (phase === 'body') return body(data);
      if (phase !== 'head') return;
      let rest: Buffer | undefined;
      try {
        rest = heads.read(data);
        if (rest === undefined) return;
        reader = new BodyReader(request.method, heads.head!, where, deliver);
      } catch (e) {
        return fail(e);
      }
      const response = heads.head!;
      timings.firstByte = now();
      phase = 'body';
      socket.pause();
      settled = true;
      if (reader.empty) end();
      else if (rest.length) body(rest);

      const attach = (c: Consumer) =>
        new Promise<void>((res, rej) => {
          consumer = c;
          for (const p of pending) c(p);
          pending = [];
          finish = (err) => (err ? rej(err) : res());
          if (endError !== undefined) return endError ? rej(endError) : res();
          socket.resume();
        });
      // A stream view for the generic path (redirect bodies, decoding); the fast path calls attach.
      // Destroyed before its end (a redirect's body past what is read of it), it closes the
      // connection: else the socket went on reading a body nobody wanted, and the process waited for it.
      let stream: Readable | undefined;
      const lazyStream = () => {
        if (stream) return stream;
        stream = new Readable({
          read() {},
          destroy(err, done) {
            end();
            done(err);
          },
        });
        attach((chunk) => {
          stream!.push(Buffer.from(chunk));
        }).then(
          () => stream!.push(null),
          (e) => stream!.destroy(e),
        );
        return stream;
      };
      const hop = {
        url,
        request,
        response,
        info,
        attach,
        get body() {
          return lazyStream();
        },
      } as unknown as Hop;
      resolve(hop);
    };

    const fail = (e: unknown) => {
      if (phase === 'done') return;
      if (!settled) {
        settled = true;
        phase = 'done';
        socket.destroy();
        reject(e instanceof CliError ? e : mapNetworkError(e, where));
      } else end(e instanceof Error ? e : new Error(String(e)));
    };

    const buffer = Buffer.allocUnsafe(READ_BUFFER);
    const socket: Socket = net.connect({
      ...socketTarget(url, settings),
      onread: { buffer, callback: (n: number, buf: Buffer) => void onData(buf.subarray(0, n)) },
    } as unknown as import('node:net').NetConnectOpts);
    socket.once('lookup', () => (timings.dns = now()));
    const connectTimer = settings.connectTimeoutMs
      ? setTimeout(() => fail(new TimeoutError(`could not connect to ${where} within ${settings.connectTimeoutMs! / 1000}s`)), settings.connectTimeoutMs)
      : undefined;
    socket.once('close', () => clearTimeout(connectTimer));
    socket.once('connect', () => {
      clearTimeout(connectTimer);
      timings.connect = now();
      info.remoteAddress = socket.remoteAddress;
      info.remotePort = socket.remotePort;
      info.localAddress = socket.localAddress;
      info.localPort = socket.localPort;
      // The request as node:http would write it, without a Connection line (the socket closes after the answer).
      writeRequest(socket, requestBytes(request, request.headers, request.target, false, false));
      const body = request.body;
      if (isStreamed(body)) writeStreamed(body, socket, sendsChunked(request.headers)).catch((e: Error) => fail(e));
    });
    if (settings.timeoutMs) {
      socket.setTimeout(settings.timeoutMs, () => {
        info.timedOut = true;
        // After the head, the body stalled: bodyError() says so, with the bytes that came.
        if (phase === 'body') end(new Error('timeout'));
        else fail(new TimeoutError(`no answer from ${where} within ${settings.timeoutMs! / 1000}s (${settings.timeoutFrom ?? '--timeout'})`));
      });
    }
    socket.on('error', (e) => {
      if (phase === 'body') {
        // The socket's own error (a reset: ECONNRESET) names the cut; a clean close ends below.
        const cut = Object.assign(new Error(`reset after ${received} bytes`), { code: (e as NodeJS.ErrnoException).code ?? 'ECONNRESET' });
        return end(cut);
      }
      fail(e);
    });
    socket.on('close', () => {
      if (phase === 'head') fail(heads.partial ? incompleteHead(where) : Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      else if (phase === 'body') {
        if (reader!.framing === 'close') end();
        else end(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      }
    });
  });
}
