import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, readFile, rm, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BY_DESCRIPTOR } from './directory.js';

/** What start-up learns of the file system under the workspace: problems stop it, warnings say what they risk. */
interface WorkspaceProbe {
  problems: string[];
  warnings: string[];
}

interface Mount {
  point: string;
  type: string;
  options: string[];
}

/** The mount the real path `dir` is on, from /proc/self/mountinfo; undefined where there is none (not Linux). */
export function mountOf(dir: string, mountinfo: string): Mount | undefined {
  let best: Mount | undefined;
  for (const line of mountinfo.split('\n')) {
    const [head, tail] = line.split(' - ');
    if (!head || !tail) continue;
    const fields = head.split(' ');
    const point = (fields[4] ?? '').replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    const [type = '', , superOptions = ''] = tail.split(' ');
    const inside = point === '/' || dir === point || dir.startsWith(`${point}/`);
    // The longest mount point wins; of equal ones the last mounted, which hides the others.
    if (inside && (!best || point.length >= best.point.length)) {
      best = { point, type, options: [...(fields[5] ?? '').split(','), ...superOptions.split(',')] };
    }
  }
  return best;
}

/** What a file system type risks for Write and Edit (docs/replicas.md, "What a shared workspace needs"); undefined for a local one. */
export function mountRisk(mount: Mount): string | undefined {
  const { type, options } = mount;
  if (type === 'nfs' || type === 'nfs4') {
    const fresh = options.includes('lookupcache=none') && (options.includes('noac') || options.includes('actimeo=0'));
    if (fresh) return undefined;
    return (
      `the workspace is on NFS (${mount.point}) mounted without lookupcache=none and actimeo=0 (or noac): a replica may judge a file ` +
      "by its cached name and attributes after another replica's rename, and overwrite that change (a lost update)"
    );
  }
  if (/^(cifs|smb3?|smbfs)$/.test(type)) {
    return `the workspace is on SMB/CIFS (${mount.point}): renaming over an existing file is not atomic for every server, and mtimes may be coarse`;
  }
  if (type.startsWith('fuse')) {
    return `the workspace is on a FUSE file system (${type} at ${mount.point}): rename may not be atomic, or may copy and delete`;
  }
  return undefined;
}

/**
 * Start-up's look at the workspace: a temp file renamed over another must replace it whole (else Write and Edit cannot be atomic: a
 * problem), a millisecond mtime change must hold (else every write moves the mtime by up to two seconds), and the mount type must not risk
 * what the write lock relies on. Leaves nothing behind.
 */
export async function probeWorkspace(root: string, mountinfo = readMountinfo()): Promise<WorkspaceProbe> {
  const probe: WorkspaceProbe = { problems: [], warnings: [] };
  const stem = path.join(root, `.toolgate-probe-${randomBytes(6).toString('hex')}`);
  const [from, to] = [`${stem}.a.tmp`, `${stem}.b.tmp`];
  try {
    await writeFile(to, 'old');
    await writeFile(from, 'new');
    await rename(from, to);
    const gone = await stat(from).then(
      () => false,
      () => true,
    );
    if (!gone || (await readFile(to, 'utf8')) !== 'new') {
      probe.problems.push(`workspace ${root}: a file renamed over another did not replace it; Write and Edit cannot be atomic here`);
    }
    const handle = await open(to, 'r+');
    try {
      const before = (await handle.stat()).mtimeMs;
      await handle.utimes(new Date(), (Math.floor(before) + 1.5) / 1000);
      if ((await handle.stat()).mtimeMs === before) {
        probe.warnings.push(
          `workspace ${root}: mtimes are coarser than a millisecond; each Write or Edit moves a file's mtime on by up to 2 s`,
        );
      }
    } finally {
      await handle.close();
    }
  } catch (err) {
    probe.problems.push(`workspace ${root}: ${(err as Error).message}`);
  } finally {
    await Promise.all([rm(from, { force: true }), rm(to, { force: true })]);
  }
  const mount = mountinfo === undefined ? undefined : mountOf(root, mountinfo);
  const risk = mount && mountRisk(mount);
  if (risk) probe.warnings.push(risk);
  if (!BY_DESCRIPTOR) {
    probe.warnings.push(
      'no /proc/self/fd: Write and Edit reach a file by its path, re-checked, not through a directory held open; a parent swapped for a link ' +
        'between the check and the write can put a temp file outside the workspace',
    );
  }
  return probe;
}

function readMountinfo(): string | undefined {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
}
