import { close, constants, open, type Dirent } from 'node:fs';
import type { Decision } from '../../policy/index.js';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { openedElsewhere } from '../opened-file.js';
import type { ToolOutput } from '../tool.js';
import type { Workspace } from '../workspace-types.js';
import { throwIfAborted, type Abortable } from './abort.js';
import { Withheld } from './withheld.js';

/** Directories a walk never descends into: tool noise that would swamp results and the entry cap. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
/** Entries (files and directories) one walk looks at before it gives up. */
const MAX_WALK_ENTRIES = 100_000;

export interface WalkedFile {
  abs: string;
  /** Relative to the walk's base, `/`-separated. */
  rel: string;
}

export interface FileWalk {
  files: AsyncIterable<WalkedFile> | Iterable<WalkedFile>;
  /** True once the walk stopped at {@link MAX_WALK_ENTRIES}. */
  readonly truncated: boolean;
  /** The entries the policy withheld: neither yielded nor, for a directory, entered. */
  readonly withheld: Withheld;
}

/** The `pattern` property of a walker's parameters schema (Glob's glob, Grep's regular expression). */
export function patternProperty(description: string, examples: string[]): Record<string, unknown> {
  return { type: 'string', minLength: 1, maxLength: 1000, description, examples };
}

/** The `path` property of a walker's parameters schema: where it starts, the workspace root by default. */
export function startProperty(description: string, examples: string[]): Record<string, unknown> {
  return { type: 'string', minLength: 1, maxLength: 4096, default: '.', description, examples };
}

/** Code-unit order: the same on every machine, unlike locale order. */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

const openAsync = promisify(open);
const closeAsync = promisify(close);
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The entries of the directory at the real path `dir`, in name order, read
 * through a descriptor checked to be open on `dir` itself; undefined when
 * there is no such directory there now (removed, locked, or become a
 * symbolic link). Not readdir(dir): it follows links, so a parent swapped
 * for a link between the policy's judgement and the read (by a command
 * running meanwhile) would list another directory, maybe one a rule
 * withholds, under names no rule names. Where the OS cannot tell what a
 * descriptor is open on (no /proc), the directory is read by its path.
 */
export async function listDirectory(dir: string): Promise<Dirent[] | undefined> {
  let fd: number;
  try {
    fd = await openAsync(dir, DIRECTORY_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EACCES' || code === 'EPERM') return undefined;
    throw err;
  }
  try {
    if (openedElsewhere(fd, dir) !== undefined) return undefined;
    const listed = await readdir(`/proc/self/fd/${fd}`, { withFileTypes: true }).catch(() => readdir(dir, { withFileTypes: true }));
    return listed.sort(byName);
  } finally {
    await closeAsync(fd);
  }
}

/**
 * The real path the policy decision resolved for `shown` (see Workspace.resolveExisting), checked to be its own real
 * path still. A walk or listing reads a directory by its path, and a parent of it replaced by a link since the
 * decision (say by an earlier call of the batch) would lead it into another directory, maybe one a rule denies.
 * The files a walk yields are opened with Workspace.open, which checks each of them again.
 */
export async function resolveAsJudged(ws: Workspace, shown: string, args: object): Promise<string> {
  const real = await ws.resolveExisting(shown, args);
  await ws.recheck(real);
  return real;
}

/** A walker's answer: its lines (`none` when there are none) and `notes`, then the walk's own notes (the entry cap, what was withheld). */
export function walkOutput(walk: FileWalk, lines: readonly string[], none: string, notes: string[], partial: boolean): ToolOutput {
  if (walk.truncated) notes.push(`(the search stopped after ${MAX_WALK_ENTRIES} entries; use a narrower path)`);
  notes.push(...walk.withheld.note);
  return {
    text: [lines.length > 0 ? lines.join('\n') : none, ...notes].join('\n\n'),
    partial: partial || walk.truncated,
    ...(walk.withheld.data && { data: walk.withheld.data }),
  };
}

/** Which entries a walk yields, by their paths relative to its base. */
interface WalkFilter {
  /** Files the caller wants (a glob); others are passed over unjudged and uncounted. */
  wanted?: (rel: string) => boolean;
  /** The policy's decision on a file or directory (see entryJudge): one it withholds is counted, and neither yielded nor entered. */
  judge?: (rel: string) => Decision;
}

/**
 * Regular files under `base` (a real directory in the workspace), depth-first
 * in name order, as `filter` lets them through. Symbolic links are neither
 * followed nor yielded, nor is a directory that became one while the walk
 * ran (see listDirectory), so a walk never leaves the directory it started in.
 */
export function walkFiles(base: string, call: Abortable, filter: WalkFilter = {}): FileWalk {
  const { wanted, judge } = filter;
  let truncated = false;
  const withheld = new Withheld();
  async function* files(): AsyncGenerator<WalkedFile> {
    const pending = [''];
    let seen = 0;
    for (let relDir = pending.pop(); relDir !== undefined; relDir = pending.pop()) {
      throwIfAborted(call);
      const subdirs: string[] = [];
      // Removed, locked or swapped while we walked: skip it like `find` does.
      for (const entry of (await listDirectory(path.join(base, relDir))) ?? []) {
        if (++seen > MAX_WALK_ENTRIES) {
          truncated = true;
          return;
        }
        const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
        const walked = entry.isDirectory() ? !SKIPPED_DIRS.has(entry.name) : entry.isFile() && (!wanted || wanted(rel));
        if (!walked || (judge && withheld.withholds(judge(rel)))) continue;
        if (entry.isDirectory()) subdirs.push(rel);
        else yield { abs: path.join(base, rel), rel };
      }
      pending.push(...subdirs.reverse());
    }
  }
  return {
    files: files(),
    get truncated() {
      return truncated;
    },
    withheld,
  };
}
