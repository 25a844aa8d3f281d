import { optionTable, readOptions, type OptionTable } from './getopt.js';
import { judgeUnread, type Arg } from './options.js';
import { BUILTINS, PROGRAMS } from './programs.js';
import { isSystemProgram, SYSTEM_DIRS } from './resolve.js';
import { readKnown } from './table.js';
import { dangerousVariable } from './variables.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

/** Programs that are DENY by name, with why. */
const DENIED: Record<string, string> = {};
const denyAll = (why: string, names: string) => names.split(' ').forEach((n) => (DENIED[n] = why));
denyAll('gains privileges', 'sudo su doas pkexec runuser sg newgrp chroot nsenter unshare setpriv capsh setcap');
denyAll('deletes files', 'rm rmdir shred unlink srm wipe');
denyAll(
  'starts a nested shell or evaluates code',
  'bash sh zsh dash ksh mksh ash fish csh tcsh yash rbash posh pwsh nu elvish xonsh osh ysh eval exec source . trap alias unalias enable hash fc script expect tmux screen watch parallel',
);
denyAll(
  'is a device or system tool',
  'dd mkfs mount umount shutdown reboot halt poweroff init telinit systemctl kill killall pkill chown chmod chgrp chattr fdisk sfdisk parted wipefs losetup swapon swapoff insmod rmmod modprobe iptables nft crontab at batch',
);

/** Programs that run a command named among their words: the command is judged as well. */
const RUNNERS = new Set(
  (
    'prlimit taskset chrt numactl flock unbuffer stdbuf strace ltrace valgrind cgexec firejail systemd-run runcon chronic ifne catchsegv gdb ' +
    'ionice setsid busybox xvfb-run fakeroot faketime proot torsocks proxychains proxychains4 rlwrap sshpass nocache eatmydata cpulimit trickle'
  ).split(' '),
);

/** Wrappers ALLOW knows: their options (read until the first operand), then the command they run, which is what is judged. */
const WRAPPERS: Record<string, { table: OptionTable; skip?: number }> = {
  nohup: { table: optionTable('nohup', '--help --version') },
  nice: { table: optionTable('nice', '-n: --adjustment= --help --version') },
  // timeout takes its duration before the command.
  timeout: {
    table: optionTable('timeout', '-v -k: -s: --preserve-status --foreground --kill-after= --signal= --verbose --help --version'),
    skip: 1,
  },
  time: { table: optionTable('time', '-apqv -f: ?-o: --append --portability --quiet --verbose --format= ?--output= --help --version') },
  // -S splits a string into a command line the classifier never sees.
  env: {
    table: optionTable(
      'env',
      '-iv0 -u: -C: !-S: --ignore-environment --null --unset= --chdir= !--split-string= --block-signal[=] --default-signal[=] --ignore-signal[=] --list-signal-handling --debug --help --version',
    ),
  },
};

/** Judges one simple command from its words, the program's name first. */
export function judgeArgv(argv: readonly Arg[]): Verdict {
  if (argv.length === 0) return allow('nothing runs');
  const written = argv[0]!.value;
  if (written === undefined) return deny('the command name is computed at run time');
  if (written === '') return ask('an empty command name');
  let verdict = allow('read-only');
  let name = written;
  if (written.includes('/')) {
    const cut = written.lastIndexOf('/');
    name = written.slice(cut + 1);
    if (!SYSTEM_DIRS.has(written.slice(0, cut))) verdict = ask(`runs the program at ${written}, which could be anything`);
    if (name === '') return worst(verdict, ask(`${written} is a folder`));
  }
  verdict = worst(verdict, judgeProgram(name, argv.slice(1), written.includes('/')));
  if (verdict.decision === 'allow' && (written.includes('/') || !BUILTINS[name]) && !isSystemProgram(written)) {
    return ask(`${written} is not a program of the system's folders`);
  }
  return verdict;
}

function judgeProgram(name: string, args: readonly Arg[], path: boolean): Verdict {
  const denied = DENIED[name] ?? (name.startsWith('mkfs.') ? DENIED.mkfs : undefined);
  if (denied) return deny(`${name} ${denied}`);
  const builtin = path ? undefined : BUILTINS[name];
  if (builtin) return builtin(args, judgeArgv);
  if (RUNNERS.has(name)) return judgeUnread(ask(`${name} runs a command with options the classifier does not read`), args, judgeArgv);
  const wrapper = WRAPPERS[name];
  if (wrapper) return judgeWrapper(name, args, wrapper);
  const program = PROGRAMS[name];
  if (program) return program(args, judgeArgv);
  const known = readKnown(name, args);
  if (known) return known.verdict;
  return ask(`${name} is not a command the classifier knows to be read-only`);
}

/** A wrapper's own options, then the command it runs, judged as one; the stricter wins. */
function judgeWrapper(name: string, args: readonly Arg[], { table, skip = 0 }: { table: OptionTable; skip?: number }): Verdict {
  const read = readOptions(name, args, table, { posix: true, prefixes: true });
  if (read.verdict.decision === 'deny') return read.verdict;
  if (read.computed) return deny(`an argument of ${name} before its command is computed at run time: what it runs is unknown`);
  if (read.verdict.decision !== 'allow') {
    return judgeUnread(
      worst(read.verdict, ask(`an option of ${name} is not known, so neither is where its command starts`)),
      args,
      judgeArgv,
    );
  }
  let inner = read.operands.slice(skip);
  let verdict = read.verdict;
  if (name === 'env') {
    while (inner.length > 0 && /^[^=]+=/.test(inner[0]!.value ?? '')) {
      const variable = inner[0]!.value!.split('=')[0]!;
      verdict = worst(verdict, dangerousVariable(variable) ?? ask(`env sets ${variable} for the command, which changes what it does`));
      inner = inner.slice(1);
    }
    if (inner[0] && inner[0].value === undefined) return deny('an argument of env is computed at run time');
  }
  if (inner.length === 0) return name === 'env' || skip === 0 ? verdict : allow(`${name} alone runs nothing`);
  return worst(verdict, judgeArgv(inner));
}
