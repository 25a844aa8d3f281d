import { readlinkSync } from 'node:fs';

/**
 * The post-open check of {@link Workspace.open}, kept apart from path resolution because it asks the OS about an open descriptor, not about
 * a path: resolution can be raced (a parent swapped for a symlink after the policy judged the path), the descriptor cannot.
 *
 * Returns the path the OS says descriptor `fd` is open on when that is not the file `real` named, else undefined. Undefined as well where
 * the OS cannot tell (no /proc: macOS, Windows); O_NOFOLLOW on the last component is then the guard left.
 */
export function openedElsewhere(fd: number, real: string): string | undefined {
  let opened: string;
  try {
    // Synchronous on purpose: procfs answers from memory, never from a disk, and a thread-pool hop costs more.
    opened = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
  // The real path, not only the root, is compared: a parent directory replaced by a link since the policy judged `real` (say by an earlier
  // call of the batch) leads to another file, maybe one a rule denies, inside the root. A file unlinked since it was opened is still the
  // one judged.
  return opened === real || opened === `${real} (deleted)` ? undefined : opened;
}
