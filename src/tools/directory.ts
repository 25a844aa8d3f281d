import { closeSync, constants, existsSync, lstatSync, open as openFd, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, rmdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { GatewayError } from '../protocol/errors.js';
import { denied, errnoCode } from './path-errors.js';

const openAsync = promisify(openFd);

/** Each step of a walk opens a real directory below the last, never a link: O_NOFOLLOW refuses one in the last component. */
const STEP_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Where the OS names an open descriptor's directory by a path that leads to that very directory whatever is renamed or swapped since (Linux
 * /proc): a name below it is reached as `openat` would reach it. Elsewhere names are reached through the real path, re-checked (the guard
 * left without /proc).
 */
export const BY_DESCRIPTOR = existsSync('/proc/self/fd');

/** A workspace directory held open, and the path every name in it is reached through. */
export interface DirHandle {
  /** `${path}/${name}` is `name` in this very directory: /proc/self/fd/N where the OS has it. */
  readonly path: string;
  /** Throws (as the workspace answers a swapped path) unless the directory still has the real path it was opened at. */
  verify(): void;
  /** Closes the directory; with `undo`, first removes the directories this walk created, deepest first, if still empty. */
  close(undo: boolean): Promise<void>;
}

/** How a walk answers in the workspace's words. */
interface WalkAnswers {
  /** Where the path it follows changed under it: `found`, the real path now, undefined when it leads nowhere. */
  moved(found: string | undefined): GatewayError;
  /** A real path as the caller spells it. */
  shown(real: string): string;
}

/**
 * Opens `root/parts…` one directory at a time, each through the descriptor of the one above, so no link anywhere on the way is followed and
 * nothing is reached by a path that could be swapped between a check and its use. A missing directory is made in the one above (mode 0777
 * under the umask, as `mkdir -p`), and removed again by `close(true)`.
 */
export async function walkDirectory(root: string, parts: readonly string[], answers: WalkAnswers): Promise<DirHandle> {
  const fds: number[] = [await openAsync(root, constants.O_RDONLY | constants.O_DIRECTORY)];
  /** Directories made by this walk: the index of the descriptor of the one above, and the name. */
  const made: Array<{ parent: number; name: string; real: string }> = [];
  const pathOf = (at: number, real: string): string => (BY_DESCRIPTOR ? `/proc/self/fd/${fds[at]}` : real);
  let real = root;
  const undo = async () => {
    for (const dir of made.reverse())
      await rmdir(BY_DESCRIPTOR ? `${pathOf(dir.parent, '')}/${dir.name}` : dir.real).catch(() => undefined);
    made.length = 0;
  };
  const closeAll = () => {
    for (const fd of fds) closeSync(fd);
  };
  try {
    for (const name of parts) {
      const at = `${pathOf(fds.length - 1, real)}/${name}`;
      const next = `${real}/${name}`;
      fds.push(await openStep(at, next, answers, () => made.push({ parent: fds.length - 1, name, real: next })));
      real = next;
    }
  } catch (err) {
    await undo();
    closeAll();
    throw err;
  }
  const handle: DirHandle = {
    path: pathOf(fds.length - 1, real),
    verify() {
      if (!BY_DESCRIPTOR) return;
      const now = readlinkSync(handle.path);
      if (now !== real) throw answers.moved(now);
    },
    async close(undoMade) {
      if (undoMade) await undo();
      closeAll();
    },
  };
  try {
    handle.verify();
  } catch (err) {
    await handle.close(true);
    throw err;
  }
  return handle;
}

/** One step of a walk: `at` reaches the directory whose real path should be `real`. */
async function openStep(at: string, real: string, answers: WalkAnswers, onMade: () => void): Promise<number> {
  try {
    return await openAsync(at, STEP_FLAGS);
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw stepError(at, real, err, answers);
  }
  try {
    await mkdir(at);
    onMade();
  } catch (err) {
    // Made by someone else meanwhile: opened as found, like any existing one.
    if (errnoCode(err) !== 'EEXIST') throw stepError(at, real, err, answers);
  }
  try {
    return await openAsync(at, STEP_FLAGS);
  } catch (err) {
    throw stepError(at, real, err, answers);
  }
}

/** A step that failed: what was in the way, as the caller's mistake or a race, never the tool's failure. */
function stepError(at: string, real: string, err: unknown, answers: WalkAnswers): unknown {
  const shown = JSON.stringify(answers.shown(real));
  switch (errnoCode(err)) {
    case 'ENOTDIR':
    case 'ELOOP': {
      const now = lstatSync(at, { throwIfNoEntry: false });
      // What is there now is what the step met, unless a race changed it since: only a file in the way is the caller's path.
      if (now && !now.isSymbolicLink() && !now.isDirectory())
        return new GatewayError('INVALID_ARGS', { message: `${shown} is a file, not a directory.` });
      if (!now?.isSymbolicLink()) return changed(shown);
      let found: string | undefined;
      try {
        found = realpathSync(at);
      } catch {
        found = undefined;
      }
      return answers.moved(found);
    }
    case 'ENOENT':
      return changed(shown);
    case 'EACCES':
    case 'EPERM':
      return denied(answers.shown(real), 'cannot be accessed');
    case 'ENAMETOOLONG':
      return new GatewayError('INVALID_ARGS', { message: `A name in ${shown} is too long.` });
    default:
      return err;
  }
}

/** A directory on the way moved, removed or swapped back and forth while a walk went through it. */
function changed(shown: string): GatewayError {
  return new GatewayError('CONFLICT', {
    message: `${shown} was moved, removed or replaced while in use; nothing was written.`,
    suggestion: 'Check the path with LS, then send the call again.',
  });
}
