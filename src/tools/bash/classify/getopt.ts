import type { Arg } from './options.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

/** How an option takes a value: none, the next word or the rest of its word, or only attached (`--color=auto`, `-w8`). */
type Arity = 'flag' | 'value' | 'optional';

/** One option of a program: how it takes a value, and, when it is not read-only, what it does instead. */
interface Option {
  arity: Arity;
  risk?: Verdict;
}

/** A program's whole option table, read from its spec once. */
export interface OptionTable {
  short: ReadonlyMap<string, Option>;
  long: ReadonlyMap<string, Option>;
  /** `-NUM` (`head -5`, `seq -3 3`) is an option or operand of its own. */
  numeric: boolean;
  /** Whether an option the table lists is not read-only: a word only the run time knows could be it. */
  risky: boolean;
}

/** How a program reads its words. */
export interface Style {
  /** Options stop at the first operand (`env`, `timeout`, `xargs`: what follows is the command they run); otherwise GNU permutation. */
  posix?: boolean;
  /** A unique prefix names a long option (getopt_long); only for tables listing every long option the program has. */
  prefixes?: boolean;
  /** Each option is a word of its own, never a cluster (xxd reads `-pl` as `-p`). */
  words?: boolean;
}

/**
 * Reads a spec of a program's options, tokens separated by spaces: `-abc`
 * flags a, b and c; `-k:` a short option taking a value; `-w::` one whose
 * value is only attached; `-#` the `-NUM` form; `--name` a long flag,
 * `--name=` one taking a value, `--name[=]` one whose value is only attached.
 * A token starting `?` is an option that writes or runs (ASK), `!` one that
 * runs a command line the classifier cannot see (DENY).
 */
export function optionTable(name: string, spec: string): OptionTable {
  const short = new Map<string, Option>();
  const long = new Map<string, Option>();
  let numeric = false;
  let risky = false;
  for (let token of spec.split(/\s+/).filter(Boolean)) {
    let risk: Verdict | undefined;
    if (token.startsWith('?') || token.startsWith('!')) {
      const opt = token.slice(1).replace(/[:=[\]]+$/, '');
      risk = token.startsWith('?')
        ? ask(`${name} ${opt} writes a file or runs a program`)
        : deny(`${name} ${opt} runs a command line the classifier cannot see`);
      risky = true;
      token = token.slice(1);
    }
    if (token === '-#') numeric = true;
    else if (token.startsWith('--')) {
      const arity: Arity = token.endsWith('[=]') ? 'optional' : token.endsWith('=') ? 'value' : 'flag';
      long.set(token.replace(/(\[=\]|=)$/, ''), { arity, risk });
    } else if (token.endsWith('::')) short.set(token[1]!, { arity: 'optional', risk });
    else if (token.endsWith(':')) short.set(token[1]!, { arity: 'value', risk });
    else for (const c of token.slice(1)) short.set(c, { arity: 'flag', risk });
  }
  return { short, long, numeric, risky };
}

/** A program's words read as it reads them: the options given with their values, its operands, and the verdict on the options. */
export interface Read {
  options: Array<{ option: string; value: string | undefined }>;
  operands: Arg[];
  /** ALLOW when every word is an option the table knows to be safe or an operand. */
  verdict: Verdict;
  /** Whether a word only the run time knows could be an option: no harm unless the table lists one that is not read-only. */
  computed: boolean;
}

/**
 * Reads `args` as getopt_long does (GNU permutation unless `posix`, clusters, `--name=value`, unique prefixes); an option the table does
 * not list is ASK.
 */
export function readOptions(name: string, args: readonly Arg[], table: OptionTable, style: Style = {}): Read {
  const read: Read = { options: [], operands: [], verdict: allow(`${name} reads`), computed: false };
  const note = (v: Verdict) => (read.verdict = worst(read.verdict, v));
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === undefined) {
      if (options) read.computed = true;
      read.operands.push(args[i]!);
      continue;
    }
    if (!options || !word.startsWith('-') || word === '-' || (table.numeric && /^-[0-9]+$/.test(word))) {
      if (table.numeric && options && word.startsWith('-') && word !== '-') read.options.push({ option: '-#', value: word.slice(1) });
      else {
        read.operands.push(args[i]!);
        if (style.posix) options = false;
      }
      continue;
    }
    if (word === '--') {
      options = false;
      continue;
    }
    const take = (option: string, known: Option | undefined, attached: string | undefined, canTakeNext: boolean) => {
      if (!known) {
        note(ask(`${option} is not an option of ${name} known to be read-only`));
        return;
      }
      if (known.risk) note(known.risk);
      let value = attached;
      if (known.arity === 'flag' && attached !== undefined) note(ask(`${option} takes no value`));
      if (known.arity === 'value' && attached === undefined && canTakeNext) {
        value = args[++i]?.value;
        if (i >= args.length) note(ask(`${option} lacks its value`));
      }
      read.options.push({ option, value });
    };
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const written = eq === -1 ? word : word.slice(0, eq);
      const option = resolveLong(written, table, style.prefixes === true);
      take(option ?? written, option === undefined ? undefined : table.long.get(option), eq === -1 ? undefined : word.slice(eq + 1), true);
      continue;
    }
    if (style.words) {
      // A whole word names its option; else a first letter taking a value has the rest of the word as that value.
      const whole = table.short.get(word.slice(1));
      const head = table.short.get(word[1]!);
      if (whole || !head || head.arity === 'flag') take(word, whole, undefined, true);
      else take(word.slice(0, 2), head, word.slice(2), false);
      continue;
    }
    for (let k = 1; k < word.length; k++) {
      const option = `-${word[k]}`;
      const known = table.short.get(word[k]!);
      if (known && known.arity !== 'flag') {
        take(option, known, k + 1 < word.length ? word.slice(k + 1) : undefined, known.arity === 'value');
        break;
      }
      take(option, known, undefined, false);
      if (!known) break;
    }
  }
  return read;
}

/** The long option `written` names: itself when listed, else with `prefixes` the one listed option it is a prefix of. */
function resolveLong(written: string, table: OptionTable, prefixes: boolean): string | undefined {
  if (table.long.has(written)) return written;
  if (!prefixes || written.length < 3) return undefined;
  const named = [...table.long.keys()].filter((k) => k.startsWith(written));
  return named.length === 1 ? named[0] : undefined;
}

/**
 * The verdict on a program's words: a word only the run time knows is ASK where it could be a risky option, as is an operand past
 * `maxOperands`.
 */
export function judgeOptions(name: string, read: Read, table: OptionTable, maxOperands?: [count: number, why: string]): Verdict {
  let verdict = read.verdict;
  if (read.computed && table.risky)
    verdict = worst(verdict, ask(`an argument of ${name} is computed at run time and could be an option that writes or runs`));
  // A word only the run time knows may split into several operands.
  if (maxOperands && (read.operands.length > maxOperands[0] || read.operands.some((a) => a.value === undefined)))
    verdict = worst(verdict, ask(maxOperands[1]));
  return verdict;
}
