import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import { NetworkError, UsageError, oneLine } from '../errors.js';
import type { ResponseHead, HopInfo, Timings } from '../model/exchange.js';
import { H2_FORBIDDEN } from '../model/headers.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { now } from '../clock.js';
import { USER_AGENT } from '../version.js';
import { chooseSystemCa, connectionKey, loadTls, proxyTarget, tlsOptions } from './connect.js';
import { platform } from 'node:os';
import { deadlineError, h2Name, mapNetworkError, timeLeft, timeoutError } from './errors.js';
import { pickProxy, type ProxyTarget } from './proxy.js';
import { checkHead } from './wire.js';
import type { GrpcMethod, ReflectionTypes } from './grpc-proto.js';

/**
 * sling's gRPC client: gRPC is HTTP/2 with a 5-byte framing of each message (a compressed flag and
 * a length), a status in the trailers and metadata in the headers, so sling speaks it itself over
 * its own HTTP/2 session (h2.ts), whose connection is made where every connection is decided
 * (connect.ts: --resolve, --connect-to, -4/-6, --interface, TLS with --verify, --cert, CA, and
 * the proxy of every request, --proxy or the environment's, through a CONNECT tunnel). The
 * messages are turned from JSON into protobuf and back by grpc-proto.ts (protobufjs, loaded only
 * here). ARCHITECTURE.md, "gRPC", says why not @grpc/grpc-js.
 */

export interface GrpcTarget {
  /** http: HTTP/2 in clear text with prior knowledge; https: TLS, HTTP/2 by ALPN. */
  url: ParsedUrl;
  /** '/package.Service/Method' */
  path: string;
}

export interface GrpcDescriptionSource {
  /** Absolute paths; httpyac's proto-loader options as far as they make sense (keepCase, defaults). Absent: server reflection. */
  proto?: { file: string; includeDirs: string[]; options: Record<string, unknown> };
}

export interface GrpcCallOptions {
  settings: RequestSettings;
  /** sling's environment: proxies (HTTP(S)_PROXY, ALL_PROXY, NO_PROXY) when the spec has none of its own (proxy.ts), as for every request. */
  env: NodeJS.ProcessEnv;
  /** Lower-case names; a `-bin` name's value is base64. */
  metadata: [string, string][];
  /** JSON texts of the request messages; the end of the iterable half-closes the call. */
  outgoing: AsyncIterable<string>;
  onMessage(json: string): void;
  onHeaders?(head: ResponseHead): void;
  /** The largest response message, in bytes (before and after decompression). */
  maxMessage: number;
  signal?: AbortSignal;
  /** How sling reads a named file: protobufjs never reads one itself. */
  readFile(path: string): Buffer;
  debug?(m: string): void;
}

export interface GrpcOutcome {
  kind: 'unary' | 'server-streaming' | 'client-streaming' | 'bidi';
  status: number;
  statusName: string;
  message: string;
  response: ResponseHead;
  trailers: [string, string][];
  info: HopInfo;
  request: PreparedRequest;
  cancelledByClient?: boolean;
}

export const GRPC_STATUS = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

export const grpcStatusName = (code: number): string => GRPC_STATUS[code] ?? `status ${code}`;

/** What the server sent that is no gRPC message stream: the framing broken, a message too large. */
export class GrpcFrameError extends NetworkError {
  constructor(message: string) {
    super(message);
    this.name = 'GrpcFrameError';
  }
}

export interface GrpcFrame {
  compressed: boolean;
  data: Buffer;
}

/**
 * Splits the bytes of a gRPC stream into its messages: each is a flag byte (0, or 1 when
 * compressed), a 4-byte length and that many bytes. The length is checked against the limit
 * before any of the message is held; a flag byte other than 0 or 1 is an error.
 */
export class MessageReader {
  private head = Buffer.alloc(5);
  private headFill = 0;
  private need = -1;
  private parts: Buffer[] = [];
  private fill = 0;
  private flag = 0;
  constructor(
    private readonly max: number,
    private readonly where: string,
  ) {}

  push(chunk: Buffer): GrpcFrame[] {
    const out: GrpcFrame[] = [];
    let off = 0;
    while (off < chunk.length) {
      if (this.need < 0) {
        const take = Math.min(5 - this.headFill, chunk.length - off);
        chunk.copy(this.head, this.headFill, off, off + take);
        this.headFill += take;
        off += take;
        if (this.headFill < 5) break;
        this.flag = this.head[0]!;
        const length = this.head.readUInt32BE(1);
        if (this.flag > 1) throw new GrpcFrameError(`${this.where} sent a gRPC message whose flag byte is ${this.flag} (only 0 and 1 exist): the response is not a gRPC message stream`);
        if (length > this.max) throw new GrpcFrameError(`${this.where} sent a gRPC message of ${length} bytes, over the limit of ${this.max} bytes`);
        this.need = length;
        this.parts = [];
        this.fill = 0;
      }
      const take = Math.min(this.need - this.fill, chunk.length - off);
      if (take > 0) this.parts.push(chunk.subarray(off, off + take));
      this.fill += take;
      off += take;
      if (this.fill === this.need) {
        out.push({ compressed: this.flag === 1, data: this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.need) });
        this.need = -1;
        this.headFill = 0;
        this.parts = [];
      }
    }
    return out;
  }

  /** The stream ended: a message cut short is an error. */
  end(): void {
    if (this.need >= 0) throw new GrpcFrameError(`${this.where} ended the gRPC response in the middle of a message (${this.fill} of its ${this.need} bytes came)`);
    if (this.headFill > 0) throw new GrpcFrameError(`${this.where} ended the gRPC response in the middle of a message's 5-byte prefix (${this.headFill} bytes came)`);
  }
}

/** A message as it goes on the wire: flag 0 (not compressed), its length, its bytes. */
export function frameMessage(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + data.length);
  out[0] = 0;
  out.writeUInt32BE(data.length, 1);
  out.set(data, 5);
  return out;
}

/** grpc-message is percent-encoded UTF-8; a `%` that starts no escape stays as it is. */
export function percentDecode(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Headers of ours that metadata cannot replace, and HTTP/2's connection-specific ones. */
const RESERVED = new Set([...H2_FORBIDDEN, 'host', 'te', 'content-type', 'grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding']);

interface RawCall {
  url: ParsedUrl;
  path: string;
  settings: RequestSettings;
  /** The proxy the call goes through (a CONNECT tunnel), if any. */
  proxy?: ProxyTarget;
  metadata: [string, string][];
  /** The request messages, as bytes (not yet framed); they may fail (a message that does not fit: the call is cancelled). */
  outgoing: AsyncIterable<Uint8Array>;
  onMessage(data: Buffer): void;
  onHeaders?(head: ResponseHead): void;
  maxMessage: number;
  signal?: AbortSignal;
  debug?(m: string): void;
}

type Ended = Omit<GrpcOutcome, 'kind'>;

/** One call on the HTTP/2 session of its URL: the messages sent as they come, each answer handed over as it arrives. */
async function rawCall(call: RawCall): Promise<Ended> {
  const { url, path, settings } = call;
  const where = hostAndPort(url);
  const sent: [string, string][] = [
    ['content-type', 'application/grpc'],
    ['te', 'trailers'],
    ['grpc-accept-encoding', 'identity,deflate,gzip'],
    ['user-agent', USER_AGENT],
  ];
  const left = timeLeft(settings);
  if (left !== undefined) sent.push(['grpc-timeout', `${Math.min(left, 99_999_999)}m`]);
  for (const [name, value] of call.metadata) {
    const lower = name.toLowerCase();
    if (lower.startsWith(':') || RESERVED.has(lower)) throw new UsageError(`the header '${oneLine(name)}' cannot be gRPC metadata: sling sets it (or HTTP/2 forbids it)`);
    if (lower.endsWith('-bin') && !BASE64.test(value)) throw new UsageError(`the value of the metadata '${oneLine(name)}' must be base64 (a name ending in -bin is binary metadata)`);
    sent.push([lower, value]);
  }
  checkHead('POST', path, sent);
  const timings: Timings = { start: now() };
  const h2 = await import('./h2.js');
  const tlsOpts = url.scheme === 'https' ? (await loadTls(), tlsOptions(settings, url.hostname)) : {};
  const proxy = call.proxy;
  const s = await h2.session(url, { ...settings, http2: 'prior-knowledge' }, tlsOpts, timings, where, proxy);
  if (!s) throw new NetworkError(`${where} chose HTTP/1.1 over TLS (ALPN): gRPC needs HTTP/2`);
  const info: HopInfo = { reused: timings.connect === undefined && timings.tls === undefined, timings, proxy: proxy?.display };
  const headers: Record<string, string | string[]> = { ':method': 'POST', ':scheme': url.scheme, ':path': path, ':authority': url.hostHeader };
  for (const [n, v] of sent) {
    const prev = headers[n];
    headers[n] = prev === undefined ? v : ([] as string[]).concat(prev, v);
  }
  const request: PreparedRequest = { method: 'POST', target: path, headers: [['Host', url.hostHeader], ...sent], body: Buffer.alloc(0) };
  call.debug?.(`gRPC ${path} to ${where}${proxy ? ` through proxy ${proxy.display}` : ''}${info.reused ? ' (connection reused)' : ''}`);
  return await new Promise<Ended>((resolve, reject) => {
    let stream: ClientHttp2Stream;
    try {
      stream = s.request(headers, { endStream: false });
    } catch (e) {
      reject(mapNetworkError(e, where, proxy?.display));
      return;
    }
    h2.holdSession(s, stream);
    let settled = false;
    let head: ResponseHead | undefined;
    let status: number | undefined;
    let message = '';
    const trailers: [string, string][] = [];
    let encoding = 'identity';
    const reader = new MessageReader(call.maxMessage, where);
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      if (!stream.destroyed) stream.close(0x8);
      reject(e instanceof NetworkError || e instanceof UsageError ? e : mapNetworkError(e, where, proxy?.display));
    };
    const onAbort = () => {
      if (settled) return;
      settled = true;
      if (!stream.destroyed) stream.close(0x8);
      resolve({
        status: 1,
        statusName: 'CANCELLED',
        message: 'cancelled by the client',
        response: head ?? { httpVersion: '2', status: 0, reason: '', rawHeaders: [] },
        trailers,
        info,
        request,
        cancelledByClient: true,
      });
    };
    if (call.signal?.aborted) return onAbort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    stream.once('close', () => call.signal?.removeEventListener('abort', onAbort));
    stream.on('error', fail);
    if (settings.timeoutMs) {
      stream.setTimeout(settings.timeoutMs, () => {
        info.timedOut = true;
        fail(timeoutError(where, settings, head !== undefined, info));
      });
    }
    if (settings.deadline !== undefined) {
      const hard = setTimeout(() => {
        info.timedOut = true;
        fail(deadlineError(where, settings, head !== undefined));
      }, timeLeft(settings));
      stream.once('close', () => clearTimeout(hard));
    }
    const statusFrom = (h: IncomingHttpHeaders, into: [string, string][]) => {
      for (const [name, value] of Object.entries(h)) {
        if (name.startsWith(':') || value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) {
          if (name === 'grpc-status') status = /^\d+$/.test(String(v)) ? Number(v) : 2;
          else if (name === 'grpc-message') message = percentDecode(String(v));
          else into.push([name, String(v)]);
        }
      }
    };
    stream.on('response', (h: IncomingHttpHeaders) => {
      timings.firstByte = now();
      const rawHeaders = h2.answerHead(s, h, info);
      const code = Number(h[':status']);
      head = { httpVersion: '2', status: code, reason: '', rawHeaders };
      const type = String(h['content-type'] ?? '');
      // A trailers-only answer carries its status in the headers.
      if (h['grpc-status'] !== undefined) statusFrom(h, []);
      if (status === undefined && (code !== 200 || !/^application\/grpc(?:[+;]|$)/i.test(type))) {
        return fail(new NetworkError(`${where} answered the gRPC call ${oneLine(path)} with HTTP ${code}${type ? ` and content-type '${oneLine(type)}'` : ' and no content-type'}: not a gRPC answer`));
      }
      encoding = String(h['grpc-encoding'] ?? 'identity').toLowerCase();
      call.onHeaders?.(head);
    });
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      try {
        for (const frame of reader.push(chunk)) {
          let data = frame.data;
          if (frame.compressed) data = inflate(data, encoding, call.maxMessage, where);
          call.onMessage(data);
        }
      } catch (e) {
        fail(e);
      }
    });
    stream.on('trailers', (h: IncomingHttpHeaders) => statusFrom(h, trailers));
    stream.on('end', () => {
      if (settled) return;
      timings.end = now();
      try {
        reader.end();
      } catch (e) {
        return fail(e);
      }
    });
    stream.once('close', () => {
      if (settled) return;
      if (status === undefined) {
        if (stream.rstCode) return fail(new NetworkError(`${where} reset the gRPC call ${oneLine(path)} (${h2Name(stream.rstCode)})`));
        return fail(new NetworkError(`${where} ended the gRPC call ${oneLine(path)} without a grpc-status`));
      }
      try {
        reader.end();
      } catch (e) {
        return fail(e);
      }
      settled = true;
      resolve({ status, statusName: grpcStatusName(status), message, response: head!, trailers, info, request });
    });
    // The request messages, as they come; the end of them half-closes the call.
    void (async () => {
      try {
        for await (const m of call.outgoing) {
          if (settled || stream.destroyed) return;
          if (!stream.write(frameMessage(m))) {
            await new Promise<void>((r) => {
              stream.once('drain', r);
              stream.once('close', r);
            });
          }
        }
        if (!settled && !stream.destroyed) stream.end();
      } catch (e) {
        fail(e);
      }
    })();
  });
}

let zlib: typeof import('node:zlib') | undefined;
/** A compressed message (flag 1) under the call's grpc-encoding, decoded up to the message limit. */
function inflate(data: Buffer, encoding: string, max: number, where: string): Buffer {
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    throw new GrpcFrameError(
      encoding === 'identity'
        ? `${where} sent a compressed gRPC message without saying how it is compressed (no grpc-encoding)`
        : `${where} sent a gRPC message compressed with '${oneLine(encoding)}', which sling cannot decode (it accepts gzip and deflate)`,
    );
  }
  try {
    return encoding === 'gzip' ? zlib!.gunzipSync(data, { maxOutputLength: max }) : zlib!.inflateSync(data, { maxOutputLength: max });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new GrpcFrameError(`${where} sent a compressed gRPC message that is over the limit of ${max} bytes once decompressed`);
    throw new GrpcFrameError(`${where} sent a gRPC message that is not valid ${encoding} data: ${oneLine((e as Error).message)}`);
  }
}

/** The run's server descriptions by reflection, per connection target. */
const reflected = new Map<string, { files: Map<string, Uint8Array>; version?: 'v1' | 'v1alpha' }>();

/** A call of sling's gRPC client: the method found in the .proto file or by server reflection, its messages sent and received as JSON. */
export async function grpcCall(target: GrpcTarget, source: GrpcDescriptionSource, opts: GrpcCallOptions): Promise<GrpcOutcome> {
  // The system's CA store where sling trusts it (Windows, macOS: SLING_SYSTEM_CA), as for every request.
  chooseSystemCa(opts.env, platform());
  const proto = await import('./grpc-proto.js');
  zlib ??= await import('node:zlib');
  const where = hostAndPort(target.url);
  // The proxy of every request (--proxy, a spec's own, else the environment's, unless NO_PROXY), for the call and for reflection alike.
  const settings = opts.settings;
  const proxy = proxyTarget(pickProxy(target.url, settings.proxies, settings.proxyEnv ?? opts.env));
  let method: GrpcMethod;
  if (source.proto) method = proto.findMethod(proto.loadProto(source.proto, opts.readFile), target.path, source.proto.options, `'${source.proto.file}'`);
  else method = await reflectMethod(target, opts, proto, proxy);
  const kind = method.requestStream ? (method.responseStream ? 'bidi' : 'client-streaming') : method.responseStream ? 'server-streaming' : 'unary';
  opts.debug?.(`gRPC ${target.path}: ${kind}, ${method.input.fullName.slice(1)} → ${method.output.fullName.slice(1)}`);
  let outgoing: AsyncIterable<Uint8Array>;
  if (!method.requestStream) {
    // One request message: read and converted before anything is sent.
    const all: string[] = [];
    for await (const json of opts.outgoing) all.push(json);
    if (all.length > 1) throw new UsageError(`${target.path} takes one request message (it is a ${kind} method), and ${all.length} were given`);
    const one = all.length ? proto.encodeMessage(method.input, all[0]!, 'the request message') : Buffer.alloc(0);
    outgoing = (async function* () {
      yield one;
    })();
  } else {
    outgoing = (async function* () {
      let n = 0;
      for await (const json of opts.outgoing) yield proto.encodeMessage(method.input, json, `request message ${++n}`);
    })();
  }
  let n = 0;
  const ended = await rawCall({
    url: target.url,
    // The method as the description names it (a service found by its short name goes by its full one).
    path: `/${method.service}/${method.name}`,
    settings,
    proxy,
    metadata: opts.metadata,
    outgoing,
    onMessage: (data) => {
      n++;
      let json: string;
      try {
        json = proto.decodeMessage(method, data);
      } catch (e) {
        throw new NetworkError(`${where} sent response message ${n}, which is not a ${method.output.fullName.slice(1)}: ${oneLine((e as Error).message)}`);
      }
      opts.onMessage(json);
    },
    onHeaders: opts.onHeaders,
    maxMessage: opts.maxMessage,
    signal: opts.signal,
    debug: opts.debug,
  });
  return { kind, ...ended };
}

type Proto = typeof import('./grpc-proto.js');

/** The method by server reflection (v1, else v1alpha), the files it needs asked for one by one and kept for the run. */
async function reflectMethod(target: GrpcTarget, opts: GrpcCallOptions, proto: Proto, proxy: ProxyTarget | undefined): Promise<GrpcMethod> {
  const key = `${target.url.scheme}://${target.url.hostHeader}|${JSON.stringify(opts.settings.tls)}|${connectionKey(opts.settings)}|${proxy?.display ?? ''}`;
  let known = reflected.get(key);
  if (!known) reflected.set(key, (known = { files: new Map() }));
  const service = /^\/([^/]+)\//.exec(target.path)?.[1];
  if (!service) return proto.findMethod(proto.rootFromDescriptors([]), target.path, {}, "the server's reflection");
  const state = known;
  const ask = async (request: import('./grpc-proto.js').ReflectionRequest) => {
    for (const version of state.version ? [state.version] : (['v1', 'v1alpha'] as const)) {
      const types: ReflectionTypes = proto.reflectionTypes(version);
      let answer: ReturnType<Proto['decodeReflection']> | undefined;
      const ended = await rawCall({
        url: target.url,
        path: types.path,
        settings: opts.settings,
        proxy,
        metadata: opts.metadata,
        outgoing: (async function* () {
          yield proto.encodeReflection(types, request);
        })(),
        onMessage: (data) => {
          answer ??= proto.decodeReflection(types, data);
        },
        maxMessage: Math.max(opts.maxMessage, 4 * 1024 * 1024),
        signal: opts.signal,
        debug: opts.debug,
      });
      if (ended.status === 12 && !state.version) continue;
      if (ended.status !== 0 || !answer) {
        throw new NetworkError(`server reflection at ${hostAndPort(target.url)} failed: ${ended.statusName}${ended.message ? ` (${oneLine(ended.message)})` : ''}`);
      }
      state.version = version;
      return answer;
    }
    throw new UsageError(`${hostAndPort(target.url)} offers no server reflection (grpc.reflection.v1 and v1alpha: UNIMPLEMENTED): give the service's .proto file`);
  };
  const has = () => {
    try {
      const root = proto.rootFromDescriptors([...state.files.values()]);
      return proto.servicesOf(root).some((s) => s.fullName === `.${service}`) ? root : undefined;
    } catch {
      return undefined;
    }
  };
  let root = state.files.size ? has() : undefined;
  if (!root) {
    const first = await ask({ file_containing_symbol: service });
    if (first.error) {
      const list = await ask({ list_services: '' });
      const names = (list.services ?? []).filter((n) => !n.startsWith('grpc.reflection.'));
      throw new UsageError(`no service '${service}' on ${hostAndPort(target.url)} by its reflection (it has: ${names.join(', ') || 'none'})`);
    }
    const add = (files: Uint8Array[]) => {
      for (const f of files) state.files.set(proto.descriptorFile(f).name, f);
    };
    add(first.files ?? []);
    // Every file they depend on, by name, until none is missing.
    for (let round = 0; round < 100; round++) {
      const missing = [...state.files.values()].flatMap((f) => proto.descriptorFile(f).dependency).filter((d) => !state.files.has(d));
      if (!missing.length) break;
      for (const name of new Set(missing)) {
        const got = await ask({ file_by_filename: name });
        if (got.error || !got.files?.length) throw new NetworkError(`server reflection at ${hostAndPort(target.url)} does not give the file '${oneLine(name)}' that its descriptions import`);
        add(got.files);
      }
    }
    root = proto.rootFromDescriptors([...state.files.values()]);
  }
  return proto.findMethod(root, target.path, {}, `the reflection of ${hostAndPort(target.url)}`);
}
