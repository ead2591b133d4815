import { existsSync, readdirSync } from 'node:fs';
import { LiteralError, lineCol, readModuleObject, stripJsonc } from './literal.js';
import { FileTooLargeError, readLimited, SETTINGS_FILE_LIMIT, utf8Text } from '../../files.js';
import { stringifyChecked } from '../../nesting.js';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError, beyondLimits } from '../../errors.js';

/**
 * Environments of the JetBrains HTTP Client (also read by httpyac): `http-client.env.json` and
 * `http-client.private.env.json` (or their older names `rest-client.env.json` and
 * `rest-client.private.env.json`, each where its current name is missing), next to the .http
 * file or in the nearest parent folder that has one, each `{ "envName": { "var": "value" }, "$shared": { ... } }`. The selected environment's
 * variables win over `$shared`; between the two files the JetBrains documentation gives the public
 * file precedence over the private one, and so does sling, except over an empty public value.
 */
export interface Environment {
  name?: string;
  /** Variable → value (strings; numbers and booleans as JSON text). */
  vars: Map<string, string>;
  /** Where the variables came from, for --debug and hints. */
  files: string[];
  /** The file each variable's value came from (for messages about its placeholders). */
  origins: Map<string, string>;
  /** `$shared` alone (REST Client's `{{$shared name}}` in an environment's value). */
  shared: Map<string, string>;
  /** Environment names per variable, over every environment of the files (for hints). */
  definedIn: Map<string, string[]>;
  /**
   * JetBrains `Security.Auth` configurations (OAuth 2.0, for `{{$auth.token("id")}}`) of the
   * selected environment and `$shared`, by id: each field from the first file that gives it a
   * non-empty value (public before private, the environment before `$shared`), with that file.
   */
  auth: Map<string, { fields: Record<string, unknown>; files: Map<string, string> }>;
}

const PUBLIC = 'http-client.env.json';
const PRIVATE = 'http-client.private.env.json';
/** The JetBrains client's older names (`rest-client.env.json`), still in many projects: read where the current name is missing. */
const OLD_PUBLIC = 'rest-client.env.json';
const OLD_PRIVATE = 'rest-client.private.env.json';

type EnvFile = Record<string, Record<string, unknown>>;

function readEnvFile(path: string): EnvFile {
  let data: Buffer;
  try {
    data = readLimited(path, SETTINGS_FILE_LIMIT, path, 'an environment file');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw e;
    throw new UsageError(`cannot read the environment file '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const text = utf8Text(data, path, 'the environment file');
  let doc: unknown;
  try {
    // JSONC (comments, trailing commas), as IntelliJ and VS Code read their JSON files; offsets kept.
    doc = JSON.parse(stripJsonc(text));
  } catch (e) {
    // V8 says where by offset (`... in JSON at position 18`): FILE:LINE:COL instead.
    const message = (e as Error).message;
    const m = /^(.*?)(?:,? in JSON)? at position (\d+)/.exec(message);
    throw new UsageError(m ? `${path}:${lineCol(text, Number(m[2]))}: not valid JSON: ${m[1]}` : `${path}: not valid JSON: ${message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError(`the environment file '${path}' must hold an object of environments`);
  for (const [name, values] of Object.entries(doc)) {
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      const key = new RegExp(`${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`).exec(text);
      const what = Array.isArray(values) ? 'an array' : values === null ? 'null' : `a ${typeof values}`;
      throw new UsageError(`${path}:${key ? lineCol(text, key.index) : '1:1'}: the environment '${name}' must be an object of variables ({"name": "value"}), got ${what}`);
    }
  }
  return doc as EnvFile;
}

/** The folder's env files, or the nearest parent's. */
export function findEnvFiles(dir: string): string[] {
  let d = resolve(dir);
  for (;;) {
    const found = [
      [PUBLIC, OLD_PUBLIC],
      [PRIVATE, OLD_PRIVATE],
    ]
      .map(([name, old]) => (existsSync(join(d, name!)) ? join(d, name!) : existsSync(join(d, old!)) ? join(d, old!) : undefined))
      .filter((p): p is string => p !== undefined);
    if (found.length) return found;
    const up = dirname(d);
    if (up === d) return [];
    d = up;
  }
}

const text = (v: unknown) => (typeof v === 'string' ? v : stringifyChecked(v));

export function loadEnvironment(dir: string, envName: string | undefined, envFile: string | undefined, cwd: string, warn: (message: string) => void = () => {}): Environment {
  let files: string[];
  if (envFile !== undefined) {
    const p = resolve(cwd, envFile);
    if (!existsSync(p)) throw new UsageError(`--env-file: cannot read '${envFile}': no such file`);
    files = [p];
    // `x.env.json` brings its private sibling `x.private.env.json` when there is one.
    const priv = join(dirname(p), basename(p).replace(/\.env\.json$/, '.private.env.json'));
    if (priv !== p && existsSync(priv)) files.push(priv);
  } else {
    files = findEnvFiles(dir);
  }
  // Public first: it wins over private (JetBrains), and the specific environment over $shared.
  // A file that cannot be read stops the run only when an environment is selected; without one
  // only its $shared would be used, and the run goes on without it, with a warning.
  const parsed = files.map((f) => {
    if (envName !== undefined) return readEnvFile(f);
    try {
      return readEnvFile(f);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      warn(`${e.message}; its variables are not used (no --env is given)`);
      return {};
    }
  });
  const yac = httpyacEnvironment(dir, envName, warn);
  const vars = new Map<string, string>();
  const definedIn = new Map<string, string[]>();
  for (const data of [...parsed, yac.config]) {
    for (const [env, values] of Object.entries(data)) {
      if (env === '$shared' || env === '$default' || typeof values !== 'object' || values === null) continue;
      for (const k of Object.keys(values)) {
        const list = definedIn.get(k) ?? [];
        if (!list.includes(env)) list.push(env);
        definedIn.set(k, list);
      }
    }
  }
  // One level (the selected environment, then $shared) of every file, public first. An empty public
  // value is a placeholder the private file fills in (the JetBrains documentation's own example:
  // `"password": ""` in the public file, the real one in the private file).
  const origins = new Map<string, string>();
  const put = (level: unknown[], into = vars) => {
    const placeholders = new Set<string>();
    for (let i = 0; i < level.length; i++) {
      const values = level[i];
      if (!values || typeof values !== 'object') continue;
      for (const [k, v] of Object.entries(values)) {
        if (k === 'Security' || (into.has(k) && !placeholders.has(k))) continue;
        let t: string;
        try {
          t = text(v);
        } catch (e) {
          throw beyondLimits(e, `${files[i]}: the value of ${k}`) ?? e;
        }
        into.set(k, t);
        if (into === vars) origins.set(k, files[i]!);
        if (t === '') placeholders.add(k);
        else placeholders.delete(k);
      }
    }
  };
  if (envName !== undefined) {
    const known = new Set([...parsed.flatMap((d) => Object.keys(d).filter((k) => k !== '$shared')), ...yac.names]);
    if (!files.length && !yac.names.size)
      throw new UsageError(
        `--env ${envName}: no ${PUBLIC} or ${PRIVATE} (or their older names, ${OLD_PUBLIC} and ${OLD_PRIVATE}) next to the file or in a parent folder, and no httpyac environment (${envName}.env, .env.${envName}, or 'environments' in .httpyac.json or httpyac.config.js)`,
        'name one with --env-file PATH',
      );
    if (!known.has(envName)) {
      const where = [...files, ...yac.files];
      throw new UsageError(`--env ${envName}: no such environment in ${where.join(', ')}`, `environments: ${[...known].join(', ') || '(none)'}`);
    }
    put(parsed.map((d) => d[envName]));
  }
  put(parsed.map((d) => d.$shared));
  const shared = new Map<string, string>();
  put(
    parsed.map((d) => d.$shared),
    shared,
  );
  const auth: Environment['auth'] = new Map();
  const levels = [...(envName !== undefined ? parsed.map((d, i) => [d[envName], files[i]!] as const) : []), ...parsed.map((d, i) => [d.$shared, files[i]!] as const)];
  for (const [values, file] of levels) {
    const configs = (values?.Security as { Auth?: unknown } | undefined)?.Auth;
    if (!configs || typeof configs !== 'object' || Array.isArray(configs)) continue;
    for (const [id, config] of Object.entries(configs as Record<string, unknown>)) {
      if (!config || typeof config !== 'object' || Array.isArray(config)) {
        throw new UsageError(`${file}: Security.Auth "${id}" must be an object of settings ({"Type": "OAuth2", "Grant Type": ...})`);
      }
      let entry = auth.get(id);
      if (!entry) auth.set(id, (entry = { fields: {}, files: new Map() }));
      for (const [k, v] of Object.entries(config as Record<string, unknown>)) {
        const had = entry.fields[k];
        if (had !== undefined && had !== '') continue;
        entry.fields[k] = v;
        entry.files.set(k, file);
      }
    }
  }
  // httpyac's sources come under the JetBrains files: a variable those define wins.
  for (const [k, v] of yac.vars) {
    if (vars.has(k)) continue;
    vars.set(k, v);
    origins.set(k, yac.origins.get(k)!);
  }
  return { name: envName, vars, files: [...files, ...yac.files], definedIn, origins, shared, auth };
}

/** What marks httpyac's project root (its config files, then package.json), nearest first. */
const CONFIGS = ['.httpyac.json', 'httpyac.config.js', '.httpyac.js', 'httpyac.config.cjs', '.httpyac.cjs', 'httpyac.config.mjs', '.httpyac.mjs'];

interface YacEnvironment {
  /** The variables, the later source over the earlier one. */
  vars: Map<string, string>;
  origins: Map<string, string>;
  /** The files read. */
  files: string[];
  /** Every environment these sources know (for --env NAME). */
  names: Set<string>;
  /** The config's `environments`, for hints. */
  config: EnvFile;
}

/**
 * httpyac's environments, read as data: the `environments` of the project's config
 * (`.httpyac.json`, or `httpyac.config.js` and the like when it exports a plain object literal:
 * never run), `$shared` and then the selected environment (`$default` when none is), then the
 * `.env` files: `.env` always and `NAME.env` / `.env.NAME` for `--env NAME`, in each folder from
 * the project root (the nearest folder above the .http file with an httpyac config or a
 * package.json; the file's own folder when there is none) down to the file's folder, each folder
 * before its `env/` folder (the config's `envDirName`), the nearer over the farther.
 */
function httpyacEnvironment(dir: string, envName: string | undefined, warn: (message: string) => void): YacEnvironment {
  const out: YacEnvironment = { vars: new Map(), origins: new Map(), files: [], names: new Set(), config: {} };
  const set = (values: Record<string, unknown> | undefined, file: string) => {
    if (!values || typeof values !== 'object' || Array.isArray(values)) return;
    for (const [k, v] of Object.entries(values)) {
      let t: string;
      try {
        t = text(v);
      } catch (e) {
        throw beyondLimits(e, `${file}: the value of ${k}`) ?? e;
      }
      out.vars.set(k, t);
      out.origins.set(k, file);
    }
  };
  const start = resolve(dir);
  let root = start;
  for (let d = start; ; ) {
    if ([...CONFIGS, 'package.json'].some((n) => existsSync(join(d, n)))) {
      root = d;
      break;
    }
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  const configFile = [...CONFIGS, 'package.json'].map((n) => join(root, n)).find((p) => existsSync(p));
  let envDirName = 'env';
  if (configFile !== undefined) {
    const config = readConfig(configFile, warn);
    if (config) {
      if (typeof config.envDirName === 'string' && config.envDirName !== '') envDirName = config.envDirName;
      const envs = config.environments;
      if (envs && typeof envs === 'object' && !Array.isArray(envs)) {
        out.config = envs as EnvFile;
        out.files.push(configFile);
        for (const k of Object.keys(envs)) if (k !== '$shared' && k !== '$default') out.names.add(k);
        set(out.config.$shared, configFile);
        set(envName !== undefined ? out.config[envName] : out.config.$default, configFile);
      }
    }
  }
  // The folders from the root down to the file's (only the file's own when it is not below the root).
  const dirs: string[] = [];
  for (let d = start; ; d = dirname(d)) {
    dirs.unshift(d);
    if (d === root || dirname(d) === d) break;
  }
  for (const d of dirs) {
    for (const folder of [d, resolve(d, envDirName)]) {
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        continue;
      }
      for (const n of names) {
        const m = /^\.env\.(.+)$|^(.+)\.env$/.exec(n);
        if (m) out.names.add(m[1] ?? m[2]!);
      }
      const wanted = ['.env', ...(envName !== undefined ? [`${envName}.env`, `.env.${envName}`] : [])];
      for (const n of wanted) {
        if (!names.includes(n)) continue;
        const p = join(folder, n);
        out.files.push(p);
        set(parseDotenv(readDotenv(p)), p);
      }
    }
  }
  return out;
}

/** An httpyac config as data: JSON(C), a `"httpyac"` key of package.json, or a JavaScript module that exports a plain object literal. */
function readConfig(p: string, warn: (message: string) => void): Record<string, unknown> | undefined {
  let t: string;
  try {
    t = utf8Text(readLimited(p, SETTINGS_FILE_LIMIT, p, 'an httpyac config file'), p, 'the httpyac config file');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw e;
    warn(e instanceof UsageError ? `${e.message}; its environments are not used` : `cannot read '${p}': ${(e as Error).message}; its environments are not used`);
    return undefined;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (p.endsWith('.json')) {
    let data: unknown;
    try {
      data = JSON.parse(stripJsonc(t));
    } catch (e) {
      const m = /^(.*?)(?:,? in JSON)? at position (\d+)/.exec((e as Error).message);
      warn(`${p}:${m ? `${lineCol(t, Number(m[2]))}: not valid JSON: ${m[1]}` : ` not valid JSON: ${(e as Error).message}`}; its environments are not used`);
      return undefined;
    }
    if (basename(p) === 'package.json') data = isObject(data) ? data.httpyac : undefined;
    return isObject(data) ? data : undefined;
  }
  try {
    return readModuleObject(t);
  } catch (e) {
    if (!(e instanceof LiteralError)) throw e;
    warn(
      `${p}:${lineCol(t, e.offset)}: ${e.message}; sling reads an httpyac config written in JavaScript only when it exports a plain object literal, and never runs it: its environments are not used`,
    );
    return undefined;
  }
}

/** A `.env` file's text; one that cannot be read is a one-line error. */
function readDotenv(p: string): string {
  try {
    return readLimited(p, SETTINGS_FILE_LIMIT, p, 'a .env file').toString('utf8');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw e;
    throw new UsageError(`cannot read '${p}': ${(e as Error).message}`);
  }
}

/** A `.env` file (for `$dotenv`): next to the .http file or in the nearest parent folder. */
export function loadDotenv(dir: string): Record<string, string> {
  let d = resolve(dir);
  for (;;) {
    const p = join(d, '.env');
    if (existsSync(p)) return parseDotenv(readDotenv(p));
    const up = dirname(d);
    if (up === d) return {};
    d = up;
  }
}

export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([\w.-]+)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2]!;
    // A quoted value, then maybe blanks and a comment.
    const end = v[0] === '"' ? closingQuote(v) : v[0] === "'" ? v.indexOf("'", 1) : -1;
    if (end > 0 && /^\s*(?:#.*)?$/.test(v.slice(end + 1))) {
      v = v.slice(1, end);
      if (m[2]![0] === '"') v = v.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    }
    // A comment after blanks; looked for from the start of a run of blanks only (from each blank of a long run it was quadratic).
    else v = v.replace(/(?<!\s)\s+#.*$/, '');
    out[m[1]!] = v;
  }
  return out;
}

/** The index of the '"' that ends a value starting with '"' (one after a backslash does not), or -1. */
function closingQuote(v: string): number {
  for (let i = 1; i < v.length; i++) {
    if (v[i] === '\\') i++;
    else if (v[i] === '"') return i;
  }
  return -1;
}
