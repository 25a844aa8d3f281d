import { optionTable, readOptions, type OptionTable } from './getopt.js';
import { outsideBySpelling, type CoreNeeds, type CoreVerdict } from './inside.js';
import { allow, ask, worst, type Verdict } from './verdict.js';

/**
 * git's core: status, log, diff, show and a branch listing, with the options
 * below only, from the workspace root (see judge.ts: no cd before it), on
 * the workspace's own repository (checked on disk). No -c, -C, --git-dir,
 * --work-tree or --bare; no --output, --ext-diff, --textconv,
 * --show-signature or --no-index; no format placeholder that checks a
 * signature (%G…, which runs gpg).
 */
const LOG_SPEC =
  '-# -n: -p -u -s -i -w -b -S: -G: -U: -M:: --oneline --stat[=] --shortstat --numstat --name-only --name-status --summary --patch --no-patch ' +
  '--graph --all --decorate[=] --no-decorate --abbrev-commit --no-abbrev-commit --reverse --merges --no-merges --first-parent --follow ' +
  '--date= --relative-date --since= --after= --until= --before= --author= --committer= --grep= --regexp-ignore-case --max-count= --skip= ' +
  '--format= --pretty[=] --color[=] --no-color --no-ext-diff --no-textconv --topo-order --date-order --word-diff[=] --unified= --diff-filter= ' +
  '--no-renames --ignore-all-space --ignore-space-change --minimal --histogram --patience --compact-summary --no-prefix --abbrev[=] --no-notes';
const GIT_CORE: Record<string, OptionTable> = {
  status: optionTable(
    'git status',
    '-sbz -u:: --short --branch --porcelain[=] --long --untracked-files[=] --ignored[=] --ahead-behind --no-ahead-behind --renames --no-renames',
  ),
  log: optionTable('git log', LOG_SPEC),
  show: optionTable('git show', LOG_SPEC),
  diff: optionTable('git diff', `${LOG_SPEC} -R --cached --staged --check --exit-code --quiet`),
  branch: optionTable('git branch', '-arvl --all --remotes --verbose --list --show-current --no-color'),
};
/** Formats git knows by name; any other name is a `pretty.<name>` of the configuration. */
const PRETTY = new Set('oneline short medium full fuller reference email raw'.split(' '));

export function judgeCoreGit(words: readonly string[], needs: CoreNeeds): CoreVerdict {
  let i = 0;
  while (words[i] === '--no-pager' || words[i] === '-P') i++;
  const sub = words[i];
  const table = sub === undefined ? undefined : GIT_CORE[sub];
  if (!table)
    return { verdict: ask(`without a sandbox, git ${words[i] ?? ''} is not in the inert core (status, log, diff, show, branch)`), needs };
  needs.git = true;
  needs.walks = true;
  const rest = words.slice(i + 1).map((value) => ({ value }));
  const read = readOptions(`git ${sub}`, rest, table, { words: false });
  let verdict = worst(allow(`git ${sub} reads the repository`), read.verdict);
  for (const { option, value } of read.options) {
    if ((option === '--format' || option === '--pretty') && value !== undefined) verdict = worst(verdict, gitFormat(value));
  }
  if (sub === 'branch' && read.operands.length > 0 && !read.options.some((o) => o.option === '-l' || o.option === '--list'))
    verdict = worst(verdict, ask('git branch NAME creates a branch'));
  // Before `--` a word may be a revision (`HEAD~2..HEAD`), and git refuses a path that leaves the repository; an absolute one is asked for.
  const dashes = rest.findIndex((w) => w.value === '--');
  const paths = dashes === -1 ? [] : rest.slice(dashes + 1).map((w) => w.value);
  // `git diff ../x f` compares files outside the repository (--no-index implied): no operand leaves it by its spelling.
  for (const value of [...read.operands.map((o) => o.value!), ...paths]) {
    const outside = outsideBySpelling(value);
    if (outside) verdict = worst(verdict, ask(`without a sandbox, git reads only inside the workspace: ${outside}`));
  }
  return { verdict, needs };
}

/** A --format or --pretty value: a named format, or placeholders none of which checks a signature. */
function gitFormat(value: string): Verdict {
  const body = value.replace(/^t?format:/, '');
  if (/%[-+ ]?G/.test(body)) return ask('a %G placeholder checks a signature, which runs gpg');
  if (!value.includes('%') && !value.startsWith('format:') && !value.startsWith('tformat:') && !PRETTY.has(value)) {
    return ask(`--format=${value} names a format the repository's configuration defines`);
  }
  return allow('a format of placeholders');
}
