import type { Arg, JudgeArgv } from './options.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

/** find's tests that take a value. */
const FIND_VALUED = new Set(
  (
    '-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -newer -anewer -cnewer -perm ' +
    '-user -group -uid -gid -size -mtime -mmin -atime -amin -ctime -cmin -maxdepth -mindepth -links -inum -samefile -printf ' +
    '-fstype -used -context -regextype -D -O'
  ).split(' '),
);
const FIND_FLAGS = new Set(
  (
    '-print -print0 -ls -prune -quit -empty -true -false -readable -writable -executable -depth -follow -xdev -mount -noleaf ' +
    '-daystart -nouser -nogroup -o -a -not -and -or ! ( ) , -H -L -P -ignore_readdir_race -noignore_readdir_race'
  ).split(' '),
);

/** find: ALLOW as a search; -delete DENY; -exec and its kin run a command (at least ASK, and judged); -fprint and -fls write. */
export function judgeFind(args: readonly Arg[], judge: JudgeArgv): Verdict {
  let verdict = allow('find searches');
  let i = 0;
  // find [-H] [-L] [-P] [-D opts] [-Olevel] [--] [path…] [expression]
  while (/^-([HLP]|O\d*|D)$/.test(args[i]?.value ?? '')) i += args[i]!.value === '-D' ? 2 : 1;
  if (args[i]?.value === '--') i++;
  while (i < args.length && args[i]!.value !== undefined && !/^[-(!]/.test(args[i]!.value!)) i++;
  // A word the walk cannot read does not end it: a later -delete or -exec is still judged.
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === undefined) {
      verdict = worst(verdict, ask('a find expression word is computed at run time'));
      continue;
    }
    if (word === '-delete') return deny('find -delete deletes files');
    if (/^-(exec|execdir|ok|okdir)$/.test(word)) {
      // `;` ends the command; `+` only right after `{}` (`-exec env -u + rm x ;` runs rm).
      const end = args.findIndex((a, j) => j > i && (a.value === ';' || (a.value === '+' && args[j - 1]?.value === '{}')));
      const inner = args.slice(i + 1, end === -1 ? args.length : end);
      verdict = worst(verdict, worst(ask(`find ${word} runs a command`), judge(inner)));
      if (end === -1) return verdict;
      i = end;
      continue;
    }
    if (/^-(fprint|fprint0|fprintf|fls)$/.test(word)) {
      verdict = worst(verdict, ask(`find ${word} writes a file`));
      i++;
      continue;
    }
    if (FIND_VALUED.has(word) || /^-newer[aBcmt][aBcmt]$/.test(word)) i++;
    else if (!FIND_FLAGS.has(word)) verdict = worst(verdict, ask(`find has a test the classifier does not know (${word})`));
  }
  return verdict;
}
