import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../../protocol/errors.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted, type Abortable } from './abort.js';
import { stampOf, type FileStamp } from './stamp.js';

interface AtomicWriteOptions {
  /** Exact permission bits, e.g. the overwritten file's; absent → the default mode under the umask. */
  mode?: number;
  /** Checked before the rename. */
  call: Abortable;
  /** Runs just before the rename: the last moment a conflict can still stop the write. */
  beforeRename(): Promise<void>;
}

/** Linux's limit on a path given to a system call, terminating NUL included. */
const PATH_MAX = 4096;

/** The file name in its temp file's name, cut so the temp name stays within NAME_MAX (255 bytes) whatever the name. */
function tempStem(name: string): string {
  return Buffer.byteLength(name) <= 200 ? name : name.slice(0, 50);
}

/**
 * Writes `content` to `target` (a path from the workspace) so that readers see
 * the old file or the new one, never a mix: a temp file in the same directory,
 * fsynced, then renamed over the target. Missing parent directories are
 * created. Returns the new file's stamp, taken from the temp file itself so it
 * describes what this call wrote even if someone writes right after.
 */
export async function writeAtomic(ws: Workspace, target: string, content: string, options: AtomicWriteOptions): Promise<FileStamp> {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${tempStem(path.basename(target))}.${randomBytes(6).toString('hex')}.tmp`);
  // Checked before anything is created: past PATH_MAX the mkdir or the temp file fails half-way,
  // leaving directories behind and an error that reads like the tool's fault (and counts against its breaker).
  if (Buffer.byteLength(temp) >= PATH_MAX) {
    const shown = ws.relative(target);
    throw new GatewayError('INVALID_ARGS', {
      message: `The path ${JSON.stringify(shown.length > 100 ? `${shown.slice(0, 100)}…` : shown)} is too long to write.`,
      suggestion: 'Use a shorter path.',
    });
  }
  await mkdir(dir, { recursive: true });
  await ws.recheck(dir);
  const handle = await ws.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, options.mode ?? 0o666);
  let renamed = false;
  try {
    await handle.writeFile(content);
    // open() applies the umask; an overwrite must keep the old file's exact bits.
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.sync();
    const stamp = stampOf(await handle.stat());
    throwIfAborted(options.call);
    await ws.recheck(dir);
    await options.beforeRename();
    await rename(temp, target);
    renamed = true;
    return stamp;
  } finally {
    await handle.close();
    if (!renamed) await rm(temp, { force: true });
  }
}
