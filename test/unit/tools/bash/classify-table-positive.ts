/**
 * Rows from a hostile review of the classifier run through POST /execute,
 * and their families: each was ALLOW (or ASK where it is DENY) while it ran
 * a program, wrote a file or read the gateway's environment. ALLOW is now a
 * positive list: a known read-only program, every word an option known to be
 * safe for it (GNU permutation, unique long prefixes, short clusters read as
 * its getopt reads them) or an operand within bounds, no assignment before
 * it, no builtin beyond the harmless set. Of the 97 rows, 59 failed on the
 * classifier before it; the others are the three wrapper rows, which it
 * already judged DENY, and the guards at the end. Part of TABLE.
 */
export const POSITIVE_ROWS: ReadonlyArray<readonly [command: string, expected: 'allow' | 'ask' | 'deny' | 'unknown']> = [
  // 1. jobs -x runs its arguments; builtins beyond the harmless set are ASK
  ['jobs -x touch pwned', 'ask'],
  ['jobs -x rm -rf src', 'deny'],
  ['jobs -lx rm x', 'deny'],
  ['set -x; true', 'ask'],
  ['shift; ls', 'ask'],
  ['exit 0', 'ask'],
  ['wait; ls', 'ask'],
  // 2. variables set by builtins: PS4 and the others that run code are DENY however they are set
  ["printf -vPS4 '$(id>&2)'; set -x; true", 'deny'],
  ["declare 'PS4=$(id>&2)'; set -x; true", 'deny'],
  ["export 'PS4=$(id>&2)'; set -x; true", 'deny'],
  ["readonly 'PS4=$(id>&2)'; set -x; true", 'deny'],
  ["typeset 'PS4=$(id>&2)'", 'deny'],
  ["IFS= read -raPS4 <<< '$(id>&2)'; set -x; true", 'deny'],
  ['printf -vBASH_CMDS[ls] /usr/bin/touch; ls f', 'deny'],
  ["declare 'a[$(id)]=1'", 'ask'],
  ['declare x=1', 'ask'],
  ['read line < f', 'ask'],
  // 3. GNU sed permutes its words, and ends a label at whitespace
  ["sed p README.md -e '1e id'", 'ask'],
  ["sed p README.md --expression='1e id'", 'ask'],
  ['sed p f -f x.sed', 'ask'],
  ['sed p f --in-pl=.bak', 'ask'],
  ["echo x | sed ':a e uname -a'", 'ask'],
  ["sed 'b end e id' f", 'ask'],
  // 4. git takes unique prefixes of its long options: only options spelled in full are known
  ["git grep --open='touch pwned;' -e hello", 'ask'],
  ['git grep --ope=x -e hello', 'ask'],
  ['git log --encoding=EVIL -1', 'ask'],
  ['git cat-file --filters HEAD:a', 'ask'],
  // 5. xxd reads each option as a whole word, and writes its second operand
  ['xxd --revert -pl hex.txt /any/path', 'ask'],
  ['xxd -bl in out', 'ask'],
  // 6. /dev/fd/.. is /proc/self; a pattern may name /proc
  ["cd /dev/fd/../../$PPID && tr '\\0' '\\n' < environ", 'deny'],
  ['cat /pro[c]/$PPID/envi*', 'ask'],
  ['grep -ra KEY /dev/fd/../..', 'ask'],
  // 7. no assignment before a command; the loaders' search paths are DENY
  ['GCONV_PATH=./gc git log --encoding=EVIL -1', 'deny'],
  ['LOCPATH=. ls', 'deny'],
  ['LC_ALL=C grep x f', 'ask'],
  ['FOO=1 ls', 'ask'],
  ['env FOO=1 ls', 'ask'],
  ['env GCONV_PATH=. ls', 'deny'],
  // 8. wrappers and runners: the command they run is judged
  ["env --s='rm -rf /'", 'deny'],
  ["env --split='rm -rf /'", 'deny'],
  ['find . -exec env -u + rm -rf x \\;', 'deny'],
  ['prlimit rm -rf x', 'deny'],
  ['prlimit --nproc=1 bash -c id', 'deny'],
  ['taskset 1 bash -c id', 'deny'],
  ['chrt 1 sh -c id', 'deny'],
  ['flock f rm x', 'deny'],
  ['rbash -c id', 'deny'],
  // found by the hostile pass through POST /execute once ALLOW was a positive list: a path attached to an option, quotes inside a computed
  // word
  ["wc --files0-from=/dev/fd/../../$PPID/env''iron", 'deny'],
  ["du --files0-from=/proc/$PPID/env''iron", 'deny'],
  ["grep -f/proc/$PPID/env''iron -r .", 'deny'],
  ['cat /proc/$PPID/env\\iron', 'deny'],
  ['wc --files0-from=/pro[c]/1/envi*', 'ask'],
  ['wc --files0-from=/dev/fd/../../$PPID/envi*', 'ask'],
  // a word before a wrapper's command that only the run time knows could be the command: DENY before the positive list as well, which
  // held at first only ASK for them
  ['nice "$cmd"', 'deny'],
  ['xargs $x', 'deny'],
  ['env -u X "$cmd"', 'deny'],
  // every word an option known to be read-only, long options by their unique prefix
  ['cat --foo f', 'ask'],
  ['ls --al', 'ask'],
  ['diff -l a b', 'ask'],
  ['file -p x', 'ask'],
  ['head -c 5 -n 3 -x f', 'ask'],
  ['rg -z foo', 'ask'],
  // guards, right before the change too: members of the same families that already held, and reads that stay ALLOW
  ["read -a PS4 <<< '$(id)'", 'deny'],
  ['sed p f -i', 'ask'],
  ['git grep -Ox -e hello', 'ask'],
  ['git grep --open-files-in-pager=x -e hello', 'ask'],
  ['git log --ext-diff -p', 'ask'],
  ['xxd -r -p hex.txt out', 'ask'],
  ['xxd in out', 'ask'],
  ['uniq in out', 'ask'],
  ['cat /*/1/environ', 'deny'],
  ['cat /dev/fd/../environ', 'deny'],
  ['cat /dev/stdin/../../../1/environ', 'deny'],
  ["env -iS'rm -rf /'", 'deny'],
  ['busybox sh -c id', 'deny'],
  ['taskset 1 ls', 'ask'],
  ['sort --ou=x f', 'ask'],
  ['sort f --compress=gzip', 'ask'],
  ['date --se=2020-01-01', 'ask'],
  ['wc -l "$f" --files0=list', 'allow'],
  ['rg --pre=./x foo', 'ask'],
  ['xargs --arg-file=x rm', 'deny'],
  ['time -o out ls', 'ask'],
  ['ls --almost -l', 'allow'],
  ['head -5 f', 'allow'],
  ['head -n5 f', 'allow'],
  ['tail -n +3 f', 'allow'],
  ['sort -k2,2 -t, f', 'allow'],
  ['sed -ns p f', 'allow'],
  ['git grep -n -e hello', 'allow'],
  ['git log --oneline -n 5 -- src', 'allow'],
  ['xxd -p f', 'allow'],
  ['env ls', 'allow'],
  ['nice ls', 'allow'],
  ['cut -d, -f1 f', 'allow'],
  ['cat /proc/cpuinfo', 'allow'],
  ['printf "%s\\n" a b', 'allow'],
];
