import { ask, deny, type Verdict } from './verdict.js';

/** One word of a command line: its value once quotes are removed, or undefined when only the run time knows it. */
export interface Arg {
  value: string | undefined;
}

/** The options a program takes before its operands. */
export interface OptionSpec {
  /** Options without a value (`-p`, `--verbose`). */
  flags?: readonly string[];
  /** Options that take the next word as their value (`-n 5`), also written `-n5` or `--name=5`. */
  valued?: readonly string[];
  /** Options that make the program write a file or run something: the call is at least ASK. */
  risky?: readonly string[];
}

export interface Parsed {
  /** The words after the options. */
  rest: Arg[];
  /** The valued options given, in order, with their values (undefined: computed at run time), however they were written. */
  taken: Array<{ option: string; value: string | undefined }>;
  /** ASK or DENY when an option says so or cannot be told apart. */
  verdict?: Verdict;
}

/**
 * Skips a program's options the way getopt does (stopping at `--` or the
 * first operand). A word only the run time knows could be any option, and an
 * option this table does not know could take a value and so hide where the
 * operands start: both stop the walk with a verdict instead of a guess.
 */
export function skipOptions(name: string, args: readonly Arg[], spec: OptionSpec): Parsed {
  const flags = new Set(spec.flags ?? []);
  const valued = new Set(spec.valued ?? []);
  const risky = new Set(spec.risky ?? []);
  let verdict: Verdict | undefined;
  const taken: Parsed['taken'] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === undefined) return { rest: [], taken, verdict: deny(`an option of ${name} is computed at run time`) };
    if (word === '--') {
      i++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    const [opt, inline] = word.startsWith('--') ? splitLong(word) : [word.slice(0, 2), word.length > 2 ? word.slice(2) : undefined];
    if (risky.has(opt)) verdict ??= ask(`${name} ${opt} writes a file or runs a program`);
    if (valued.has(opt) || (risky.has(opt) && !flags.has(opt))) {
      taken.push({ option: opt, value: inline ?? args[++i]?.value });
      continue;
    }
    if (flags.has(opt) && (inline === undefined || word.startsWith('--'))) continue;
    // Clustered short flags (-xv) are fine when each is a known flag.
    if (!word.startsWith('--') && [...word.slice(1)].every((c) => flags.has(`-${c}`))) continue;
    return { rest: [], taken, verdict: ask(`${name} has an option the classifier does not know (${opt})`) };
  }
  return verdict ? { rest: args.slice(i), taken, verdict } : { rest: args.slice(i), taken };
}

function splitLong(word: string): [string, string | undefined] {
  const eq = word.indexOf('=');
  return eq === -1 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)];
}

/** The words' values, or undefined when one of them is only known at run time. */
export function values(args: readonly Arg[]): string[] | undefined {
  const out: string[] = [];
  for (const arg of args) {
    if (arg.value === undefined) return undefined;
    out.push(arg.value);
  }
  return out;
}
