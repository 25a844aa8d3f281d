/** Files a later git or shell runs or obeys: read-only and never made at a repository root, whatever the policy; compared without case. */
export const PROTECTED_FILES = [
  '.gitconfig',
  '.gitmodules',
  '.gitattributes',
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.bash_login',
  '.bash_logout',
];
/** In a git directory: what changes which config, attributes, hooks and objects git uses. */
export const PROTECTED_IN_GIT = ['config', 'config.worktree', 'hooks', 'commondir', 'gitdir', 'info'];
/** In an object store's `info/`: other object stores git reads objects from. */
export const PROTECTED_IN_OBJECTS_INFO = ['alternates', 'http-alternates'];

/** A missing `commondir` is kept by one naming the git directory itself, which git reads as none. */
export const SELF_COMMONDIR = '.\n';

/** What of a git directory holds copies of its repository's files: masked where a rule for reading may hold (historyHidden). */
const COPIES = ['objects', 'index', 'lfs', 'rr-cache', 'rebase-apply', 'rebase-merge'];

/** Whether the entry `name` (lower case) of a git directory holds copies of the repository's files. */
export const holdsCopies = (name: string) => COPIES.includes(name) || name.startsWith('sharedindex.');

/** Whether a folder is a git directory, by the names (lower case) it holds. */
export function isGitDir(names: ReadonlySet<string>, dotGit: boolean, inGitTree: boolean): boolean {
  if (dotGit) return true;
  if (!names.has('head')) return false;
  return names.has('commondir') || (names.has('objects') && names.has('refs')) || (inGitTree && names.has('config'));
}
