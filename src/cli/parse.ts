import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { bothTables, EXEC_TABLE, keysText, listOr, MAIN_TABLE, metavarOf, type OptionDef, type OptionTable } from './options.js';

/** One option as it stood on the line: `--timeout 5` is one, `-jv` two. */
export interface Occurrence {
  def: OptionDef;
  /** `--no-NAME`: the option undone. */
  negated: boolean;
  /** Its value, checked against the table and written as the table writes it (`--ssl TLS1.2`: `tls1.2`). */
  value?: string;
  /** Where in argv it started, and the last argument it took (its value's, when that came next). */
  at: number;
  end: number;
}

/**
 * What argv said, read once against the option table: which command, every option in the order
 * given, what they add up to, and the positionals. Every command reads this; nothing reads argv again.
 */
export interface ParsedArgs {
  /**
   * `help` (`-h` alone, `sling help [exec]`, `sling exec -h`: the topic is the positional) and
   * `completions` (the shell is the positional) take no options.
   */
  command: 'main' | 'exec' | 'help' | 'completions';
  occurrences: Occurrence[];
  flags: Map<string, boolean>;
  counts: Map<string, number>;
  values: Map<string, string[]>;
  /** The options given on the line, also those given their default value, or undone with --no-NAME. */
  given: Set<string>;
  /** Output-selection options in the order they appeared: the last one wins (docs/decisions.md, Output). */
  printChoices: string[];
  /** Of --json/--form/--multipart, the one in effect: the last one given (HTTPie), unless undone. */
  bodyType?: 'json' | 'form' | 'multipart';
  positionals: string[];
  /** Where in argv each positional stood. */
  positionalAt: number[];
  /** The first thing wrong with the line, in argv order; what was read until then is above. */
  error?: UsageError;
}

const PRINT_SELECTORS = new Set(['print', 'headers', 'body', 'meta', 'verbose']);
const BODY_TYPES = new Set(['json', 'form', 'multipart']);

/** The value of an option checked against its entry in the table: the choice it names, or an error naming the allowed ones. */
export function checkValue(def: OptionDef, text: string): string {
  const name = `--${def.long}`;
  if (def.needs !== undefined && text.trim() === '') throw new UsageError(`${name} needs ${def.needs}`);
  if (def.number === 'seconds' && (!/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text) || !(Number(text) > 0))) {
    throw new UsageError(`${name} needs a positive number of seconds, got '${text}'`);
  }
  if (def.number === 'whole' && !/^\d+$/.test(text.trim())) throw new UsageError(`${name} needs a whole number, got '${text}'`);
  if (def.form && !def.form.pattern.test(text)) throw new UsageError(`${name} needs ${def.form.is}, got '${text}'`);
  if (def.keys) {
    for (const pair of text.split(',')) {
      const m = /^\s*([^:]*):(.*)$/.exec(pair);
      const kind = m && Object.hasOwn(def.keys, m[1]!) ? def.keys[m[1]!] : undefined;
      if (!kind) throw new UsageError(`${name}: unknown option '${pair}' (${keysText(def)})`);
      const value = m![2]!;
      if (kind === 'N' && !/^\d+$/.test(value.trim())) throw new UsageError(`${name} ${m![1]} needs a whole number, got '${value}'`);
      if (kind === 'BOOL' && value.trim() !== 'true' && value.trim() !== 'false') throw new UsageError(`${name} ${m![1]} must be true or false, got '${value}'`);
    }
  }
  const choices = def.choices;
  if (!choices) return text;
  const choice = (word: string): string | undefined => {
    const key = def.caseless ? word.toLowerCase() : word;
    if (choices.includes(key)) return key;
    return def.synonyms && Object.hasOwn(def.synonyms, key) ? def.synonyms[key] : undefined;
  };
  if (def.letters) {
    const codes = [...text].map(choice);
    if (codes.length === 0 || codes.includes(undefined)) {
      throw new UsageError(`${name} '${text}' has an unknown code: use ${choices.map((c) => `${c} (${def.notes?.[c]})`).join(', ')}`);
    }
    return codes.join('');
  }
  const found = choice(text);
  if (found !== undefined) return found;
  const key = def.caseless ? text.toLowerCase() : text;
  if (def.refused && Object.hasOwn(def.refused, key)) throw new UsageError(`${name} ${key}: ${def.refused[key]}`);
  if (def.orFile) {
    if (existsSync(text)) return text;
    throw new UsageError(`${name} must be ${choices.join(', ')} or ${def.orFile}; '${text}' is none of these (no such file)`);
  }
  throw new UsageError(`${name} must be ${listOr(choices)}, got '${text}'`);
}

/** What one reading of argv against one table gave, before the command's own table checks it. */
interface Reading {
  occurrences: Occurrence[];
  /** How each option was spelled (a long name without `--`, or a short letter), for the command's table to look up again. */
  spelled: Map<Occurrence, { long?: string; short?: string }>;
  positionals: string[];
  positionalAt: number[];
  /** Where the first positional stood, when it came before `--`. */
  firstPositionalAt?: number;
  /**
   * What was wrong, where, and the option's spelling. `name`: no option of the table is spelled
   * so, and what the next argument is stays unknown; otherwise the option is known and its value is wrong.
   */
  errors: { at: number; error: UsageError; long?: string; short?: string; name: boolean }[];
}

/**
 * Splits argv the way HTTPie's parser does: options may stand anywhere, `--` ends them, short
 * options cluster (`-jv`, `-ax:y`, `-dco file`), `--name=value` and `--name value` both work, and
 * every flag has a `--no-NAME` form that undoes it (for defaults from a config file). Nothing is
 * thrown: what is wrong is kept with where it stood, and the reading goes on.
 */
function read(argv: readonly string[], table: OptionTable): Reading {
  const out: Reading = { occurrences: [], spelled: new Map(), positionals: [], positionalAt: [], errors: [] };
  let i = 0;
  /** Where the argument being read started (its value may be the next one). */
  let start = 0;
  const add = (def: OptionDef, spelledAs: string, inline: string | undefined, negated = false, long?: string, short?: string): void => {
    const at = i;
    if (negated) {
      if (inline !== undefined) throw new UsageError(`option ${spelledAs} takes no value (got '${inline}')`);
      const o = { def, negated, at, end: at };
      out.occurrences.push(o);
      out.spelled.set(o, { long, short });
      return;
    }
    let value: string | undefined;
    if (def.kind === 'value') {
      if (inline !== undefined) value = inline;
      else if (i + 1 >= argv.length) throw new UsageError(`option ${spelledAs} needs a value (${metavarOf(def)})`);
      else value = argv[++i]!;
      value = checkValue(def, value);
    } else if (inline !== undefined && def.equalsValue) {
      if (!def.equalsValue.includes(inline)) throw new UsageError(`--${def.long}= must be ${listOr(def.equalsValue)}, got '${inline}'`);
      value = inline;
    } else if (inline !== undefined) throw new UsageError(`option ${spelledAs} takes no value (got '${inline}')`);
    const o = { def, negated, value, at, end: i };
    out.occurrences.push(o);
    out.spelled.set(o, { long, short });
  };
  const failed = (e: unknown, name: boolean, long?: string, short?: string): void => {
    if (!(e instanceof UsageError)) throw e;
    out.errors.push({ at: start, error: e, long, short, name });
  };

  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    start = i;
    if (arg === '--') {
      for (let k = i + 1; k < argv.length; k++) {
        out.positionals.push(argv[k]!);
        out.positionalAt.push(k);
      }
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const inline = eq === -1 ? undefined : arg.slice(eq + 1);
      let found: ReturnType<typeof longOption>;
      try {
        found = longOption(table, name);
      } catch (e) {
        failed(e, true, name);
        continue;
      }
      try {
        add(found.def, '--' + found.spelled, inline, found.negated, name);
      } catch (e) {
        failed(e, false, name);
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // A short cluster: letters until one that takes a value, which swallows the rest.
      let letter = '';
      try {
        for (let j = 1; j < arg.length; j++) {
          letter = arg[j]!;
          const def = table.byShort.get(letter);
          if (!def) {
            failed(unknownShort(letter, arg), true);
            break;
          }
          if (def.kind === 'value') {
            let rest = arg.slice(j + 1);
            if (rest.startsWith('=')) rest = rest.slice(1);
            add(def, '-' + letter, rest.length > 0 || arg[j + 1] === '=' ? rest : undefined, false, undefined, letter);
            break;
          }
          if (arg[j + 1] === '=') throw new UsageError(`option -${letter} takes no value (got '${arg}')`);
          add(def, '-' + letter, undefined, false, undefined, letter);
        }
      } catch (e) {
        failed(e, false, undefined, letter);
      }
      continue;
    }
    out.firstPositionalAt ??= i;
    out.positionals.push(arg);
    out.positionalAt.push(i);
  }
  return out;
}

function unknownShort(letter: string, arg: string): UsageError {
  const what = arg.length > 2 ? `'-${letter}' (in '${arg}')` : `'-${letter}'`;
  return new UsageError(`unknown option ${what}`, 'items that start with - go after --: sling URL -- -name=value');
}

/** The options read, added up: flags, counts, values, what is given, the print choices and the body type. */
function total(occurrences: Occurrence[]): Pick<ParsedArgs, 'flags' | 'counts' | 'values' | 'given' | 'printChoices' | 'bodyType'> {
  const out: ReturnType<typeof total> = { flags: new Map(), counts: new Map(), values: new Map(), given: new Set(), printChoices: [] };
  for (const { def, negated, value } of occurrences) {
    const long = def.long;
    out.given.add(long);
    if (negated) {
      // Undone (a config file's default), and remembered as said: `sling exec --no-follow`.
      if (def.kind === 'flag') out.flags.set(long, false);
      else out.flags.delete(long);
      out.counts.delete(long);
      out.values.delete(long);
      if (PRINT_SELECTORS.has(long)) out.printChoices = out.printChoices.filter((c) => !c.startsWith(long));
      if (out.bodyType === long) out.bodyType = undefined;
      continue;
    }
    if (def.kind === 'value') {
      const v = value!;
      out.values.set(long, def.repeat ? [...(out.values.get(long) ?? []), v] : [v]);
      if (long === 'print') out.printChoices.push('print=' + v);
      continue;
    }
    if (def.kind === 'count') out.counts.set(long, (out.counts.get(long) ?? 0) + 1);
    else out.flags.set(long, true);
    // A flag with a value after `=` (--curl=cmd): the flag, and its value.
    if (value !== undefined) out.values.set(long, [value]);
    else if (def.equalsValue) out.values.delete(long);
    if (PRINT_SELECTORS.has(long)) out.printChoices.push(long);
    if (BODY_TYPES.has(long)) out.bodyType = long as ParsedArgs['bodyType'];
  }
  return out;
}

/**
 * The reading checked against the command's own table, in argv order: an option the command does
 * not take is the error that table gives (`sling --env dev URL`: unknown option '--env').
 */
function firstError(r: Reading, table: OptionTable, argv: readonly string[]): UsageError | undefined {
  const events: { at: number; check: () => void }[] = r.errors.map((e) => ({
    at: e.at,
    check: () => {
      if (e.long !== undefined) longOption(table, e.long);
      else if (e.short !== undefined && !table.byShort.has(e.short)) throw unknownShort(e.short, argv[e.at] ?? '');
      throw e.error;
    },
  }));
  for (const o of r.occurrences) {
    const { long, short } = r.spelled.get(o) ?? {};
    events.push({
      at: o.at,
      check: () => {
        if (long !== undefined) longOption(table, long);
        else if (short !== undefined && table.byShort.get(short) !== o.def) throw unknownShort(short, argv[o.at] ?? '');
      },
    });
  }
  events.sort((a, b) => a.at - b.at);
  for (const e of events) {
    try {
      e.check();
    } catch (err) {
      if (err instanceof UsageError) return err;
      throw err;
    }
  }
  return undefined;
}

function parsed(r: Reading, command: ParsedArgs['command'], error: UsageError | undefined): ParsedArgs {
  return { command, occurrences: r.occurrences, ...total(r.occurrences), positionals: r.positionals, positionalAt: r.positionalAt, error };
}

/** argv read against one table (the main command's unless told): the first error is thrown. */
export function parseArgv(argv: readonly string[], table: OptionTable = MAIN_TABLE): ParsedArgs {
  const r = read(argv, table);
  if (r.errors[0]) throw r.errors[0].error;
  return parsed(r, table === EXEC_TABLE ? 'exec' : 'main', undefined);
}

/**
 * The command line, read once: `sling exec ...`, or options first and then `exec` as the first word
 * that is not an option (`sling -v --timeout 5 exec api.http`), is `sling exec`; anything else the
 * main command. Errors are not thrown but kept in `error` (the first, in argv order).
 */
export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  // Words of their own, first on the line; -h alone is help, as it is beside exec (elsewhere -h is --headers).
  const words = (command: 'help' | 'completions', positionals: readonly string[]): ParsedArgs => ({
    command,
    ...total([]),
    occurrences: [],
    positionals: [...positionals],
    positionalAt: positionals.map((_, k) => argv.length - positionals.length + k),
  });
  if (argv.length === 1 && argv[0] === '-h') return words('help', []);
  if (argv[0] === 'help' && argv.length <= 2) return words('help', argv.slice(1));
  if (argv[0] === 'completions') return words('completions', argv.slice(1));
  if (argv.length === 2 && argv.includes('exec') && argv.includes('-h')) return words('help', ['exec']);
  if (argv[0] === 'exec') {
    const r = read(argv.slice(1), EXEC_TABLE);
    return parsed(r, 'exec', r.errors[0]?.error);
  }
  if (!argv.includes('exec')) {
    const r = read(argv, MAIN_TABLE);
    return parsed(r, 'main', r.errors[0]?.error);
  }
  // Both commands' options, until the first word says which command it is; then that command's
  // table checks what was read. A line with a word that is no option of either is the main
  // command's (which reports it): what follows that word is not known.
  const r = read(argv, bothTables());
  const exec = !r.errors.some((e) => e.name) && r.firstPositionalAt !== undefined && r.positionals[0] === 'exec';
  if (exec) {
    r.positionals.shift();
    r.positionalAt.shift();
  }
  const table = exec ? EXEC_TABLE : MAIN_TABLE;
  return parsed(r, exec ? 'exec' : 'main', firstError(r, table, argv));
}

/** Options read on their own (config.json's default_options), for the main command: the first error is thrown. */
export function parseOptions(args: readonly string[]): ParsedArgs {
  const r = read(args, MAIN_TABLE);
  if (r.errors[0]) throw r.errors[0].error;
  return parsed(r, 'main', undefined);
}

/** `first`'s options, then `then`'s (config.json's defaults, then the command line), added up again. */
export function joined(first: ParsedArgs, then: ParsedArgs): ParsedArgs {
  const occurrences = [...first.occurrences, ...then.occurrences];
  return {
    ...then,
    occurrences,
    ...total(occurrences),
    positionals: [...first.positionals, ...then.positionals],
    positionalAt: [...first.positionalAt.map(() => -1), ...then.positionalAt],
  };
}

/**
 * curl's `--compressed`: sling always asks for compressed answers (Accept-Encoding) and decodes
 * them, so it changes nothing; `Invocation.compressed` has main say so in a note.
 */
const CURL_COMPRESSED: OptionDef = { long: 'compressed', kind: 'flag', group: 'curl', help: 'not needed: sling always asks for compressed answers and decodes them' };

/** Every long spelling of a table: the names, and `no-NAME` for options that take no value. */
const SPELLINGS = new WeakMap<OptionTable, Map<string, { def: OptionDef; negated: boolean }>>();
function spellings(table: OptionTable): Map<string, { def: OptionDef; negated: boolean }> {
  const known = SPELLINGS.get(table);
  if (known) return known;
  const all = new Map<string, { def: OptionDef; negated: boolean }>();
  SPELLINGS.set(table, all);
  for (const def of table.options) all.set(def.long, { def, negated: false });
  for (const def of table.options) if (def.kind !== 'value' && !all.has('no-' + def.long)) all.set('no-' + def.long, { def, negated: true });
  return all;
}

/**
 * A long option by its name (without `--`), or by an unambiguous prefix of it, as HTTPie (argparse)
 * takes them: `--foll` is `--follow`, `--no-fol` is `--no-follow`. An ambiguous prefix is an error
 * naming the candidates; an unknown name, one suggesting the nearest (`--folow`: did you mean --follow?).
 */
function longOption(table: OptionTable, name: string): { def: OptionDef; negated: boolean; spelled: string } {
  const all = spellings(table);
  const exact = all.get(name);
  if (exact) return { ...exact, spelled: name };
  // curl's habit, outside the table (not in --help, no prefix of it, no --no- form): a no-op with a note.
  if (name === 'compressed') return { def: CURL_COMPRESSED, negated: false, spelled: name };
  const matches = name.length > 0 ? [...all.keys()].filter((s) => s.startsWith(name)) : [];
  if (matches.length === 1) return { ...all.get(matches[0]!)!, spelled: matches[0]! };
  if (matches.length > 1) {
    const list = matches.sort().map((m) => '--' + m);
    throw new UsageError(`ambiguous option '--${name}': it could be ${list.slice(0, -1).join(', ')} or ${list.at(-1)}`);
  }
  const near = nearest(name, [...all.keys()]);
  throw new UsageError(`unknown option '--${name}'${near ? ` (did you mean --${near}?)` : ''}`, 'see sling --help for the list of options');
}

/** The spelling closest to a misspelled name, when it is near enough to be what was meant. */
function nearest(name: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = name.length <= 4 ? 1 : 2;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d <= limit && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn a into b. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const row = rows[i]!;
      const prev = rows[i - 1]!;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
  }
  return rows[a.length]![b.length]!;
}
