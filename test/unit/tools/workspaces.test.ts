import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import {
  createWorkspaces,
  layoutTenants,
  rootOverlapProblems,
  storeInRootProblems,
  workspaceLayout,
} from '../../../src/tools/workspaces.js';

/** The code of the error `f` throws. */
function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

const key = (id: string, tenant: string) => ({ id, sha256: id.padEnd(64, '0'), tenant, scopes: ['execute'] });

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-roots-'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

/** The roots' problems of a configuration, as start-up lists them. */
function problems(overrides: Record<string, unknown>): string[] {
  const config = configFrom({ workspace: path.join(base, 'ws'), ...overrides });
  const layout = workspaceLayout(config);
  return rootOverlapProblems(layout, layoutTenants(layout, config.keys));
}

describe("tenants' workspace roots", () => {
  it('each tenant of a key under <workspace>/<tenant>, one named elsewhere: no problem', () => {
    expect(problems({ keys: [key('a', 'acme'), key('b', 'globex')], tenants: { acme: { workspace: path.join(base, 'acme') } } })).toEqual(
      [],
    );
  });

  it('two tenants on one folder, or one inside the other, are a problem naming both', () => {
    const shared = path.join(base, 'shared');
    expect(
      problems({ keys: [key('a', 'acme'), key('b', 'globex')], tenants: { acme: { workspace: shared }, globex: { workspace: shared } } }),
    ).toEqual([expect.stringMatching(/tenants "acme" \(.*shared\) and "globex" \(.*shared\) are the same folder/)]);
    expect(problems({ keys: [key('a', 'acme'), key('b', 'globex')], tenants: { acme: { workspace: path.join(base, 'ws') } } })).toEqual([
      expect.stringMatching(/"acme" \(.*ws\) and "globex" \(.*ws\/globex\) nest \(.*ws\/globex is inside .*ws\)/),
    ]);
    // A tenant named only in `tenants` counts too: its root would hold or be held by a tenant's.
    expect(problems({ keys: [key('a', 'acme')], tenants: { other: { workspace: path.join(base, 'ws', 'acme', 'deep') } } })).toHaveLength(
      1,
    );
  });

  it('a symbolic link does not hide a nest: roots compare with links resolved', async () => {
    await mkdir(path.join(base, 'real', 'inner'), { recursive: true });
    await symlink(path.join(base, 'real', 'inner'), path.join(base, 'alias'));
    expect(
      problems({
        keys: [key('a', 'acme'), key('b', 'globex')],
        tenants: { acme: { workspace: path.join(base, 'real') }, globex: { workspace: path.join(base, 'alias') } },
      }),
    ).toHaveLength(1);
  });

  it('without keys the local caller keeps the workspace itself, and a tenant name of dots is refused by the schema', () => {
    const layout = workspaceLayout(configFrom({ workspace: path.join(base, 'ws') }));
    expect(layoutTenants(layout, [])).toEqual(['local']);
    expect(createWorkspaces(layout).of('local').root).toBe(path.join(base, 'ws'));
    expect(() => configFrom({ keys: [key('a', '..')] })).toThrow(/keys\.0\.tenant/);
    expect(() => configFrom({ tenants: { '.': { workspace: base } } })).toThrow(/tenants/);
  });

  it("a tenant's folder is made on first use; a link in its place, or a file, is refused", async () => {
    const ws = path.join(base, 'ws');
    await mkdir(ws);
    const workspaces = createWorkspaces(workspaceLayout(configFrom({ workspace: ws, keys: [key('a', 'acme')] })));
    expect(workspaces.of('acme').root).toBe(path.join(ws, 'acme'));
    await symlink(base, path.join(ws, 'evil'));
    expect(codeOf(() => workspaces.of('evil'))).toBe('EXECUTION_FAILED');
    await writeFile(path.join(ws, 'file'), '');
    expect(codeOf(() => workspaces.of('file'))).toBe('EXECUTION_FAILED');
  });
});

describe("the spill and audit directories lie outside every tenant's root", () => {
  const dirProblems = (overrides: Record<string, unknown>, dir: string) => {
    const config = configFrom({ workspace: path.join(base, 'ws'), ...overrides });
    const layout = workspaceLayout(config);
    return storeInRootProblems(layout, layoutTenants(layout, config.keys), [{ setting: 'spill.url', dir }]);
  };
  const keys = [key('a', 'acme'), key('d', 'data')];

  it("a directory inside a tenant's root, or holding one, is a problem naming the tenant; beside the roots it is none", () => {
    expect(dirProblems({ keys }, path.join(base, 'ws', 'data', 'spill'))).toEqual([
      expect.stringMatching(/^spill\.url is inside the workspace root of tenant "data"/),
    ]);
    // The spill store names its folders by sha256(tenant): a tenant of that name under a spill directory would be another's outputs.
    expect(dirProblems({ keys }, path.join(base, 'ws'))).toEqual([
      expect.stringMatching(/holds the workspace root of tenant "acme"/),
      expect.stringMatching(/holds the workspace root of tenant "data"/),
    ]);
    expect(dirProblems({ keys, tenants: { acme: { workspace: path.join(base, 'srv') } } }, path.join(base, 'srv', 'spill'))).toHaveLength(
      1,
    );
    expect(dirProblems({ keys }, path.join(base, 'ws', 'spill'))).toEqual([]);
    expect(dirProblems({ keys }, path.join(base, 'data', 'spill'))).toEqual([]);
  });

  it('without keys the one caller may keep them in its workspace: what is there is its own', () => {
    expect(dirProblems({}, path.join(base, 'ws', 'data', 'spill'))).toEqual([]);
  });
});
