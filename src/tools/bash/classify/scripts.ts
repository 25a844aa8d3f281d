import { optionTable, readOptions } from './getopt.js';
import type { Arg } from './options.js';
import { allow, ask, worst, type Verdict } from './verdict.js';

/** GNU sed's options (4.9): -i edits files in place, -f reads the script from a file the classifier does not read. */
const SED = optionTable(
  'sed',
  '-nErsuz -e: ?-f: -l: ?-i:: --quiet --silent --debug --expression= ?--file= --follow-symlinks ?--in-place[=] --line-length= --posix ' +
    '--regexp-extended --separate --sandbox --unbuffered --null-data --help --version',
);

/**
 * sed: ALLOW for scripts of commands that only print; -i, -f, and the w, W
 * and e commands or flags are ASK. GNU sed permutes its words: an `-e` after
 * the files (`sed p f -e '1e id'`) makes every operand a file, and the
 * scripts are the `-e` ones.
 */
export function judgeSed(args: readonly Arg[]): Verdict {
  const read = readOptions('sed', args, SED, { prefixes: true });
  if (read.computed) return worst(read.verdict, ask('an argument of sed is computed at run time and could be an option or a script'));
  const scripts = read.options.filter((o) => o.option === '-e' || o.option === '--expression').map((o) => o.value);
  if (scripts.length === 0) {
    if (read.operands.length === 0) return read.verdict;
    scripts.push(read.operands[0]!.value);
  }
  if (scripts.some((s) => s === undefined)) return worst(read.verdict, ask('a sed script is computed at run time'));
  return worst(
    read.verdict,
    scripts.every((s) => sedPrintsOnly(s!))
      ? allow('sed prints')
      : ask('the sed script may write files or run commands (w, W, e) or has a form the classifier does not read'),
  );
}

/** Whether a sed script is made only of commands that print or edit the stream, read without guessing. */
function sedPrintsOnly(script: string): boolean {
  let i = 0;
  const at = () => script[i];
  const regex = (delim: string): boolean => {
    for (i++; i < script.length && at() !== delim; i++) if (at() === '\\') i++;
    if (at() !== delim) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/[0-9$]/.test(at() ?? '')) while (/[0-9$~+]/.test(at() ?? '')) i++;
    else if (at() === '/') return regex('/');
    else if (at() === '\\') {
      i++;
      return regex(at() ?? '');
    }
    return true;
  };
  while (i < script.length) {
    while (/[\s;]/.test(at() ?? '')) i++;
    if (i >= script.length) break;
    if (!address()) return false;
    if (at() === ',') {
      i++;
      if (!address()) return false;
    }
    while (/[\s!]/.test(at() ?? '')) i++;
    const cmd = at();
    i++;
    if (cmd === undefined) return false;
    if (cmd === '{') continue;
    if (cmd === 's' || cmd === 'y') {
      const delim = at();
      if (delim === undefined || delim === '\\' || delim === '\n') return false;
      if (!regex(delim)) return false;
      i--;
      if (!regex(delim)) return false;
      while (cmd === 's' && /[gpiImM0-9]/.test(at() ?? '')) i++;
    } else if (/[}pdDnNqQ=lPgGhHxzF]/.test(cmd)) {
      while (/[0-9]/.test(at() ?? '')) i++;
    } else if (/[btT:]/.test(cmd)) {
      // GNU sed ends a label at whitespace or `;`: what follows is another command, which must be a separator here.
      while (at() === ' ' || at() === '\t') i++;
      while (/[A-Za-z0-9_.-]/.test(at() ?? '')) i++;
    } else if (/[aic]/.test(cmd)) {
      while (i < script.length && at() !== '\n') i++;
    } else return false;
    while (at() === ' ' || at() === '\t') i++;
    if (i < script.length && !/[;\n}]/.test(at()!)) return false;
  }
  return true;
}
