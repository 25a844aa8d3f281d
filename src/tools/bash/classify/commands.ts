import { judgeUnread, skipOptions, type Arg, type OptionSpec } from './options.js';
import { PROGRAMS } from './programs.js';
import { dangerousVariable } from './variables.js';
import { allow, ask, deny, worst, type Verdict } from './verdict.js';

/** Programs that are DENY by name, with why. */
const DENIED: Record<string, string> = {};
const denyAll = (why: string, names: string) => names.split(' ').forEach((n) => (DENIED[n] = why));
denyAll('gains privileges', 'sudo su doas pkexec runuser sg newgrp chroot nsenter unshare setpriv capsh setcap');
denyAll('deletes files', 'rm rmdir shred unlink srm wipe');
denyAll('starts a nested shell or evaluates code', 'bash sh zsh dash ksh mksh ash fish csh tcsh yash eval exec source . trap alias unalias enable hash fc script expect tmux screen watch parallel');
denyAll('is a device or system tool', 'dd mkfs mount umount shutdown reboot halt poweroff init telinit systemctl kill killall pkill chown chmod chgrp chattr fdisk sfdisk parted wipefs losetup swapon swapoff insmod rmmod modprobe iptables nft crontab at batch');

/** Read-only programs whose every argument is safe: ALLOW whatever follows them, so also as what `xargs` runs. */
export const READ_ONLY = new Set(
  ('ls cat head tail wc cut diff stat du which pwd echo true false : basename dirname realpath ' +
    'readlink nl tac rev cmp comm join paste fold fmt expand unexpand od hexdump strings base64 md5sum sha1sum ' +
    'sha256sum sha512sum cksum seq sleep id whoami uname printenv df free uptime type jq column tr expr ' +
    'popd dirs exit return shift jobs locale whereis sum').split(' '),
);

/** System folders whose programs are the ones their names say; a program elsewhere could be anything. */
const SYSTEM_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin']);

/** Wrappers run the command that follows their own options; the command is what is judged. */
const WRAPPERS: Record<string, OptionSpec> = {
  builtin: {},
  nohup: {},
  nice: { valued: ['-n', '--adjustment'] },
  timeout: { flags: ['--preserve-status', '--foreground', '-v', '--verbose'], valued: ['-s', '--signal', '-k', '--kill-after'] },
  time: { flags: ['-p', '-v', '--portability', '--verbose', '-a', '--append', '-q', '--quiet'], valued: ['-f', '--format'], risky: ['-o', '--output'] },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { flags: ['-t', '--ignore'], valued: ['-c', '--class', '-n', '--classdata'] },
  setsid: { flags: ['-f', '--fork', '-w', '--wait', '-c', '--ctty'] },
  busybox: {},
};

/**
 * Judges one simple command from its words: the program's name first. A name
 * only the run time knows is DENY (the classifier cannot say what runs); a
 * path outside the system folders is at least ASK and judged by its base name
 * too (`./rm` is still `rm`); wrappers are judged by the command they run.
 */
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
  return worst(verdict, judgeProgram(name, argv.slice(1)));
}

function judgeProgram(name: string, args: readonly Arg[]): Verdict {
  const denied = DENIED[name] ?? (name.startsWith('mkfs.') ? DENIED.mkfs : undefined);
  if (denied) return deny(`${name} ${denied}`);
  if (name === 'command') return judgeCommandBuiltin(args);
  if (name === 'env') return judgeEnv(args);
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    const { rest, verdict, unread } = skipOptions(name, args, wrapper);
    if (unread) return judgeUnread(verdict!, unread, judgeArgv);
    if (verdict?.decision === 'deny') return verdict;
    // timeout takes its duration before the command.
    const inner = name === 'timeout' ? rest.slice(1) : rest;
    if (inner.length === 0) return verdict ?? allow(`${name} alone runs nothing`);
    return worst(verdict ?? allow(''), judgeArgv(inner));
  }
  const program = PROGRAMS[name];
  if (program) return program(args, judgeArgv);
  if (READ_ONLY.has(name)) return allow(`${name} is read-only`);
  return ask(`${name} is not a command the classifier knows to be read-only`);
}

/** `command -v x` looks a name up; `command x` runs x, skipping shell functions. */
function judgeCommandBuiltin(args: readonly Arg[]): Verdict {
  const { rest, verdict, unread } = skipOptions('command', args, { flags: ['-p', '-v', '-V'] });
  if (unread) return judgeUnread(verdict!, unread, judgeArgv);
  if (verdict) return verdict;
  const lookup = args.slice(0, args.length - rest.length).some((a) => /^-[pvV]*[vV]/.test(a.value ?? ''));
  if (lookup || rest.length === 0) return allow('command -v only looks a name up');
  return judgeArgv(rest);
}

/** `env [-i] [-u NAME] [NAME=VALUE]… [command]`: the assignments are checked, then the command judged. */
function judgeEnv(args: readonly Arg[]): Verdict {
  if (args.some((a) => /^(-[a-zA-Z0-9]*S|--split-string)/.test(a.value ?? ''))) return deny('env -S splits a string into a command line');
  const { rest, verdict, unread } = skipOptions('env', args, {
    flags: ['-i', '--ignore-environment', '-0', '--null', '-v', '--debug'],
    valued: ['-u', '--unset', '-C', '--chdir'],
  });
  if (unread) return judgeUnread(verdict!, unread, judgeArgv);
  if (verdict) return verdict;
  let i = 0;
  for (; i < rest.length; i++) {
    const word = rest[i]!.value;
    if (word === undefined) return deny('an argument of env is computed at run time');
    const eq = word.indexOf('=');
    if (eq <= 0) break;
    const danger = dangerousVariable(word.slice(0, eq));
    if (danger) return danger;
  }
  return i === rest.length ? allow('env alone prints the environment') : judgeArgv(rest.slice(i));
}
