/**
 * git settings at command-line precedence (GIT_CONFIG_COUNT): above every
 * config file, a repository's .git/config included. HOME is the workspace,
 * which the file tools write, so a config git reads there could name a
 * program for an ALLOW command to run (`core.fsmonitor` runs on `git
 * status`). These are the keys naming a program that a value can switch
 * off or back to git's own default without breaking the command. Not here,
 * because no value can neutralise them by name: `diff.external` (git 2.39
 * runs even an empty value, so every `git diff` would fail) and the
 * per-driver keys (`diff.<driver>.textconv`, `filter.<driver>.clean`,
 * `merge.<driver>.driver`); the file tools ASK before changing the files
 * that could set them (builtin/config-paths.ts), and no global or system
 * config is read at all.
 */
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
  // An empty value empties the list of helpers set before it.
  ['credential.helper', ''],
  // A bare repository written as plain files (HEAD, config) is not found by walking into it; only --git-dir names one.
  ['safe.bareRepository', 'explicit'],
];

function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
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

/**
 * The environment a command gets, built from nothing: none of the gateway's
 * variables (keys, tokens) reach it, and neither BASH_ENV nor ENV (a file
 * bash would read before the command). HOME is the workspace (contract
 * 4.1), so git reads no ~/.gitconfig there: see GIT_OVERRIDES.
 */
export function commandEnv(workspace: string): NodeJS.ProcessEnv {
  return { PATH: COMMAND_PATH.join(':'), HOME: workspace, LANG: 'C.UTF-8', ...gitEnv() };
}
