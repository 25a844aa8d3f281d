import { chmod, lstat, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { PathRules } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';
import { holdsCopies, isGitDir, PROTECTED_FILES, PROTECTED_IN_GIT, PROTECTED_IN_OBJECTS_INFO, SELF_COMMONDIR } from './git-dirs.js';
import type { Identity } from './identity.js';
import { canCreateIn, missingFolders, missingTarget, posix } from './missing-paths.js';
import { isHeld } from './placeholders.js';
import { gone, listFolder, locked, unchecked } from './walk-errors.js';

/** How many workspace entries one command's mount walk may look at; past it the command is refused, never run with a rule unmounted. */
const MOUNT_WALK_LIMIT = 200_000;

/** The empty read-only file bound over a masked file (not /dev/null: bubblewrap binds with nodev). */
const sources = new Map<string, Promise<string>>();
function sourceFile(content: string): Promise<string> {
  let made = sources.get(content);
  if (!made) {
    made = (async () => {
      const dir = await mkdtemp(join(tmpdir(), 'toolgate-mask-'));
      // Commands may run as another user (nobody, under a root gateway): bubblewrap opens the file as them.
      await chmod(dir, 0o755);
      const path = join(dir, content === '' ? 'empty' : 'content');
      await writeFile(path, content);
      await chmod(path, 0o444);
      return path;
    })();
    sources.set(content, made);
  }
  return made;
}

/**
 * One mount of the plan (workspace-relative): a masked folder or file, a frozen (read-only) path, or a pinned folder (a mount point cannot
 * be moved away).
 */
interface PlannedMount {
  kind: 'mask-folder' | 'mask-file' | 'freeze' | 'pin';
  rel: string;
  creates?: boolean;
  /** A placeholder of a missing protected path (placeholders.ts). */
  placeholder?: boolean;
  content?: string;
}

export type GitHistory = 'masked' | 'visible';

/**
 * The folders rules for writing cover whole (kept even before they exist), and the rules for writing whose new paths a command could still
 * create.
 */
export function keptFolders(rules: PathRules): { folders: string[]; creatable: number[] } {
  const folders = new Set<string>();
  const creatable = new Set<number>();
  for (const rule of rules.sandboxRules) {
    if (rule.access !== 'write') continue;
    const prefix = rule.shape.prefix ?? '';
    const folder = prefix.slice(0, Math.max(0, prefix.lastIndexOf('/')));
    const plain = folder !== '' && folder.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
    if (plain && rules.everyPathBelow('write', folder)) folders.add(folder);
    else creatable.add(rule.index);
  }
  return { folders: [...folders], creatable: [...creatable] };
}

const depth = (rel: string) => rel.split('/').length;
const isBelow = (rel: string, dir: string) => rel.startsWith(`${dir}/`);
const lower = (name: string) => name.toLowerCase();

interface Listed {
  name: string;
  real: string;
  readOnly: boolean;
  inGitTree: boolean;
  via: readonly string[];
}

const child = (dir: string, name: string) => (dir === '' ? name : `${dir}/${name}`);
const parentOf = (rel: string) => rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
const baseOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

/**
 * What the policy's rules on paths become inside the sandbox for the workspace as it is now, shallow first: masks, frozen paths, links
 * followed, git copies hidden, pins, placeholders. See docs/bash.md, "How a rule becomes a mount".
 */
export async function planMounts(
  workspace: string,
  rules: PathRules,
  options: { readOnly?: boolean; limit?: number; gitHistory?: GitHistory; identity?: Identity } = {},
): Promise<PlannedMount[]> {
  const limit = options.limit ?? MOUNT_WALK_LIMIT;
  const masks = new Map<string, PlannedMount>();
  const frozen = new Set<string>();
  const target = async (abs: string): Promise<{ rel: string; folder: boolean } | undefined> => {
    try {
      const real = await realpath(abs);
      const rel = relative(workspace, real);
      if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
      return { rel: posix(rel), folder: (await lstat(real)).isDirectory() };
    } catch (error) {
      if (gone(error)) return undefined;
      throw unchecked(posix(relative(workspace, abs)), error);
    }
  };
  const mask = (rel: string, folder: boolean, creates = false) => {
    if (!masks.has(rel)) masks.set(rel, { kind: folder ? 'mask-folder' : 'mask-file', rel, ...(creates && { creates }) });
  };
  const placeholder = (rel: string, folder: boolean, content?: string) =>
    masks.set(rel, { kind: folder ? 'mask-folder' : 'mask-file', rel, creates: true, placeholder: true, ...(content && { content }) });
  const historyHidden = (gitDir: string) =>
    options.gitHistory !== 'visible' && rules.mayMatchBelow('read', lower(baseOf(gitDir)) === '.git' ? parentOf(gitDir) : '');
  let seen = 0;
  const queue: Listed[] = [{ name: '', real: '', readOnly: false, inGitTree: false, via: [] }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { name: dirName, real: dirReal, readOnly, inGitTree } = next;
    const listed = await listFolder(workspace, dirReal);
    if (listed === undefined) continue;
    seen += listed.length;
    if (seen > limit) {
      throw new GatewayError('EXECUTION_FAILED', {
        message: `The workspace holds more than ${limit} entries: the sandbox could not check every policy rule on paths, so the command did not run.`,
        suggestion: 'Run the command in a smaller workspace, or ask an operator to raise the limit.',
      });
    }
    const entries = listed.map((entry) => ({ name: entry.name, folder: entry.isDirectory(), link: entry.isSymbolicLink() }));
    const names = new Set(entries.map((e) => lower(e.name)));
    const dotGit = lower(baseOf(dirReal)) === '.git';
    // A repository's root holds a .git folder, or a .git file naming its git directory (a submodule, a worktree).
    const repository = dirReal === '' || names.has('.git');
    const gitDir = isGitDir(names, dotGit, inGitTree);
    const objectsInfo = inGitTree && lower(baseOf(dirReal)) === 'info' && lower(baseOf(parentOf(dirReal))) === 'objects';
    const copiesHidden = gitDir && historyHidden(dirName);
    for (const { name, folder, link } of entries) {
      const rel = child(dirName, name);
      const real = child(dirReal, name);
      const hidden =
        rules.reading(rel) !== 'allow' || (folder && rules.everyPathBelow('read', rel)) || (copiesHidden && holdsCopies(lower(name)));
      const isProtected =
        (repository && PROTECTED_FILES.includes(lower(name))) ||
        (gitDir && PROTECTED_IN_GIT.includes(lower(name))) ||
        (objectsInfo && PROTECTED_IN_OBJECTS_INFO.includes(lower(name)));
      const freezes =
        rules.writing(rel) !== 'allow' ||
        (folder && rules.everyPathBelow('write', rel)) ||
        isProtected ||
        (repository && lower(name) === '.git' && !folder && !link);
      if (link) {
        const through = !hidden && rules.anchoredBelow(rel);
        const to = hidden || freezes || through ? await target(join(workspace, real)) : undefined;
        if (to && hidden) mask(to.rel, to.folder);
        else if (to && freezes) frozen.add(to.rel);
        // A protected or frozen link that dangles would be written through: what is missing of its target is kept.
        const missing = !to && freezes && !readOnly ? await missingTarget(workspace, join(workspace, real)) : undefined;
        if (missing) placeholder(missing.rel, missing.folder);
        const loops = to && (to.rel === dirReal || isBelow(dirReal, to.rel) || next.via.includes(to.rel));
        if (to?.folder && through && !loops) {
          queue.push({ name: rel, real: to.rel, readOnly: readOnly || freezes, inGitTree, via: [...next.via, to.rel] });
        }
        continue;
      }
      if (hidden) {
        mask(real, folder);
        continue;
      }
      if (freezes && !readOnly) frozen.add(real);
      // A placeholder some running command stands on is one for this command too: see placeholders.ts.
      if (isProtected && !readOnly && isHeld(join(workspace, real)))
        placeholder(real, folder, lower(name) === 'commondir' ? SELF_COMMONDIR : undefined);
      // Rules on the paths below a read-only folder still mask what they name.
      if (folder)
        queue.push({ name: rel, real, readOnly: readOnly || freezes, inGitTree: inGitTree || lower(name) === '.git', via: next.via });
    }
    if (readOnly) continue;
    // What is missing of the protected paths here cannot be made: a read-only placeholder stands in its place.
    const wanted: { name: string; folder: boolean; content?: string }[] = [
      ...(repository ? PROTECTED_FILES.map((name) => ({ name, folder: false })) : []),
      ...(dotGit
        ? [
            { name: 'config', folder: false },
            { name: 'hooks', folder: true },
          ]
        : []),
      ...(gitDir
        ? [
            { name: 'commondir', folder: false, content: SELF_COMMONDIR },
            { name: 'config.worktree', folder: false },
            { name: 'info', folder: true },
          ]
        : []),
      ...(objectsInfo ? PROTECTED_IN_OBJECTS_INFO.map((name) => ({ name, folder: false })) : []),
    ];
    const exact = new Set(listed.map((entry) => entry.name));
    // Where the command's user cannot make an entry, nothing needs keeping (and bubblewrap could make no placeholder).
    const creatable = wanted.length > 0 && (await canCreateIn(join(workspace, dirReal), options.identity ?? {}));
    if (creatable === 'locked') throw locked(dirReal || '.');
    if (!creatable) continue;
    for (const { name, folder, content } of wanted) {
      // `.BASHRC` there does not make `.bashrc` on a case-sensitive file system; on one that ignores case, it is there.
      const there = exact.has(name) || (names.has(name) && (await lstat(join(workspace, dirReal, name)).catch(() => undefined)));
      if (!there) placeholder(child(dirReal, name), folder, content);
    }
  }
  for (const rel of await missingFolders(workspace, keptFolders(rules).folders)) mask(rel, true, true);
  return arrange([...masks.values()], frozen, options.readOnly === true);
}

/** The plan in mount order: nothing below a masked folder, pins above the rest, shallow first. */
function arrange(masked: PlannedMount[], frozen: Set<string>, readOnly: boolean): PlannedMount[] {
  const maskedFolders = masked.filter((m) => m.kind === 'mask-folder').map((m) => m.rel);
  const hiddenBelow = (rel: string) => maskedFolders.some((dir) => isBelow(rel, dir));
  // A link's target may be masked and frozen both: the mask wins.
  const maskedPaths = new Set(masked.map((m) => m.rel));
  const mounts = [
    ...masked.filter((m) => !hiddenBelow(m.rel) && !(readOnly && m.creates)),
    ...(readOnly
      ? []
      : [...frozen].filter((rel) => !maskedPaths.has(rel) && !hiddenBelow(rel)).map((rel): PlannedMount => ({ kind: 'freeze', rel }))),
  ];
  if (!readOnly) {
    const frozenFolders = [...frozen];
    const pins = new Set<string>();
    for (const { rel } of mounts) {
      for (let dir = rel.slice(0, Math.max(0, rel.lastIndexOf('/'))); dir !== ''; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/')))) {
        if (frozenFolders.some((f) => dir === f || isBelow(dir, f))) break;
        if (!maskedPaths.has(dir)) pins.add(dir);
      }
    }
    mounts.push(...[...pins].map((rel): PlannedMount => ({ kind: 'pin', rel })));
  }
  return mounts.sort((a, b) => depth(a.rel) - depth(b.rel));
}

export async function mountArgs(workspace: string, plan: readonly PlannedMount[]): Promise<string[]> {
  const files = await Promise.all(plan.map(async (m) => (m.kind === 'mask-file' ? sourceFile(m.content ?? '') : '')));
  return plan.flatMap(({ kind, rel }, i) => {
    const abs = join(workspace, rel);
    switch (kind) {
      case 'mask-folder':
        return ['--tmpfs', abs, '--remount-ro', abs];
      case 'mask-file':
        return ['--ro-bind', files[i]!, abs];
      case 'freeze':
        return ['--ro-bind', abs, abs];
      case 'pin':
        return ['--bind', abs, abs];
    }
  });
}
