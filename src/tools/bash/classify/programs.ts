import { dangerousVariable } from './variables.js';
import { judgeFind, judgeGit } from './git-find.js';
import { findRisky, judgeUnread, skipOptions, values, type Arg, type RiskSpec } from './options.js';
import { judgePs, judgeRootRead } from './proc.js';
import { judgeAwk } from './awk.js';
import { judgeSed } from './scripts.js';
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
  nawk: judgeAwk,
  sort: (args) => risky('sort', args, { short: 'o', long: ['--output', '--compress-program'], valued: 'ktST' }),
  rg: (args) => judgeRootRead('rg', args, true) ?? risky('rg', args, { long: ['--pre', '--pre-glob', '--hostname-bin'] }),
  grep: (args) => judgeRootRead('grep', args, false) ?? allow('grep is read-only'),
  egrep: (args) => judgeRootRead('egrep', args, false) ?? allow('egrep is read-only'),
  fgrep: (args) => judgeRootRead('fgrep', args, false) ?? allow('fgrep is read-only'),
  cd: (args) => judgeRootRead('cd', args, true) ?? allow('cd changes the folder'),
  pushd: (args) => judgeRootRead('pushd', args, true) ?? allow('pushd changes the folder'),
  // -R with -H writes a 00Tree.html into every folder.
  tree: (args) => risky('tree', args, { short: 'oR', valued: 'LPIHT' }),
  date: (args) => risky('date', args, { short: 's', long: ['--set'], valued: 'dfr', attached: 'I' }),
  xxd: (args) => risky('xxd', args, { short: 'r', valued: 'cglosn' }, 'xxd writes its second operand'),
  uniq: (args) => risky('uniq', args, { valued: 'fsw' }, 'uniq writes its second operand'),
  file: (args) => risky('file', args, { short: 'C', long: ['--compile'], valued: 'mfFeP' }),
  test: judgeTest,
  '[': judgeTest,
  hostname: (args) => {
    const { found, computed, operands } = findRisky(args, { short: 'F', long: ['--file'] });
    return found || computed || operands > 0 ? ask('hostname with an operand or -F renames the host') : allow('hostname prints the name');
  },
  printf: (args) => (args[0]?.value === '-v' ? variableNames('printf -v', args.slice(1, 2)) : allow('printf prints')),
  read: (args) => variableNames('read', args.filter((a) => !a.value?.startsWith('-'))),
  wait: (args) => risky('wait', args, { short: 'p' }),
  set: judgeSet,
  ps: judgePs,
};

/**
 * ALLOW unless an option that writes or runs is given anywhere (see
 * findRisky), a word only the run time knows could be one, or, with
 * `second`, a second operand names the file the program writes.
 */
function risky(name: string, args: readonly Arg[], spec: RiskSpec, second?: string): Verdict {
  const { found, computed, operands } = findRisky(args, spec);
  if (found) return ask(`${name} ${found} writes a file or runs a program`);
  if (computed) return ask(`an argument of ${name} is computed at run time and could be an option that writes`);
  return second && operands > 1 ? ask(second) : allow(`${name} is read-only`);
}

/** test and [ only test; -v and -R evaluate the subscript of the name they are given (`a[$(cmd)]`). */
function judgeTest(args: readonly Arg[]): Verdict {
  return args.some((a) => a.value === '-v' || a.value === '-R') ? ask('test -v evaluates an array subscript') : allow('test only tests');
}

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
  const { rest, verdict, unread } = skipOptions('xargs', args, {
    // --replace[=R], --eof[=E], --max-lines[=N] take a value only after `=`; -i[R], -e[E], -l[N] only attached.
    flags: ['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-p', '--interactive', '-x', '--exit', '-o', '--open-tty', '--replace', '--eof', '--max-lines'],
    optional: ['-i', '-e', '-l'],
    valued: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'],
  });
  if (unread) return worst(judgeUnread(verdict!, unread, judge), ask('xargs adds words from its input to the command'));
  if (verdict) return verdict;
  if (rest.length === 0) return allow('xargs alone echoes its input');
  const inner = judge(rest);
  const name = rest[0]!.value?.split('/').pop() ?? '';
  return ['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'echo', 'stat', 'file', 'du', 'basename', 'dirname', 'md5sum', 'sha256sum'].includes(name)
    ? inner
    : worst(inner, ask(`xargs adds words from its input to ${name || 'a command'}`));
}
