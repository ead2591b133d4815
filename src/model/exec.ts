import type { PreparedRequest } from './prepare.js';
import type { RequestSpec } from './spec.js';
import type { ParsedUrl } from './url.js';
import type { HopInfo, ResponseHead } from './exchange.js';
import type { Creation } from '../files.js';
import type { CookieJar } from './cookies.js';
import type { StreamEnd, StreamMessage } from './stream.js';

/**
 * What a front end for `sling exec` (a .http file, a file of curl commands) hands the runner: a list
 * of entries, each of which builds its RequestSpec when its turn comes (so it can use what earlier
 * responses returned) and may look at its response afterwards (scripts, tests, `>> file`).
 */
export interface SourceOptions {
  /** Path as the user gave it ('-' for stdin), for messages. */
  file: string;
  /** Folder that relative paths in the file are resolved against. */
  dir: string;
  /** Where sling runs: the folder a curl file's commands start in. */
  cwd: string;
  /** sling's process id: a curl file's `$$`. */
  pid: number;
  env: NodeJS.ProcessEnv;
  /** --env NAME. */
  envName?: string;
  /** --env-file PATH. */
  envFile?: string;
  warn(message: string): void;
  debug(message: string): void;
}

/** A parse error that points at the file: `FILE:LINE:COL: what` (exit 1, nothing sent). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface ExecContext {
  offline: boolean;
  warn(message: string): void;
  debug(message: string): void;
  /** --debug is on: messages for debug() are worth composing. */
  debugging?: boolean;
  /** Where the process runs (for `>> file` outputs and relative paths). */
  cwd: string;
  /** The main command's network flags (--verify, --proxy, --timeout, --cert) applied to a request a source sends itself (an OAuth token request). */
  network?(spec: RequestSpec): RequestSpec;
  /**
   * Sends a request a source makes itself (an OAuth token request): redirects as the spec says, the
   * body read and decoded, at most `limit` bytes of it (a longer body fails the request, its
   * connection closed). The commands layer supplies it (sources do not import transport/).
   */
  send?(spec: RequestSpec, env: NodeJS.ProcessEnv, limit: number): Promise<{ status: number; body: Buffer }>;
}

/** One finished exchange, body read and decoded, for after-hooks. */
export interface Completed {
  spec: RequestSpec;
  request: PreparedRequest;
  url: ParsedUrl;
  response: ResponseHead;
  body: Buffer;
  info: HopInfo;
  /** The body went to files as it came (see ExecEntry.bodyFiles): `body` is empty, each file says how it went. */
  saved?: SavedFile[];
  /** A stream (RequestSpec.stream): every message sent and received, in order, and how it ended. `body` is the received messages as a JSON array. */
  messages?: StreamMessage[];
  end?: StreamEnd;
}

/** A file a response body is written to as it arrives. */
export interface SaveTarget {
  path: string;
  /**
   * How the file is opened (files.ts openToWrite, never through a link): `replace` (the default) makes
   * or empties it, `new` writes over nothing (.http `>>`, curl's -J), `append` adds to its end (curl's -C).
   */
  how?: Creation;
  /** Bytes written before the body (curl's -i heads). */
  prefix?: Buffer;
}

export interface SavedFile {
  path: string;
  /** Bytes of the body written (the prefix not counted). */
  bytes: number;
  /** Why the file could not be opened or written (a sentence, as fileProblem() words it). */
  problem?: string;
}

/** Where a response's body goes when only files take it: read as it comes, never held whole. */
export interface BodyFiles {
  files: SaveTarget[];
  /** The body is printed as well (a .http `>> file` saves and shows it). */
  print: boolean;
  /** A body cut short leaves its bytes in the file (curl's -o, for `curl -C -`); else a file gets a body whole or not at all. */
  keepPartial: boolean;
}

export interface AfterResult {
  /** Failed tests or assertions, one line each ("test name: message"). */
  failures: string[];
  /** Lines to print after the response (script logs, test results). */
  log?: string[];
  /** What the entry did besides (a response saved to a file): `sling: ` lines on stderr, unless --quiet. */
  notes?: string[];
  /** The script asked to stop the run (client.exit()). */
  stop?: boolean;
  /** The entry's own failures (curl's -f on an HTTP error, an -o file that cannot be written): a `sling: error:` line each. */
  errors?: string[];
  /** A failure exit code decided by the entry (curl's -f on a 4xx, say); 0 or undefined: none. */
  exitCode?: number;
  /** Text for stderr as it is (curl's -w after %{stderr}). */
  stderrText?: string;
  /** Script tests by name (for --report junit); a failed one is also in `failures`. */
  tests?: { name: string; failure?: string }[];
}

/**
 * One request of a file as `sling exec` runs it: what it is and where it stands in the file
 * (EntryPlace, plain data), how it is ordered and how its failures count (EntryRun, plain data), and
 * what it does, as hooks the runner calls in this order: `build` when its turn comes, `before` as
 * its title is printed, `bodyUnused` and `cookieJar` as it is sent, `bodyFiles` when the answer's head
 * is in, then `after`, or `failed` when no answer came (EntryRequestHooks, EntryResponseHooks). The
 * only hook required is `build`; a hook left out means "nothing to do".
 * Implemented by sources/http/entries.ts (a .http request) and sources/curl/index.ts,
 * sources/http/curl-entry.ts (a curl command).
 */
export interface ExecEntry extends EntryPlace, EntryRun, EntryRequestHooks, EntryResponseHooks {}

/** What the entry is and where it is written: for title lines, messages, --name and --line. */
export interface EntryPlace {
  /** Shown in the title line: the request's name when it has one. */
  name?: string;
  /** Where the request starts in the file (1-based). */
  line: number;
  /** The first line that belongs to it (its `###`, scripts and comments before the request line), for --line; `line` when not given. */
  start?: number;
  /** For a request reached through a `run` line of the file being run: the first line of that line's block (for --line). */
  runStart?: number;
  /** The request's name for the title line when `name` is not set (a request reached through `run`). */
  shownName?: string;
  /** The file the request is in, for the title line, when it is not the file being run (`run ./other.http`). */
  file?: string;
  /** The method and URL as written, for titles before the request is built. */
  label: string;
}

/** How the entry takes part in the run: its order, how its failure counts, what it prints and keeps. */
export interface EntryRun {
  /** This entry needs these named entries to run first (for --name / --line). */
  dependsOn?: string[];
  /** These run again right before this entry, even when they ran already (httpyac's `# @forceRef`). */
  forceDependsOn?: string[];
  /** A failure of this entry is reported but does not decide the run's exit code (a curl command followed by `||`). */
  failureHandled?: boolean;
  /** after() gets the heads of the hops before the last in `info.earlierHeads` (curl's -D and -i after -L). */
  wantsEarlierHeads?: boolean;
  /** Extra per-entry output settings. */
  output?: { print?: string; noLog?: boolean };
}

/** Before the exchange: the request made, what is printed under its title, the cookies it goes with. */
export interface EntryRequestHooks {
  /** Builds the request. null skips the entry (with a reason already warned about). */
  build(ctx: ExecContext): RequestSpec | RequestSpec[] | null | Promise<RequestSpec | RequestSpec[] | null>;
  /** Lines to print under the request's title, before it is sent (pre-request script logs). */
  before?(spec: RequestSpec): string[] | undefined;
  /**
   * The cookie jar the request's hops send from and store into (a .http run's one jar, a curl
   * command's -b FILE/-c engine), handed to the exchange by the runner; a --session's takes its
   * place, and a spec with `noCookies` gets none. Undefined: no cookies but the headers given.
   */
  cookieJar?(spec: RequestSpec): CookieJar | undefined;
}

/** After the request is sent: how its body is read, and what the entry does with the answer or the failure. */
export interface EntryResponseHooks {
  /** Nothing reads the response's body once it is printed (no script, test, output file or later request): it may be printed as it arrives. */
  bodyUnused?(spec: RequestSpec): boolean;
  /**
   * The body goes to files only (curl's -o, a .http `>> file` no script reads): where, decided
   * from the head (curl's -J, -C). The runner writes it as it arrives and after() gets `saved`
   * with an empty body. Undefined: the body is read whole as usual.
   */
  bodyFiles?(answer: Omit<Completed, 'body'>): BodyFiles | undefined;
  /**
   * A stream (WebSocket, server-sent events, gRPC), after each message from the server: whether the
   * entry's handlers end it by now (JetBrains' `unsubscribe()`), given the stream so far. False or
   * left out: nothing of the entry ends a stream.
   */
  streamEnds?(sofar: Completed): false | Promise<boolean>;
  /** Runs after each response (and is not called under --offline). */
  after?(done: Completed, ctx: ExecContext): AfterResult | Promise<AfterResult>;
  /** Runs after a request of the entry failed without a response (the error is reported already): what is still written then (curl's -w). */
  failed?(spec: RequestSpec, error: Error, ctx: ExecContext, answered?: Completed): AfterResult | undefined;
}

export interface Script {
  entries: ExecEntry[];
}
