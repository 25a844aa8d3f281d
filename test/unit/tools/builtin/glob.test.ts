import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_GLOB_RESULTS } from '../../../../src/tools/builtin/glob.js';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

describe('Glob', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({
      'src/b.ts': '',
      'src/a.ts': '',
      'src/lib/c.ts': '',
      'src/readme.md': '',
      'top.ts': '',
      '.github/ci.ts': '',
      '.git/hooks/x.ts': '',
      'node_modules/pkg/index.ts': '',
      'src/node_modules/dep.ts': '',
    });
  });
  afterEach(() => sb.cleanup());

  it('matches at any depth with **, dotfiles included, .git and node_modules skipped, sorted by name', async () => {
    const out = await run(sb, 'Glob', { pattern: '**/*.ts' });
    expect(out.text.split('\n')).toEqual(['.github/ci.ts', 'src/a.ts', 'src/b.ts', 'src/lib/c.ts', 'top.ts']);
    expect(out.partial).toBeFalsy();
  });

  it('"*" stays within one directory; results are relative to the workspace root, not to path', async () => {
    expect((await run(sb, 'Glob', { pattern: '*.ts', path: 'src' })).text).toBe('src/a.ts\nsrc/b.ts');
    expect((await run(sb, 'Glob', { pattern: '{lib/*,*.md}', path: 'src' })).text).toBe('src/lib/c.ts\nsrc/readme.md');
  });

  it('searches inside node_modules when path points there', async () => {
    expect((await run(sb, 'Glob', { pattern: '**/*.ts', path: 'node_modules' })).text).toBe('node_modules/pkg/index.ts');
  });

  it('says so when nothing matches', async () => {
    expect((await run(sb, 'Glob', { pattern: '**/*.rs' })).text).toBe('No files matched.');
  });

  it('does not follow symlinks, even ones that stay inside', async () => {
    await sb.link('src', 'src-link');
    expect((await run(sb, 'Glob', { pattern: 'src-link/**' })).text).toBe('No files matched.');
  });

  it(`stops at ${MAX_GLOB_RESULTS} results with partial`, async () => {
    const dir = path.join(sb.root, 'many');
    await mkdir(dir);
    await Promise.all(
      Array.from({ length: MAX_GLOB_RESULTS + 10 }, (_, i) => writeFile(path.join(dir, `f${String(i).padStart(5, '0')}.txt`), '')),
    );
    const out = await run(sb, 'Glob', { pattern: 'many/*.txt' });
    expect(out.partial).toBe(true);
    expect(out.text.split('\n').filter((l) => l.startsWith('many/'))).toHaveLength(MAX_GLOB_RESULTS);
    expect(out.text).toMatch(/stopped at 1000 files/);
  });

  it('refuses absolute patterns and ".." segments; path must be a directory', async () => {
    await expect(run(sb, 'Glob', { pattern: '/etc/*' })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    await expect(run(sb, 'Glob', { pattern: 'src/../../*' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(run(sb, 'Glob', { pattern: '*', path: 'top.ts' })).rejects.toMatchObject({ code: 'INVALID_ARGS', suggestion: /Read/ });
    await expect(run(sb, 'Glob', { pattern: '*', path: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('stops with TIMEOUT when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(run(sb, 'Glob', { pattern: '**' }, sb.ctx(controller.signal))).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});
