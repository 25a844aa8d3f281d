import { lstat, readFile, rmdir, unlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { SELF_COMMONDIR } from './git-dirs.js';

/** Placeholders of missing protected paths, counted per command: the last command standing on one removes it (see planMounts). */
const held = new Map<string, number>();

/** Whether `abs` is a placeholder some running command mounted over. */
export const isHeld = (abs: string) => held.has(abs);

/** Counts one more command standing on each of `paths`. */
export function hold(paths: readonly string[]): void {
  for (const path of paths) held.set(path, (held.get(path) ?? 0) + 1);
}

/**
 * One command fewer on each of `paths`; with `remove`, one no command stands on is removed if still a placeholder. Not where other
 * processes share the workspace: removing a mount point detaches another sandbox's mount.
 */
export async function release(paths: readonly string[], remove: boolean): Promise<void> {
  for (const path of paths) {
    const count = (held.get(path) ?? 1) - 1;
    if (count > 0) {
      held.set(path, count);
      continue;
    }
    held.delete(path);
    if (!remove) continue;
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isFile() && (stat.size === 0 || (await isSelfCommondir(path)))) await unlink(path).catch(() => undefined);
    // rmdir removes only an empty folder.
    else if (stat?.isDirectory()) await rmdir(path).catch(() => undefined);
  }
}

const isSelfCommondir = async (path: string) =>
  basename(path) === 'commondir' && (await readFile(path, 'utf8').catch(() => '')) === SELF_COMMONDIR;
