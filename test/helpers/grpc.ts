// gRPC test servers for test/unit/grpc*.test.ts: @grpc/grpc-js with @grpc/proto-loader (and
// @grpc/reflection), an independent implementation sling's own client must interoperate with,
// serving test/fixtures/grpc/shop.proto on 127.0.0.1. devDependencies only: sling never loads them.
import type { TestContext } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { REPO_ROOT } from './cli.js';
import { makeCerts } from './servers.js';
import type { RequestSettings } from '../../src/model/spec.js';

export const GRPC_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'grpc');
export const SHOP_PROTO = join(GRPC_FIXTURES, 'shop.proto');
export const SHOP_INCLUDE = join(GRPC_FIXTURES, 'include');

export interface SeenCall {
  method: string;
  metadata: grpc.Metadata;
  cancelled: boolean;
}

export interface GrpcTestServer {
  port: number;
  calls: SeenCall[];
}

/** The settings of a request as the lead's runner passes them (only what the transport reads). */
export function grpcSettings(over: Partial<RequestSettings> = {}): RequestSettings {
  return { follow: false, maxRedirects: 0, tls: { verify: true }, proxies: {}, compress: 0, chunked: false, ...over } as RequestSettings;
}

/** The JSON texts, as the outgoing iterable. */
export async function* messages(...texts: string[]): AsyncIterable<string> {
  for (const t of texts) yield t;
}

export async function shopServer(t: TestContext, opts: { tls?: boolean; reflection?: boolean } = {}): Promise<GrpcTestServer> {
  const definition = protoLoader.loadSync(SHOP_PROTO, { keepCase: true, longs: String, enums: String, defaults: false, includeDirs: [SHOP_INCLUDE] });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { test: { shop: { Shop: { service: grpc.ServiceDefinition } } } };
  const calls: SeenCall[] = [];
  const seen = (method: string, call: { metadata: grpc.Metadata; on(e: 'cancelled', f: () => void): unknown }) => {
    const c: SeenCall = { method, metadata: call.metadata, cancelled: false };
    call.on('cancelled', () => (c.cancelled = true));
    calls.push(c);
  };
  const server = new grpc.Server();
  server.addService(loaded.test.shop.Shop.service, {
    GetItem(call: grpc.ServerUnaryCall<{ id: number }, unknown>, cb: grpc.sendUnaryData<unknown>) {
      seen('GetItem', call);
      if (call.request.id === 404) return cb({ code: grpc.status.NOT_FOUND, details: 'no such item: café' });
      cb(null, {
        id: call.request.id,
        item_name: 'Lamp',
        price: { currency: 'EUR', cents: '1999' },
        stock: '9007199254740993',
        added: { seconds: '1700000000', nanos: 0 },
        kind: 'LAMP',
        maker: 'Acme',
      });
    },
    ListItems(call: grpc.ServerWritableStream<{ count: number; name_prefix: string }, unknown>) {
      seen('ListItems', call);
      for (let i = 1; i <= call.request.count; i++) call.write({ id: i, item_name: `${call.request.name_prefix}${i}` });
      call.end();
    },
    AddItems(call: grpc.ServerReadableStream<{ price?: { cents: string } }, unknown>, cb: grpc.sendUnaryData<unknown>) {
      seen('AddItems', call);
      let items = 0;
      let total = 0;
      call.on('data', (item) => {
        items++;
        total += Number(item.price?.cents ?? 0);
      });
      call.on('end', () => cb(null, { items, total_cents: String(total) }));
    },
    Chat(call: grpc.ServerDuplexStream<{ text: string }, unknown>) {
      seen('Chat', call);
      call.on('data', (line) => call.write({ text: `echo: ${line.text}` }));
      call.on('end', () => call.end());
      call.on('error', () => {});
    },
  });
  if (opts.reflection) new ReflectionService(definition).addToServer(server);
  let credentials = grpc.ServerCredentials.createInsecure();
  if (opts.tls) {
    const certs = makeCerts();
    if (!certs) throw new Error('no openssl for the test certificates');
    credentials = grpc.ServerCredentials.createSsl(null, [{ private_key: readFileSync(certs.serverKey), cert_chain: readFileSync(certs.serverCert) }], false);
  }
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', credentials, (e, p) => (e ? reject(e) : resolve(p))));
  t.after(() => server.forceShutdown());
  return { port, calls };
}
