import { optionTable, readOptions, type OptionTable } from './getopt.js';
import { values, type Arg } from './options.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

/**
 * Options of the log and diff family: how history and changes are shown. --output writes, --ext-diff and --textconv run drivers,
 * --show-signature runs gpg.
 */
const LOG_DIFF =
  '-# -puswbRzaiEFPW -n: -S: -G: -L: -M:: -C:: -B:: -U:: --oneline --stat[=] --shortstat --numstat --name-only --name-status --summary --patch ' +
  '--no-patch --graph --all --decorate[=] --no-decorate --abbrev-commit --no-abbrev-commit --reverse --merges --no-merges --first-parent --follow ' +
  '--cached --staged --color[=] --no-color --raw --full-history --date-order --author-date-order --topo-order --relative-date --no-walk[=] ' +
  '--left-right --cherry-pick --cherry-mark --cherry --boundary --parents --children --full-diff --check --ignore-all-space --ignore-space-change ' +
  '--ignore-blank-lines --ignore-space-at-eol --ignore-cr-at-eol --minimal --patience --histogram --no-renames --dirstat[=] --compact-summary ' +
  '--no-prefix --exit-code --quiet --binary --full-index --text --no-ext-diff --no-textconv --remotes[=] --branches[=] --tags[=] --source ' +
  '--use-mailmap --mailmap --no-mailmap --ignore-submodules[=] --color-moved[=] --no-color-moved --word-diff[=] --color-words[=] ' +
  '--unified= --find-renames[=] --find-copies[=] --break-rewrites[=] --relative[=] --abbrev[=] --function-context --regexp-ignore-case ' +
  '--all-match --invert-grep --extended-regexp --fixed-strings --basic-regexp --perl-regexp --merge --max-count= --skip= --since= --after= ' +
  '--until= --before= --author= --committer= --grep= --format= --pretty[=] --date= --diff-filter= --pickaxe-all --pickaxe-regex ' +
  '--stat-width= --stat-count= --stat-name-width= --inter-hunk-context= --src-prefix= --dst-prefix= --line-prefix= --max-parents= ' +
  '--min-parents= --exclude= --glob= --diff-algorithm= --ws-error-highlight= --submodule[=] --no-notes --notes[=] --show-notes[=] ' +
  '--count --objects --objects-edge --no-index ?--output= ?--ext-diff ?--textconv ?--show-signature';

/** The read-only subcommands and every option of theirs known to be safe. */
const GIT_READ: Record<string, OptionTable> = {};
const readable = (subs: string, spec: string) => subs.split(' ').forEach((sub) => (GIT_READ[sub] = optionTable(`git ${sub}`, spec)));
readable('log show diff whatchanged rev-list', LOG_DIFF);
readable('shortlog', `${LOG_DIFF} -c -e --numbered --summary --email --committer --group= -w::`);
readable(
  'status',
  '-sbvz -u:: --short --branch --porcelain[=] --long --verbose --untracked-files[=] --ignored[=] --ignore-submodules[=] --column[=] --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames[=] --show-stash',
);
readable(
  'grep',
  '-# -iIwvhHEGPFnlLzocpWrqa -e: -f: -A: -B: -C: -m: ?-O:: --ignore-case --word-regexp --invert-match --full-name --extended-regexp --basic-regexp ' +
    '--perl-regexp --fixed-strings --line-number --column --files-with-matches --name-only --files-without-match --null --only-matching --count ' +
    '--color[=] --no-color --break --heading --show-function --after-context= --before-context= --context= --function-context --threads= ' +
    '--max-count= --max-depth= --recursive --no-recursive --and --or --not --all-match --quiet --cached --untracked --no-index --exclude-standard ' +
    '--no-exclude-standard --recurse-submodules --text ?--open-files-in-pager[=] ?--textconv',
);
readable(
  'blame',
  '-bfnpltsewc -L: -M:: -C:: -S: --root --show-stats --show-name --show-number --porcelain --line-porcelain --show-email --incremental --date= --abbrev[=] --color-lines --color-by-age --minimal --reverse --first-parent --since= --ignore-rev= --ignore-revs-file= --contents= --no-textconv ?--textconv',
);
readable(
  'rev-parse',
  '-q --abbrev-ref[=] --short[=] --verify --quiet --show-toplevel --git-dir --git-common-dir --absolute-git-dir --show-prefix --show-cdup ' +
    '--is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --symbolic --symbolic-full-name --all --branches[=] ' +
    '--tags[=] --remotes[=] --glob= --sq --sq-quote --default= --revs-only --no-revs --flags --no-flags --show-superproject-working-tree ' +
    '--show-object-format[=] --local-env-vars --git-path= --since= --until= --after= --before= --disambiguate= --not',
);
readable(
  'ls-files',
  '-cdmoiskuztvf -x: -X: --cached --deleted --modified --others --ignored --stage --unmerged --killed --directory --no-empty-directory --exclude-standard --error-unmatch --full-name --recurse-submodules --abbrev[=] --eol --deduplicate --exclude= --exclude-from= --exclude-per-directory= --format= --sparse',
);
readable('ls-tree', '-drtlz --long --name-only --name-status --object-only --full-name --full-tree --abbrev[=] --format=');
readable(
  'cat-file',
  '-tsepzZ --batch[=] --batch-check[=] --batch-all-objects --follow-symlinks --unordered --buffer --use-mailmap --no-use-mailmap --allow-unknown-type ?--textconv ?--filters ?--path=',
);
readable(
  'describe',
  '--tags --all --long --always --abbrev= --dirty[=] --broken[=] --exact-match --first-parent --contains --candidates= --match= --exclude=',
);
readable(
  'for-each-ref',
  '--format= --sort= --count= --points-at= --merged[=] --no-merged[=] --contains[=] --no-contains[=] --shell --perl --python --tcl --color[=] --ignore-case --omit-empty --exclude=',
);
readable('show-ref', '-dsq --head --tags --heads --branches --dereference --hash[=] --abbrev[=] --verify --quiet --exists');
readable('name-rev', '--tags --refs= --exclude= --all --name-only --no-undefined --always');
readable('merge-base', '-a --all --octopus --independent --is-ancestor --fork-point');
readable('count-objects', '-vH --verbose --human-readable');
readable('version', '--build-options');
/** Subcommands that list with only listing options (ALLOW) and change things with any other. */
const GIT_LISTING: Record<string, RegExp> = {
  branch: /^(-a|--all|-r|--remotes|-v|-vv|--verbose|-l|--list|--show-current|--merged|--no-merged|--contains|--no-color|--color)$/,
  tag: /^(-l|--list|-n\d*|--contains|--merged|--sort=.*)$/,
  remote: /^(-v|--verbose|show|get-url)$/,
  stash: /^(list|show)$/,
  config: /^(--list|-l|--show-origin|--global|--local|--system)$/,
  reflog: /^(show)$/,
};
/** `-c` keys that only change how output looks; `alias.*` and keys naming a program run code. */
const HARMLESS_CONFIG =
  /^(color\..*|core\.quotepath|log\..*|user\.name|user\.email|advice\..*|i18n\..*|core\.abbrev|diff\.noprefix|diff\.mnemonicprefix)$/;
const CODE_CONFIG =
  /^(alias\..*|core\.(pager|sshcommand|fsmonitor|hookspath|editor|askpass|gitproxy)|pager\..*|diff\..*\.(textconv|command)|diff\.external|filter\..*|credential\..*|sequence\.editor|gpg\..*program|include\..*|includeif\..*|uploadpack\..*|protocol\..*)$/;

/** git: the read-only subcommands ALLOW; history rewriting DENY; the rest ASK (docs/bash.md). */
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
    if (/^(--no-pager|-P|-p|--paginate|--no-replace-objects|--literal-pathspecs|--no-optional-locks|--version|--help)$/.test(word))
      continue;
    // --bare makes the current folder the repository: a folder of written files (HEAD, config naming a textconv) would be one.
    if (word === '--bare' || /^--(git-dir|work-tree|namespace)=/.test(word)) {
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
  if (listing && (rest.length > 0 || sub !== 'stash') && rest.every((w) => listing.test(w))) return verdict;
  const table = GIT_READ[sub];
  if (!table) return worst(verdict, ask(`git ${sub} changes the repository`));
  return worst(verdict, readOptions(`git ${sub}`, args.slice(i + 1), table, { words: true }).verdict);
}

function gitConfig(pair: string): Verdict {
  const key = pair.split('=')[0]!.toLowerCase();
  if (CODE_CONFIG.test(key)) return deny(`git -c ${key} makes git run a command`);
  return HARMLESS_CONFIG.test(key) ? allow('') : ask(`git -c ${key} changes how git behaves`);
}
