import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../../protocol/errors.js';
import type { DirHandle } from '../directory.js';
import { denied, errnoCode } from '../path-errors.js';
import type { FileLease, FileLocks } from '../tool.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted, type Abortable } from './abort.js';
import { laterThan, stampIn } from './file-stamp.js';
import type { FileStamp } from './stamp.js';

interface AtomicWriteOptions {
  /** Exact permission bits, e.g. the overwritten file's; absent → the default mode under the umask. */
  mode?: number;
  /** The call: checked for its deadline before the lock and the rename; its file locks. */
  call: Abortable & { fileLocks: FileLocks };
  /** Judges the file as it is (null: none) with the lock held, just before the rename: throws CONFLICT when the call may not replace it. */
  check(current: FileStamp | null): void;
}

/** Linux's limit on a path given to a system call, terminating NUL included. */
const PATH_MAX = 4096;

/** The file name in its temp file's name, cut so the temp name stays within NAME_MAX (255 bytes) whatever the name. */
function tempStem(name: string): string {
  return Buffer.byteLength(name) <= 200 ? name : name.slice(0, 50);
}

/** A temp file's name: `.<stem>.<12 hex>.tmp`. A fence names only such files; nothing else is ever removed by one. */
const TEMP_NAME = /^\..*\.[0-9a-f]{12}\.tmp$/s;
/** The tail of an armed temp file's name after `.<stem>.`: what a holder's sweep removes. */
const ARMED_TAIL = /^[0-9a-f]{12}\.tmp$/;

/**
 * Writes `content` to `target` (a real path in the workspace): readers see the old file or the new one, never a mix, and no two writers
 * anywhere in the fleet both pass `check` on the same base (docs/replicas.md, "The write lock"). On any error the temp file and the
 * directories this call made are removed; returns the new file's stamp, taken from the temp file itself.
 * 1. the directory is opened walking down from the root (missing parents made); all below goes through that handle;
 * 2. a temp file `.<stem>.<hex>.part` beside the target is written and fsynced;
 * 3. the lock is taken under the armed name `.<stem>.<hex>.tmp`; the temp files of lapsed holders it names are removed;
 * 4. the temp file is armed (renamed to that name) and every other armed one of the stem removed, so no earlier holder can still rename;
 * 5. the file is checked, its new mtime made later than the old one's, and the armed file renamed over it.
 */
export async function writeAtomic(ws: Workspace, target: string, content: string, options: AtomicWriteOptions): Promise<FileStamp> {
  const name = path.basename(target);
  const stem = tempStem(name);
  const id = randomBytes(6).toString('hex');
  const pending = `.${stem}.${id}.part`;
  const temp = `.${stem}.${id}.tmp`;
  // Checked before anything is created: a file past PATH_MAX could not be read or written by path afterwards.
  if (Buffer.byteLength(path.join(path.dirname(target), pending)) >= PATH_MAX) {
    const shown = ws.relative(target);
    throw new GatewayError('INVALID_ARGS', {
      message: `The path ${JSON.stringify(shown.length > 100 ? `${shown.slice(0, 100)}…` : shown)} is too long to write.`,
      suggestion: 'Use a shorter path.',
    });
  }
  const dir = await ws.openDirectory(path.dirname(target));
  let handle: FileHandle | undefined;
  let lease: FileLease | undefined;
  let fenced = false;
  let armed = false;
  let renamed = false;
  try {
    handle = await open(
      `${dir.path}/${pending}`,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      options.mode ?? 0o666,
    );
    await handle.writeFile(content);
    // open() applies the umask; an overwrite must keep the old file's exact bits.
    if (options.mode !== undefined) await handle.chmod(options.mode);
    await handle.sync();
    throwIfAborted(options.call);
    lease = await options.call.fileLocks.acquire(ws.relative(target), temp);
    await removeFenced(dir, lease.fence);
    fenced = true;
    // Armed before the sweep, so any holder that sweeps later removes it (docs/replicas.md, "Without the store").
    await rename(`${dir.path}/${pending}`, `${dir.path}/${temp}`);
    armed = true;
    await sweep(dir, stem, temp);
    const current = await stampIn(dir, name);
    options.check(current);
    const stamp = await laterThan(handle, current);
    throwIfAborted(options.call);
    dir.verify();
    await rename(`${dir.path}/${temp}`, `${dir.path}/${name}`).catch((err: unknown) => {
      throw renameError(err, ws.relative(target));
    });
    renamed = true;
    return stamp;
  } catch (err) {
    throw errnoAnswer(err, ws.relative(target));
  } finally {
    await handle?.close();
    if (!renamed && handle) await unlink(`${dir.path}/${armed ? temp : pending}`).catch(() => undefined);
    await lease?.release(fenced);
    await dir.close(!renamed);
  }
}

/** The temp files of lapsed holders, removed: a name already gone was renamed, or removed by someone else. */
async function removeFenced(dir: DirHandle, fence: readonly string[]): Promise<void> {
  for (const name of fence) {
    if (!TEMP_NAME.test(name) || name.includes('/')) continue;
    await unlink(`${dir.path}/${name}`).catch((err: unknown) => {
      if (errnoCode(err) !== 'ENOENT') throw err;
    });
  }
}

/** Removes every armed temp file of `stem` but `own`, so no other writer armed before can rename (a cut stem's other file: CONFLICT). */
async function sweep(dir: DirHandle, stem: string, own: string): Promise<void> {
  const prefix = `.${stem}.`;
  for (const entry of await readdir(dir.path)) {
    if (entry === own || !entry.startsWith(prefix) || !ARMED_TAIL.test(entry.slice(prefix.length))) continue;
    await unlink(`${dir.path}/${entry}`).catch((err: unknown) => {
      if (errnoCode(err) !== 'ENOENT') throw err;
    });
  }
}

/** Our temp file gone at the rename: a successor found this call's lease lapsed and fenced it off. */
function renameError(err: unknown, shown: string): unknown {
  if (errnoCode(err) !== 'ENOENT') return err;
  return new GatewayError('CONFLICT', {
    message: `${JSON.stringify(shown)}: this write held the file's lock past its lease, and another write took it over; nothing was written.`,
    suggestion: 'Read the file again, then redo the change against its current content.',
  });
}

/** A file-system error met on the way, in the caller's terms where it is one (a path in the way, a race); else as it is. */
function errnoAnswer(err: unknown, shown: string): unknown {
  if (err instanceof GatewayError) return err;
  switch (errnoCode(err)) {
    case 'EISDIR':
      return new GatewayError('INVALID_ARGS', { message: `${JSON.stringify(shown)} is a directory; only a file can be written.` });
    case 'ENAMETOOLONG':
      return new GatewayError('INVALID_ARGS', { message: `The path ${JSON.stringify(shown)} is too long to write.` });
    case 'EACCES':
    case 'EPERM':
      return denied(shown, 'cannot be written');
    case 'ENOENT':
    case 'EEXIST':
    case 'ELOOP':
    case 'ENOTDIR':
      return new GatewayError('CONFLICT', {
        message: `${JSON.stringify(shown)} or its directory changed while it was written; nothing was written.`,
        suggestion: 'Read the file again, then redo the change.',
      });
    default:
      return err;
  }
}
