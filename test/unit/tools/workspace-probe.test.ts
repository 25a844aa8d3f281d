import { mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mountOf, mountRisk, probeWorkspace } from '../../../src/tools/workspace-probe.js';

const line = (id: number, point: string, type: string, superOptions: string) =>
  `${id} 1 0:${id} / ${point} rw,relatime - ${type} server:/export ${superOptions}`;

const MOUNTINFO = [
  line(20, '/', 'ext4', 'rw'),
  line(21, '/srv/shared', 'nfs4', 'rw,vers=4.2,hard,proto=tcp'),
  line(22, '/srv/fresh', 'nfs', 'rw,vers=3,lookupcache=none,actimeo=0'),
  line(23, '/srv/smb', 'cifs', 'rw,vers=3.0'),
  line(24, '/srv/fuse', 'fuse.sshfs', 'rw'),
  line(25, '/srv/with\\040space', 'nfs4', 'rw'),
].join('\n');

describe('the mount a workspace is on (start-up warns with what it risks)', () => {
  it('finds the longest mount point over the path, octal escapes read', () => {
    expect(mountOf('/srv/shared/ws', MOUNTINFO)).toMatchObject({ point: '/srv/shared', type: 'nfs4' });
    expect(mountOf('/srv/shared-not', MOUNTINFO)).toMatchObject({ point: '/', type: 'ext4' });
    expect(mountOf('/srv/with space/ws', MOUNTINFO)).toMatchObject({ point: '/srv/with space', type: 'nfs4' });
  });

  it('NFS without lookupcache=none and actimeo=0 risks lost updates; SMB and FUSE risk rename; a local file system risks nothing', () => {
    const risk = (dir: string) => mountRisk(mountOf(dir, MOUNTINFO)!);
    expect(risk('/srv/shared/ws')).toMatch(/NFS .* without lookupcache=none and actimeo=0 .*lost update/);
    expect(risk('/srv/fresh/ws')).toBeUndefined();
    expect(risk('/srv/smb/ws')).toMatch(/SMB\/CIFS .* not atomic/);
    expect(risk('/srv/fuse/ws')).toMatch(/FUSE .*fuse\.sshfs.* rename may not be atomic/);
    expect(risk('/home/ws')).toBeUndefined();
  });
});

describe('probeWorkspace', () => {
  let root: string;
  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolgate-probe-')));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('finds an atomic rename and fine mtimes here, and leaves nothing behind', async () => {
    expect(await probeWorkspace(root, line(1, '/', 'ext4', 'rw'))).toEqual({ problems: [], warnings: [] });
    expect(await readdir(root)).toEqual([]);
  });

  it('warns, without refusing, of a workspace on NFS mounted with caches', async () => {
    const probe = await probeWorkspace(root, `${line(1, '/', 'ext4', 'rw')}\n${line(2, root, 'nfs4', 'rw,hard')}`);
    expect(probe.problems).toEqual([]);
    expect(probe.warnings).toEqual([expect.stringMatching(/^the workspace is on NFS/)]);
  });

  it('refuses a workspace it cannot write, naming it', async () => {
    const probe = await probeWorkspace(path.join(root, 'missing'));
    expect(probe.problems).toEqual([expect.stringContaining(`workspace ${path.join(root, 'missing')}: ENOENT`)]);
  });
});
