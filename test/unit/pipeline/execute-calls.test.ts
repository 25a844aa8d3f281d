import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Calls run in request order, a call that is not read-only alone, so each call sees what the
 * earlier calls of its request did. The permission gate judges every call's path before any call runs (gate 4);
 * a path that did not exist then is resolved again when its call runs, and runs only if it still names the file
 * the policy judged.
 */

/**
 * A tool that is not read-only and makes a symbolic link in the workspace, as a shell command of the batch could
 * (`rm -rf path && ln -s target path`): whatever was at `path`, a whole directory too, is replaced.
 */
function linkTool(workspace: string): Tool {
  return {
    name: 'Link',
    description: 'Test tool: replaces whatever is at `path` with a symbolic link pointing to `target`.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, target: { type: 'string' } }, required: ['path', 'target'] },
    concurrencySafe: false,
    async run(args) {
      await rm(join(workspace, String(args.path)), { recursive: true, force: true });
      await symlink(String(args.target), join(workspace, String(args.path)));
      return { text: 'linked' };
    },
  };
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
const outcome = (r: any): string => r.error?.code ?? r.status;

/**
 * Without a rule on arguments only the tools with a lock role (Read, Write, Edit) resolve their path at planning;
 * with one, every file tool does (src/pipeline/gates/permission.ts spellingsOf).
 */
const CONFIGS: Array<[string, Record<string, unknown>]> = [
  ['the default config', {}],
  ['a rule on paths', { policy: { rules: [{ tool: '*', when: { path: '^secrets(/|$)' }, decision: 'deny' }] } }],
];

describe.each(CONFIGS)('calls of one batch see the files earlier calls made (%s)', (_name, config) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('Write of a new file, then Read of it in the same batch: the Read returns the content', async () => {
    t = await buildTestApp({ config });
    const { body } = await execute(t.app, [
      call('w', 'Write', { path: 'hello.txt', content: 'hi\n' }),
      call('r', 'Read', { path: 'hello.txt' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'success']);
    expect(body.results[1].text).toBe('     1\thi');
  });

  it('Write, Edit, Read of one new file; Write, Write again; each sees the one before', async () => {
    t = await buildTestApp({ config });
    const { body } = await execute(t.app, [
      call('w', 'Write', { path: 'a.txt', content: 'one\n' }),
      call('e', 'Edit', { path: 'a.txt', old_string: 'one', new_string: 'two' }),
      call('r', 'Read', { path: 'a.txt' }),
      call('w1', 'Write', { path: 'b.txt', content: 'first\n' }),
      call('w2', 'Write', { path: 'b.txt', content: 'second\n' }),
      call('r2', 'Read', { path: 'b.txt' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'success', 'success', 'success', 'success', 'success']);
    expect(body.results[2].text).toBe('     1\ttwo');
    expect(body.results[3].text).toMatch(/^Created b\.txt/);
    expect(body.results[4].text).toMatch(/^Overwrote b\.txt/);
    expect(body.results[5].text).toBe('     1\tsecond');
  });

  it('a Write into the directories an earlier Write created; LS, Glob and Grep of them', async () => {
    t = await buildTestApp({ config });
    const { body } = await execute(t.app, [
      call('w1', 'Write', { path: 'src/deep/one.ts', content: 'export const one = 1;\n' }),
      call('w2', 'Write', { path: 'src/deep/two.ts', content: 'export const two = 2;\n' }),
      call('ls', 'LS', { path: 'src/deep' }),
      call('glob', 'Glob', { path: 'src', pattern: '**/*.ts' }),
      call('grep', 'Grep', { path: 'src/deep', pattern: 'two' }),
      call('grep1', 'Grep', { path: 'src/deep/one.ts', pattern: 'one' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'success', 'success', 'success', 'success', 'success']);
    expect(await readFile(join(t.workspace, 'src/deep/two.ts'), 'utf8')).toBe('export const two = 2;\n');
    expect(body.results[2].text).toContain('one.ts');
    expect(body.results[2].text).toContain('two.ts');
    expect(body.results[3].text).toContain('deep/one.ts');
    expect(body.results[3].text).toContain('deep/two.ts');
    expect(body.results[4].text).toContain('two.ts:1:export const two = 2;');
    expect(body.results[5].text).toContain('one.ts:1:export const one = 1;');
  });

  it('an Edit of an existing file, then a Read of it, sees the edit', async () => {
    t = await buildTestApp({ config });
    await writeFile(join(t.workspace, 'c.txt'), 'old\n');
    const { body } = await execute(t.app, [
      call('e', 'Edit', { path: 'c.txt', old_string: 'old', new_string: 'new' }),
      call('r', 'Read', { path: 'c.txt' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'success']);
    expect(body.results[1].text).toBe('     1\tnew');
  });

  it('a path still absent when its call runs is NOT_FOUND, as in a batch of its own', async () => {
    t = await buildTestApp({ config });
    const { body } = await execute(t.app, [call('w', 'Write', { path: 'x.txt', content: 'x' }), call('r', 'Read', { path: 'y.txt' })]);
    expect(body.results.map(outcome)).toEqual(['success', 'NOT_FOUND']);
  });
});

describe('what runs is what the policy judged: a link made after the decision', () => {
  let t: TestApp | undefined;
  let outside: string | undefined;
  afterEach(async () => {
    await t?.close();
    if (outside) await rm(outside, { recursive: true, force: true });
    t = outside = undefined;
  });

  async function appWithSecrets(): Promise<TestApp> {
    const workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
    await mkdir(join(workspace, 'secrets'));
    await mkdir(join(workspace, 'public'));
    await writeFile(join(workspace, 'secrets/key.txt'), 'the secret\n');
    await writeFile(join(workspace, 'public/notes.txt'), 'public notes\n');
    const app = await buildTestApp({
      workspace,
      tools: [linkTool(workspace)],
      config: { policy: { rules: [{ tool: '*', when: { path: '^secrets(/|$)' }, decision: 'deny' }] } },
    });
    const close = app.close;
    return {
      ...app,
      close: async () => {
        await close();
        await rm(workspace, { recursive: true, force: true });
      },
    };
  }

  it('a link to a denied directory, made by an earlier call after the policy allowed the path: CONFLICT, nothing read or written', async () => {
    t = await appWithSecrets();
    const { body } = await execute(t.app, [
      call('l', 'Link', { path: 'docs', target: 'secrets' }),
      call('r', 'Read', { path: 'docs/key.txt' }),
      call('w', 'Write', { path: 'docs/key.txt', content: 'overwritten\n' }),
      call('e', 'Edit', { path: 'docs/key.txt', old_string: 'the', new_string: 'a' }),
      call('ls', 'LS', { path: 'docs' }),
      call('g', 'Grep', { path: 'docs', pattern: 'secret' }),
      call('gl', 'Glob', { path: 'docs', pattern: '*' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT']);
    expect(JSON.stringify(body.results)).not.toContain('the secret');
    expect(await readFile(join(t.workspace, 'secrets/key.txt'), 'utf8')).toBe('the secret\n');
    const refused = body.results[1].error;
    expect(refused.message).toContain('"docs/key.txt"');
    expect(refused.message).toContain('secrets/key.txt');
    expect(refused.retryable).toBe(false);
    expect(refused.suggestion).toMatch(/again/);
    // Sent again, the call is judged on what the path resolves to now: the policy denies it.
    const again = await execute(t.app, [call('r', 'Read', { path: 'docs/key.txt' })]);
    expect(outcome(again.body.results[0])).toBe('PERMISSION_DENIED');
  });

  it('an existing parent directory replaced by a link to a denied directory after the decision: CONFLICT for every file tool, nothing of it read or written', async () => {
    t = await appWithSecrets();
    await mkdir(join(t.workspace, 'docs'));
    await writeFile(join(t.workspace, 'docs/key.txt'), 'public key notes\n');
    const { body } = await execute(t.app, [
      call('l', 'Link', { path: 'docs', target: 'secrets' }),
      call('r', 'Read', { path: 'docs/key.txt' }),
      call('e', 'Edit', { path: 'docs/key.txt', old_string: 'the', new_string: 'a' }),
      call('w', 'Write', { path: 'docs/key.txt', content: 'overwritten\n' }),
      call('ls', 'LS', { path: 'docs' }),
      call('g', 'Grep', { path: 'docs', pattern: 'secret' }),
      call('g1', 'Grep', { path: 'docs/key.txt', pattern: 'secret' }),
      call('gl', 'Glob', { path: 'docs', pattern: '*' }),
    ]);
    expect(body.results.map(outcome)).toEqual([
      'success',
      'CONFLICT',
      'CONFLICT',
      'CONFLICT',
      'CONFLICT',
      'CONFLICT',
      'CONFLICT',
      'CONFLICT',
    ]);
    expect(JSON.stringify(body.results)).not.toContain('the secret');
    expect(await readFile(join(t.workspace, 'secrets/key.txt'), 'utf8')).toBe('the secret\n');
    const refused = body.results[1].error;
    expect(refused.message).toContain('"docs/key.txt"');
    expect(refused.message).toContain('secrets/key.txt');
    expect(refused.suggestion).toMatch(/again/);
    const again = await execute(t.app, [call('r', 'Read', { path: 'docs/key.txt' }), call('ls', 'LS', { path: 'docs' })]);
    expect(again.body.results.map(outcome)).toEqual(['PERMISSION_DENIED', 'PERMISSION_DENIED']);
  });

  it('a Write or Edit that gets the session lock injected runs on the file judged too: a parent replaced by a link is CONFLICT', async () => {
    t = await appWithSecrets();
    await mkdir(join(t.workspace, 'docs'));
    // The same size and mtime as the secret: the injected lock alone cannot tell the two files apart.
    await writeFile(join(t.workspace, 'docs/key.txt'), 'the public\n');
    const when = new Date('2026-01-01T00:00:00Z');
    for (const file of ['docs/key.txt', 'secrets/key.txt']) await utimes(join(t.workspace, file), when, when);
    const read = await execute(t.app, { session_id: 's', tool_calls: [call('r', 'Read', { path: 'docs/key.txt' })] });
    expect(read.body.results[0].text).toBe('     1\tthe public');
    const { body } = await execute(t.app, {
      session_id: 's',
      tool_calls: [
        call('l', 'Link', { path: 'docs', target: 'secrets' }),
        call('e', 'Edit', { path: 'docs/key.txt', old_string: 'the', new_string: 'a' }),
        call('w', 'Write', { path: 'docs/key.txt', content: 'overwritten\n' }),
      ],
    });
    expect(body.results.map(outcome)).toEqual(['success', 'CONFLICT', 'CONFLICT']);
    expect(await readFile(join(t.workspace, 'secrets/key.txt'), 'utf8')).toBe('the secret\n');
  });

  it('an existing parent directory replaced by a link to outside the workspace after the decision: PERMISSION_DENIED', async () => {
    t = await appWithSecrets();
    outside = await mkdtemp(join(tmpdir(), 'toolgate-outside-'));
    await writeFile(join(outside, 'notes.txt'), 'outside content\n');
    const { body } = await execute(t.app, [
      call('l', 'Link', { path: 'public', target: outside }),
      call('r', 'Read', { path: 'public/notes.txt' }),
      call('ls', 'LS', { path: 'public' }),
      call('w', 'Write', { path: 'public/notes.txt', content: 'escaped\n' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'PERMISSION_DENIED', 'PERMISSION_DENIED', 'PERMISSION_DENIED']);
    expect(JSON.stringify(body.results)).not.toContain('outside content');
    expect(await readFile(join(outside, 'notes.txt'), 'utf8')).toBe('outside content\n');
  });

  it('a link to an allowed file elsewhere is refused all the same: the policy judged another path', async () => {
    t = await appWithSecrets();
    const { body } = await execute(t.app, [
      call('l', 'Link', { path: 'docs', target: 'public' }),
      call('r', 'Read', { path: 'docs/notes.txt' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'CONFLICT']);
    const again = await execute(t.app, [call('r', 'Read', { path: 'docs/notes.txt' })]);
    expect(again.body.results[0].text).toBe('     1\tpublic notes');
  });

  it('a link to outside the workspace, made after the decision: PERMISSION_DENIED, nothing read or written outside', async () => {
    t = await appWithSecrets();
    outside = await mkdtemp(join(tmpdir(), 'toolgate-outside-'));
    await writeFile(join(outside, 'passwd'), 'outside content\n');
    const { body } = await execute(t.app, [
      call('l', 'Link', { path: 'out', target: outside }),
      call('r', 'Read', { path: 'out/passwd' }),
      call('w', 'Write', { path: 'out/new.txt', content: 'escaped\n' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'PERMISSION_DENIED', 'PERMISSION_DENIED']);
    expect(JSON.stringify(body.results)).not.toContain('outside content');
    await expect(readFile(join(outside, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a dangling link made after the decision cannot carry a Write: PERMISSION_DENIED', async () => {
    t = await appWithSecrets();
    const { body } = await execute(t.app, [
      call('l', 'Link', { path: 'new.txt', target: 'secrets/new.txt' }),
      call('w', 'Write', { path: 'new.txt', content: 'x' }),
    ]);
    expect(body.results.map(outcome)).toEqual(['success', 'PERMISSION_DENIED']);
    await expect(readFile(join(t.workspace, 'secrets/new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
