import path from 'node:path';
import type { ToolClassification } from '../../policy/index.js';

/**
 * Files naming programs that other commands run: git's (`core.fsmonitor`
 * runs on `git status`, a `.gitattributes` line selects a textconv or
 * filter driver that `git diff` and `git status` run) and the shell's. A
 * Write or Edit of one is ASK by default, so two ALLOW calls (write the
 * config, run `git status`) never add up to running what the config names.
 * Anywhere in the workspace: a `.git` directory or file at any depth (a
 * `.git` file's `gitdir:` points at a config elsewhere), and the git files
 * a repository or directory reads (`.gitattributes`, `.gitmodules`'s
 * `update = !command`, `.gitconfig` that an include may name). At the root,
 * which is HOME: the shell's start-up files and git's XDG directory
 * (`.config/git/attributes` is read even with the global config off).
 */
const ANY_DEPTH = new Set(['.gitconfig', '.gitattributes', '.gitmodules']);
const AT_HOME = new Set(['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.inputrc']);

/** Why the workspace-relative `p` configures programs, or undefined when it does not. */
function configures(p: string): string | undefined {
  // Without case: on a case-insensitive file system (a macOS or Windows folder mounted in) `.GIT/config` is `.git/config`.
  const segments = path.posix
    .normalize(p)
    .toLowerCase()
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('.git')) return 'a .git directory or file sets the programs git runs';
  const name = segments.at(-1) ?? '';
  if (ANY_DEPTH.has(name)) return `${name} sets or selects programs git runs`;
  if (segments.length === 1 && AT_HOME.has(name)) return `${name} in the workspace root (HOME) is read by the shell`;
  if (segments[0] === '.config' && segments[1] === 'git') return ".config/git in the workspace root (HOME) is git's own configuration";
  return undefined;
}

/**
 * Write's and Edit's class: ASK for a path that configures programs (see
 * above), ALLOW for every other. The permission gate judges each spelling of
 * the path (Tool.canonicalArgs), so `./.git/config`, `sub/../.git/config`
 * and a link to `.git` are all the same `.git/config`. A policy rule with a
 * `when` on the path decides instead, as for any class.
 */
export function classifyPath(args: Record<string, unknown>): ToolClassification {
  const why = typeof args.path === 'string' ? configures(args.path) : undefined;
  return why ? { parts: [{ args, decision: 'ask', reason: why }] } : 'allow';
}
