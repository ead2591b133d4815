import type { ParsedAssert } from './asserts.js';
import type { Template } from './template.js';

/** What the .http parser produces: pure data, positions kept for messages. */

export interface Diagnostic {
  line: number;
  col: number;
  message: string;
}

export interface ScriptNode {
  /** Inline code (`{% ... %}`), or a file (`> ./handler.js`). */
  code?: string;
  path?: Template;
  line: number;
  /** rest.nvim / kulala Lua scripts are recognised and skipped. */
  lua?: boolean;
  /** An httpyac `{{ ... }}` block (httpyac-js.ts): `line` is its `{{` line. */
  yac?: boolean;
  /** httpyac `{{+...`: run for every request, as part of that request's region. */
  every?: boolean;
}

/** httpyac `?? FIELD [VALUE] PREDICATE [EXPECTED]`; the expected text may hold {{variables}}. */
export interface AssertNode {
  line: number;
  a: ParsedAssert;
  expected: Template;
}

export type BodyLine =
  | { kind: 'text'; t: Template; raw: string; eol: string; line: number }
  /** `< ./file` (raw bytes) or `<@ ./file` (text with {{variables}} substituted). */
  | { kind: 'file'; path: Template; vars: boolean; eol: string; line: number; col: number; encoding?: string };

export interface HeaderNode {
  name: Template;
  /** The name in lower case, when it is literal (checked when the file is parsed). */
  lower?: string;
  value: Template;
  line: number;
  col: number;
}

export interface Directives {
  noRedirect?: boolean;
  noCookieJar?: boolean;
  timeoutMs?: number;
  connectTimeoutMs?: number;
  noLog?: boolean;
  /** httpyac `# @injectVariables`: `< file` bodies have their {{variables}} substituted, as `<@ file`. */
  injectVariables?: boolean;
  /** httpyac `# @ref name` / `# @forceRef name`. */
  refs: string[];
  /** httpyac `# @forceRef name`: run again before this request every time (also in `refs`). */
  forceRefs?: string[];
  /** httpyac `# @disabled`. */
  disabled?: boolean;
  /** httpyac `# @disabled EXPRESSION`: JavaScript, worked out when the request's turn comes. */
  disabledJs?: { code: string; line: number };
  /** httpyac `# @loop for N` / `# @loop for NAME of EXPRESSION`: the request is sent once per pass. */
  loop?: { count?: number; variable?: string; iterable?: string; line: number };
  /** httpyac `# @sleep ms`. */
  sleepMs?: number;
  /** httpyac `# @sleep {{var}}`: worked out when the request is built. */
  sleepText?: string;
  /** httpyac `# @no-reject-unauthorized`. */
  insecure?: boolean;
  /** JetBrains `# @no-auto-encoding`: the URL goes as written. */
  noAutoEncoding?: boolean;
}

export interface RequestNode {
  kind: 'request';
  /** The request line (1-based) and the column of its URL. */
  line: number;
  urlCol: number;
  /** Where its block starts: its `###` line (the file's first line for the first block), else its request line. */
  start: number;
  /** `# @name x`. */
  atName?: string;
  /** The text after `###`. */
  title?: string;
  method: string;
  url: Template;
  /** `HTTP/1.1`, `HTTP/2` or `HTTP/2 (Prior Knowledge)` on the request line, if given. */
  version?: string;
  headers: HeaderNode[];
  body: BodyLine[];
  /** `GRAPHQL url` (JetBrains) or `X-REQUEST-TYPE: GraphQL` (REST Client). */
  graphql: boolean;
  /** REST Client's `X-REQUEST-TYPE: GraphQL`: `"variables": {}` goes out also when the file gives none. */
  graphqlVariables?: boolean;
  /** httpyac `gql NAME < ./query.gql`: the operation name (else it is read from the query). */
  operationName?: string;
  /** The file's httpyac GraphQL fragments (shared by its requests; filled as the file is parsed). */
  fragments: Map<string, string>;
  pre: ScriptNode[];
  handlers: ScriptNode[];
  /** httpyac assertions, checked after the response with the handlers (in file order). */
  asserts: AssertNode[];
  /** `>> file` / `>>! file`. */
  outputs: { path: Template; overwrite: boolean; line: number }[];
  directives: Directives;
  /** A WebSocket, server-sent events or gRPC request (`WEBSOCKET`, `WS`, `SSE`, `GRPC`, ...): its kind and keyword as written. */
  stream?: { kind: import('../../model/stream.js').StreamKind; keyword: string };
  /** httpyac's `{{@streaming}}` block (a WebSocket or gRPC request): what it sends over time. */
  streaming?: ScriptNode;
  /** Built at least once already. */
  built?: boolean;
  /** Built once, reused while the same text comes out (a literal URL, a literal body). */
  cache?: { urlText?: string; url?: import('../../model/url.js').ParsedUrl; body?: Buffer; ct?: string };
}

/** JetBrains `run #Name (@var=value)` and `run ./other.http`. */
export interface RunNode {
  kind: 'run';
  line: number;
  /** The first line of its block (its `###`), for --line. */
  start: number;
  col: number;
  name?: string;
  path?: string;
  overrides: [string, Template][];
}

/**
 * A curl command line in place of a request (`curl https://h/x -H 'A: 1'`, continued over lines
 * with `\`): run as the curl source runs it (sources/http/curl-entry.ts).
 */
export interface CurlNode {
  kind: 'curl';
  /** Its first line (1-based), its block's start (for --line), and the column `curl` starts at. */
  line: number;
  start: number;
  col: number;
  /** The command's lines as written (indentation included, no line breaks at the ends). */
  text: string;
  /** Its lines as templates: their `{{placeholders}}` (checked as the file is parsed; the values are put in each argument of the command when it runs). */
  templates: Template[];
  /** `# @name`, or the `###` title. */
  atName?: string;
  title?: string;
}

/** httpyac `proto < ./file.proto`, with its `name: value` option lines (keepCase, longs, includeDirs, ...). */
export interface ProtoNode {
  line: number;
  col: number;
  path: Template;
  /** The options as written: name, text (JSON when it reads as JSON), line. */
  options: { name: string; value: string; line: number }[];
}

export interface VarDef {
  line: number;
  value: Template;
}

export interface ParsedHttp {
  items: (RequestNode | RunNode | CurlNode)[];
  /** File (in-place) variables: every definition of a name, in file order. */
  vars: Map<string, VarDef[]>;
  /** `import ./other.http`. */
  imports: { path: string; line: number; col: number }[];
  /** httpyac `fragment Name on Type { ... }` blocks, by name, in file order. */
  fragments: Map<string, string>;
  warnings: Diagnostic[];
  /** httpyac `{{ }}` blocks of regions without a request (and `{{+`): run before every request of the file. */
  yacGlobal?: ScriptNode[];
  /** httpyac `{{+response` / `{{+after` blocks (and `{{@response` in a region without a request): run after every response of the file. */
  yacGlobalAfter?: ScriptNode[];
  /** Some httpyac script or expression of the file names `response` (the last response is kept for it). */
  yacResponse?: boolean;
  /** httpyac `proto < ./file.proto` lines (and the option lines under them), in file order: what the gRPC requests below them are described by. */
  protos?: ProtoNode[];
  /** httpyac `@xpath_ns prefix=uri` lines, in file order: the prefixes `?? xpath` assertions below them use. */
  xpathNs?: { line: number; prefix: string; uri: Template }[];
}
