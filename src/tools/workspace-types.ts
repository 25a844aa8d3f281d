import type { FileHandle } from 'node:fs/promises';
import type { DirHandle } from './directory.js';

/** Where a file is to be written; see {@link Workspace.resolveTarget}. */
export interface WriteTarget {
  /** Absolute path inside the root: real up to its nearest existing ancestor. */
  path: string;
  exists: boolean;
}

/**
 * A workspace root and the only way the built-in tools turn a caller's path into a filesystem path. Paths are relative to the root. An
 * absolute path is accepted when it lies inside the root (spelled with the root as configured or as its real path), because models often
 * echo absolute paths they were shown; any other absolute path is refused. Everything returned is inside the root after symlinks are
 * resolved.
 */
export interface Workspace {
  /** The root's real path, resolved once at creation. */
  readonly root: string;
  /**
   * Real path of an existing entry; NOT_FOUND when nothing is there. With `owner`, the call's arguments object, the resolution {@link
   * Workspace.resolveCanonical} made of the same path for it is used (once) instead of resolving again: the call runs on the file its
   * policy decision and lock saw. Where that path did not wholly exist then (an earlier call of the batch may create it), it is resolved
   * again and must come to the same real path, else CONFLICT.
   */
  resolveExisting(p: string, owner?: object): Promise<string>;
  /**
   * Where a file named by `p` would be written: its real path when it exists, else the real path of its nearest existing ancestor (which
   * must be a directory) joined with the missing rest. `owner` as for resolveExisting.
   */
  resolveTarget(p: string, owner?: object): Promise<WriteTarget>;
  /**
   * Opens a resolved path without following a symlink in its last component, then, where the OS can tell (Linux /proc), checks that the
   * file actually opened is the very file `real` named, so a parent swapped for a symlink after resolution (after the policy judged the
   * path) is caught: CONFLICT when it now leads elsewhere inside the root, PERMISSION_DENIED outside.
   */
  open(real: string, flags: number, mode?: number): Promise<FileHandle>;
  /** {@link Workspace.open} as a bare descriptor, for a caller that makes its metadata calls and close synchronously. */
  openDescriptor(real: string, flags: number): Promise<number>;
  /** Throws unless `real` is still its own real path (no symlink swapped in since), answering as {@link Workspace.open} does. */
  recheck(real: string): Promise<void>;
  /**
   * Opens the directory at `real` (a real path inside the root, the root included) by walking down from the root one directory at a time,
   * never through a link, making the missing ones: whatever is written through it lands in the workspace even if a parent is swapped for a
   * link meanwhile. A link in the way answers as {@link Workspace.open} does.
   */
  openDirectory(real: string): Promise<DirHandle>;
  /** Workspace-relative form of a path inside the root, with `/` separators; `.` for the root. */
  relative(real: string): string;
  /**
   * The one spelling of a caller's path that policy rules see, found without touching the filesystem: `./a//b/../c.txt/`, `a/c.txt` and the
   * absolute path inside the root are all `a/c.txt`; the root is `.`. A path the workspace refuses (outside, control character, backslash,
   * empty) comes back unchanged: the tool refuses it anyway. Symbolic links inside the workspace are not resolved here; see {@link
   * Workspace.resolveCanonical}.
   */
  canonical(p: string): string;
  /**
   * The workspace-relative real path of `p`: {@link Workspace.canonical} with symbolic links inside the workspace resolved, through its
   * deepest existing ancestor when `p` does not exist yet (a file to be created). Never throws: a path the workspace refuses comes back as
   * `canonical(p)`. With `owner`, the resolution is kept for the tool's own resolveExisting or resolveTarget of the same path and owner.
   */
  resolveCanonical(p: string, owner?: object): Promise<string>;
}
