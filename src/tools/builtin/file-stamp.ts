import { constants, fstatSync, lstatSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { DirHandle } from '../directory.js';
import { errnoCode } from '../path-errors.js';
import { stampOf, type FileStamp } from './stamp.js';

/** Opened to be looked at only: never through a link, and O_NONBLOCK so a FIFO cannot hang the open. */
const LOOK_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The stamp of `name` in `dir` now, null when none: from the opened file (on NFS an open revalidates, a stat may answer from cache). */
export async function stampIn(dir: DirHandle, name: string): Promise<FileStamp | null> {
  const at = `${dir.path}/${name}`;
  let handle: FileHandle;
  try {
    handle = await open(at, LOOK_FLAGS);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP' || code === 'EACCES' || code === 'EPERM') {
      const entry = lstatSync(at, { throwIfNoEntry: false });
      return entry ? stampOf(entry) : null;
    }
    throw err;
  }
  try {
    return stampOf(fstatSync(handle.fd));
  } finally {
    await handle.close();
  }
}

/** Steps tried to move an mtime past another: a millisecond, then the second and two-second granularity of coarse file systems. */
const STEPS_MS = [1, 1000, 2000];

/**
 * The stamp of the open file `handle`, its mtime first made later than `replaced`'s: mtimes come from a coarse clock, and two same-size
 * writes in one tick must never leave equal stamps, or a writer that read the first could overwrite the second unseen.
 */
export async function laterThan(handle: FileHandle, replaced: FileStamp | null): Promise<FileStamp> {
  let stats = await handle.stat();
  if (replaced === null) return stampOf(stats);
  for (const step of STEPS_MS) {
    if (stats.mtimeMs > replaced.file_mtime_ms) break;
    await handle.utimes(stats.atime, (replaced.file_mtime_ms + step) / 1000);
    stats = await handle.stat();
  }
  return stampOf(stats);
}
