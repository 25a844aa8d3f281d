import { judgeCoreGit } from './core-git.js';
import { optionTable, readOptions, type OptionTable } from './getopt.js';
import { judgePaths, outsideBySpelling, type CoreNeeds, type CoreVerdict } from './inside.js';
import type { Arg } from './options.js';
import { allow, ask, worst } from './verdict.js';

/** How a row reads its operands: paths it opens, text it only prints or compares, or its own judge. */
type Operands = 'paths' | 'text';

interface Row {
  table: OptionTable;
  operands: Operands;
  /** At most this many operands (`uniq IN OUT` writes OUT). */
  max?: number;
  /** Operands the program reads as something else first (grep's pattern). */
  pattern?: (options: ReadonlyArray<{ option: string }>) => boolean;
}

const row = (name: string, spec: string, operands: Operands = 'paths', extra: Partial<Row> = {}): Row => ({
  table: optionTable(name, spec),
  operands,
  ...extra,
});

const NUMBERED = '-# -qvz -c: -n: --bytes= --lines= --quiet --silent --verbose --zero-terminated';

/**
 * The inert core: the programs ALLOW keeps without a sandbox, each with every accepted option reviewed (docs/bash.md, "The inert core").
 */
const CORE: Record<string, Row> = {
  // Prints files; its options only mark characters.
  cat: row('cat', '-AbeEnstTuv --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting'),
  // Print the first or last lines; tail without -f/-F/--pid/--retry (following waits, --pid watches a process).
  head: row('head', NUMBERED),
  tail: row('tail', NUMBERED),
  // Counts; not --files0-from (reads the names of the files to count from a file, which may name any path).
  wc: row('wc', '-cmlLw --bytes --chars --lines --max-line-length --words'),
  // Lists folders; not -L/-H/--dereference (would describe what a link outside points at).
  ls: row(
    'ls',
    '-aAbBcCdFgGhiklmnNopqQrRsStuUvxX1 -I: -w: --all --almost-all --directory --classify --human-readable --inode --recursive --reverse --size --color[=] --group-directories-first --sort= --time-style=',
  ),
  // Searches; -r does not follow links met in the recursion (-R would); not -f/--exclude-from (pattern files), -d/-D (devices).
  grep: row(
    'grep',
    '-EFGPiwxvcloLnHhsqzZITa -e: -m: -A: -B: -C: -r --regexp= --extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case ' +
      '--word-regexp --line-regexp --invert-match --count --files-with-matches --files-without-match --only-matching --line-number ' +
      '--with-filename --no-filename --no-messages --quiet --silent --null --null-data --max-count= --after-context= --before-context= ' +
      '--context= --recursive --include= --exclude= --exclude-dir= --color[=] --colour[=] --text',
    'paths',
    { pattern: (options) => !options.some((o) => o.option === '-e' || o.option === '--regexp') },
  ),
  // Sorts to stdout; not -o (writes), -T/--compress-program (temporary files, a compressor), --files0-from/--random-source (read files).
  sort: row(
    'sort',
    '-bdfgiMhnRrVcCsuz -k: -t: --ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting ' +
      '--month-sort --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --check --key= --field-separator= --stable --unique --zero-terminated',
  ),
  // `uniq IN OUT` writes OUT: one operand at most.
  uniq: row(
    'uniq',
    '-cdDiuz -f: -s: -w: --count --repeated --ignore-case --unique --zero-terminated --skip-fields= --skip-chars= --check-chars=',
    'paths',
    { max: 1 },
  ),
  cut: row(
    'cut',
    '-nsz -b: -c: -d: -f: --bytes= --characters= --delimiter= --fields= --complement --only-delimited --output-delimiter= --zero-terminated',
  ),
  nl: row('nl', '-p -b: -d: -f: -h: -i: -l: -n: -s: -v: -w:'),
  tac: row('tac', '-br -s: --before --regex --separator='),
  rev: row('rev', ''),
  comm: row('comm', '-123z --check-order --nocheck-order --output-delimiter= --total --zero-terminated'),
  // Compares two files; not -r (follows links inside the folders it walks), -X/--from-file (read other files), -l (runs pr).
  diff: row(
    'diff',
    '-qsuctiEbwBaNy -U: -C: -W: --brief --report-identical-files --unified[=] --context[=] --ignore-case --ignore-tab-expansion ' +
      '--ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines --text --new-file --color[=] --label= --minimal --side-by-side --width= --suppress-common-lines',
  ),
  cmp: row('cmp', '-blsv -i: -n: --print-bytes --ignore-initial= --verbose --bytes= --quiet --silent'),
  // Reads stdin only: its operands are character sets.
  tr: row('tr', '-cCdst --complement --delete --squeeze-repeats --truncate-set1', 'text'),
  base64: row('base64', '-di -w: --decode --ignore-garbage --wrap=', 'paths', { max: 1 }),
  // Checksums of the operands; not -c/--check (reads the names of files to check from a file).
  md5sum: row('md5sum', '-bz --binary --text --tag --zero'),
  sha1sum: row('sha1sum', '-bz --binary --text --tag --zero'),
  sha256sum: row('sha256sum', '-bz --binary --text --tag --zero'),
  sha512sum: row('sha512sum', '-bz --binary --text --tag --zero'),
  // Metadata of the operands themselves; not -L (the target of a link) or -f (the file system).
  stat: row('stat', '-t -c: --format= --printf= --terse'),
  // String operations on their operands, which they never open.
  basename: row('basename', '-az -s: --multiple --suffix= --zero', 'text'),
  dirname: row('dirname', '-z --zero', 'text'),
  seq: row('seq', '-# -w -f: -s: --format= --separator= --equal-width', 'text'),
  // Print who and where: no operand read as a file.
  whoami: row('whoami', '', 'text', { max: 0 }),
  uname: row(
    'uname',
    '-asnrvmpio --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system',
    'text',
    { max: 0 },
  ),
};

/** `date`: prints a date; an operand without `+` sets the clock, and -f/-r read files, -s sets it. */
const DATE = optionTable('date', '-uR -I:: -d: --date= --iso-8601[=] --rfc-email --rfc-3339= --utc --universal');

/** sed only as `sed -n 'N[,M]p' [file…]`: lines by number, no script that could write (w), read (r) or run (e). */
const SED_LINES = /^[0-9]+(,[0-9]+)?p$/;

/** Builtins of the core: they change nothing but the shell's folder, and that only downwards. */
const CORE_BUILTINS = new Set(['pwd', 'true', 'false', 'echo', 'printf']);

/** The none tier's verdict on one simple command, with what its on-disk checks need (CoreNeeds). */
export function judgeCore(argv: readonly Arg[], quotedOnly: readonly boolean[]): CoreVerdict {
  const needs: CoreNeeds = { paths: [] };
  const name = argv[0]?.value;
  if (name === undefined) return { verdict: ask('without a sandbox, a command name must be written out'), needs };
  const args = argv.slice(1);
  const printsOnly = name === 'echo' || name === 'printf';
  const computed = args.findIndex((a, i) => a.value === undefined && !(printsOnly && quotedOnly[i + 1]));
  if (computed !== -1) {
    return {
      verdict: ask(`without a sandbox, ${args[computed]!.source ?? 'a word'} is known only at run time: it could name any path or option`),
      needs,
    };
  }
  const words = args.map((a) => a.value ?? '');
  if (name === 'cd') return judgeCd(words, needs);
  if (name === 'test' || name === '[') {
    const outside = words.map(outsideBySpelling).find(Boolean);
    return {
      verdict: outside ? ask(`without a sandbox, test looks only inside the workspace: ${outside}`) : allow('test only tests'),
      needs,
    };
  }
  if (CORE_BUILTINS.has(name)) return { verdict: allow(`${name} is in the inert core`), needs };
  if (name === 'git') return judgeCoreGit(words, needs);
  if (name === 'find') return judgeCoreFind(words, needs);
  if (name === 'date') {
    const read = readOptions('date', args, DATE, {});
    const setter = read.operands.find((a) => !a.value!.startsWith('+'));
    return { verdict: setter ? ask(`date ${setter.value} sets the clock`) : read.verdict, needs };
  }
  if (name === 'sed') {
    // GNU sed reads options after the script too (`--expr=…`, `-i`): the files that follow are files only.
    const ok = words[0] === '-n' && SED_LINES.test(words[1] ?? '') && !words.slice(2).some((w) => w.startsWith('-') && w !== '-');
    if (!ok)
      return { verdict: ask("without a sandbox, sed runs only as sed -n 'N,Mp': a script may write (w), read (r) or run (e)"), needs };
    return judgePaths('sed', words.slice(2), needs, allow('sed prints lines by number'));
  }
  const core = CORE[name];
  if (!core) return { verdict: ask(`without a sandbox, ${name} is not in the inert core (docs/bash.md)`), needs };
  const read = readOptions(name, args, core.table, {});
  let operands = read.operands.map((a) => a.value!);
  if (core.pattern?.(read.options)) operands = operands.slice(1);
  let verdict = worst(allow(`${name} is in the inert core`), read.verdict);
  // GNU tail reads a lone `+N…` operand as its obsolete options: `tail +1f file` follows the file until the timeout.
  if (name === 'tail' && read.operands.some((a) => a.value!.startsWith('+')))
    verdict = worst(verdict, ask('tail reads +N… as its obsolete options (+Nf follows): write -n +N'));
  if (core.max !== undefined && read.operands.length > core.max)
    verdict = worst(verdict, ask(`${name} takes at most ${core.max} operands here`));
  if (read.options.some((o) => /^(-r|-R|--recursive)$/.test(o.option))) needs.walks = true;
  // `diff dir1 dir2` compares the files in both, `diff dir file` dir's file of file's name.
  if (name === 'diff') needs.files = name;
  if (core.operands === 'text') return { verdict, needs };
  return judgePaths(name, operands, needs, verdict);
}

/** cd: one written folder below the current one; `cd` alone goes HOME and `cd -` back, both elsewhere. */
function judgeCd(words: readonly string[], needs: CoreNeeds): CoreVerdict {
  const target = words[0] === '--' ? words[1] : words[0];
  if (words.length !== (words[0] === '--' ? 2 : 1) || target === undefined || target === '' || target === '-' || target.startsWith('-')) {
    return { verdict: ask('without a sandbox, cd takes one folder inside the workspace'), needs };
  }
  const outside = outsideBySpelling(target);
  if (outside) return { verdict: ask(`without a sandbox, cd stays inside the workspace: ${outside}`), needs };
  needs.cd = target;
  return { verdict: allow('cd goes into a folder of the workspace'), needs };
}

/** find: tests and -print only; no -L/-H/-follow, no action that runs, deletes or writes, no test that names another file. */
const FIND_VALUED = new Set('-name -iname -path -ipath -regex -iregex -type -maxdepth -mindepth -size -mtime -mmin -newermt'.split(' '));
const FIND_FLAGS = new Set('-print -print0 -prune -quit -empty -true -false -depth -xdev -o -a -not -and -or ! ( ) -P'.split(' '));

function judgeCoreFind(words: readonly string[], needs: CoreNeeds): CoreVerdict {
  let i = 0;
  const starts: string[] = [];
  while (i < words.length && !/^[-(!]/.test(words[i]!)) starts.push(words[i++]!);
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (FIND_VALUED.has(word)) i++;
    else if (!FIND_FLAGS.has(word)) return { verdict: ask(`without a sandbox, find ${word} is not in the inert core`), needs };
  }
  if (i > words.length) return { verdict: ask('a find test lacks its value'), needs };
  needs.walks = true;
  return judgePaths('find', starts, needs, allow('find lists names'));
}
