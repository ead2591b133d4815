import { UsageError } from '../errors.js';
import { MAIN_TABLE, type OptionDef, type OptionTable } from './options.js';

/** What argv said, before any meaning is given to it: options by long name, and the positionals. */
export interface ParsedArgs {
  flags: Map<string, boolean>;
  counts: Map<string, number>;
  values: Map<string, string[]>;
  /** Output-selection options in the order they appeared: the last one wins (DECISIONS.md). */
  printChoices: string[];
  positionals: string[];
  /** Where in argv the first positional stood (not counting those after `--`). */
  firstPositionalAt?: number;
}

const PRINT_SELECTORS = new Set(['print', 'headers', 'body', 'meta', 'verbose']);

/**
 * Splits argv the way HTTPie's parser does: options may stand anywhere, `--` ends them, short
 * options cluster (`-jv`, `-ax:y`, `-dco file`), `--name=value` and `--name value` both work, and
 * every flag has a `--no-NAME` form that undoes it (for defaults from a config file).
 */
export function parseArgv(argv: readonly string[], table: OptionTable = MAIN_TABLE): ParsedArgs {
  const BY_SHORT = table.byShort;
  const out: ParsedArgs = { flags: new Map(), counts: new Map(), values: new Map(), printChoices: [], positionals: [] };
  let i = 0;
  const takeValue = (def: OptionDef, spelled: string, inline: string | undefined): string => {
    if (inline !== undefined) return inline;
    if (i + 1 >= argv.length) throw new UsageError(`option ${spelled} needs a value (${def.metavar ?? 'VALUE'})`);
    return argv[++i]!;
  };
  const apply = (def: OptionDef, spelled: string, inline: string | undefined, negated = false) => {
    if (negated) {
      // Undone (a config file's default), and remembered as said: `sling exec --no-follow`.
      if (def.kind === 'flag') out.flags.set(def.long, false);
      else out.flags.delete(def.long);
      out.counts.delete(def.long);
      out.values.delete(def.long);
      if (PRINT_SELECTORS.has(def.long)) out.printChoices = out.printChoices.filter((c) => !c.startsWith(def.long));
      return;
    }
    if (def.kind === 'value') {
      const v = takeValue(def, spelled, inline);
      if (def.repeat) out.values.set(def.long, [...(out.values.get(def.long) ?? []), v]);
      else out.values.set(def.long, [v]);
      if (def.long === 'print') out.printChoices.push('print=' + v);
      return;
    }
    if (inline !== undefined) throw new UsageError(`option ${spelled} takes no value (got '${inline}')`);
    if (def.kind === 'count') out.counts.set(def.long, (out.counts.get(def.long) ?? 0) + 1);
    else out.flags.set(def.long, true);
    if (PRINT_SELECTORS.has(def.long)) out.printChoices.push(def.long);
  };

  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const inline = eq === -1 ? undefined : arg.slice(eq + 1);
      const found = longOption(table, name);
      if (found.negated && inline !== undefined) throw new UsageError(`option --${found.spelled} takes no value (got '${inline}')`);
      apply(found.def, '--' + found.spelled, inline, found.negated);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // A short cluster: letters until one that takes a value, which swallows the rest.
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        const def = BY_SHORT.get(letter);
        if (!def) {
          const what = arg.length > 2 ? `'-${letter}' (in '${arg}')` : `'-${letter}'`;
          throw new UsageError(`unknown option ${what}`, 'items that start with - go after --: sling URL -- -name=value');
        }
        if (def.kind === 'value') {
          let rest = arg.slice(j + 1);
          if (rest.startsWith('=')) rest = rest.slice(1);
          apply(def, '-' + letter, rest.length > 0 || arg[j + 1] === '=' ? rest : undefined);
          break;
        }
        if (arg[j + 1] === '=') throw new UsageError(`option -${letter} takes no value (got '${arg}')`);
        apply(def, '-' + letter, undefined);
      }
      continue;
    }
    out.firstPositionalAt ??= i;
    out.positionals.push(arg);
  }
  return out;
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
