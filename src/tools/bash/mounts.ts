import { chmod, lstat, mkdtemp, readdir, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { PathRules } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';

/**
 * Files a later program runs or obeys without asking: git's per-folder files
 * and the shells' start files, and a `.git` file (its `gitdir:` names the
 * repository's config). Read-only inside the sandbox at the workspace
 * root and at the root of every repository below it, whatever the policy
 * says, so no command can change what a person's next git or shell would
 * run. Names are compared without case: on a case-insensitive file system
 * (a macOS or Windows folder mounted in) `.GITCONFIG` is `.gitconfig`.
 */
const PROTECTED_FILES = [
  '.gitconfig',
  '.gitmodules',
  '.gitattributes',
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.bash_login',
  '.bash_logout',
];
/** In a git directory (`.git`, and a submodule's or worktree's below it): its config files and its hooks. */
const PROTECTED_IN_GIT = ['config', 'config.worktree', 'hooks'];

/**
 * How many workspace entries one command's mounts may look at. The walk runs
 * before every sandboxed command (the files a rule names may have appeared
 * since the last one); past this many, the command is refused rather than
 * run with some rule left unmounted.
 */
const MOUNT_WALK_LIMIT = 200_000;

/**
 * An empty, read-only regular file bound over each masked file. Not
 * /dev/null: bubblewrap binds with `nodev`, where a device cannot be opened,
 * and a masked file reads as empty, not as one that is there but refused.
 */
let emptyFile: Promise<string> | undefined;
function emptySource(): Promise<string> {
  emptyFile ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-mask-'));
    // Commands may run as another user (nobody, under a root gateway): bubblewrap opens the file as them.
    await chmod(dir, 0o755);
    const path = join(dir, 'empty');
    await writeFile(path, '');
    await chmod(path, 0o444);
    return path;
  })();
  return emptyFile;
}

/**
 * One mount of the plan, by its workspace-relative path (`/`-separated):
 * - `mask-folder`: an empty read-only tmpfs (`creates`: where there was no
 *   folder, so bubblewrap makes the mount point);
 * - `mask-file`: the empty read-only file bound over it;
 * - `freeze`: bound read-only onto itself;
 * - `pin`: bound onto itself, still writable. A mount point cannot be renamed
 *   or removed, so a folder holding a mount cannot be moved away with what
 *   the mount hides or protects: the next command's walk would find it under
 *   a name no rule names.
 */
interface PlannedMount {
  kind: 'mask-folder' | 'mask-file' | 'freeze' | 'pin';
  rel: string;
  creates?: boolean;
}

/**
 * The folders rules for writing name by a fixed prefix and cover whole
 * (`^build/out/`: every path below `build/out` is denied or asked for
 * writing), which the sandbox keeps even before they exist, and the indexes
 * of the rules for writing whose new paths a command could still create
 * (`\.env$`, `^config/prod\.yml$`, `^out/.*\.js$`): the sandbox makes
 * what exists of those read-only, no more.
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

/**
 * For each kept folder that does not exist, the shallowest missing folder on
 * the way to it, as an empty read-only folder that bubblewrap makes (inside
 * the sandbox, as the command's user, so a link on the way leads nowhere
 * outside): nothing can be created in it, and the next command's walk finds
 * it and keeps it read-only. Under a link or a file, nothing.
 */
async function missingFolders(workspace: string, folders: readonly string[]): Promise<string[]> {
  const missing = new Set<string>();
  for (const folder of folders) {
    const segments = folder.split('/');
    for (let i = 1; i <= segments.length; i++) {
      const rel = segments.slice(0, i).join('/');
      const stat = await lstat(join(workspace, rel)).catch(() => undefined);
      if (stat === undefined) missing.add(rel);
      if (stat === undefined || !stat.isDirectory()) break;
    }
  }
  return [...missing];
}

const depth = (rel: string) => rel.split('/').length;
const isBelow = (rel: string, dir: string) => rel.startsWith(`${dir}/`);
const lower = (name: string) => name.toLowerCase();

/**
 * What the policy's rules on paths become inside the sandbox, for the
 * workspace as it is now, shallow mounts first:
 * - a path a rule DENIES or ASKs for reading is masked: a folder becomes an
 *   empty read-only tmpfs, a file reads as empty;
 * - a path a rule DENIES or ASKs for writing, and the protected files, are
 *   frozen (read-only, a folder with everything in it);
 * - a symbolic link that a rule names is followed to the workspace path it
 *   resolves to, and that path is mounted: a mount is on the file itself, so
 *   no link made later reaches it another way;
 * - every folder above a mount is pinned (see PlannedMount), up to the
 *   workspace root or a frozen folder.
 * A `.git` folder without hooks gets an empty read-only one, so that none can
 * be planted, and so does a folder a rule for writing keeps that does not
 * exist yet (see missingFolders). With `readOnly` (the whole workspace is
 * bound read-only) only the masks of what exists are needed.
 */
export async function planMounts(
  workspace: string,
  rules: PathRules,
  options: { readOnly?: boolean; limit?: number } = {},
): Promise<PlannedMount[]> {
  const limit = options.limit ?? MOUNT_WALK_LIMIT;
  const masks = new Map<string, PlannedMount>();
  const frozen = new Set<string>();
  /** A link's target inside the workspace (undefined when it leaves it or dangles), with whether it is a folder. */
  const target = async (abs: string): Promise<{ rel: string; folder: boolean } | undefined> => {
    try {
      const real = await realpath(abs);
      const rel = relative(workspace, real);
      if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
      return { rel: posix(rel), folder: (await lstat(real)).isDirectory() };
    } catch {
      return undefined;
    }
  };
  const mask = (rel: string, folder: boolean, creates = false) => {
    if (!masks.has(rel)) masks.set(rel, { kind: folder ? 'mask-folder' : 'mask-file', rel, ...(creates && { creates }) });
  };
  let seen = 0;
  // Each folder with whether it is already read-only (frozen, or below a frozen one), and whether it is in a .git tree.
  const queue: Array<{ dirRel: string; readOnly: boolean; inGitTree: boolean }> = [{ dirRel: '', readOnly: false, inGitTree: false }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { dirRel, readOnly, inGitTree } = next;
    let listed;
    try {
      listed = await readdir(dirRel === '' ? workspace : join(workspace, dirRel), { withFileTypes: true });
    } catch {
      continue;
    }
    seen += listed.length;
    if (seen > limit) {
      throw new GatewayError('EXECUTION_FAILED', {
        message: `The workspace holds more than ${limit} entries: the sandbox could not check every policy rule on paths, so the command did not run.`,
        suggestion: 'Run the command in a smaller workspace, or ask an operator to raise the limit.',
      });
    }
    const entries = listed.map((entry) => ({ name: entry.name, folder: entry.isDirectory(), link: entry.isSymbolicLink() }));
    const names = new Set(entries.map((e) => lower(e.name)));
    const dotGit = lower(dirRel.slice(dirRel.lastIndexOf('/') + 1)) === '.git';
    // A repository's root holds a .git folder, or a .git file naming its git directory (a submodule, a worktree).
    const repository = dirRel === '' || names.has('.git');
    // A submodule's or worktree's git directory lies inside the .git tree: it has a HEAD and a config or commondir.
    const gitDir = dotGit || (inGitTree && names.has('head') && (names.has('config') || names.has('commondir')));
    for (const { name, folder, link } of entries) {
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      const hidden = rules.reading(rel) !== 'allow' || (folder && rules.everyPathBelow('read', rel));
      const freezes =
        rules.writing(rel) !== 'allow' ||
        (folder && rules.everyPathBelow('write', rel)) ||
        (repository && PROTECTED_FILES.includes(lower(name))) ||
        (repository && lower(name) === '.git' && !folder && !link) ||
        (gitDir && PROTECTED_IN_GIT.includes(lower(name)));
      if (link) {
        const to = hidden || freezes ? await target(join(workspace, rel)) : undefined;
        if (to && hidden) mask(to.rel, to.folder);
        else if (to) frozen.add(to.rel);
        continue;
      }
      if (hidden) {
        mask(rel, folder);
        continue;
      }
      if (freezes && !readOnly) frozen.add(rel);
      // Rules on the paths below a read-only folder still mask what they name.
      if (folder) queue.push({ dirRel: rel, readOnly: readOnly || freezes, inGitTree: inGitTree || lower(name) === '.git' });
    }
    if (dotGit && !readOnly && !names.has('hooks')) mask(`${dirRel}/hooks`, true, true);
  }
  for (const rel of await missingFolders(workspace, keptFolders(rules).folders)) mask(rel, true, true);
  return arrange([...masks.values()], frozen, options.readOnly === true);
}

/** The plan in mount order: nothing below a masked folder (hidden already), pins above the rest, shallow first. */
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

/** A workspace-relative path with `/` separators, as the policy's rules read paths. */
const posix = (rel: string) => (sep === '/' ? rel : rel.split(sep).join('/'));

/** bubblewrap's arguments for a plan over `workspace`. */
export async function mountArgs(workspace: string, plan: readonly PlannedMount[]): Promise<string[]> {
  const empty = plan.some((m) => m.kind === 'mask-file') ? await emptySource() : '';
  return plan.flatMap(({ kind, rel }) => {
    const abs = join(workspace, rel);
    switch (kind) {
      case 'mask-folder':
        return ['--tmpfs', abs, '--remount-ro', abs];
      case 'mask-file':
        return ['--ro-bind', empty, abs];
      case 'freeze':
        return ['--ro-bind', abs, abs];
      case 'pin':
        return ['--bind', abs, abs];
    }
  });
}
