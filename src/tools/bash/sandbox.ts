import { spawnSync } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PathRules } from '../../policy/index.js';
import type { SandboxInfo } from '../capabilities.js';
import type { Identity } from './identity.js';
import { mountArgs, planMounts, type GitHistory } from './mounts.js';
import { hold, release } from './placeholders.js';

/** How a command is started: the program, its arguments, and the identity it runs as. */
export interface Launch {
  file: string;
  args: string[];
  /** Called once the command has ended: removes its placeholders. */
  release?: () => Promise<void>;
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
  /** `bash -c command` under `limits`, confined to `workspace` with the rules mounted (planMounts); `readOnly`: all of it read-only. */
  launch(
    command: string,
    workspace: string,
    limits: ResourceLimits,
    rules: PathRules,
    readOnly: boolean,
    gitHistory?: GitHistory,
  ): Promise<Launch>;
}

/** What start-up learns choosing the sandbox: the choice, a problem that stops start-up, or a warning to log. */
interface SandboxChoice {
  sandbox?: Sandbox;
  problem?: string;
  warning?: string;
}

const BWRAP = '/usr/bin/bwrap';
const PRLIMIT = '/usr/bin/prlimit';
/** Where bash may be, /usr first: the sandbox binds /usr, so the same bash runs inside and out. */
const BASH_PATHS = ['/usr/bin/bash', '/bin/bash'];

/** bash, the shell the classifier models (not dash), with no profile or rc file and extglob on, as mvdan-sh's LangBash parses. */
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

const SYSTEM_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
/** The few files of /etc that programs in /usr read; nothing naming the host's users or network. */
const ETC_READ_ONLY = ['/etc/alternatives', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime'];

/** `prlimit` then `bash -c command`: the limits bound the command, not bwrap's set-up. */
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

function systemPaths(): string[] {
  return SYSTEM_LINKS.flatMap((name) => {
    const path = `/${name}`;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) return [];
    return stat.isSymbolicLink() ? ['--symlink', readlinkSync(path), path] : ['--ro-bind', path, path];
  });
}

/**
 * bubblewrap's arguments: read-only /usr, its own /proc, /dev and /tmp, the workspace (read-only with `readOnly`) with `mounts` over it;
 * every namespace unshared, every capability dropped.
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

const bwrapSandbox = (setting: SandboxInfo['setting'], bwrap: string, bash: string, identity: Identity, shared: boolean): Sandbox => ({
  info: { mode: 'bwrap', setting },
  launch: async (command, workspace, limits, rules, readOnly, gitHistory) => {
    const plan = await planMounts(workspace, rules, { readOnly, gitHistory, identity });
    const args = [...bwrapArgs(workspace, await mountArgs(workspace, plan), readOnly), '--', ...limited(bash, command, limits)];
    const placeholders = plan.filter((m) => m.placeholder).map((m) => join(workspace, m.rel));
    // A placeholder with content is written by the gateway, so that programs outside the sandbox read it too while the command runs.
    for (const { rel, content } of plan) if (content) await writeFile(join(workspace, rel), content, { flag: 'wx' }).catch(() => undefined);
    hold(placeholders);
    return { file: bwrap, args, release: () => release(placeholders, !shared) };
  },
});

const hostSandbox = (setting: SandboxInfo['setting'], bash: string): Sandbox => ({
  // Fail closed: only an explicit `none` lets ALLOW commands run unsandboxed without an approval.
  info: setting === 'auto' ? { mode: 'none', setting, fail_closed: true } : { mode: 'none', setting },
  launch: (command, _workspace, limits) => Promise.resolve({ file: PRLIMIT, args: limited(bash, command, limits).slice(1) }),
});

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

interface SandboxOptions {
  /** Other processes may run commands on the workspace: placeholders stay (placeholders.ts). */
  shared?: boolean;
  bwrap?: string;
  bashPaths?: readonly string[];
}

/** The sandbox `setting` gives on this host, tried by running `true` in it; bash and prlimit must work in every mode. */
export function chooseSandbox(
  setting: SandboxInfo['setting'],
  workspace: string,
  identity: Identity,
  { shared = false, bwrap = BWRAP, bashPaths = BASH_PATHS }: SandboxOptions = {},
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
  if (!refused) return { sandbox: bwrapSandbox(setting, bwrap, bash, identity, shared) };
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
