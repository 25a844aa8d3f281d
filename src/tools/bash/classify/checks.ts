import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize, relative, sep } from 'node:path';
import type { PathRules } from '../../../policy/index.js';
import type { CoreNeeds } from './inside.js';

/**
 * Keys and sections of a repository's config that name a program git runs, point git elsewhere, or make a read fetch; matched anywhere in
 * the text (a false match only asks).
 */
const PROGRAM_KEYS =
  /(^|[\s\]])(textconv|command|external|fsmonitor|hookspath|pager|showsignature|program|sshcommand|gitproxy|askpass|editor|worktree|worktreeconfig|attributesfile|excludesfile|orderfile|cachetextconv|partialclone|promisor|uploadpack|receivepack)\s*(=|$|[;#])/im;
const PROGRAM_SECTIONS = /\[\s*(include|includeif|filter|submodule|pretty|pager|alias|mailmap|diff\s*"|merge\s*")/i;

/** Why the workspace's own repository is not one git may read without a sandbox, or undefined when it is. */
function gitDirProblem(workspace: string): string | undefined {
  const gitDir = join(workspace, '.git');
  const stat = lstatSync(gitDir, { throwIfNoEntry: false });
  if (!stat) return 'the workspace has no .git folder of its own';
  if (!stat.isDirectory()) return '.git is a link or a file (gitdir:) pointing at another repository';
  // Linked worktrees and alternates read another repository's files.
  for (const elsewhere of ['commondir', 'objects/info/alternates', 'objects/info/http-alternates']) {
    if (lstatSync(join(gitDir, elsewhere), { throwIfNoEntry: false })) return `.git/${elsewhere} points at files outside the workspace`;
  }
  // A link among them reads another repository's objects, refs or index.
  for (const entry of ['objects', 'refs', 'HEAD', 'packed-refs', 'index', 'info', 'modules']) {
    if (lstatSync(join(gitDir, entry), { throwIfNoEntry: false })?.isSymbolicLink()) return `.git/${entry} is a link`;
  }
  const nested = submoduleProblem(gitDir);
  if (nested) return nested;
  const config = join(gitDir, 'config');
  const configStat = lstatSync(config, { throwIfNoEntry: false });
  if (!configStat) return undefined;
  if (!configStat.isFile()) return '.git/config is not a plain file';
  const text = readFileSync(config, 'utf8');
  const found = PROGRAM_KEYS.exec(text)?.[2] ?? PROGRAM_SECTIONS.exec(text)?.[1];
  return found ? `.git/config sets ${found.replace(/\s*"$/, ' drivers')}, which makes git run a program or read elsewhere` : undefined;
}

/** A gitlink's mode (0160000) as the index stores it: big-endian, in 32 bits. */
const GITLINK_MODE = Buffer.from([0x00, 0x00, 0xe0, 0x00]);

/** A repository with `.git/modules` or a gitlink in its index is not read unsandboxed: git runs in submodules under their own config. */
function submoduleProblem(gitDir: string): string | undefined {
  if (lstatSync(join(gitDir, 'modules'), { throwIfNoEntry: false }))
    return '.git/modules holds submodules, whose own configuration can name programs';
  let names: string[];
  try {
    names = readdirSync(gitDir).filter((name) => name === 'index' || name.startsWith('sharedindex.'));
  } catch {
    return '.git cannot be listed';
  }
  for (const name of names) {
    try {
      if (readFileSync(join(gitDir, name)).includes(GITLINK_MODE))
        return 'the index holds a submodule or nested repository, whose own configuration can name programs';
    } catch {
      return `.git/${name} cannot be read`;
    }
  }
  return undefined;
}

/** Where `path` resolves, links followed, relative to `root` (`''` the root, undefined outside); a missing rest is kept. */
function resolvedInside(root: string, path: string): string | undefined {
  let at = path;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(at);
      if (real !== root && !real.startsWith(root + sep)) return undefined;
      return join(relative(root, real), ...rest);
    } catch {
      const up = dirname(at);
      if (up === at) return undefined;
      rest.unshift(basename(at));
      at = up;
    }
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** How many folders a command's cds may lead to before its paths are not followed (each cd may or may not have run: they double). */
const MAX_BASES = 64;

/**
 * Why one none-tier unit leaves the workspace on disk (a link out, a cd through one, a path a rule withholds, git on a repository not the
 * workspace's own), or undefined.
 */
export function onDiskProblem(workspace: string, cds: readonly string[], need: CoreNeeds, rules?: PathRules): string | undefined {
  let root: string;
  try {
    root = realpathSync(workspace);
  } catch {
    // No workspace yet (`bash classify` before the first start): nothing in it can be a link, and there is no repository.
    return need.git ? "git without a sandbox reads only the workspace's own repository: there is no workspace" : undefined;
  }
  const bases = [''];
  for (const cd of cds) {
    for (const base of [...bases]) {
      const folder = join(base, cd);
      const resolved = resolvedInside(root, join(root, folder));
      if (resolved === undefined) return `cd ${cd} leads out of the workspace through a link`;
      // `cd secrets && ls` lists a folder no operand names.
      for (const relativePath of new Set([normalize(folder), resolved === '' ? '.' : resolved])) {
        if (rules && rules.reading(relativePath) !== 'allow') return `a policy rule withholds reading ${relativePath}`;
      }
      bases.push(folder);
    }
    if (bases.length > MAX_BASES) return `the command changes folder too often to follow (over ${MAX_BASES} folders)`;
  }
  for (const path of need.paths) {
    for (const base of bases) {
      const resolved = resolvedInside(root, join(root, base, path));
      if (resolved === undefined) return `${path} leads out of the workspace through a link`;
      // No mask holds a path rule without a sandbox: a path a rule withholds from reading is asked for, as spelled and where its links
      // lead (`cat link` with link -> secrets/k reads secrets/k).
      const spelled = normalize(join(base, path)).replace(/\/$/, '');
      for (const relativePath of new Set([spelled, resolved === '' ? '.' : resolved])) {
        if (rules && rules.reading(relativePath) !== 'allow') return `a policy rule withholds reading ${relativePath}`;
      }
      // diff reads the files in a folder operand (and follows their links): neither an operand nor a walk the checks above see.
      if (need.files && isFolder(join(root, base, path))) return `${path} is a folder: ${need.files} reads the files in it`;
    }
  }
  if (need.walks && rules?.withholds)
    return 'it reads files no operand names (a walk or history), and policy rules withhold some paths from reading';
  const problem = need.git ? gitDirProblem(workspace) : undefined;
  return problem ? `git without a sandbox reads only the workspace's own repository: ${problem}` : undefined;
}
