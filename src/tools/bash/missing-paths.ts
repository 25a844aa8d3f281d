import { constants } from 'node:fs';
import { access, lstat, readlink, realpath, stat } from 'node:fs/promises';
import type { Identity } from './identity.js';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

/** A workspace-relative path with `/` separators, as the policy's rules read paths. */
export const posix = (rel: string) => (sep === '/' ? rel : rel.split(sep).join('/'));

/**
 * For each kept folder that does not exist, its shallowest missing folder, made empty and read-only by bubblewrap; under a link or a file,
 * none.
 */
export async function missingFolders(workspace: string, folders: readonly string[]): Promise<string[]> {
  const missing = new Set<string>();
  for (const folder of folders) {
    const segments = folder.split('/');
    for (let i = 1; i <= segments.length; i++) {
      const rel = segments.slice(0, i).join('/');
      const stat = await lstat(join(workspace, rel)).catch(() => undefined);
      if (stat === undefined) missing.add(rel);
      if (stat === undefined || !stat.isDirectory()) break;
    }
  }
  return [...missing];
}

/** Where a dangling link would create its target: the first missing path on the way, inside the workspace. */
export async function missingTarget(workspace: string, link: string): Promise<{ rel: string; folder: boolean } | undefined> {
  try {
    const wanted = resolve(dirname(link), await readlink(link));
    let existing = dirname(wanted);
    let first = wanted;
    while ((await lstat(existing).catch(() => undefined)) === undefined) [first, existing] = [existing, dirname(existing)];
    if ((await lstat(first).catch(() => undefined)) !== undefined) return undefined;
    const rel = relative(workspace, join(await realpath(existing), basename(first)));
    if (rel.startsWith('..') || rel.startsWith(sep) || !(await lstat(dirname(join(workspace, rel)))).isDirectory()) return undefined;
    return { rel: posix(rel), folder: first !== wanted };
  } catch {
    return undefined;
  }
}

/** Whether a command run as `identity` could make an entry in the folder; `locked` when its owner made it read-only (refused). */
export async function canCreateIn(abs: string, identity: Identity): Promise<boolean | 'locked'> {
  const user = identity.uid ?? process.getuid?.();
  try {
    const { uid, gid, mode } = await stat(abs);
    const writable = await access(abs, constants.W_OK | constants.X_OK).then(
      () => true,
      (error: NodeJS.ErrnoException) => (error.code === 'EACCES' ? undefined : false),
    );
    if (writable === false) return false;
    if (identity.uid === undefined) return writable ?? (uid === user ? 'locked' : false);
    if (uid === identity.uid) return (mode & 0o300) === 0o300 || 'locked';
    if (gid === identity.gid) return (mode & 0o030) === 0o030;
    return (mode & 0o003) === 0o003;
  } catch {
    return false;
  }
}
