import { readFile } from 'node:fs/promises';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const json = async (path: string) => JSON.parse(await readFile(new URL(path, root), 'utf8'));

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

/** Every locked package whose `engines.node` excludes `floor`, as "path@version needs node range". */
function excluding(packages: Record<string, LockEntry>, floor: string, dev: boolean): string[] {
  return Object.entries(packages).flatMap(([path, entry]) => {
    // Old packages list engines as an array, which npm ignores.
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (path === '' || range === undefined || Boolean(entry.dev) !== dev) return [];
    return semver.satisfies(floor, range) ? [] : [`${path.replace(/^node_modules\//, '')}@${entry.version} needs node ${range}`];
  });
}

/** The Node floor package.json and the README state is one every locked dependency declares it supports. */
describe('the Node version floor', () => {
  it('package.json engines.node is a floor the README states', async () => {
    const floor = semver.minVersion((await json('package.json')).engines.node)!;
    const readme = await readFile(new URL('README.md', root), 'utf8');
    expect(readme).toContain(`Node.js ${floor.major}.${floor.minor} or newer`);
  });

  it('no runtime dependency in the lock file declares an engines.node that excludes the floor', async () => {
    const floor = semver.minVersion((await json('package.json')).engines.node)!.version;
    expect(excluding((await json('package-lock.json')).packages, floor, false)).toEqual([]);
  });

  // CI runs the type check, lint and tests on the floor's major.
  it('no dev dependency does either', async () => {
    const floor = semver.minVersion((await json('package.json')).engines.node)!.version;
    expect(excluding((await json('package-lock.json')).packages, floor, true)).toEqual([]);
  });
});
