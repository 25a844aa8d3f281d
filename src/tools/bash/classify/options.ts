import { ask, deny, worst, type Verdict } from './verdict.js';

/** One word of a command line: its value once quotes are removed, or undefined when only the run time knows it. */
export interface Arg {
  value: string | undefined;
  /** The word as written, when its value is only known at run time. */
  source?: string;
}

/** Judges the words of a nested command line (what xargs, find -exec or a wrapper run). */
export type JudgeArgv = (argv: readonly Arg[]) => Verdict;

/** The options a program takes before its operands. */
interface OptionSpec {
  /** Options without a value (`-p`, `--verbose`). */
  flags?: readonly string[];
  /** Options that take the next word as their value (`-n 5`), also written `-n5` or `--name=5`. */
  valued?: readonly string[];
  /** Short options whose value is only ever attached (`-i{}`, xargs's `-i[R]`): never the next word. */
  optional?: readonly string[];
  /** Options that make the program write a file or run something: the call is at least ASK. */
  risky?: readonly string[];
}

interface Parsed {
  /** The words after the options. */
  rest: Arg[];
  /** The valued options given, in order, with their values (undefined: computed at run time), however they were written. */
  taken: Array<{ option: string; value: string | undefined }>;
  /** ASK or DENY when an option says so or cannot be told apart. */
  verdict?: Verdict;
  /**
   * The words from an option the table does not know on, when the walk gave
   * up there: where the operands start is unknown, so the caller judges each
   * of them as a possible command (see judgeUnread).
   */
  unread?: Arg[];
}

/** Skips options as getopt does (to `--` or the first operand); a run-time word or an unknown option stops it with a verdict. */
export function skipOptions(name: string, args: readonly Arg[], spec: OptionSpec): Parsed {
  const flags = new Set(spec.flags ?? []);
  const valued = new Set(spec.valued ?? []);
  const risky = new Set(spec.risky ?? []);
  const optional = new Set(spec.optional ?? []);
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
    if (optional.has(opt)) continue;
    // Clustered short flags (-xv) are fine when each is a known flag.
    if (!word.startsWith('--') && [...word.slice(1)].every((c) => flags.has(`-${c}`))) continue;
    return { rest: [], taken, verdict: ask(`${name} has an option the classifier does not know (${opt})`), unread: args.slice(i) };
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

/** How many later words one give-up judges as whole command lines; past it (and inside one) each is judged by its name alone. */
const MAX_UNREAD_LINES = 32;
let unreadDepth = 0;

/** After an unknown option each later word may start the command: each is judged so, the worst winning (nested: by name). */
export function judgeUnread(verdict: Verdict, unread: readonly Arg[], judge: (argv: readonly Arg[]) => Verdict): Verdict {
  let lines = 0;
  for (let k = 0; k < unread.length; k++) {
    const word = unread[k]!.value;
    if (word === undefined || word.startsWith('-')) continue;
    const whole = unreadDepth === 0 && lines++ < MAX_UNREAD_LINES;
    unreadDepth++;
    try {
      verdict = worst(verdict, judge(whole ? unread.slice(k) : [unread[k]!]));
    } finally {
      unreadDepth--;
    }
  }
  return verdict;
}
