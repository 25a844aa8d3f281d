import { dangerousVariable } from './variables.js';
import { judgeFind, judgeGit } from './git-find.js';
import { skipOptions, values, type Arg } from './options.js';
import { judgeAwk, judgeSed } from './scripts.js';
import { allow, ask, worst, type Verdict } from './verdict.js';

/** Judges the words of a nested command line (what xargs or find -exec run). */
export type JudgeArgv = (argv: readonly Arg[]) => Verdict;

/** Read-only programs that some options or operands turn into writers or runners. */
export const PROGRAMS: Record<string, (args: readonly Arg[], judge: JudgeArgv) => Verdict> = {
  git: judgeGit,
  find: (args, judge) => judgeFind(args, judge),
  xargs: judgeXargs,
  sed: judgeSed,
  awk: judgeAwk,
  gawk: judgeAwk,
  mawk: judgeAwk,
  sort: (args) => risky('sort', args, /^(-o|--output|--compress-program)/),
  rg: (args) => risky('rg', args, /^(--pre|--pre-glob|--hostname-bin)/),
  tree: (args) => risky('tree', args, /^-o/),
  date: (args) => risky('date', args, /^(-s|--set)/),
  xxd: (args) => (operands(args) > 1 ? ask('xxd writes its second operand') : risky('xxd', args, /^-r/)),
  uniq: (args) => (operands(args) > 1 ? ask('uniq writes its second operand') : risky('uniq', args)),
  file: (args) => risky('file', args, /^(-C|--compile)/),
  test: judgeTest,
  '[': judgeTest,
  hostname: (args) => (operands(args) > 0 ? ask('hostname with an operand renames the host') : allow('hostname prints the name')),
  printf: (args) => (args[0]?.value === '-v' ? variableNames('printf -v', args.slice(1, 2)) : allow('printf prints')),
  read: (args) => variableNames('read', args.filter((a) => !a.value?.startsWith('-'))),
  wait: (args) => risky('wait', args, /^-[a-z]*p/),
  set: judgeSet,
};

/**
 * ALLOW unless an argument is only known at run time or matches `pattern`
 * (an option that writes or runs a program).
 */
function risky(name: string, args: readonly Arg[], pattern?: RegExp): Verdict {
  const words = values(args);
  if (!words) return ask(`an argument of ${name} is computed at run time and could be an option that writes`);
  const bad = pattern && words.find((w) => pattern.test(w));
  return bad ? ask(`${name} ${bad} writes a file or runs a program`) : allow(`${name} is read-only`);
}

/** test and [ only test; -v and -R evaluate the subscript of the name they are given (`a[$(cmd)]`). */
function judgeTest(args: readonly Arg[]): Verdict {
  return args.some((a) => a.value === '-v' || a.value === '-R') ? ask('test -v evaluates an array subscript') : allow('test only tests');
}

const operands = (args: readonly Arg[]) => args.filter((a) => a.value === undefined || !a.value.startsWith('-')).length;

/**
 * Builtins that set the variables they name: PATH and its kin are DENY (see
 * dangerousVariable), and a name with a subscript (`a[$(cmd)]`) makes bash
 * evaluate the subscript as arithmetic, running what is in it.
 */
function variableNames(name: string, args: readonly Arg[]): Verdict {
  const words = values(args);
  if (!words) return ask(`a variable name given to ${name} is computed at run time`);
  for (const word of words) {
    const danger = dangerousVariable(word.split('[')[0]!);
    if (danger) return danger;
  }
  return words.some((w) => w.includes('[')) ? ask(`${name} into an array element evaluates its subscript`) : allow(`${name} sets shell variables`);
}

/** `set -e`, `set -o pipefail` … change the shell's options; others (`set -T`, positional words) are ASK. */
function judgeSet(args: readonly Arg[]): Verdict {
  const words = values(args);
  const fine = /^([-+][euxvfCBnhbm]+|-o|\+o|--|pipefail|errexit|nounset|xtrace|noclobber|verbose|noglob)$/;
  return words && words.every((w) => fine.test(w)) ? allow('set changes shell options') : ask('set with arguments the classifier does not know');
}

/** xargs runs its command with words read from its input added: a program whose safety depends on its arguments is at least ASK. */
function judgeXargs(args: readonly Arg[], judge: JudgeArgv): Verdict {
  const { rest, verdict } = skipOptions('xargs', args, {
    flags: ['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-p', '--interactive', '-x', '--exit', '-o', '--open-tty'],
    valued: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '--replace', '-L', '--max-lines', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var', '--eof'],
  });
  if (verdict) return verdict;
  if (rest.length === 0) return allow('xargs alone echoes its input');
  const inner = judge(rest);
  const name = rest[0]!.value?.split('/').pop() ?? '';
  return ['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'echo', 'stat', 'file', 'du', 'basename', 'dirname', 'md5sum', 'sha256sum'].includes(name)
    ? inner
    : worst(inner, ask(`xargs adds words from its input to ${name || 'a command'}`));
}
