import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: the tools follow symbolic links that stay inside the
 * workspace, but the policy rules and the Read lock saw only the path as
 * spelled, so with `link-to-secrets -> secrets` a rule on `^secrets/` let
 * `link-to-secrets/key.pem` through, and a Read through the link did not
 * lock an Edit of the target. Rules and the lock see the symlink-resolved
 * workspace path too (through the deepest existing parent for a new file).
 */
const RULES = [
  { tool: '{Read,Write,Edit}', when: { path: '^secrets/' }, decision: 'deny' },
  { tool: 'LS', when: { path: '^secrets' }, decision: 'deny' },
  { tool: 'Read', when: { path: '^link-to-docs/' }, decision: 'ask' },
];

describe.each([
  ['without an override', {}],
  ['with an override', { Read: { timeout_ms: 5000 }, Write: { timeout_ms: 5000 }, Edit: { timeout_ms: 5000 }, LS: { timeout_ms: 5000 } }],
])('a rule on a path also holds for a symlink to it inside the workspace, %s', (_label, builtins) => {
  let t: TestApp;
  let outside: string;
  beforeAll(async () => {
    t = await buildTestApp({ config: { builtins, policy: { rules: RULES } } });
    outside = await mkdtemp(join(tmpdir(), 'toolgate-outside-'));
    await writeFile(join(outside, 'x.txt'), 'outside\n');
    await mkdir(join(t.workspace, 'secrets'));
    await writeFile(join(t.workspace, 'secrets', 'key.pem'), 'PRIVATE\n');
    await mkdir(join(t.workspace, 'docs'));
    await writeFile(join(t.workspace, 'docs', 'a.txt'), 'docs\n');
    await symlink('secrets', join(t.workspace, 'link-to-secrets'));
    await symlink('secrets/key.pem', join(t.workspace, 'key-link'));
    await symlink('docs', join(t.workspace, 'link-to-docs'));
    await symlink(outside, join(t.workspace, 'link-out'));
  });
  afterAll(async () => {
    await t.close();
    await rm(outside, { recursive: true, force: true });
  });

  const one = async (name: string, args: Record<string, unknown>) => (await execute(t.app, [{ name, arguments: args }])).body.results[0];
  const key = () => readFile(join(t.workspace, 'secrets', 'key.pem'), 'utf8');

  it.each(['link-to-secrets/key.pem', './link-to-secrets/key.pem', 'key-link', 'docs/../link-to-secrets/key.pem'])(
    'Read %j is denied',
    async (path) => {
      expect((await one('Read', { path })).error?.code).toBe('PERMISSION_DENIED');
    },
  );

  it.each(['link-to-secrets/key.pem', 'key-link'])('Edit %j is denied and the file is unchanged', async (path) => {
    expect((await one('Edit', { path, old_string: 'PRIVATE', new_string: 'stolen' })).error?.code).toBe('PERMISSION_DENIED');
    expect(await key()).toBe('PRIVATE\n');
  });

  it.each(['link-to-secrets/key.pem', 'key-link', 'link-to-secrets/new.txt', 'link-to-secrets/deeper/new.txt'])(
    'Write %j is denied and writes nothing',
    async (path) => {
      expect((await one('Write', { path, content: 'stolen\n' })).error?.code).toBe('PERMISSION_DENIED');
      expect(await key()).toBe('PRIVATE\n');
      expect(existsSync(join(t.workspace, 'secrets', 'new.txt'))).toBe(false);
      expect(existsSync(join(t.workspace, 'secrets', 'deeper'))).toBe(false);
    },
  );

  it('LS of the link is denied by a rule on the target', async () => {
    expect((await one('LS', { path: 'link-to-secrets' })).error?.code).toBe('PERMISSION_DENIED');
  });

  it('a rule on the link name still holds for the link spelled another way', async () => {
    expect((await one('Read', { path: './link-to-docs/a.txt' })).error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('a rule naming a path through a link holds for its target; a link out of the workspace is still refused', async () => {
    expect((await one('Read', { path: 'docs/a.txt' })).error?.code).toBe('APPROVAL_REQUIRED');
    expect((await one('Read', { path: 'link-out/x.txt' })).error?.code).toBe('PERMISSION_DENIED');
    expect((await one('Write', { path: 'link-out/new.txt', content: 'x\n' })).error?.code).toBe('PERMISSION_DENIED');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });
});

describe('the Read lock holds between spellings, a symlink and its target, with an override on Read and Edit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { builtins: { Read: { timeout_ms: 5000 }, Edit: { timeout_ms: 5000 } } } });
    await mkdir(join(t.workspace, 'docs'));
    await symlink('docs', join(t.workspace, 'docs-link'));
  });
  afterAll(async () => t.close());

  const session = { 'x-session-id': 'agent-1' };

  it.each([
    ['through the link, then the target', 'one.txt', 'docs-link/one.txt', () => 'docs/one.txt'],
    ['the target, then through the link', 'two.txt', 'docs/two.txt', () => 'docs-link/two.txt'],
    ['./docs/…, then the absolute path', 'three.txt', './docs/three.txt', (ws: string) => join(ws, 'docs', 'three.txt')],
  ])('Read %s: an Edit after a change made since the Read is a CONFLICT', async (_label, name, readPath, editPath) => {
    const file = join(t.workspace, 'docs', name);
    await writeFile(file, 'version 1\n');
    expect((await execute(t.app, [{ name: 'Read', arguments: { path: readPath } }], session)).body.results[0].status).toBe('success');
    await writeFile(file, 'version 2\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    const edit = await execute(
      t.app,
      [{ name: 'Edit', arguments: { path: editPath(t.workspace), old_string: 'version 2', new_string: 'version 3' } }],
      session,
    );
    expect(edit.body.results[0].error?.code).toBe('CONFLICT');
    expect(await readFile(file, 'utf8')).toBe('version 2\n');
  });
});
