import { judgeAwk } from './awk.js';
import { judgeFind } from './find.js';
import { judgeGit } from './git.js';
import { optionTable, readOptions } from './getopt.js';
import { judgeUnread, values, type Arg, type JudgeArgv } from './options.js';
import { judgePs, judgeRootRead } from './proc.js';
import { judgeSed } from './scripts.js';
import { readKnown } from './table.js';
import { dangerousVariable } from './variables.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

type Judge = (args: readonly Arg[], judge: JudgeArgv) => Verdict;

/** A table program's verdict; `grep -r KEY /` reads through /proc (see judgeRootRead). */
const known =
  (name: string, recursive: boolean): Judge =>
  (args) =>
    judgeRootRead(name, args, recursive) ?? readKnown(name, args)!.verdict;

/** Read-only programs read by a judge of their own: a script, a subcommand, a command they run. */
export const PROGRAMS: Record<string, Judge> = {
  git: judgeGit,
  find: judgeFind,
  xargs: judgeXargs,
  sed: judgeSed,
  awk: judgeAwk,
  gawk: judgeAwk,
  mawk: judgeAwk,
  nawk: judgeAwk,
  grep: known('grep', false),
  rg: known('rg', true),
  egrep: known('egrep', false),
  fgrep: known('fgrep', false),
  ps: judgePs,
  jq: judgeJq,
};

const HARMLESS = 'cd, pwd, true, false, echo, printf without -v, test and [';

/** Every bash builtin, judged (bash runs it before looking in PATH). */
export const BUILTINS: Record<string, Judge> = {
  // A folder named at run time may be a process's in /proc (`cd $PPID`), where a later bare `cat environ` reads its environment.
  cd: (args) =>
    judgeRootRead('cd', args, true) ??
    (args.some((a) => a.value === undefined) ? ask('cd goes to a folder named at run time') : allow('cd changes the folder')),
  pwd: () => allow('pwd prints the folder'),
  true: () => allow('true does nothing'),
  false: () => allow('false does nothing'),
  echo: () => allow('echo prints'),
  printf: judgePrintf,
  test: judgeTest,
  '[': judgeTest,
  read: judgeRead,
  // jobs -x runs its arguments as a command.
  jobs: (args, judge) => {
    const x = args.findIndex((a) => a.value === undefined || /^-[a-z]*x/.test(a.value));
    return worst(ask(`jobs is a shell builtin outside the harmless set (${HARMLESS})`), x === -1 ? allow('') : judge(args.slice(x + 1)));
  },
  // `command x` runs x; `builtin x` runs the builtin x.
  command: (args, judge) => {
    const rest = args.findIndex((a) => !/^-[pvV]+$/.test(a.value ?? '-'));
    const lookup = args.slice(0, rest === -1 ? args.length : rest).some((a) => /[vV]/.test(a.value ?? ''));
    return worst(
      ask(`command is a shell builtin outside the harmless set (${HARMLESS})`),
      lookup || rest === -1 ? allow('') : judgeUnread(allow(''), args.slice(rest), judge),
    );
  },
  builtin: (args, judge) => worst(ask(`builtin is a shell builtin outside the harmless set (${HARMLESS})`), judge(args)),
};
for (const name of (
  'bg bind break caller compgen complete compopt continue declare dirs disown exit export fg getopts help history let local logout ' +
  'mapfile popd pushd readarray readonly return set shift shopt suspend times type typeset ulimit umask unset wait :'
).split(' ')) {
  BUILTINS[name] = () => ask(`${name} is a shell builtin outside the harmless set (${HARMLESS})`);
}

/** test and [ only test; -v and -R evaluate the subscript of the name they are given (`a[$(cmd)]`). */
function judgeTest(args: readonly Arg[]): Verdict {
  return args.some((a) => a.value === '-v' || a.value === '-R') ? ask('test -v evaluates an array subscript') : allow('test only tests');
}

/** Names a builtin sets: PATH and its kin are DENY (see dangerousVariable). */
function variableNames(name: string, names: ReadonlyArray<string | undefined>): Verdict {
  for (const word of names) {
    if (word === undefined) return deny(`a variable name given to ${name} is computed at run time`);
    const danger = dangerousVariable(word.split('[')[0]!);
    if (danger) return danger;
  }
  return ask(`${name} sets shell variables, outside the harmless set (${HARMLESS})`);
}

/** printf prints; `printf -v NAME` (`-vNAME` too) sets the variable instead. */
function judgePrintf(args: readonly Arg[]): Verdict {
  const first = args[0]?.value;
  if (first === undefined && args.length > 0) {
    // `-vBASH_CMDS[ls]` is a glob to bash, and the name it sets when nothing matches.
    const named = /^-v([A-Za-z_][A-Za-z0-9_]*)/.exec(args[0]!.source ?? '');
    return (named && dangerousVariable(named[1]!)) || ask('the first argument of printf is computed at run time and could be -v');
  }
  if (first?.startsWith('-v')) {
    const name = first.length > 2 ? first.slice(2) : args[1]?.value;
    return name === undefined ? ask('printf -v sets a variable whose name is computed at run time') : variableNames('printf -v', [name]);
  }
  return allow('printf prints');
}

/** read's options, as the builtin reads them (each a letter, valued ones taking the rest of their word or the next). */
const READ_TABLE = optionTable('read', '-ers -a: -d: -i: -n: -N: -p: -t: -u:');

/** read sets the variables it names (`-a NAME` and every operand). */
function judgeRead(args: readonly Arg[]): Verdict {
  const read = readOptions('read', args, READ_TABLE, { posix: true });
  if (read.computed) return ask('an argument of read is computed at run time');
  const names = [...read.options.filter((o) => o.option === '-a').map((o) => o.value), ...read.operands.map((a) => a.value)];
  return worst(read.verdict, variableNames('read', names));
}

/** Programs whose every option only reads, so words added from xargs's input cannot make them write or run. */
const XARGS_SAFE = new Set(['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'echo', 'stat', 'du', 'basename', 'dirname', 'md5sum', 'sha256sum']);

const XARGS_TABLE = optionTable(
  'xargs',
  '-0prtxo -a: -d: -E: -I: -L: -n: -P: -s: -e:: -i:: -l:: --null --arg-file= --delimiter= --eof[=] --replace[=] --max-lines[=] --max-args= ' +
    '--open-tty --max-procs= --interactive ?--process-slot-var= --no-run-if-empty --max-chars= --show-limits --verbose --exit --help --version',
);

/** xargs runs its command with words read from its input added: only a program none of whose options writes or runs stays ALLOW. */
function judgeXargs(args: readonly Arg[], judge: JudgeArgv): Verdict {
  const read = readOptions('xargs', args, XARGS_TABLE, { posix: true, prefixes: true });
  if (read.computed) return deny('an argument of xargs before its command is computed at run time: what it runs is unknown');
  if (read.verdict.decision !== 'allow') {
    return worst(
      judgeUnread(worst(read.verdict, ask('an option of xargs is not known, so neither is where its command starts')), args, judge),
      ask('xargs adds words from its input to the command'),
    );
  }
  const rest = read.operands;
  if (rest.length === 0) return allow('xargs alone echoes its input');
  const inner = judge(rest);
  const name = rest[0]!.value?.split('/').pop() ?? '';
  return XARGS_SAFE.has(name) ? inner : worst(inner, ask(`xargs adds words from its input to ${name || 'a command'}`));
}

/** jq's options (its own parser: exact long names, letters clustered); --arg and its kin take two words. */
const JQ_FLAGS = new Set(
  '-r -c -n -s -e -j -a -S -C -M -R --tab --seq --stream --raw-output --compact-output --null-input --slurp --exit-status --join-output --ascii-output --sort-keys --color-output --monochrome-output --raw-input --unbuffered --args --jsonargs --raw-output0 --stream-errors'.split(
    ' ',
  ),
);
const JQ_VALUED: Record<string, number> = {
  '--arg': 2,
  '--argjson': 2,
  '--slurpfile': 2,
  '--rawfile': 2,
  '--indent': 1,
  '-f': 1,
  '--from-file': 1,
  '-L': 1,
};

/** jq filters JSON: no option of it writes or runs (`$ENV` holds only the command's own environment). */
function judgeJq(args: readonly Arg[]): Verdict {
  const words = values(args);
  if (!words) return allow('jq filters JSON; an argument computed at run time is a filter, a file or one of its options');
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    if (!word.startsWith('-') || word === '-') continue;
    if (JQ_VALUED[word] !== undefined) i += JQ_VALUED[word];
    else if (!JQ_FLAGS.has(word) && !(/^-[a-zA-Z]+$/.test(word) && [...word.slice(1)].every((c) => JQ_FLAGS.has(`-${c}`)))) {
      return ask(`${word} is not an option of jq known to be read-only`);
    }
  }
  return allow('jq filters JSON');
}
