import { fakerCall } from './faker-names.js';

/**
 * Dynamic variables of both dialects. Each call gives a fresh value (two `{{$uuid}}` in one request
 * are two UUIDs, as in both runners).
 *
 * JetBrains: $uuid, $random.uuid, $timestamp, $isoTimestamp, $randomInt, $random.integer(from, to),
 *   $random.float(from, to), $random.alphabetic(n), $random.alphanumeric(n), $random.hexadecimal(n),
 *   $random.numeric(n), $random.email, $env.NAME, $dotenv.NAME.
 * REST Client: $guid, $randomInt min max, $timestamp [offset unit], $datetime rfc1123|iso8601|"fmt"
 *   [offset unit], $localDatetime ..., $processEnv [%]NAME, $dotenv [%]NAME, $shared NAME.
 * kulala: $date (YYYY-MM-DD).
 * JetBrains OAuth 2.0: $auth.token("id"), $auth.idToken("id") (auth.ts).
 * JetBrains paths: $projectRoot, $historyFolder (for `>> {{$projectRoot}}/out.json`, `> {{$projectRoot}}/h.js`).
 * JetBrains Faker variables: $random.address.city, $random.name.firstName, ... (faker-names.ts;
 *   the values come from faker.ts, loaded by loadFaker() before a run that uses one).
 */
export interface DynamicEnv {
  /** Process environment ($processEnv, $env.NAME). */
  env: NodeJS.ProcessEnv;
  /** The .env file next to the .http file ($dotenv), read on first use. */
  dotenv(): Record<string, string>;
  /** A variable's value, for the `%name` indirection of $processEnv / $dotenv. */
  variable(name: string): string | undefined;
  /** A `$shared` value of the environment files (REST Client's `{{$shared name}}`). */
  shared?(name: string): string | undefined;
  /** The project's root folder ($projectRoot): see projectRoot(). */
  projectRoot(): string;
  /** An OAuth 2.0 token of the environment's Security.Auth ($auth.token("id"), $auth.idToken("id")): auth.ts. */
  auth?(id: string, kind: 'token' | 'idToken'): string;
  /** Something worth a warning (an unset $processEnv variable). */
  warn?(message: string): void;
  now?: () => Date;
}

export class DynamicError extends Error {}

/**
 * What the files of the run use, as checkDynamic saw it: a Faker variable (loadFaker() before
 * sending), an OAuth token (index.ts then looks for the requests that need one).
 */
export const dynamicUse = { faker: false, auth: false };
let fakerModule: typeof import('./faker.js') | undefined;

/** Loads faker (its own chunk, half a megabyte) once; only a run that uses a Faker variable calls this. */
export async function loadFaker(): Promise<void> {
  fakerModule ??= await import('./faker.js');
}

/**
 * The dynamic variables sling knows: wrong arguments to one are reported when the file is parsed;
 * an unknown `$name` (httpyac's `{{$global.token}}`, a typo, a Faker name sling lacks) is not: the
 * request that uses it fails when its turn comes (evalDynamic), and the others run.
 */
export function checkDynamic(name: string, args: string[]): string | null {
  const simple = SIMPLE[name];
  if (simple) return simple(args);
  if (/^(env|dotenv)\.[\w.-]+$/.test(name)) return null;
  if (name === 'auth.token' || name === 'auth.idToken') {
    dynamicUse.auth = true;
    return args.length === 1 && args[0] !== '' ? null : `{{$${name}("id")}} needs the id of a Security.Auth configuration of the environment file`;
  }
  if (name === 'aadToken' || name === 'aadV2Token') return 'unsupported:Azure AD tokens ($aadToken) of the REST Client are not supported';
  if (/^random\.\w+\.\w+$/.test(name)) {
    const found = fakerCall(name);
    // Warned about with its place; the request that uses it fails (evalDynamic).
    if ('problem' in found) return `unsupported:${found.problem}`;
    dynamicUse.faker = true;
    return args.length ? `{{$${name}}} takes no arguments` : null;
  }
  return null;
}

const none = (n: string) => (args: string[]) => (args.length ? `{{$${n}}} takes no arguments` : null);
const ints = (n: string, count: number[]) => (args: string[]) => {
  if (!count.includes(args.length)) return `{{$${n}}} takes ${count.join(' or ')} arguments, got ${args.length}`;
  for (const a of args) if (!/^-?\d+(\.\d+)?$/.test(a)) return `{{$${n}}}: '${a}' is not a number`;
  return null;
};
const OFFSET_UNITS = new Set(['y', 'M', 'w', 'd', 'h', 'm', 's', 'ms']);
const offsetArgs = (n: string, from: number) => (args: string[]) => {
  const rest = args.slice(from);
  if (rest.length === 0) return null;
  if (rest.length !== 2 || !/^[-+]?\d+$/.test(rest[0]!) || !OFFSET_UNITS.has(rest[1]!)) {
    return `{{$${n}}}: the offset is a whole number and a unit (y, M, w, d, h, m, s, ms), got '${rest.join(' ')}'`;
  }
  return null;
};
const dateArgs = (n: string) => (args: string[]) => (args.length === 0 ? `{{$${n}}} needs a format: rfc1123, iso8601 or "a format"` : offsetArgs(n, 1)(args));
const envArgs = (n: string) => (args: string[]) => (args.length !== 1 ? `{{$${n}}} needs one variable name` : null);

const SIMPLE: Record<string, (args: string[]) => string | null> = {
  uuid: none('uuid'),
  'random.uuid': none('random.uuid'),
  guid: none('guid'),
  isoTimestamp: none('isoTimestamp'),
  'random.email': none('random.email'),
  date: none('date'),
  timestamp: offsetArgs('timestamp', 0),
  // A reversed range (`-50 -100`, in httpyac's own examples) is read as the range between the two.
  randomInt: ints('randomInt', [0, 2]),
  'random.integer': ints('random.integer', [0, 1, 2]),
  'random.float': ints('random.float', [0, 1, 2]),
  'random.alphabetic': ints('random.alphabetic', [0, 1]),
  'random.alphanumeric': ints('random.alphanumeric', [0, 1]),
  'random.hexadecimal': ints('random.hexadecimal', [0, 1]),
  'random.numeric': ints('random.numeric', [0, 1]),
  datetime: dateArgs('datetime'),
  localDatetime: dateArgs('localDatetime'),
  processEnv: envArgs('processEnv'),
  projectRoot: none('projectRoot'),
  historyFolder: none('historyFolder'),
  dotenv: envArgs('dotenv'),
  shared: envArgs('shared'),
};

const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const randomText = (n: number, chars: string) => {
  if (n > MAX_RANDOM_LENGTH) throw new DynamicError(`a random text of ${n} characters is more than sling makes (at most ${MAX_RANDOM_LENGTH.toLocaleString('en')})`);
  let s = '';
  for (let i = 0; i < n; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
};
/** [from, to): JetBrains' $random.integer and REST Client's $randomInt exclude the upper bound. */
const between = (from: number, to: number) => {
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  // Math.random, as the other generators here: test data, not secrets (and node:crypto stays off the start-up path).
  return hi - lo <= 1 ? lo : Math.min(hi - 1, lo + Math.floor(Math.random() * (hi - lo)));
};

export function evalDynamic(name: string, args: string[], ctx: DynamicEnv): string {
  const now = () => (ctx.now ? ctx.now() : new Date());
  const num = (i: number, def: number) => (args[i] === undefined ? def : Number(args[i]));
  switch (name) {
    case 'shared': {
      const v = ctx.shared?.(args[0]!);
      if (v === undefined) throw new DynamicError(`${args[0]} is not in $shared`);
      return v;
    }
    case 'uuid':
    case 'random.uuid':
    case 'guid':
      return globalThis.crypto.randomUUID();
    case 'timestamp': {
      const d = withOffset(now(), args, 0, false);
      return String(Math.floor(d.getTime() / 1000));
    }
    case 'isoTimestamp':
      return now().toISOString();
    case 'date':
      return formatDate(now(), 'YYYY-MM-DD', false);
    case 'randomInt':
      // JetBrains: 0..1000; REST Client: $randomInt min max.
      return String(args.length === 2 ? between(num(0, 0), num(1, 1000)) : between(0, 1001));
    case 'random.integer':
      return String(between(num(0, 0), num(1, 1000)));
    case 'random.float': {
      const from = num(0, 0);
      const to = num(1, 1000);
      return String(from + Math.random() * (to - from));
    }
    case 'random.alphabetic':
      return randomText(num(0, 10), ALPHA);
    case 'random.alphanumeric':
      return randomText(num(0, 10), ALPHA + DIGITS + '_');
    case 'random.hexadecimal':
      return randomText(num(0, 10), '0123456789abcdef');
    case 'random.numeric':
      return randomText(num(0, 10), DIGITS);
    case 'random.email':
      return `${randomText(8, 'abcdefghijklmnopqrstuvwxyz')}@${randomText(6, 'abcdefghijklmnopqrstuvwxyz')}.com`;
    case 'datetime':
    case 'localDatetime': {
      const local = name === 'localDatetime';
      const d = withOffset(now(), args, 1, local);
      const fmt = args[0]!;
      if (fmt === 'rfc1123') return local ? formatDate(d, 'ddd, DD MMM YYYY HH:mm:ss ZZ', true) : d.toUTCString();
      // REST Client: toISOString() in UTC, Day.js' default format (no milliseconds) in local time.
      if (fmt === 'iso8601') return local ? formatDate(d, 'YYYY-MM-DDTHH:mm:ssZ', true) : d.toISOString();
      return formatDate(d, fmt, local);
    }
    case 'processEnv': {
      // REST Client: a variable that is not set gives an empty value (and the request is sent).
      const key = indirect(args[0]!, ctx);
      const v = own(ctx.env, key);
      if (v === undefined) {
        ctx.warn?.(`the environment variable ${key} is not set: {{$processEnv ${args[0]}}} is empty`);
        return '';
      }
      return v;
    }
    case 'projectRoot':
      return ctx.projectRoot();
    case 'auth.token':
    case 'auth.idToken':
      if (!ctx.auth) throw new DynamicError(`no Security.Auth configuration "${args[0]}" (no environment file has a Security.Auth section)`);
      return ctx.auth(args[0]!, name === 'auth.token' ? 'token' : 'idToken');
    case 'historyFolder':
      return `${ctx.projectRoot()}/.idea/httpRequests`;
    case 'dotenv': {
      const key = indirect(args[0]!, ctx);
      const v = own(ctx.dotenv(), key);
      if (v === undefined) throw new DynamicError(`${key} is not in the .env file`);
      return v;
    }
  }
  if (name.startsWith('env.')) {
    const v = own(ctx.env, name.slice(4));
    if (v === undefined) throw new DynamicError(`the environment variable ${name.slice(4)} is not set`);
    return v;
  }
  if (name.startsWith('dotenv.')) {
    const v = own(ctx.dotenv(), name.slice(7));
    if (v === undefined) throw new DynamicError(`${name.slice(7)} is not in the .env file`);
    return v;
  }
  if (/^random\.\w+\.\w+$/.test(name)) {
    const found = fakerCall(name);
    if ('problem' in found) throw new DynamicError(found.problem.replace(/^\{\{[^}]*\}\}: /, ''));
    // loadFaker() ran when the files were read (parseHttpFile); a value asked for without it is a bug.
    const v = fakerModule?.fakerValue(name);
    if (v === undefined) throw new DynamicError('the Faker library was not loaded');
    return v;
  }
  if (name === 'aadToken' || name === 'aadV2Token') throw new DynamicError("REST Client's Azure AD tokens are not supported by sling");
  throw new DynamicError('unknown dynamic variable');
}

/** A variable of the environment or .env by name: own properties only (`toString` is not one). */
function own(vars: Record<string, string | undefined>, name: string): string | undefined {
  return Object.hasOwn(vars, name) ? vars[name] : undefined;
}

/** Texts of random characters are made in memory: a length past this is a typo, not test data. */
const MAX_RANDOM_LENGTH = 1_000_000;

/** `%name`: the name of the environment variable is itself a variable (REST Client; no such variable: the name as written). */
function indirect(arg: string, ctx: DynamicEnv): string {
  if (!arg.startsWith('%')) return arg;
  return ctx.variable(arg.slice(1)) ?? arg.slice(1);
}

/**
 * The date moved by an offset as Day.js (REST Client) moves it: months and years keep the day but
 * stop at the month's last one (Jan 31 + 1 M = Feb 29), days and weeks keep the clock time (in
 * local time across a daylight-saving change too), hours and less are exact.
 */
function withOffset(d: Date, args: string[], from: number, local: boolean): Date {
  if (args.length < from + 2) return d;
  const n = Number(args[from]);
  const unit = args[from + 1]!;
  const r = new Date(d.getTime());
  switch (unit) {
    case 'y':
      return addMonths(r, n * 12, local);
    case 'M':
      return addMonths(r, n, local);
    case 'w':
    case 'd':
      if (local) r.setDate(r.getDate() + n * (unit === 'w' ? 7 : 1));
      else r.setUTCDate(r.getUTCDate() + n * (unit === 'w' ? 7 : 1));
      return r;
    case 'h':
      return new Date(d.getTime() + n * 3600000);
    case 'm':
      return new Date(d.getTime() + n * 60000);
    case 's':
      return new Date(d.getTime() + n * 1000);
    case 'ms':
      return new Date(d.getTime() + n);
  }
  return r;
}

function addMonths(r: Date, n: number, local: boolean): Date {
  const day = local ? r.getDate() : r.getUTCDate();
  if (local) {
    r.setDate(1);
    r.setMonth(r.getMonth() + n);
    r.setDate(Math.min(day, new Date(r.getFullYear(), r.getMonth() + 1, 0).getDate()));
  } else {
    r.setUTCDate(1);
    r.setUTCMonth(r.getUTCMonth() + n);
    r.setUTCDate(Math.min(day, new Date(Date.UTC(r.getUTCFullYear(), r.getUTCMonth() + 1, 0)).getUTCDate()));
  }
  return r;
}

/**
 * JetBrains' $projectRoot outside an IDE: the nearest folder from the .http file's up that holds
 * `.idea` or `.git`, else the file's own folder.
 */
export function projectRoot(dir: string, exists: (path: string) => boolean): string {
  for (let d = dir; ; ) {
    if (exists(`${d}/.idea`) || exists(`${d}/.git`)) return d;
    const up = d.replace(/[/\\][^/\\]*$/, '');
    if (up === d || up === '') return dir;
    d = up;
  }
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
const TOKENS = /\[([^\]]*)]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|ZZ|Z|A|a|X|x/g;

/** The Day.js / Moment.js format tokens REST Client's custom `$datetime` formats use. */
export function formatDate(d: Date, fmt: string, local: boolean): string {
  const Y = local ? d.getFullYear() : d.getUTCFullYear();
  const Mo = local ? d.getMonth() : d.getUTCMonth();
  const D = local ? d.getDate() : d.getUTCDate();
  const wd = local ? d.getDay() : d.getUTCDay();
  const H = local ? d.getHours() : d.getUTCHours();
  const mi = local ? d.getMinutes() : d.getUTCMinutes();
  const s = local ? d.getSeconds() : d.getUTCSeconds();
  const ms = local ? d.getMilliseconds() : d.getUTCMilliseconds();
  const off = local ? -d.getTimezoneOffset() : 0;
  const zone = (sep: string) => `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}${sep}${pad(Math.abs(off) % 60)}`;
  return fmt.replace(TOKENS, (t, escaped: string | undefined) => {
    if (escaped !== undefined) return escaped;
    switch (t) {
      case 'YYYY':
        return String(Y);
      case 'YY':
        return pad(Y % 100);
      case 'MMMM':
        return MONTHS[Mo]!;
      case 'MMM':
        return MONTHS[Mo]!.slice(0, 3);
      case 'MM':
        return pad(Mo + 1);
      case 'M':
        return String(Mo + 1);
      case 'DD':
        return pad(D);
      case 'D':
        return String(D);
      case 'dddd':
        return DAYS[wd]!;
      case 'ddd':
        return DAYS[wd]!.slice(0, 3);
      case 'dd':
        return DAYS[wd]!.slice(0, 2);
      case 'd':
        return String(wd);
      case 'HH':
        return pad(H);
      case 'H':
        return String(H);
      case 'hh':
        return pad(H % 12 || 12);
      case 'h':
        return String(H % 12 || 12);
      case 'mm':
        return pad(mi);
      case 'm':
        return String(mi);
      case 'ss':
        return pad(s);
      case 's':
        return String(s);
      case 'SSS':
        return pad(ms, 3);
      case 'ZZ':
        return zone('');
      case 'Z':
        return zone(':');
      case 'A':
        return H < 12 ? 'AM' : 'PM';
      case 'a':
        return H < 12 ? 'am' : 'pm';
      case 'X':
        return String(Math.floor(d.getTime() / 1000));
      case 'x':
        return String(d.getTime());
    }
    return t;
  });
}
