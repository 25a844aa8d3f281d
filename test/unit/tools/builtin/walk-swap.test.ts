import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listDirectory, walkFiles } from '../../../../src/tools/builtin/walk.js';

/**
 * A walk reads each directory through a descriptor checked to be open on the
 * directory it judged: a directory swapped for a link while the walk runs (a
 * command of another session can do that between two steps of it) is
 * skipped, never listed under names no rule names.
 */

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolgate-walk-swap-'));
  await mkdir(join(root, 'a', 'inner'), { recursive: true });
  await writeFile(join(root, 'a', 'inner', 'x.txt'), 'x');
  await writeFile(join(root, 'b.txt'), 'b');
  await mkdir(join(root, 'secrets', 'inner'), { recursive: true });
  await writeFile(join(root, 'secrets', 'key.txt'), 'k');
  await writeFile(join(root, 'secrets', 'inner', 'more.txt'), 'k');
});
afterEach(() => rm(root, { recursive: true, force: true }));

const call = { aborted: false };
/** `a` moved aside and replaced by a link to `secrets`. */
const swap = async () => {
  await rename(join(root, 'a'), join(root, 'a-moved'));
  await symlink('secrets', join(root, 'a'));
};

describe('listDirectory', () => {
  it('lists a directory in name order', async () => {
    expect((await listDirectory(root))!.map((e) => e.name)).toEqual(['a', 'b.txt', 'secrets']);
  });

  it('is undefined for a directory that became a link, or whose parent did, and for one that is gone', async () => {
    await swap();
    expect(await listDirectory(join(root, 'a'))).toBeUndefined();
    expect(await listDirectory(join(root, 'a', 'inner'))).toBeUndefined();
    expect(await listDirectory(join(root, 'nothing'))).toBeUndefined();
    expect(await listDirectory(join(root, 'b.txt'))).toBeUndefined();
  });
});

describe('a walk whose directory is swapped for a link while it runs', () => {
  it('skips it, and yields nothing of where the link leads', async () => {
    expect(await collect(walkFiles(join(root, 'secrets'), call))).toEqual(['key.txt', 'inner/more.txt']);
    const walk = walkFiles(root, call, { judge: (rel) => (rel.startsWith('secrets') ? 'deny' : 'allow') });
    // The root is listed (a, b.txt, secrets) and b.txt yielded before `a` is read: the swap lands in between.
    const names = await collect(walk, async (rel) => {
      if (rel === 'b.txt') await swap();
    });
    expect(names).toEqual(['b.txt']);
    expect(walk.withheld.counts.denied).toBe(1);
  });
});

async function collect(walk: ReturnType<typeof walkFiles>, each?: (rel: string) => Promise<void>): Promise<string[]> {
  const out: string[] = [];
  for await (const file of walk.files) {
    out.push(file.rel);
    await each?.(file.rel);
  }
  return out;
}
