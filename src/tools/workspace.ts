import { closeSync, constants, open as openFd, realpath as realpathFd, realpathSync, statSync } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { GatewayError } from '../protocol/errors.js';
import { walkDirectory, type DirHandle } from './directory.js';
import { openedElsewhere } from './opened-file.js';
import { denied, errnoCode, mapResolveError, refuseMalformed, statNow } from './path-errors.js';
import type { Workspace, WriteTarget } from './workspace-types.js';

const openFdAsync = promisify(openFd);
/** The OS's realpath (as fs/promises' is), through the callback API, which is cheaper per path (docs/performance-notebook.md). */
const realpath = promisify(realpathFd.native);

/** What a path resolves to: the real path of its longest existing prefix, and the components missing below it. */
interface Located {
  real: string;
  missing: string[];
}

function isInside(rel: string): boolean {
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** A `.` or `..` segment, an empty one, or a trailing slash: what normalizing a POSIX path would change. */
const NOT_NORMAL = /(?:^|\/)\.{1,2}(?:\/|$)|\/\/|\/$/;

/** The root must exist and be a directory; it is resolved here once so every later containment check compares real paths. */
export function createWorkspace(root: string): Workspace {
  const configured = path.resolve(root);
  const realRoot = realpathSync.native(configured);
  if (!statSync(realRoot).isDirectory()) throw new Error(`Workspace root ${realRoot} is not a directory`);

  // Every call resolves a path and compares it with the root a few times; path.resolve and path.relative take microseconds and kilobytes of
  // garbage each, a prefix test on the POSIX paths this is (real or resolved, so normalized) a fraction of that, with the same answers.
  const posix = path.sep === '/';
  const rootPrefix = realRoot.endsWith('/') ? realRoot : `${realRoot}/`;
  /** Whether a normalized absolute path is the root or inside it. */
  const contains = (abs: string): boolean =>
    posix ? abs === realRoot || abs.startsWith(rootPrefix) : isInside(path.relative(realRoot, abs));

  function lexical(p: string): string {
    refuseMalformed(p);
    if (!path.isAbsolute(p)) {
      if (posix && !NOT_NORMAL.test(p)) return rootPrefix + p;
      const abs = path.resolve(realRoot, p);
      if (!contains(abs)) throw denied(p, 'is outside the workspace');
      return abs;
    }
    for (const base of [realRoot, configured]) {
      const rel = path.relative(base, p);
      if (isInside(rel)) return path.join(realRoot, rel);
    }
    throw denied(p, 'is an absolute path outside the workspace');
  }

  async function isSymlink(abs: string): Promise<boolean> {
    try {
      return (await lstat(abs)).isSymbolicLink();
    } catch {
      return false;
    }
  }

  /** Real path of the longest existing prefix of `abs`, and the components missing below it. */
  async function locate(p: string, abs: string): Promise<Located> {
    const missing: string[] = [];
    let current = abs;
    for (;;) {
      let real: string;
      try {
        real = await realpath(current);
      } catch (err) {
        const code = errnoCode(err);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw mapResolveError(p, err);
        // The root itself gone is the deployment's failure, not the caller's.
        if (current === realRoot) throw err;
        // A dangling link would let a later create land wherever it points; its target cannot be checked.
        if (await isSymlink(current)) throw denied(p, 'goes through a symbolic link whose target does not exist');
        missing.unshift(path.basename(current));
        current = path.dirname(current);
        continue;
      }
      if (!contains(real)) throw denied(p, 'resolves through a symbolic link to outside the workspace');
      return { real, missing };
    }
  }

  /** Resolutions made for a call's policy check, each used once by its tool (see resolveExisting). */
  const made = new WeakMap<object, { abs: string; located: Promise<Located> }>();

  function locateFor(p: string, owner: object | undefined): Promise<Located> {
    const abs = lexical(p);
    const known = owner && made.get(owner);
    if (known && known.abs === abs) {
      made.delete(owner);
      return known.located.then((decided) => (decided.missing.length === 0 ? decided : locateAsDecided(p, abs, decided)));
    }
    return locate(p, abs);
  }

  /**
   * A path that did not (wholly) exist when the policy judged it: an earlier call of the batch may have created it since, so it is resolved
   * again, and used only if it still names the path the policy judged. A link made in between that points elsewhere inside the workspace is
   * CONFLICT rather than PERMISSION_DENIED: no rule denied anything yet, and the same call sent again is judged on what the path resolves
   * to now.
   */
  async function locateAsDecided(p: string, abs: string, decided: Located): Promise<Located> {
    const now = await locate(p, abs);
    const judged = path.join(decided.real, ...decided.missing);
    const found = path.join(now.real, ...now.missing);
    if (found === judged) return now;
    throw moved(p, judged, found);
  }

  /**
   * The answer when what a call reached (`found`, undefined when it leads nowhere) is not the path its policy decision resolved (`judged`):
   * CONFLICT inside the workspace, as for a path created since (see locateAsDecided), and PERMISSION_DENIED outside it, as in a batch of
   * its own.
   */
  function moved(p: string, judged: string, found: string | undefined): GatewayError {
    if (found === undefined) return denied(p, 'became a symbolic link that cannot be followed while in use');
    if (!contains(found)) return denied(p, 'was moved outside the workspace while in use');
    return new GatewayError('CONFLICT', {
      message: `Path ${JSON.stringify(p)} was judged by the policy as ${JSON.stringify(relative(judged))}, but by the time its call ran it resolved to ${JSON.stringify(relative(found))} (a symbolic link made in between); nothing was done.`,
      suggestion: 'Send the call again in a new request (with a new call id): the policy then judges the path as it resolves now.',
    });
  }

  async function resolveExisting(p: string, owner?: object): Promise<string> {
    const { real, missing } = await locateFor(p, owner);
    if (missing.length > 0) {
      throw new GatewayError('NOT_FOUND', {
        message: `No such file or directory: ${JSON.stringify(p)}.`,
        suggestion: 'Check the path with LS or Glob; paths are relative to the workspace root.',
      });
    }
    return real;
  }

  async function resolveTarget(p: string, owner?: object): Promise<WriteTarget> {
    const { real, missing } = await locateFor(p, owner);
    if (missing.length === 0) return { path: real, exists: true };
    // `real` resolved a moment ago; a parent moved since answers NOT_FOUND (statNow), not a failure of the tool.
    if (!(await statNow(p, real)).isDirectory()) {
      throw new GatewayError('INVALID_ARGS', {
        message: `Cannot create ${JSON.stringify(p)}: ${JSON.stringify(relative(real))} is a file, not a directory.`,
      });
    }
    return { path: path.join(real, ...missing), exists: false };
  }

  /** The checks of {@link Workspace.open} around `opening`, an open of `real` that does not follow a last symlink. */
  async function confined<T>(real: string, opening: Promise<T>, fdOf: (opened: T) => number, close: (opened: T) => unknown): Promise<T> {
    const shown = relative(real);
    let handle: T;
    try {
      handle = await opening;
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ELOOP') throw moved(shown, real, await realpath(real).catch(() => undefined));
      if (code === 'ENOENT') throw new GatewayError('NOT_FOUND', { message: `${JSON.stringify(shown)} disappeared while in use.` });
      if (code === 'EISDIR') throw new GatewayError('INVALID_ARGS', { message: `${JSON.stringify(shown)} is a directory.` });
      throw mapResolveError(shown, err);
    }
    const opened = openedElsewhere(fdOf(handle), real);
    if (opened !== undefined) {
      await close(handle);
      throw moved(shown, real, opened);
    }
    return handle;
  }
  const openConfined = (real: string, flags: number, mode?: number) =>
    confined(
      real,
      open(real, flags | constants.O_NOFOLLOW, mode),
      (h) => h.fd,
      (h) => h.close(),
    );
  const openDescriptor = (real: string, flags: number) =>
    confined(real, openFdAsync(real, flags | constants.O_NOFOLLOW), (fd) => fd, closeSync);

  async function recheck(real: string): Promise<void> {
    let now: string;
    try {
      now = await realpath(real);
    } catch (err) {
      throw mapResolveError(relative(real), err);
    }
    if (now !== real) throw moved(relative(real), real, now);
  }

  function openDirectory(real: string): Promise<DirHandle> {
    const rel = relative(real);
    if (!contains(real) || rel === '..' || rel.startsWith('../')) throw denied(rel, 'is outside the workspace');
    const shown = (p: string) => relative(p);
    return walkDirectory(realRoot, rel === '.' ? [] : rel.split('/'), { moved: (found) => moved(rel, real, found), shown });
  }

  function relative(real: string): string {
    if (posix && real.startsWith(rootPrefix) && !NOT_NORMAL.test(real)) return real.slice(rootPrefix.length) || '.';
    return path.relative(realRoot, real).split(path.sep).join('/') || '.';
  }

  function canonical(p: string): string {
    try {
      return relative(lexical(p));
    } catch {
      return p;
    }
  }

  async function resolveCanonical(p: string, owner?: object): Promise<string> {
    try {
      const abs = lexical(p);
      const located = locate(p, abs);
      if (owner) {
        made.set(owner, { abs, located });
        // The tool sees this failure, if it runs; a call stopped by a gate never asks.
        located.catch(() => undefined);
      }
      const { real, missing } = await located;
      return relative(path.join(real, ...missing));
    } catch {
      return canonical(p);
    }
  }

  return {
    root: realRoot,
    resolveExisting,
    resolveTarget,
    open: openConfined,
    openDescriptor,
    recheck,
    openDirectory,
    relative,
    canonical,
    resolveCanonical,
  };
}
