// The demo server's gRPC side: the services of demo/demo.proto and gRPC server reflection, over an
// HTTP/2 stream of node:http2, with Node's own modules only. Protocol Buffers are read and written
// by hand here: the demo's messages need only varints and length-delimited fields.
//
// gRPC over HTTP/2, as this file speaks it: a request is POST /PACKAGE.SERVICE/METHOD with
// content-type application/grpc; each message, both ways, is a 5-byte prefix (a compressed flag,
// always 0 here, and the length, 4 bytes big-endian) and the message's bytes. The answer is HEADERS
// (:status 200, content-type application/grpc), the messages, then trailers with grpc-status and
// grpc-message (percent-encoded). A call that fails before any message is answered
// "trailers-only": one HEADERS frame holding :status, content-type, grpc-status and grpc-message.

export const MAX_COUNTDOWN = 100;
const COUNTDOWN_MS = 100;
const MAX_MESSAGE = 4 * 1024 * 1024; // gRPC's usual limit for a message received

const STATUS = { OK: 0, INVALID_ARGUMENT: 3, NOT_FOUND: 5, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 };

// ----------------------------------------------------------------- protobuf --

const VARINT = 0;
const LENGTH_DELIMITED = 2;

function varint(value) {
  // A negative int32 goes on the wire as its 64-bit two's complement: ten bytes.
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

const key = (number, wire) => varint((number << 3) | wire);

/** A length-delimited field: a string, bytes or an embedded message. */
function lengthField(number, value) {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([key(number, LENGTH_DELIMITED), varint(bytes.length), bytes]);
}

function varintField(number, value) {
  return Buffer.concat([key(number, VARINT), varint(value)]);
}

/**
 * The fields of a message, in order: [{ number, wire, value }], value a BigInt (varint) or a
 * Buffer (length-delimited); fixed 32- and 64-bit fields are skipped. Throws on malformed bytes.
 */
function readFields(buf) {
  const fields = [];
  let at = 0;
  const readVarint = () => {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (at >= buf.length) throw new Error('a varint cut short');
      const b = buf[at++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, v);
    }
    throw new Error('a varint longer than 10 bytes');
  };
  while (at < buf.length) {
    const tag = readVarint();
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (number < 1) throw new Error('field number 0');
    if (wire === VARINT) fields.push({ number, wire, value: readVarint() });
    else if (wire === LENGTH_DELIMITED) {
      const length = Number(readVarint());
      if (at + length > buf.length) throw new Error('a length-delimited field cut short');
      fields.push({ number, wire, value: buf.subarray(at, at + length) });
      at += length;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
      if (at > buf.length) throw new Error('a fixed-size field cut short');
    } else throw new Error(`wire type ${wire}`);
  }
  return fields;
}

// The demo's messages: [field name, number, type]; they make both the codec and the descriptor.
const MESSAGES = {
  HelloRequest: [['name', 1, 'string']],
  HelloReply: [['message', 1, 'string']],
  CountdownRequest: [['from', 1, 'int32']],
  Tick: [['n', 1, 'int32']],
  Number: [['value', 1, 'int32']],
  Total: [
    ['sum', 1, 'int32'],
    ['count', 2, 'int32'],
  ],
};

/** A demo message as bytes; proto3 leaves out fields at their default ('' and 0). */
function encode(type, value) {
  const parts = [];
  for (const [name, number, kind] of MESSAGES[type]) {
    const v = value[name];
    if (kind === 'string' && v) parts.push(lengthField(number, v));
    if (kind === 'int32' && v) parts.push(varintField(number, v));
  }
  return Buffer.concat(parts);
}

/** A demo message from bytes: every field present, at its default when not sent; the last value wins. */
function decode(type, buf) {
  const out = {};
  for (const [name, , kind] of MESSAGES[type]) out[name] = kind === 'string' ? '' : 0;
  for (const f of readFields(buf)) {
    const known = MESSAGES[type].find(([, number]) => number === f.number);
    if (!known) continue; // unknown fields are skipped, as proto3 does
    const [name, , kind] = known;
    if (kind === 'string' && f.wire === LENGTH_DELIMITED) out[name] = f.value.toString('utf8');
    else if (kind === 'int32' && f.wire === VARINT) out[name] = Number(BigInt.asIntN(32, f.value));
    else throw new Error(`field ${name} has the wrong wire type`);
  }
  return out;
}

// --------------------------------------------------------------- descriptor --

const FILE_NAME = 'demo.proto';
const PACKAGE = 'demo';
const SERVICE = 'Greeter';
const METHODS = [
  // name, input, output, client streaming, server streaming
  ['SayHello', 'HelloRequest', 'HelloReply', false, false],
  ['Countdown', 'CountdownRequest', 'Tick', false, true],
  ['Sum', 'Number', 'Total', true, false],
  ['Chat', 'HelloRequest', 'HelloReply', true, true],
];

/**
 * demo.proto as a google.protobuf.FileDescriptorProto (field numbers of descriptor.proto):
 * what server reflection answers. Built once, from MESSAGES and METHODS.
 */
function fileDescriptor() {
  const LABEL_OPTIONAL = 1;
  const TYPE = { int32: 5, string: 9 };
  const message = ([name, fields]) =>
    lengthField(
      4, // FileDescriptorProto.message_type
      Buffer.concat([
        lengthField(1, name), // DescriptorProto.name
        ...fields.map(([field, number, kind]) =>
          lengthField(
            2, // DescriptorProto.field: FieldDescriptorProto name=1, number=3, label=4, type=5, json_name=10
            Buffer.concat([lengthField(1, field), varintField(3, number), varintField(4, LABEL_OPTIONAL), varintField(5, TYPE[kind]), lengthField(10, field)]),
          ),
        ),
      ]),
    );
  const method = ([name, input, output, clientStreaming, serverStreaming]) =>
    lengthField(
      2, // ServiceDescriptorProto.method: MethodDescriptorProto name=1, input_type=2, output_type=3, client_streaming=5, server_streaming=6
      Buffer.concat([
        lengthField(1, name),
        lengthField(2, `.${PACKAGE}.${input}`),
        lengthField(3, `.${PACKAGE}.${output}`),
        ...(clientStreaming ? [varintField(5, 1)] : []),
        ...(serverStreaming ? [varintField(6, 1)] : []),
      ]),
    );
  return Buffer.concat([
    lengthField(1, FILE_NAME),
    lengthField(2, PACKAGE),
    ...Object.entries(MESSAGES).map(message),
    lengthField(6, Buffer.concat([lengthField(1, SERVICE), ...METHODS.map(method)])), // FileDescriptorProto.service
    lengthField(12, 'proto3'), // FileDescriptorProto.syntax
  ]);
}

const FILE_DESCRIPTOR = fileDescriptor();
const SYMBOLS = new Set([PACKAGE, `${PACKAGE}.${SERVICE}`, ...METHODS.map(([name]) => `${PACKAGE}.${SERVICE}.${name}`), ...Object.keys(MESSAGES).map((name) => `${PACKAGE}.${name}`)]);

// --------------------------------------------------------------------- calls --

/** grpc-message: UTF-8, with '%' and every byte outside printable ASCII percent-encoded. */
function percentEncode(text) {
  let out = '';
  for (const b of Buffer.from(text, 'utf8')) out += b >= 0x20 && b <= 0x7e && b !== 0x25 ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  return out;
}

/** One call on one HTTP/2 stream: messages in as they come, messages and the status out. */
class Call {
  constructor(stream, state) {
    this.stream = stream;
    this.state = state;
    this.headersSent = false;
    this.done = false;
    this.timers = new Set();
    this.buffered = Buffer.alloc(0);
    this.onMessage = () => {};
    this.onEnd = () => {};
    stream.on('error', () => {});
    stream.on('close', () => {
      this.done = true;
      for (const t of this.timers) this.clear(t);
    });
  }

  /** Reads the request's messages; `type` decodes each one before onMessage sees it (null: the bytes as they came). */
  read(type) {
    this.stream.on('data', (chunk) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      while (!this.done && this.buffered.length >= 5) {
        const length = this.buffered.readUInt32BE(1);
        if (length > MAX_MESSAGE) return this.finish(STATUS.RESOURCE_EXHAUSTED, `a message is at most ${MAX_MESSAGE} bytes`);
        if (this.buffered.length < 5 + length) return;
        const compressed = this.buffered[0] !== 0;
        const bytes = this.buffered.subarray(5, 5 + length);
        this.buffered = this.buffered.subarray(5 + length);
        if (compressed) return this.finish(STATUS.UNIMPLEMENTED, 'compressed messages are not supported (grpc-accept-encoding: identity)');
        let message;
        try {
          message = type ? decode(type, bytes) : bytes;
        } catch (err) {
          return this.finish(STATUS.INTERNAL, `malformed ${type}: ${err.message}`);
        }
        this.onMessage(message);
      }
    });
    this.stream.on('end', () => {
      if (this.done) return;
      if (this.buffered.length) this.finish(STATUS.INTERNAL, 'the request ended inside a message');
      else this.onEnd();
    });
  }

  /** The one message of a unary request, then `then(message)`. */
  readOne(type, then) {
    const messages = [];
    this.onMessage = (m) => messages.push(m);
    this.onEnd = () => (messages.length === 1 ? then(messages[0]) : this.finish(STATUS.INTERNAL, `the request must hold exactly one ${type}, it held ${messages.length}`));
    this.read(type);
  }

  send(type, value) {
    this.sendBytes(encode(type, value));
  }

  sendBytes(bytes) {
    if (this.done || this.stream.destroyed) return;
    if (!this.headersSent) {
      this.headersSent = true;
      this.stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-accept-encoding': 'identity' }, { waitForTrailers: true });
      this.stream.once('wantTrailers', () => this.stream.sendTrailers(this.trailers));
    }
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(bytes.length, 1);
    this.stream.write(Buffer.concat([prefix, bytes]));
  }

  /** Ends the call with a status: in trailers after the messages, or trailers-only when none went. */
  finish(code, message = '') {
    if (this.done || this.stream.destroyed) return;
    this.done = true;
    const status = { 'grpc-status': String(code), ...(message ? { 'grpc-message': percentEncode(message) } : {}) };
    if (this.headersSent) {
      this.trailers = status;
      this.stream.end();
    } else {
      this.stream.respond({ ':status': 200, 'content-type': 'application/grpc', ...status }, { endStream: true });
    }
    // What the client still sends is read and dropped.
    this.stream.removeAllListeners('data');
    this.stream.resume();
  }

  later(ms, fn) {
    const timer = setTimeout(() => {
      this.clear(timer);
      fn();
    }, ms);
    this.timers.add(timer);
    this.state.timers.add(timer);
  }

  clear(timer) {
    clearTimeout(timer);
    this.timers.delete(timer);
    this.state.timers.delete(timer);
  }
}

const greeting = (name) => ({ message: `Hello, ${name}` });

const GREETER = {
  SayHello(call) {
    call.readOne('HelloRequest', ({ name }) => {
      if (!name) return call.finish(STATUS.INVALID_ARGUMENT, 'name is empty'); // trailers-only
      call.send('HelloReply', greeting(name));
      call.finish(STATUS.OK);
    });
  },
  Countdown(call) {
    call.readOne('CountdownRequest', ({ from }) => {
      if (!(from >= 0 && from <= MAX_COUNTDOWN)) return call.finish(STATUS.INVALID_ARGUMENT, `from must be a number from 0 to ${MAX_COUNTDOWN}`);
      const tick = (n) => {
        call.send('Tick', { n });
        if (n === 0) call.finish(STATUS.OK);
        else call.later(COUNTDOWN_MS, () => tick(n - 1));
      };
      tick(from);
    });
  },
  Sum(call) {
    let sum = 0;
    let count = 0;
    call.onMessage = ({ value }) => {
      sum = (sum + value) | 0; // int32 arithmetic, as the field is
      count++;
    };
    call.onEnd = () => {
      call.send('Total', { sum, count });
      call.finish(STATUS.OK);
    };
    call.read('Number');
  },
  Chat(call) {
    call.onMessage = ({ name }) => {
      // An empty name ends the call with INVALID_ARGUMENT in the trailers, after the replies so far.
      if (!name) return call.finish(STATUS.INVALID_ARGUMENT, 'name is empty');
      call.send('HelloReply', greeting(name));
    };
    call.onEnd = () => call.finish(STATUS.OK);
    call.read('HelloRequest');
  },
};

/**
 * grpc.reflection.v1(alpha).ServerReflection/ServerReflectionInfo: each ServerReflectionRequest
 * (host=1, file_by_filename=3, file_containing_symbol=4, file_containing_extension=5,
 * all_extension_numbers_of_type=6, list_services=7) gets a ServerReflectionResponse (valid_host=1,
 * original_request=2, then file_descriptor_response=4, all_extension_numbers_response=5,
 * list_services_response=6 or error_response=7).
 */
function reflection(call) {
  call.onMessage = (bytes) => {
    let fields;
    try {
      fields = readFields(bytes);
    } catch (err) {
      return call.finish(STATUS.INTERNAL, `malformed ServerReflectionRequest: ${err.message}`);
    }
    const text = (f) => (f.wire === LENGTH_DELIMITED ? f.value.toString('utf8') : '');
    const host = fields.findLast((f) => f.number === 1);
    const asked = fields.findLast((f) => f.number >= 3 && f.number <= 7);
    const error = (code, message) => lengthField(7, Buffer.concat([varintField(1, code), lengthField(2, message)]));
    const files = lengthField(4, lengthField(1, FILE_DESCRIPTOR));
    let answer;
    if (!asked) answer = error(STATUS.INVALID_ARGUMENT, 'the request asks nothing');
    else if (asked.number === 7) answer = lengthField(6, lengthField(1, lengthField(1, `${PACKAGE}.${SERVICE}`)));
    else if (asked.number === 3) answer = text(asked) === FILE_NAME ? files : error(STATUS.NOT_FOUND, `no file ${text(asked)}`);
    else if (asked.number === 4) answer = SYMBOLS.has(text(asked).replace(/^\./, '')) ? files : error(STATUS.NOT_FOUND, `no symbol ${text(asked)}`);
    else if (asked.number === 6) {
      const type = text(asked).replace(/^\./, '');
      answer = SYMBOLS.has(type) && Object.hasOwn(MESSAGES, type.slice(PACKAGE.length + 1)) ? lengthField(5, lengthField(1, type)) : error(STATUS.NOT_FOUND, `no message type ${type}`);
    } else answer = error(STATUS.NOT_FOUND, 'the demo has no extensions');
    call.sendBytes(Buffer.concat([host ? lengthField(1, text(host)) : Buffer.alloc(0), lengthField(2, bytes), answer]));
  };
  call.onEnd = () => call.finish(STATUS.OK);
  call.read(null); // the request is kept as bytes: it goes back as original_request
}

/** The method paths the demo answers. */
export const GRPC_METHODS = [
  ...METHODS.map(([name]) => `/${PACKAGE}.${SERVICE}/${name}`),
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
];

/**
 * Answers one gRPC call on an HTTP/2 stream (node:http2's 'stream' event).
 * Returns false when no method has that path (answered UNIMPLEMENTED, status 12).
 */
export function serveGrpc(stream, headers, state) {
  const call = new Call(stream, state);
  const path = headers[':path'] || '';
  const m = /^\/demo\.Greeter\/(\w+)$/.exec(path);
  if (m && Object.hasOwn(GREETER, m[1])) {
    GREETER[m[1]](call);
    return true;
  }
  if (path === '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo' || path === '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo') {
    reflection(call);
    return true;
  }
  call.finish(STATUS.UNIMPLEMENTED, `unknown method ${path}`);
  return false;
}
