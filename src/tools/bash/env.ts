import { chmodSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** git settings above every config file (GIT_CONFIG_COUNT): the program-naming keys a value can switch off; see docs/bash.md. */
const GIT_OVERRIDES: ReadonlyArray<[key: string, value: string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.sshCommand', 'ssh'],
  ['core.askPass', ''],
  // No terminal to edit in: a command that wants an editor stops with git's own message instead of waiting for its timeout.
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['gpg.program', 'gpg'],
  ['gpg.ssh.program', 'ssh-keygen'],
  ['gpg.x509.program', 'gpgsm'],
  // `git log` checks signatures (running gpg) when this is on.
  ['log.showSignature', 'false'],
  // An empty value empties the list of helpers set before it.
  ['credential.helper', ''],
  // A bare repository written as plain files (HEAD, config) is not found by walking into it; only --git-dir names one.
  ['safe.bareRepository', 'explicit'],
];

function gitEnv(workspace: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ATTR_NOSYSTEM: '1',
    // git looks for a repository no higher than the workspace: never one of a folder around it.
    GIT_CEILING_DIRECTORIES: dirname(workspace),
    // `git status` refreshes the index only when it may write: never, so a read writes nothing.
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(GIT_OVERRIDES.length),
  };
  GIT_OVERRIDES.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Where a command's programs are found: system folders only, never one the workspace can change. */
export const COMMAND_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/** The folders programs read their user's configuration from, all set to HOME. */
const HOME_LIKE = ['GNUPGHOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME'];

/** A command's environment, built from nothing: no gateway variable, no BASH_ENV or ENV, HOME and its kin an empty folder. */
export function commandEnv(workspace: string, home: string): NodeJS.ProcessEnv {
  const homes = Object.fromEntries(HOME_LIKE.map((name) => [name, home]));
  return { PATH: COMMAND_PATH.join(':'), HOME: home, ...homes, LANG: 'C.UTF-8', ...gitEnv(workspace) };
}

/** HOME outside the sandbox: an empty read-only folder, made anew whenever a command left something in it. */
export function emptyHome(): () => string {
  let home: string | undefined;
  return () => {
    let empty = false;
    try {
      empty = home !== undefined && readdirSync(home).length === 0;
    } catch {
      empty = false;
    }
    if (!empty) {
      home = mkdtempSync(join(tmpdir(), 'toolgate-home-'));
      chmodSync(home, 0o555);
    }
    return home!;
  };
}

/**
 * HOME inside the sandbox: the empty /dev/shm of the /dev bubblewrap makes
 * for each command (a tmpfs of its own), a folder no workspace can be in.
 */
export const SANDBOX_HOME = '/dev/shm';
