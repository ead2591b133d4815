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
  const BY_LONG = table.byLong;
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
      let def = BY_LONG.get(name);
      if (def) {
        apply(def, '--' + name, inline);
        continue;
      }
      if (name.startsWith('no-') && (def = BY_LONG.get(name.slice(3))) && def.kind !== 'value' && inline === undefined) {
        apply(def, '--' + name, undefined, true);
        continue;
      }
      throw new UsageError(`unknown option '--${name}'`, 'see sling --help for the list of options');
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
