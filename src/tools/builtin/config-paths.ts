import path from 'node:path';
import type { ToolClassification } from '../../policy/index.js';

/**
 * Files naming programs other commands run, so a Write or Edit of one is ASK and two ALLOW calls never add up to running what it names:
 * anywhere, a `.git` directory or file and `.gitattributes`, `.gitmodules`, `.gitconfig`; at the root (HOME), the shell's start-up files and
 * git's XDG directory.
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
  if (segments.length === 1 && AT_HOME.has(name)) return `${name} in the workspace root is read by a shell whose HOME it is`;
  if (segments[0] === '.config' && segments[1] === 'git')
    return ".config/git in the workspace root is git's own configuration where it is HOME";
  return undefined;
}

/** Write's and Edit's class: ASK for a path that configures programs, judged in every spelling (Tool.canonicalArgs); else ALLOW. */
export function classifyPath(args: Record<string, unknown>): ToolClassification {
  const why = typeof args.path === 'string' ? configures(args.path) : undefined;
  return why ? { parts: [{ args, decision: 'ask', reason: why }] } : 'allow';
}
