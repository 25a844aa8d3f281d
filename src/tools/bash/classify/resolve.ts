import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COMMAND_PATH } from '../env.js';

/** Folders whose programs are the system's: installed by its packages, not by a command in the workspace. */
export const SYSTEM_DIRS: ReadonlySet<string> = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin']);

/** Trees a system program may live in once its links are followed (Debian's alternatives end in /usr/bin or /usr/lib). */
const SYSTEM_TREES = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/', '/etc/alternatives/'];

/** What each program name ALLOW has judged resolves to; names come from the table of read-only programs, so the map stays small. */
const resolved = new Map<string, boolean>();

/**
 * Whether `written` (a bare name, found through the commands' PATH, or a path
 * in a system folder) runs a program of the system: the file it names, its
 * links followed, lies in the system's trees. A name found nowhere runs
 * nothing (bash says it is not found). Known once per name: a system folder
 * changes only with the system's packages.
 */
export function isSystemProgram(written: string): boolean {
  const known = resolved.get(written);
  if (known !== undefined) return known;
  const candidates = written.includes('/')
    ? SYSTEM_DIRS.has(dirname(written))
      ? [written]
      : []
    : COMMAND_PATH.map((dir) => join(dir, written));
  let system = !written.includes('/');
  for (const candidate of candidates) {
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      continue;
    }
    system = SYSTEM_TREES.some((tree) => real.startsWith(tree));
    break;
  }
  if (resolved.size < 1024) resolved.set(written, system);
  return system;
}
