import { constants } from 'node:fs';
import { realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../src/tools/workspace.js';
import type { Workspace } from '../../../src/tools/workspace-types.js';
import { makeSandbox, type Sandbox } from './fixtures.js';

describe('createWorkspace: confinement of caller paths', () => {
  let sb: Sandbox;
  let ws: Workspace;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'src/a.ts': 'a\n', 'top.txt': 'top\n' });
    ws = createWorkspace(sb.root);
  });
  afterEach(() => sb.cleanup());

  it('realpaths the root once and refuses a root that is missing or a file', async () => {
    expect(ws.root).toBe(await realpath(sb.root));
    expect(() => createWorkspace(path.join(sb.base, 'nope'))).toThrow();
    expect(() => createWorkspace(path.join(sb.root, 'top.txt'))).toThrow(/not a directory/);
  });

  it('resolves relative paths to real paths inside the root, "." being the root', async () => {
    expect(await ws.resolveExisting('src/a.ts')).toBe(path.join(ws.root, 'src/a.ts'));
    expect(await ws.resolveExisting('./src/../src/a.ts')).toBe(path.join(ws.root, 'src/a.ts'));
    expect(await ws.resolveExisting('.')).toBe(ws.root);
    expect(ws.relative(path.join(ws.root, 'src/a.ts'))).toBe('src/a.ts');
    expect(ws.relative(ws.root)).toBe('.');
  });

  it('spells every relative path as path.resolve and path.relative would, outside ones refused', () => {
    // The common spellings take a shortcut (a prefix instead of path.resolve): every combination of odd segments must agree.
    const segments = ['a', '.', '..', '', '.env', '...', 'b.ts'];
    for (const x of segments) {
      for (const y of segments) {
        for (const z of segments) {
          for (const p of [`${x}/${y}/${z}`, `${x}/${y}`, `${x}${y}/${z}/`]) {
            if (p.length === 0) continue;
            const rel = path.relative(ws.root, path.resolve(ws.root, p));
            const expected = rel === '..' || rel.startsWith('../') ? p : rel || '.';
            expect(ws.canonical(p), p).toBe(expected);
          }
        }
      }
    }
    expect(ws.relative(`${ws.root}/src/a.ts`)).toBe('src/a.ts');
    expect(ws.relative(`${ws.root}/src//x/../a.ts`)).toBe('src/a.ts');
    expect(ws.relative(path.dirname(ws.root))).toBe('..');
  });

  it('accepts an absolute path inside the root, spelled through the configured root or its real path', async () => {
    const alias = path.join(sb.base, 'alias');
    await symlink(sb.root, alias);
    const viaAlias = createWorkspace(alias);
    expect(await viaAlias.resolveExisting(path.join(alias, 'src/a.ts'))).toBe(path.join(ws.root, 'src/a.ts'));
    expect(await viaAlias.resolveExisting(path.join(ws.root, 'top.txt'))).toBe(path.join(ws.root, 'top.txt'));
  });

  it('follows a symlink that stays inside the root', async () => {
    await sb.link('src/a.ts', 'inner-link');
    expect(await ws.resolveExisting('inner-link')).toBe(path.join(ws.root, 'src/a.ts'));
  });

  it.each([
    ['', 'INVALID_ARGS'],
    ['a\\b', 'INVALID_ARGS'],
    ['foo\0bar', 'INVALID_ARGS'],
    ['..', 'PERMISSION_DENIED'],
    ['src/../../ws-evil/secret.txt', 'PERMISSION_DENIED'],
    ['/etc/hostname', 'PERMISSION_DENIED'],
    ['missing.txt', 'NOT_FOUND'],
    ['top.txt/below', 'NOT_FOUND'],
  ])('resolveExisting(%j) fails with %s', async (p, code) => {
    await expect(ws.resolveExisting(p)).rejects.toMatchObject({ name: 'GatewayError', code });
  });

  it('resolveCanonical gives the workspace path with links resolved, through the deepest existing parent for a new file', async () => {
    await sb.link('src', 'src-link');
    await sb.link('src/a.ts', 'a-link');
    expect(await ws.resolveCanonical('src-link/a.ts/')).toBe('src/a.ts');
    expect(await ws.resolveCanonical('./a-link')).toBe('src/a.ts');
    expect(await ws.resolveCanonical('src-link/new/deep.txt')).toBe('src/new/deep.txt');
    expect(await ws.resolveCanonical(path.join(ws.root, 'src-link'))).toBe('src');
    // What the workspace refuses comes back in its lexical form (or unchanged); the tool refuses it when it runs.
    await sb.link(sb.base, 'out-link');
    expect(await ws.resolveCanonical('./out-link/x')).toBe('out-link/x');
    expect(await ws.resolveCanonical('../x')).toBe('../x');
  });

  it('refuses a dangling symlink, whose target it cannot check', async () => {
    await sb.link(path.join(sb.outside, 'not-yet.txt'), 'dangling');
    await expect(ws.resolveTarget('dangling')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(ws.resolveTarget('dangling/child.txt')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('gives a write target below the nearest existing real ancestor', async () => {
    expect(await ws.resolveTarget('src/new/deep.ts')).toEqual({ path: path.join(ws.root, 'src/new/deep.ts'), exists: false });
    expect(await ws.resolveTarget('src/a.ts')).toEqual({ path: path.join(ws.root, 'src/a.ts'), exists: true });
    await expect(ws.resolveTarget('top.txt/child')).rejects.toMatchObject({ code: 'INVALID_ARGS' });
  });

  it('recheck catches a directory swapped for a symlink after resolution', async () => {
    const dir = await ws.resolveExisting('src');
    await ws.recheck(dir);
    await rename(dir, path.join(ws.root, 'src-moved'));
    await symlink(sb.outside, dir);
    await expect(ws.recheck(dir)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('open refuses a last component that became a symlink', async () => {
    const file = await ws.resolveExisting('top.txt');
    await rm(file);
    await symlink(path.join(sb.outside, 'secret.txt'), file);
    await expect(ws.open(file, constants.O_RDONLY)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('open refuses a file reached through a parent swapped for a symlink (Linux /proc check)', async () => {
    const dir = await ws.resolveExisting('src');
    await rename(dir, path.join(ws.root, 'src-moved'));
    await symlink(sb.outside, dir);
    await writeFile(path.join(sb.outside, 'a.ts'), 'outside\n');
    const attempt = ws.open(path.join(dir, 'a.ts'), constants.O_RDONLY);
    if (process.platform === 'linux') await expect(attempt).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    else await (await attempt).close();
  });
});
