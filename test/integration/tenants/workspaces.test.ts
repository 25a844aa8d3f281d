import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { makeWorkspace, removeAll } from '../bash/helpers.js';

/**
 * docs/auth.md, "Tenant workspaces": each tenant works in its own workspace root,
 * `<workspace>/<tenant>/` by default or the one `tenants.<name>.workspace`
 * names, and one tenant's calls never read, list or change another's files:
 * not with the file tools, not in an approval's preview, not from Bash.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = { acme: 'tg_acme', acmeAdmin: 'tg_acme-admin', globex: 'tg_globex', globexAdmin: 'tg_globex-admin' };
const KEYS = [
  { id: 'acme', sha256: sha256(KEY.acme), tenant: 'acme', scopes: ['execute'] },
  { id: 'acme-admin', sha256: sha256(KEY.acmeAdmin), tenant: 'acme', scopes: ['admin'] },
  { id: 'globex', sha256: sha256(KEY.globex), tenant: 'globex', scopes: ['execute'] },
  { id: 'globex-admin', sha256: sha256(KEY.globexAdmin), tenant: 'globex', scopes: ['admin'] },
];
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
const SECRET = 'acme quarterly numbers\n';

let workspace: string;
let t: TestApp | undefined;
beforeEach(async () => {
  // Given to nobody when the tests run as root, as the Bash suites do: commands then run as that user.
  workspace = await makeWorkspace();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  await removeAll(workspace);
});

async function gateway(config: Record<string, unknown> = {}) {
  t = await buildTestApp({ workspace, config: { keys: KEYS, ...config } });
  return t.app;
}

let calls = 0;
/** One call as `key`, under a call id of its own; its result. */
async function one(app: TestApp['app'], key: string, name: string, args: Record<string, unknown>) {
  const { body } = await execute(app, { session_id: 's1', tool_calls: [call(`c${++calls}`, name, args)] }, as(key));
  return body.results[0];
}

describe('each tenant has its own workspace root', () => {
  it("tenant B's key can neither read nor overwrite the file tenant A wrote: B's Write makes B's own file", async () => {
    const app = await gateway();
    expect((await one(app, KEY.acme, 'Write', { path: 'notes.txt', content: SECRET })).status).toBe('success');
    expect(await readFile(join(workspace, 'acme', 'notes.txt'), 'utf8')).toBe(SECRET);

    const read = await one(app, KEY.globex, 'Read', { path: 'notes.txt' });
    expect(read.error.code).toBe('NOT_FOUND');
    const written = await one(app, KEY.globex, 'Write', { path: 'notes.txt', content: 'globex was here\n' });
    expect(written.status).toBe('success');
    const edited = await one(app, KEY.globex, 'Edit', { path: 'notes.txt', old_string: 'globex', new_string: 'GLOBEX' });
    expect(edited.status).toBe('success');

    expect(await readFile(join(workspace, 'acme', 'notes.txt'), 'utf8')).toBe(SECRET);
    expect(await readFile(join(workspace, 'globex', 'notes.txt'), 'utf8')).toBe('GLOBEX was here\n');
    expect((await one(app, KEY.acme, 'Read', { path: 'notes.txt' })).text).toContain('acme quarterly numbers');
  });

  it("no spelling of a path reaches another tenant's files: ../acme, the absolute path, the workspace root", async () => {
    const app = await gateway();
    await one(app, KEY.acme, 'Write', { path: 'notes.txt', content: SECRET });
    await one(app, KEY.globex, 'Write', { path: 'own.txt', content: 'mine\n' });
    for (const path of ['../acme/notes.txt', join(workspace, 'acme', 'notes.txt')]) {
      for (const [name, args] of [
        ['Read', { path }],
        ['Write', { path, content: 'overwritten\n' }],
        ['Edit', { path, old_string: 'acme', new_string: 'x' }],
        ['LS', { path: '..' }],
        ['Grep', { pattern: 'quarterly', path: '..' }],
        ['Glob', { pattern: '**', path: '..' }],
      ] as const) {
        const result = await one(app, KEY.globex, name, args);
        expect(result.error?.code, `${name} ${JSON.stringify(args)}`).toBe('PERMISSION_DENIED');
      }
    }
    const listed = await one(app, KEY.globex, 'Glob', { pattern: '**' });
    expect(listed.text).toContain('own.txt');
    expect(listed.text).not.toContain('notes.txt');
    expect((await one(app, KEY.globex, 'Grep', { pattern: 'quarterly' })).text).not.toContain('quarterly');
    expect(await readFile(join(workspace, 'acme', 'notes.txt'), 'utf8')).toBe(SECRET);
  });

  it("an approval's preview is made in the asking tenant's workspace: B's Edit of A's file shows nothing of it", async () => {
    const app = await gateway({ builtins: { Edit: { requires_approval: true } } });
    await one(app, KEY.acme, 'Write', { path: 'notes.txt', content: SECRET });
    const asked = await one(app, KEY.globex, 'Edit', { path: 'notes.txt', old_string: 'acme', new_string: 'globex' });
    expect(asked.error.code).toBe('APPROVAL_REQUIRED');
    const approval = (
      await app.inject({ method: 'GET', url: `/approvals/${asked.error.details.approval_id}`, headers: as(KEY.globexAdmin) })
    ).json();
    expect(approval.preview).toMatchObject({ kind: 'diff', diff: '', note: expect.stringMatching(/would fail: No such file/) });
    expect(JSON.stringify(approval)).not.toContain('quarterly');
  });

  it('tenants.<name>.workspace puts a tenant elsewhere; the others stay under the workspace', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'toolgate-acme-'));
    try {
      const app = await gateway({ tenants: { acme: { workspace: elsewhere } } });
      await one(app, KEY.acme, 'Write', { path: 'a.txt', content: 'acme\n' });
      await one(app, KEY.globex, 'Write', { path: 'g.txt', content: 'globex\n' });
      expect(await readdir(elsewhere)).toEqual(['a.txt']);
      expect(await readFile(join(workspace, 'globex', 'g.txt'), 'utf8')).toBe('globex\n');
      expect((await readdir(workspace)).sort()).toEqual(['globex']);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('without keys the local caller keeps the workspace root itself, as before tenants had roots', async () => {
    t = await buildTestApp({ workspace });
    const { body } = await execute(t.app, [call('w', 'Write', { path: 'plain.txt', content: 'local\n' })]);
    expect(body.results[0].status).toBe('success');
    expect(await readFile(join(workspace, 'plain.txt'), 'utf8')).toBe('local\n');
  });
});

describe("Bash runs in its caller's tenant's root only", () => {
  it("tenant B's commands cannot see tenant A's files, by relative path, absolute path or listing", async () => {
    const app = await gateway({ builtins: { Bash: { enabled: true, sandbox: 'required' } } });
    await one(app, KEY.acme, 'Write', { path: 'notes.txt', content: SECRET });
    const acmeFile = join(workspace, 'acme', 'notes.txt');
    const command = `pwd; ls -a .. ${workspace} 2>&1; cat ../acme/notes.txt ${acmeFile} 2>&1; true`;
    const result = await one(app, KEY.globex, 'Bash', { command });
    expect(result.status).toBe('success');
    expect(result.text).toContain(join(workspace, 'globex'));
    expect(result.text).not.toContain('quarterly');
    expect(result.text).not.toMatch(/^acme$/m);
    expect((await one(app, KEY.acme, 'Bash', { command: 'cat notes.txt' })).text).toBe(SECRET);
  });
});
