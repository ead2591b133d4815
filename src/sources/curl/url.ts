/**
 * curl's URLs (parsing, Location resolution, globbing) live in model/curl-url.ts: the transport
 * resolves a curl file's redirects with them too (its -L rules are data, model/spec.ts).
 */
export * from '../../model/curl-url.js';
