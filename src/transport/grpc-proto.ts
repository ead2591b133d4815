// What a gRPC method's messages are: .proto files read into a protobufjs Root (through the reader
// sling hands in, never protobufjs's own file access), FileDescriptorProtos from server reflection,
// and messages turned from JSON into protobuf bytes and back (the proto3 JSON mapping). Loaded only
// by a run that makes a gRPC call: grpc.ts imports this module with import(), and protobufjs comes
// with it (a chunk of its own in dist/).
import { dirname, isAbsolute, join, normalize } from 'node:path';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor.js';
import protojson from 'protobufjs/ext/protojson.js';
import { UsageError, oneLine } from '../errors.js';

type Root = protobuf.Root;
type Type = protobuf.Type;

/** A method as the call needs it: its path, its kind and its two message types. */
export interface GrpcMethod {
  service: string;
  name: string;
  requestStream: boolean;
  responseStream: boolean;
  input: Type;
  output: Type;
  /** How responses are written (httpyac's proto-loader options; keepCase is the Root's own). */
  shape: JsonShape;
}

export interface ProtoSource {
  file: string;
  includeDirs: string[];
  options: Record<string, unknown>;
}

/** An option of httpyac's proto-loader style as a boolean (`keepCase: true`, given as text or a value). */
function flag(options: Record<string, unknown>, name: string): boolean {
  const v = options[name];
  return v === true || (typeof v === 'string' && /^\s*true\s*$/i.test(v));
}

// Google's well-known types come from protobufjs's bundled copies, never from the disk.
const BUNDLED_EXTRA: Record<string, unknown> = {};
function bundled(name: string): unknown {
  if (!name.startsWith('google/protobuf/')) return undefined;
  const common = protobuf.common as unknown as Record<string, unknown>;
  if (Object.hasOwn(common, name)) return common[name];
  if (name === 'google/protobuf/descriptor.proto') {
    BUNDLED_EXTRA[name] ??= { nested: { google: { nested: { protobuf: (descriptor as unknown as protobuf.Namespace).toJSON() } } } };
    return BUNDLED_EXTRA[name];
  }
  return undefined;
}

const protoCache = new Map<string, Root>();

/**
 * A .proto file and what it imports, read into one Root. Imports resolve against the include
 * folders, in order, then the importing file's own folder; google/protobuf/*.proto are protobufjs's copies.
 * A file that cannot be read or parsed is an error naming it (and the line, for a parse error).
 */
export function loadProto(source: ProtoSource, readFile: (path: string) => Buffer): Root {
  const keepCase = flag(source.options, 'keepCase');
  const key = JSON.stringify([source.file, source.includeDirs, keepCase]);
  const cached = protoCache.get(key);
  if (cached) return cached;
  const root = new protobuf.Root();
  const done = new Set<string>();
  const load = (path: string, from: string | undefined, read?: Buffer) => {
    if (done.has(path)) return;
    done.add(path);
    let text: string;
    try {
      text = (read ?? readFile(path)).toString('utf8');
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message;
      throw new UsageError(`cannot read the proto file '${path}'${from ? ` (imported by '${from}')` : ''}: ${oneLine(why)}`);
    }
    let parsed: protobuf.IParserResult;
    try {
      parsed = protobuf.parse(text, root, { keepCase, alternateCommentMode: true });
    } catch (e) {
      // protobufjs says `illegal token 'x' (line 3)`: the file is named here.
      const msg = String((e as Error).message).replace(/\s*\((?:[^,()]*, )?(line \d+)\)$/, '');
      const line = /\bline (\d+)\)$/.exec(String((e as Error).message))?.[1];
      throw new UsageError(`the proto file '${path}'${line ? `, line ${line}` : ''}: ${oneLine(msg)}`);
    }
    for (const imp of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      const wkt = bundled(imp);
      if (wkt !== undefined) {
        if (!done.has(imp)) {
          done.add(imp);
          root.addJSON((wkt as { nested: protobuf.INamespace['nested'] }).nested ?? {});
        }
        continue;
      }
      const found = findImport(imp, path, source.includeDirs, readFile);
      load(found.path, path, found.text);
    }
  };
  load(source.file, undefined);
  try {
    root.resolveAll();
  } catch (e) {
    throw new UsageError(`the proto file '${source.file}' (with its imports): ${oneLine((e as Error).message)}`);
  }
  if (keepCase) keepFieldNames(root);
  protoCache.set(key, root);
  return root;
}

/** The file an import names: in the first include folder that has it, else beside the importing file. */
function findImport(name: string, from: string, includeDirs: string[], readFile: (path: string) => Buffer): { path: string; text?: Buffer } {
  if (isAbsolute(name)) return { path: name };
  // proto-loader's order (so httpyac's): the include folders first, then beside the importing file.
  const candidates = [...includeDirs.map((d) => join(d, name)), join(dirname(from), name)].map((p) => normalize(p));
  for (const c of candidates) {
    try {
      return { path: c, text: readFile(c) };
    } catch (e) {
      // Too large is an answer (readLimited's); not there, the next place.
      if (e instanceof UsageError) throw e;
    }
  }
  throw new UsageError(`the proto file '${from}' imports '${name}', which is neither in an include folder nor beside it${includeDirs.length ? ` (${includeDirs.join(', ')})` : ''}`);
}

/** keepCase: JSON names are the .proto names (proto-loader's keepCase, protoc's preserving_proto_field_name). */
function keepFieldNames(ns: protobuf.NamespaceBase): void {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) for (const f of nested.fieldsArray) (f as { jsonName?: string }).jsonName = f.name;
    if (nested instanceof protobuf.Namespace) keepFieldNames(nested);
  }
}

/** Every service of a Root, by full name (no leading dot). */
export function servicesOf(root: Root): protobuf.Service[] {
  const out: protobuf.Service[] = [];
  const walk = (ns: protobuf.NamespaceBase) => {
    for (const n of ns.nestedArray) {
      if (n instanceof protobuf.Service) out.push(n);
      if (n instanceof protobuf.Namespace) walk(n);
    }
  };
  walk(root);
  return out;
}

const bare = (fullName: string) => fullName.replace(/^\./, '');

/**
 * The method a path names (`/package.Service/Method`) in a Root; an unknown service or method
 * names what the description offers.
 */
export function findMethod(root: Root, path: string, options: Record<string, unknown>, offered: string): GrpcMethod {
  const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
  if (!m) throw new UsageError(`'${oneLine(path)}' is not a gRPC method path: it must be /package.Service/Method`);
  const [, serviceName, methodName] = m as unknown as [string, string, string];
  const services = servicesOf(root);
  // As httpyac finds them: the service by its full name, else the one whose name ends the full name
  // (`HelloService` for `hello.HelloService`); the method by its name, else in another case.
  const service = services.find((s) => bare(s.fullName) === serviceName) ?? services.find((s) => bare(s.fullName).endsWith(`.${serviceName}`));
  if (!service) {
    const names = services.map((s) => bare(s.fullName));
    throw new UsageError(`no service '${serviceName}' in ${offered} (${names.length ? `it has: ${names.join(', ')}` : 'it has none'})`);
  }
  const method = service.methods[methodName] ?? Object.values(service.methods).find((x) => x.name.toLowerCase() === methodName.toLowerCase());
  if (!method) throw new UsageError(`no method '${methodName}' in service '${serviceName}' (it has: ${Object.keys(service.methods).join(', ') || 'none'})`);
  method.resolve();
  return {
    service: bare(service.fullName),
    name: method.name,
    requestStream: method.requestStream === true,
    responseStream: method.responseStream === true,
    input: method.resolvedRequestType!,
    output: method.resolvedResponseType!,
    shape: jsonShape(options),
  };
}

/** A request message from its JSON text; one that does not fit the type is a UsageError naming the field. */
export function encodeMessage(type: Type, json: string, which: string): Buffer {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new UsageError(`${which} is not JSON: ${oneLine((e as Error).message)}`);
  }
  try {
    const message = protojson.fromJson(type, value);
    return Buffer.from(type.encode(message).finish());
  } catch (e) {
    throw new UsageError(`${which} does not fit ${bare(type.fullName)}: ${oneLine((e as Error).message).replace(/^\./, '')}`);
  }
}

/** A response message as JSON text (the proto3 JSON mapping); bytes that are no such message throw. */
export function decodeMessage(method: GrpcMethod, bytes: Uint8Array): string {
  const message = method.output.decode(bytes);
  const json = protojson.toJson(method.output, message) as Record<string, unknown>;
  const { shape } = method;
  if (shape.defaults || shape.longsAsNumbers || shape.enumsAsNumbers || shape.oneofs) reshape(method.output, json, shape);
  return JSON.stringify(json);
}

/** How a response is written, from httpyac's proto-loader options beyond the proto3 JSON mapping. */
export interface JsonShape {
  /** defaults: fields left at their default value are written too (and empty lists and maps). */
  defaults: boolean;
  /** longs: Number: 64-bit integers as JSON numbers (they are strings in the proto3 mapping). */
  longsAsNumbers: boolean;
  /** enums: Number: enum values as their numbers (they are names in the proto3 mapping). */
  enumsAsNumbers: boolean;
  /** oneofs: true: each oneof's name, with the name of its field that is set. */
  oneofs: boolean;
}

/** An option given as a JavaScript value (httpyac evaluates `longs: Number`) or as its text. */
function named(options: Record<string, unknown>, name: string, value: 'Number'): boolean {
  const v = options[name];
  return v === Number || (typeof v === 'string' && v.trim() === value);
}

export function jsonShape(options: Record<string, unknown>): JsonShape {
  return { defaults: flag(options, 'defaults'), longsAsNumbers: named(options, 'longs', 'Number'), enumsAsNumbers: named(options, 'enums', 'Number'), oneofs: flag(options, 'oneofs') };
}

const LONGS = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const DEFAULTS: Record<string, unknown> = { string: '', bytes: '', bool: false, int64: '0', uint64: '0', sint64: '0', fixed64: '0', sfixed64: '0' };

/** The proto3 JSON of a message reshaped as the options ask (in place). */
function reshape(type: Type, json: Record<string, unknown>, shape: JsonShape, depth = 0): void {
  if (type.fullName.startsWith('.google.protobuf.') || depth > 100) return;
  for (const f of type.fieldsArray) {
    f.resolve();
    const key = f.jsonName!;
    const one = (v: unknown): unknown => {
      if (f.resolvedType instanceof protobuf.Type) {
        if (v && typeof v === 'object' && !Array.isArray(v)) reshape(f.resolvedType, v as Record<string, unknown>, shape, depth + 1);
        return v;
      }
      if (shape.enumsAsNumbers && f.resolvedType instanceof protobuf.Enum && typeof v === 'string') return f.resolvedType.values[v] ?? v;
      if (shape.longsAsNumbers && LONGS.has(f.type) && typeof v === 'string') return Number(v);
      return v;
    };
    if (key in json) {
      const v = json[key];
      if (f.map && v && typeof v === 'object') for (const k of Object.keys(v)) (v as Record<string, unknown>)[k] = one((v as Record<string, unknown>)[k]);
      else if (f.repeated && Array.isArray(v)) json[key] = v.map(one);
      else json[key] = one(v);
      continue;
    }
    if (!shape.defaults || f.partOf || f.resolvedType instanceof protobuf.Type) continue;
    if (f.map) json[key] = {};
    else if (f.repeated) json[key] = [];
    else if (f.resolvedType instanceof protobuf.Enum) json[key] = one(f.resolvedType.valuesById[0] ?? 0);
    else json[key] = one(DEFAULTS[f.type] ?? 0);
  }
  if (shape.oneofs) {
    for (const o of type.oneofsArray) {
      if (o.name.startsWith('_')) continue; // proto3 `optional`: a oneof of one, not the user's
      const set = o.fieldsArray.find((f) => f.jsonName! in json);
      if (set) json[o.name] = set.jsonName;
    }
  }
}

// Server reflection (grpc.reflection.v1 and v1alpha: the same messages under two package names),
// the part sling asks for: files by name and by a symbol they hold, and the list of services.
const REFLECTION_PROTO = `
syntax = "proto3";
package grpc.reflection.PKG;
service ServerReflection { rpc ServerReflectionInfo(stream ServerReflectionRequest) returns (stream ServerReflectionResponse); }
message ServerReflectionRequest {
  string host = 1;
  oneof message_request { string file_by_filename = 3; string file_containing_symbol = 4; string list_services = 7; }
}
message ServerReflectionResponse {
  string valid_host = 1;
  oneof message_response {
    FileDescriptorResponse file_descriptor_response = 4;
    ListServiceResponse list_services_response = 6;
    ErrorResponse error_response = 7;
  }
}
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ListServiceResponse { repeated ServiceResponse service = 1; }
message ServiceResponse { string name = 1; }
message ErrorResponse { int32 error_code = 1; string error_message = 2; }
`;

export interface ReflectionTypes {
  path: string;
  request: Type;
  response: Type;
}

export function reflectionTypes(version: 'v1' | 'v1alpha'): ReflectionTypes {
  const root = new protobuf.Root();
  protobuf.parse(REFLECTION_PROTO.replace('PKG', version), root, { keepCase: true });
  root.resolveAll();
  const pkg = `grpc.reflection.${version}`;
  return { path: `/${pkg}.ServerReflection/ServerReflectionInfo`, request: root.lookupType(`${pkg}.ServerReflectionRequest`), response: root.lookupType(`${pkg}.ServerReflectionResponse`) };
}

export type ReflectionRequest = { file_by_filename: string } | { file_containing_symbol: string } | { list_services: string };

export interface ReflectionAnswer {
  files?: Uint8Array[];
  services?: string[];
  error?: { code: number; message: string };
}

export function encodeReflection(types: ReflectionTypes, request: ReflectionRequest): Buffer {
  return Buffer.from(types.request.encode(types.request.create(request)).finish());
}

export function decodeReflection(types: ReflectionTypes, bytes: Uint8Array): ReflectionAnswer {
  const r = types.response.toObject(types.response.decode(bytes), { oneofs: true }) as {
    file_descriptor_response?: { file_descriptor_proto?: Uint8Array[] };
    list_services_response?: { service?: { name: string }[] };
    error_response?: { error_code?: number; error_message?: string };
  };
  if (r.error_response) return { error: { code: r.error_response.error_code ?? 0, message: r.error_response.error_message ?? '' } };
  if (r.list_services_response) return { services: (r.list_services_response.service ?? []).map((s) => s.name) };
  return { files: r.file_descriptor_response?.file_descriptor_proto ?? [] };
}

/** A FileDescriptorProto's name and the names of the files it depends on. */
export function descriptorFile(bytes: Uint8Array): { name: string; dependency: string[] } {
  const d = descriptor.FileDescriptorProto.decode(bytes) as unknown as { name?: string; dependency?: string[] };
  return { name: d.name ?? '', dependency: d.dependency ?? [] };
}

/** The files a server described, as one Root. */
export function rootFromDescriptors(files: Uint8Array[]): Root {
  const set = { file: files.map((b) => descriptor.FileDescriptorProto.decode(b)) };
  const root = (protobuf.Root as unknown as { fromDescriptor(d: unknown): Root }).fromDescriptor(set);
  root.resolveAll();
  return root;
}
