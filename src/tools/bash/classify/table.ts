import { judgeOptions, optionTable, readOptions, type OptionTable, type Read, type Style } from './getopt.js';
import type { Arg } from './options.js';
import type { Verdict } from './verdict.js';

/**
 * The read-only programs ALLOW knows, each with every option it has (`?` ASK, `!` DENY: see optionTable), so abbreviations resolve as
 * getopt_long resolves them.
 */
const SPECS: Record<string, string> = {
  cat: '-AbeEnstTuv --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting --help --version',
  head: '-# -qvz -c: -n: --bytes= --lines= --quiet --silent --verbose --zero-terminated --help --version',
  tail: '-# -fFqvz -c: -n: -s: --bytes= --follow[=] --lines= --max-unchanged-stats= --pid= --quiet --silent --retry --sleep-interval= --verbose --zero-terminated --help --version',
  wc: '-cmlLw --bytes --chars --lines --files0-from= --max-line-length --words --total= --help --version',
  cut: '-nsz -b: -c: -d: -f: --bytes= --characters= --delimiter= --fields= --complement --only-delimited --output-delimiter= --zero-terminated --help --version',
  sort:
    '-bdfgiMhnRrVcCmsuz -k: -t: -S: ?-T: ?-o: --ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting ' +
    '--month-sort --human-numeric-sort --numeric-sort --random-sort --random-source= --reverse --sort= --version-sort --batch-size= --check[=] --debug ' +
    '--files0-from= --key= --merge --stable --buffer-size= --field-separator= --parallel= --unique --zero-terminated --help --version ' +
    '?--output= ?--compress-program= ?--temporary-directory=',
  uniq: '-cdDiuz -f: -s: -w: --count --repeated --all-repeated[=] --skip-fields= --group[=] --ignore-case --skip-chars= --unique --zero-terminated --check-chars= --help --version',
  // -l (--paginate) runs pr over the output.
  diff:
    '-qscuenyptTrNiEZbwBadv -C: -U: -W: -F: -x: -X: -S: -I: -D: ?-l --normal --brief --report-identical-files --context[=] --unified[=] --ed --rcs ' +
    '--side-by-side --width= --left-column --suppress-common-lines --show-c-function --show-function-line= --label= --expand-tabs --initial-tab ' +
    '--tabsize= --suppress-blank-empty ?--paginate --recursive --no-dereference --new-file --unidirectional-new-file --ignore-file-name-case ' +
    '--no-ignore-file-name-case --exclude= --exclude-from= --starting-file= --from-file= --to-file= --ignore-case --ignore-tab-expansion ' +
    '--ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-matching-lines= --text --strip-trailing-cr ' +
    '--ifdef= --line-format= --old-line-format= --new-line-format= --unchanged-line-format= --old-group-format= --new-group-format= ' +
    '--unchanged-group-format= --changed-group-format= --minimal --horizon-lines= --speed-large-files --color[=] --palette= --help --version',
  cmp: '-blsv -i: -n: --print-bytes --ignore-initial= --verbose --bytes= --quiet --silent --help --version',
  comm: '-123z --check-order --nocheck-order --output-delimiter= --total --zero-terminated --help --version',
  nl:
    '-p -b: -d: -f: -h: -i: -l: -n: -s: -v: -w: --body-numbering= --section-delimiter= --footer-numbering= --header-numbering= --line-increment= ' +
    '--join-blank-lines= --number-format= --no-renumber --number-separator= --starting-line-number= --number-width= --help --version',
  tac: '-br -s: --before --regex --separator= --help --version',
  rev: '-0hV --zero --help --version',
  fold: '-bs -w: --bytes --spaces --width= --help --version',
  expand: '-i -t: --initial --tabs= --help --version',
  unexpand: '-a -t: --all --first-only --tabs= --help --version',
  paste: '-sz -d: --delimiters= --serial --zero-terminated --help --version',
  join: '-iz -a: -e: -j: -o: -t: -v: -1: -2: --ignore-case --check-order --nocheck-order --header --zero-terminated --help --version',
  tr: '-cCdst --complement --delete --squeeze-repeats --truncate-set1 --help --version',
  od:
    '-vabcdfilosx -A: -j: -N: -S: -t: -w:: --address-radix= --endian= --skip-bytes= --read-bytes= --strings[=] --format= --output-duplicates ' +
    '--width[=] --traditional --help --version',
  base64: '-di -w: --decode --ignore-garbage --wrap= --help --version',
  md5sum: '-bctzw --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn --help --version',
  cksum:
    '-czw -a: -l: --algorithm= --check --length= --tag --untagged --zero --ignore-missing --quiet --status --strict --warn --debug --raw --base64 --help --version',
  sum: '-rs --sysv --help --version',
  ls:
    '-aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1 -I: -T: -w: --all --almost-all --author --escape --block-size= --ignore-backups --color[=] --directory ' +
    '--dired --classify[=] --file-type --format= --full-time --group-directories-first --no-group --human-readable --si --dereference-command-line ' +
    '--dereference-command-line-symlink-to-dir --hide= --hyperlink[=] --indicator-style= --inode --ignore= --kibibytes --dereference ' +
    '--numeric-uid-gid --literal --hide-control-chars --show-control-chars --quote-name --quoting-style= --reverse --recursive --size --sort= ' +
    '--time= --time-style= --tabsize= --width= --context --zero --help --version',
  stat: '-Lft -c: --dereference --file-system --cached= --format= --printf= --terse --help --version',
  du:
    '-0abcDHhklLmPSsx -B: -d: -t: -X: --null --all --apparent-size --block-size= --bytes --total --dereference-args --max-depth= --summarize ' +
    '--files0-from= --human-readable --inodes --dereference --count-links --no-dereference --separate-dirs --si --threshold= --time[=] ' +
    '--time-style= --exclude-from= --exclude= --one-file-system --help --version',
  df: '-ahHiklPTv -B: -t: -x: --all --block-size= --human-readable --si --inodes --local --no-sync --output[=] --portability --sync --total --type= --print-type --exclude-type= --help --version',
  realpath:
    '-emLPqsz --canonicalize-existing --canonicalize-missing --logical --physical --quiet --relative-to= --relative-base= --strip --no-symlinks --zero --help --version',
  readlink:
    '-femnqsvz --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero --help --version',
  basename: '-az -s: --multiple --suffix= --zero --help --version',
  dirname: '-z --zero --help --version',
  seq: '-# -w -f: -s: --format= --separator= --equal-width --help --version',
  sleep: '--help --version',
  // -s and --set set the clock.
  date: '-uR -I:: -d: -f: -r: ?-s: --date= --debug --file= --iso-8601[=] --resolution --rfc-email --rfc-3339= --reference= ?--set= --utc --universal --help --version',
  id: '-aZgGnruz --context --group --groups --name --real --user --zero --help --version',
  whoami: '--help --version',
  uname:
    '-asnrvmpio --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system --help --version',
  printenv: '-0 --null --help --version',
  which: '-as',
  grep:
    '-# -EFGPiwxzsvVbnHhoqaIrRLlcTZUy -e: -f: -m: -d: -D: -A: -B: -C: --extended-regexp --fixed-strings --basic-regexp --perl-regexp --regexp= ' +
    '--file= --ignore-case --no-ignore-case --word-regexp --line-regexp --null-data --no-messages --invert-match --version --help --max-count= ' +
    '--byte-offset --line-number --no-line-number --line-buffered --with-filename --no-filename --label= --only-matching --quiet --silent ' +
    '--binary-files= --text --directories= --devices= --recursive --dereference-recursive --include= --exclude= --exclude-from= --exclude-dir= ' +
    '--files-without-match --files-with-matches --count --initial-tab --null --before-context= --after-context= --context= ' +
    '--group-separator= --no-group-separator --color[=] --colour[=] --binary',
  // -C compiles a magic file into the current folder; -p puts back access times; -S lifts file's own seccomp sandbox.
  file:
    '-vzZbciklLhnN0rsd -m: -e: -f: -F: -P: ?-C ?-p ?-S --help --version --magic-file= --uncompress --uncompress-noreport --brief --checking-printout ' +
    '--exclude= --exclude-quiet= --files-from= --separator= --mime --mime-encoding --apple --extension --mime-type --keep-going --list ' +
    '--dereference --no-dereference --no-buffer --no-pad --print0 ?--preserve-date --parameter= --raw --special-files ?--no-sandbox ?--compile --debug',
  hexdump:
    '-bcCdoxvhV -L:: -e: -f: -n: -s: --one-byte-octal --one-byte-char --canonical --two-bytes-decimal --two-bytes-octal --two-bytes-hex --color[=] --format= --format-file= --length= --skip= --no-squeezing --help --version',
  strings:
    '-# -adfwohvV -n: -t: -T: -e: -U: -s: --all --data --print-file-name --bytes= --radix= --include-all-whitespace --target= --encoding= ' +
    '--unicode= --output-separator= --help --version',
  // ripgrep 14, which takes no abbreviation: its common options only (the table is not all of them, so a computed word is ASK). --pre and
  // --hostname-bin run a program; -z runs decompressors.
  rg:
    '-# -iSsFxwvcloqnNHIUpaLu0. -e: -f: -g: -t: -T: -m: -A: -B: -C: -j: -d: -M: -E: -r: --json --files --files-with-matches ' +
    '--files-without-match --count --count-matches --only-matching --ignore-case --smart-case --case-sensitive --fixed-strings ' +
    '--word-regexp --line-regexp --invert-match --line-number --no-line-number --with-filename --no-filename --hidden --no-ignore ' +
    '--no-ignore-vcs --follow --multiline --multiline-dotall --pcre2 --vimgrep --heading --no-heading --column --trim --null --stats ' +
    '--type-list --sort= --sortr= --glob= --iglob= --type= --type-not= --max-count= --max-depth= --max-filesize= --after-context= ' +
    '--before-context= --context= --color= --colors= --regexp= --file= --encoding= --replace= --threads= --max-columns= --passthru ' +
    '--unrestricted --text --binary --quiet --no-messages --debug --help --version ?--pre= ?--pre-glob= ?--hostname-bin= ?-z ?--search-zip',
  // Only its own options stop before operands; without -r each is a whole word, and a second operand is the file it writes.
  xxd: '-aCEeipurRbd -c: -g: -l: -o: -s: -n:',
};
for (const sum of ['sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum']) SPECS[sum] = SPECS.md5sum!;
SPECS.egrep = SPECS.grep!;
SPECS.fgrep = SPECS.grep!;

/** How the few programs that do not read their words as getopt_long does read them. */
const STYLES: Record<string, Style> = {
  which: {},
  rg: {},
  xxd: { posix: true, words: true },
};

/** Operands past the count are files the program writes. */
const MAX_OPERANDS: Record<string, [number, string]> = {
  uniq: [1, 'uniq writes its second operand'],
  xxd: [1, 'xxd writes its second operand'],
};

const TABLES = new Map<string, OptionTable>(Object.entries(SPECS).map(([name, spec]) => [name, optionTable(name, spec)]));

/** The read of a known read-only program's words, undefined for a program this table does not know. */
export function readKnown(name: string, args: readonly Arg[]): { read: Read; verdict: Verdict } | undefined {
  const table = TABLES.get(name);
  if (!table) return undefined;
  const read = readOptions(name, args, table, STYLES[name] ?? { prefixes: true });
  return { read, verdict: judgeOptions(name, read, table, MAX_OPERANDS[name]) };
}
