/**
 * The requests of a .http file that are streams (model/stream.ts): a WebSocket session (JetBrains
 * `WEBSOCKET`, httpyac `WS`/`WSS`, a GraphQL subscription), server-sent events (httpyac
 * `SSE`/`EVENTSOURCE`) and gRPC calls (`GRPC`), built on top of the request buildSpec makes: the
 * URL's scheme mapped to the one its connection starts with, the body split into the messages to
 * send, the proto files the call is described by.
 */
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
import { expandHome } from '../../files.js';
import type { RequestSpec } from '../../model/spec.js';
import type { OutgoingMessage, ProtoSource, StreamRequest } from '../../model/stream.js';
import type { RequestNode } from './ast.js';
import type { BuildOptions } from './bodies.js';

/** `ws://` and `wss://` (`grpc://`, `grpcs://` for gRPC) as the http:// or https:// connection they start with. */
export function streamScheme(node: RequestNode, urlText: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(urlText);
  if (!m) return urlText;
  const scheme = m[1]!.toLowerCase();
  const rest = urlText.slice(m[0].length);
  if ((node.stream?.kind === 'websocket' || node.graphql) && (scheme === 'ws' || scheme === 'wss')) return `${scheme === 'ws' ? 'http' : 'https'}://${rest}`;
  if (node.stream?.kind === 'grpc' && (scheme === 'grpc' || scheme === 'grpcs')) return `${scheme === 'grpc' ? 'http' : 'https'}://${rest}`;
  return urlText;
}

/** A GraphQL request that goes over a WebSocket: its URL is ws:// or wss://, or its operation is a subscription (as JetBrains runs it). */
export function graphqlOverWebSocket(node: RequestNode, urlText: string, body: Buffer): boolean {
  if (!node.graphql) return false;
  if (/^wss?:\/\//i.test(urlText)) return true;
  try {
    const doc = JSON.parse(body.toString('utf8')) as { query?: unknown };
    return typeof doc.query === 'string' && /^subscription\b/.test(firstOperation(doc.query));
  } catch {
    return false;
  }
}

/**
 * The document's text from its first operation on: comments and `fragment ... { ... }`
 * definitions before it left out (a document may define its fragments first).
 */
export function firstOperation(query: string): string {
  let rest = query.replace(/#[^\n]*/g, '').trimStart();
  while (/^fragment\b/.test(rest)) {
    const open = rest.indexOf('{');
    if (open === -1) return rest;
    let depth = 0;
    let i = open;
    for (; i < rest.length; i++) {
      if (rest[i] === '{') depth++;
      else if (rest[i] === '}' && --depth === 0) break;
    }
    rest = rest.slice(i + 1).trimStart();
  }
  return rest;
}

/** JetBrains' message separators: `===` between two messages, `=== wait-for-server` to wait for the server's answer first. */
const SEPARATOR = /^===[ \t]*(wait-for-server)?[ \t]*$/;

/**
 * A body's text as the messages it holds, in order (blank lines around each dropped; an empty message
 * is none). The `=== wait-for-server` lines before a message, with no message between them, add up:
 * two wait for two messages from the server.
 */
export function splitMessages(text: string): OutgoingMessage[] {
  const out: OutgoingMessage[] = [];
  let lines: string[] = [];
  let waits = 0;
  const flush = () => {
    const t = lines
      .join('\n')
      .replace(/^(?:[ \t]*\r?\n)+/, '')
      .replace(/\s+$/, '');
    lines = [];
    if (t === '') return;
    out.push({ text: t, waitForServer: waits > 0, ...(waits > 1 ? { waitCount: waits } : {}) });
    waits = 0;
  };
  for (const line of text.split(/\r?\n/)) {
    const m = SEPARATOR.exec(line);
    if (!m) {
      lines.push(line);
      continue;
    }
    flush();
    if (m[1] !== undefined) waits++;
  }
  flush();
  return out;
}

/**
 * The spec buildSpec made, as the stream it is: its kind, its messages, no body of its own. (buildSpec
 * adds no Accept-Encoding to a stream, nor a User-Agent to a gRPC call, whose headers are its metadata.)
 */
export function asStream(spec: RequestSpec, node: RequestNode, body: Buffer, o: BuildOptions, graphqlWs: boolean): RequestSpec {
  const kind = graphqlWs ? 'websocket' : node.stream!.kind;
  const stream: StreamRequest = { kind, keyword: graphqlWs ? 'GRAPHQL' : node.stream!.keyword, messages: [] };
  let headers = spec.headers;
  if (graphqlWs) {
    const doc = JSON.parse(body.toString('utf8')) as { query: string; variables?: unknown; operationName?: string };
    stream.graphql = { query: doc.query, ...(doc.variables !== undefined ? { variables: doc.variables } : {}), ...(doc.operationName !== undefined ? { operationName: doc.operationName } : {}) };
    headers = headers.filter(([n]) => n.toLowerCase() !== 'content-type' || node.headers.some((h) => h.lower === 'content-type'));
  } else if (kind === 'sse') {
    if (!headers.some(([n]) => n.toLowerCase() === 'accept')) headers = [...headers, ['Accept', 'text/event-stream']];
  } else stream.messages = splitMessages(body.toString('utf8'));
  let url = spec.url;
  if (kind === 'grpc') {
    stream.grpc = { path: spec.url.path, protos: protosFor(node, o) };
    // httpyac's `channelcredentials: ssl` asks for TLS; its `grpc.*` headers are channel options of
    // @grpc/grpc-js, which sling's client has none of: neither is metadata.
    const creds = headers
      .find(([n]) => n.toLowerCase() === 'channelcredentials')?.[1]
      .trim()
      .toLowerCase();
    if (creds === 'ssl' && url.scheme === 'http') url = { ...url, scheme: 'https' };
    headers = headers.filter(([n]) => n.toLowerCase() !== 'channelcredentials' && !n.toLowerCase().startsWith('grpc.'));
  }
  return { ...spec, url, method: kind === 'grpc' ? 'POST' : 'GET', headers, body: { kind: 'none' }, stream };
}

/**
 * The `proto < ./file.proto` lines that describe the request, their paths and includeDirs made
 * absolute. As httpyac scopes them: one in a request's own block (between its `###` and its request
 * line) is that request's alone; one in a block without a request is for every request below it.
 * A file named again replaces its options (httpyac keys them by file).
 */
function protosFor(node: RequestNode, o: BuildOptions): ProtoSource[] {
  const requests = o.file.parsed.items.filter((it): it is RequestNode => it.kind === 'request');
  const ownedByAnother = (line: number) => requests.some((r) => r !== node && r.start <= line && line < r.line);
  const out = new Map<string, ProtoSource>();
  for (const p of o.file.parsed.protos ?? []) {
    if (p.line > node.line || ownedByAnother(p.line)) continue;
    const file = resolvePath(o.file.dir, expandHome(o.res.resolve(p.path).trim()));
    const options: Record<string, unknown> = {};
    for (const opt of p.options) {
      let value: unknown = opt.value;
      try {
        value = JSON.parse(opt.value);
      } catch {
        // A word (`longs: String`) is the text itself.
      }
      options[opt.name] = value;
    }
    const dirs = options.includeDirs;
    delete options.includeDirs;
    if (dirs !== undefined && (!Array.isArray(dirs) || dirs.some((d) => typeof d !== 'string')))
      throw new UsageError(`${o.file.path}:${p.line}: includeDirs must be a list of folders, as ["./protos"]`);
    const includeDirs = [resolvePath(file, '..'), ...((dirs as string[] | undefined) ?? []).map((d) => resolvePath(o.file.dir, expandHome(d)))];
    out.set(file, { file, includeDirs, options });
  }
  return [...out.values()];
}
