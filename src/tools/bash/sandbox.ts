import { spawnSync } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync } from 'node:fs';
import type { PathRules } from '../../policy/index.js';
import type { SandboxInfo } from '../tool.js';
import type { Identity } from './identity.js';
import { mountArgs, planMounts } from './mounts.js';

/** How a command is started: the program, its arguments, and the identity it runs as. */
export interface Launch {
  file: string;
  args: string[];
}

/** The resource limits a command runs under (setrlimit, through util-linux `prlimit`). */
export interface ResourceLimits {
  processes: number;
  fileSizeBytes: number;
  cpuSeconds: number;
  openFiles: number;
}

/** Where commands run: bubblewrap (the binary found) or straight on the host. */
export interface Sandbox {
  info: SandboxInfo;
  /**
   * The launch of `bash -c command` under `limits`, confined to `workspace`
   * when sandboxed, with the policy's rules on paths mounted as they hold
   * for the workspace now (see planMounts); with `readOnly`, the whole
   * workspace is read-only.
   */
  launch(command: string, workspace: string, limits: ResourceLimits, rules: PathRules, readOnly: boolean): Promise<Launch>;
}

/** What start-up learns choosing the sandbox: the choice, a problem that stops start-up, or a warning to log. */
interface SandboxChoice {
  sandbox?: Sandbox;
  problem?: string;
  warning?: string;
}

const BWRAP = '/usr/bin/bwrap';
const PRLIMIT = '/usr/bin/prlimit';
/**
 * Where bash may be, /usr first: the sandbox binds /usr (and the system
 * links into it), so a bash found here runs the same inside and out.
 */
const BASH_PATHS = ['/usr/bin/bash', '/bin/bash'];

/**
 * The shell the classifier models (mvdan-sh's LangBash), and nothing else:
 * /bin/sh is dash on Debian, which reads `echo $'\' ; rm -rf src ; #'` as three
 * commands where bash reads one echo. No profile, no rc file; the
 * environment holds no BASH_ENV or ENV (commandEnv), so bash reads no file
 * before the command. extglob on, as LangBash always parses it: without it
 * bash reads `!(rm -rf src)` as a negated subshell where the classifier
 * sees one pattern word.
 */
const shellArgs = (bash: string, command: string) => [bash, '--noprofile', '--norc', '-O', 'extglob', '-c', command];

/** The first executable bash of `candidates`; undefined when there is none. */
function findBash(candidates: readonly string[] = BASH_PATHS): string | undefined {
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The top-level system paths a shell needs besides /usr; on merged-/usr systems they are links into it. */
const SYSTEM_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
/**
 * The few files of /etc that programs in /usr read: the dynamic linker's
 * cache and Debian's alternatives (`awk`, `editor`… are links through it).
 * Not passwd, hosts or anything naming the host's users or network.
 */
const ETC_READ_ONLY = ['/etc/alternatives', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime'];

/**
 * `prlimit` then `bash -c command`: setrlimit from inside, so bwrap's own
 * set-up is not bounded by the command's limits. prlimit and bwrap exec
 * their arguments directly; bash is the one shell that reads the command.
 */
function limited(bash: string, command: string, limits: ResourceLimits): string[] {
  return [
    PRLIMIT,
    `--nproc=${limits.processes}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
    ...shellArgs(bash, command),
  ];
}

/** `--symlink` for the top-level paths that link into /usr, `--ro-bind` for those that are directories of their own. */
function systemPaths(): string[] {
  return SYSTEM_LINKS.flatMap((name) => {
    const path = `/${name}`;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) return [];
    return stat.isSymbolicLink() ? ['--symlink', readlinkSync(path), path] : ['--ro-bind', path, path];
  });
}

/**
 * bubblewrap's arguments: a new mount namespace holding only read-only /usr
 * (with the system links and the few /etc files above), a fresh /proc of its
 * own PID namespace, a minimal /dev, a private /tmp, and the workspace, the
 * one writable bind (read-only with `readOnly`), at its own path, with
 * `mounts` over it (the policy's masks and read-only paths). Every namespace is unshared (network
 * included: only a loopback of its own), every capability dropped, and the
 * sandbox dies with the gateway's child.
 */
export function bwrapArgs(workspace: string, mounts: readonly string[] = [], readOnly = false): string[] {
  return [
    '--unshare-all',
    '--die-with-parent',
    // Its own UTS namespace starts as a copy of the host's: name it, so the host's name is not told either.
    '--hostname',
    'sandbox',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
    ...systemPaths(),
    ...ETC_READ_ONLY.flatMap((path) => ['--ro-bind-try', path, path]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    readOnly ? '--ro-bind' : '--bind',
    workspace,
    workspace,
    ...mounts,
    '--chdir',
    workspace,
  ];
}

const bwrapSandbox = (setting: SandboxInfo['setting'], bwrap: string, bash: string): Sandbox => ({
  info: { mode: 'bwrap', setting },
  launch: async (command, workspace, limits, rules, readOnly) => ({
    file: bwrap,
    args: [
      ...bwrapArgs(workspace, await mountArgs(workspace, await planMounts(workspace, rules, { readOnly })), readOnly),
      '--',
      ...limited(bash, command, limits),
    ],
  }),
});

const hostSandbox = (setting: SandboxInfo['setting'], bash: string): Sandbox => ({
  // Fail closed: only an explicit `none` lets ALLOW commands run unsandboxed without an approval.
  info: setting === 'auto' ? { mode: 'none', setting, fail_closed: true } : { mode: 'none', setting },
  launch: (command, _workspace, limits) => Promise.resolve({ file: PRLIMIT, args: limited(bash, command, limits).slice(1) }),
});

/** How long a probe may take: bwrap is up in milliseconds, a hung one must not hold start-up. */
const PROBE_TIMEOUT_MS = 10_000;

/** Runs `file args` as `identity`; undefined when it exited 0, else why not. */
function probe(file: string, args: string[], identity: Identity): string | undefined {
  const run = spawnSync(file, args, {
    ...identity,
    env: { PATH: '/usr/bin:/bin' },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: PROBE_TIMEOUT_MS,
  });
  if (run.error) return run.error.message;
  if (run.status === 0) return undefined;
  const stderr = run.stderr.toString('utf8').trim().split('\n').slice(-1)[0] ?? '';
  return `exited with ${run.status ?? run.signal}${stderr ? `: ${stderr}` : ''}`;
}

/**
 * The sandbox `setting` gives on this host, after running a command in it:
 * bubblewrap can be installed and still be refused by the kernel (user
 * namespaces off, seccomp in a container), so only a sandbox that ran
 * `true` counts. bash and `prlimit` must work in every mode: without bash
 * no command would run as the classifier read it, without prlimit there are
 * no resource limits; either way no command runs.
 */
export function chooseSandbox(
  setting: SandboxInfo['setting'],
  workspace: string,
  identity: Identity,
  bwrap = BWRAP,
  bashPaths = BASH_PATHS,
): SandboxChoice {
  const bash = findBash(bashPaths);
  if (!bash) {
    return {
      problem: `builtins.Bash: bash is not installed (looked for ${bashPaths.join(', ')}); commands are classified as bash reads them and run by bash only, never by another shell. Install bash (apt-get install bash)`,
    };
  }
  const limits: ResourceLimits = { processes: 64, fileSizeBytes: 1_048_576, cpuSeconds: 5, openFiles: 64 };
  const noLimits = probe(PRLIMIT, limited(bash, 'true', limits).slice(1), identity);
  if (noLimits) {
    return {
      problem: `builtins.Bash: ${PRLIMIT} (util-linux) does not run (${noLimits}); it sets the commands' resource limits. Install util-linux`,
    };
  }
  if (setting === 'none') {
    return {
      sandbox: hostSandbox(setting, bash),
      warning:
        'Bash runs commands WITHOUT a sandbox (builtins.Bash.sandbox: none): read-only commands run without an approval, and every command sees the whole host file system and network as the user it runs as',
    };
  }
  const refused = probe(bwrap, [...bwrapArgs(workspace), '--', ...limited(bash, 'true', limits)], identity);
  if (!refused) return { sandbox: bwrapSandbox(setting, bwrap, bash) };
  const why = `bubblewrap (${bwrap}) does not work here: ${refused}`;
  if (setting === 'required') {
    return {
      problem: `builtins.Bash.sandbox is required, but ${why}. Install it (apt-get install bubblewrap) and allow user namespaces, or set sandbox: auto or none`,
    };
  }
  return {
    sandbox: hostSandbox(setting, bash),
    warning: `Bash runs commands WITHOUT a sandbox: ${why} (builtins.Bash.sandbox: auto), so every command that is not refused asks for an approval first. Install bubblewrap, set sandbox: required to refuse to start without it, or sandbox: none to run read-only commands unsandboxed without asking`,
  };
}
