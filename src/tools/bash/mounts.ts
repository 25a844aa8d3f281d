import { chmod, lstat, mkdtemp, readdir, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { PathRules } from '../../policy/index.js';
import { GatewayError } from '../../protocol/errors.js';

/**
 * Files a later program runs or obeys without asking: a repository's hooks
 * and config (`core.fsmonitor`, `diff.external`, filters), git's per-folder
 * files, and the shells' start files. Read-only inside the sandbox at the
 * workspace root and at the root of every repository below it, whatever the
 * policy says, so no command can plant what an ALLOW `git diff` or a
 * person's next shell would run.
 */
const PROTECTED_FILES = ['.gitconfig', '.gitmodules', '.gitattributes', '.bashrc', '.bash_profile', '.profile', '.zshrc', '.zprofile', '.bash_login', '.bash_logout'];
/** Inside a `.git` folder: its config and its hooks. */
const PROTECTED_IN_GIT = ['config', 'hooks'];

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

/** A workspace-relative path with `/` separators, as the policy's rules read paths. */
const posix = (rel: string) => (sep === '/' ? rel : rel.split(sep).join('/'));

/**
 * The bubblewrap arguments that make the policy's rules on paths hold inside
 * the sandbox, mounted over the workspace's writable bind, parents before
 * what lies below them:
 * - a path a rule DENIES or ASKs for reading is masked: a folder becomes an
 *   empty read-only tmpfs, a file reads as empty (an empty read-only file);
 * - a path a rule DENIES or ASKs for writing, and the protected files, are
 *   bound read-only onto themselves (a folder with everything in it);
 * - a symbolic link that a rule names is followed to the workspace path it
 *   resolves to, and that path is mounted: a mount is on the file itself, so
 *   no link made later reaches it another way.
 * Mount points are the paths as they are now; a rule on a path that does not
 * exist yet hides nothing and protects nothing until it does (the next
 * command's walk finds it). A `.git` folder without hooks gets an empty,
 * read-only one, so that none can be planted.
 */
export async function sandboxMounts(workspace: string, rules: PathRules, limit = MOUNT_WALK_LIMIT): Promise<string[]> {
  const mounts: string[] = [];
  const done = new Set<string>();
  const empty = await emptySource();
  const mask = (abs: string, folder: boolean) => {
    if (done.has(abs)) return;
    done.add(abs);
    if (folder) mounts.push('--tmpfs', abs, '--remount-ro', abs);
    else mounts.push('--ro-bind', empty, abs);
  };
  const freeze = (abs: string) => {
    if (done.has(abs)) return;
    done.add(abs);
    mounts.push('--ro-bind', abs, abs);
  };
  /** A link's target inside the workspace (undefined when it leaves it or dangles), with whether it is a folder. */
  const target = async (abs: string): Promise<{ abs: string; folder: boolean } | undefined> => {
    try {
      const real = await realpath(abs);
      const rel = relative(workspace, real);
      if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
      return { abs: real, folder: (await lstat(real)).isDirectory() };
    } catch {
      return undefined;
    }
  };
  let seen = 0;
  // Each folder with whether it is already read-only (bound so itself, or below such a one).
  const queue: Array<{ dirRel: string; readOnly: boolean }> = [{ dirRel: '', readOnly: false }];
  while (queue.length > 0) {
    const { dirRel, readOnly } = queue.shift()!;
    const dirAbs = dirRel === '' ? workspace : join(workspace, dirRel);
    let listed;
    try {
      listed = await readdir(dirAbs, { withFileTypes: true });
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
    const repository = dirRel === '' || entries.some((e) => e.name === '.git' && e.folder);
    const inGit = dirRel === '.git' || dirRel.endsWith('/.git');
    for (const { name, folder, link } of entries) {
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      const abs = join(workspace, rel);
      const path = posix(rel);
      const hidden = rules.reading(path) !== 'allow' || (folder && rules.everyPathBelow('read', path));
      const frozen =
        rules.writing(path) !== 'allow' ||
        (folder && rules.everyPathBelow('write', path)) ||
        (repository && PROTECTED_FILES.includes(name)) ||
        (inGit && PROTECTED_IN_GIT.includes(name));
      if (link) {
        const to = hidden || frozen ? await target(abs) : undefined;
        if (to && hidden) mask(to.abs, to.folder);
        else if (to) freeze(to.abs);
        continue;
      }
      if (hidden) {
        mask(abs, folder);
        continue;
      }
      if (frozen && !readOnly) freeze(abs);
      // Rules on the paths below a read-only folder still mask what they name.
      if (folder) queue.push({ dirRel: rel, readOnly: readOnly || frozen });
    }
    if (inGit && !readOnly && !entries.some((e) => e.name === 'hooks')) mask(join(dirAbs, 'hooks'), true);
  }
  return mounts;
}
