import { values, type Arg } from './options.js';
import type { JudgeArgv } from './programs.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

const GIT_READ = new Set(
  ('status log diff show blame rev-parse ls-files ls-tree cat-file describe shortlog grep rev-list name-rev merge-base ' +
    'for-each-ref show-ref whatchanged count-objects version').split(' '),
);
/**
 * Subcommands that list with only listing options and change things with
 * other words. `git stash` alone is `git stash push`, so it needs a word;
 * the others list when given none.
 */
const GIT_LISTING: Record<string, RegExp> = {
  branch: /^(-a|--all|-r|--remotes|-v|-vv|--verbose|-l|--list|--show-current|--merged|--no-merged|--contains|--no-color|--color)$/,
  tag: /^(-l|--list|-n\d*|--contains|--merged|--sort=.*)$/,
  remote: /^(-v|--verbose|show|get-url)$/,
  stash: /^(list|show)$/,
  config: /^(--list|-l|--show-origin|--global|--local|--system)$/,
  reflog: /^(show)$/,
};
/** `-c` keys that only change how output looks; `alias.*` and keys naming a program run code. */
const HARMLESS_CONFIG = /^(color\..*|core\.quotepath|log\..*|user\.name|user\.email|advice\..*|i18n\..*|core\.abbrev|diff\.noprefix|diff\.mnemonicprefix)$/;
const CODE_CONFIG = /^(alias\..*|core\.(pager|sshcommand|fsmonitor|hookspath|editor|askpass|gitproxy)|pager\..*|diff\..*\.(textconv|command)|diff\.external|filter\..*|credential\..*|sequence\.editor|gpg\..*program|include\..*|includeif\..*|uploadpack\..*|protocol\..*)$/;

/**
 * git: the read-only subcommands ALLOW; history rewriting (reset, clean,
 * push --force, filter-branch) and rm DENY; everything else ASK. `-c` may
 * define aliases or programs git runs: only display keys pass.
 */
export function judgeGit(args: readonly Arg[]): Verdict {
  let verdict = allow('git reads the repository');
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === undefined) return deny('a git option or subcommand is computed at run time');
    if (!word.startsWith('-')) break;
    if (word === '-c' || word === '-C') {
      const value = args[++i]?.value;
      if (value === undefined) return deny(`the value of git ${word} is computed at run time`);
      // -C runs git on another repository, whose config (core.fsmonitor, hooks) is not this workspace's: as --git-dir=.
      verdict = worst(verdict, word === '-c' ? gitConfig(value) : ask(`git -C ${value} runs git in another repository`));
      continue;
    }
    if (/^--(exec-path|config-env)/.test(word)) return deny(`git ${word} makes git run other programs`);
    if (/^(--no-pager|-P|-p|--paginate|--bare|--no-replace-objects|--literal-pathspecs|--no-optional-locks|--version|--help)$/.test(word)) continue;
    if (/^--(git-dir|work-tree|namespace)=/.test(word)) {
      verdict = worst(verdict, ask(`git ${word} points git at another repository`));
      continue;
    }
    return ask(`git has an option the classifier does not know (${word})`);
  }
  const sub = args[i]?.value;
  if (sub === undefined) return verdict;
  const rest = values(args.slice(i + 1));
  if (['reset', 'clean', 'filter-branch', 'filter-repo'].includes(sub)) return deny(`git ${sub} rewrites history or deletes work`);
  if (sub === 'rm' && !rest?.includes('--cached')) return deny('git rm deletes files');
  if (sub === 'push') {
    if (!rest) return deny('an argument of git push is computed at run time');
    const force = rest.find((w) => /^(-f|--force.*|--mirror|--delete|-d|--prune)$/.test(w) || /^-[a-z]*f/.test(w) || /^[+:]/.test(w));
    return force ? deny(`git push ${force} rewrites or deletes remote history`) : worst(verdict, ask('git push changes the remote'));
  }
  if (!rest) return worst(verdict, ask(`an argument of git ${sub} is computed at run time`));
  if (sub === 'config' && ['--get', '--get-all', '--get-regexp'].includes(rest[0] ?? '') && rest.length <= 3) return verdict;
  const listing = GIT_LISTING[sub];
  const lists = listing && (rest.length > 0 || sub !== 'stash') && rest.every((w) => listing.test(w));
  if (GIT_READ.has(sub) || lists) {
    // `git grep -iO` opens the files in a pager: -O anywhere in a cluster.
    const writes = rest.find((w) => /^(--output|-o$|--ext-diff|--open-files-in-pager)/.test(w) || /^-[a-zA-Z]*O/.test(w));
    return writes ? worst(verdict, ask(`git ${sub} ${writes} writes a file or runs a program`)) : verdict;
  }
  return worst(verdict, ask(`git ${sub} changes the repository`));
}

function gitConfig(pair: string): Verdict {
  const key = pair.split('=')[0]!.toLowerCase();
  if (CODE_CONFIG.test(key)) return deny(`git -c ${key} makes git run a command`);
  return HARMLESS_CONFIG.test(key) ? allow('') : ask(`git -c ${key} changes how git behaves`);
}

/** find's tests that take a value. */
const FIND_VALUED = new Set(
  ('-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -newer -anewer -cnewer -perm ' +
    '-user -group -uid -gid -size -mtime -mmin -atime -amin -ctime -cmin -maxdepth -mindepth -links -inum -samefile -printf ' +
    '-fstype -used -context -regextype -D -O').split(' '),
);
const FIND_FLAGS = new Set(
  ('-print -print0 -ls -prune -quit -empty -true -false -readable -writable -executable -depth -follow -xdev -mount -noleaf ' +
    '-daystart -nouser -nogroup -o -a -not -and -or ! ( ) , -H -L -P -ignore_readdir_race -noignore_readdir_race').split(' '),
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
      const end = args.findIndex((a, j) => j > i && (a.value === ';' || a.value === '+'));
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
