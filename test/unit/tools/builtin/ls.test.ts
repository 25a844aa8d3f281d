import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LS_ENTRIES } from '../../../../src/tools/builtin/ls.js';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

describe('LS', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(() => sb.cleanup());

  it('lists entries sorted by name, directories with "/", symlinks with "@", hidden ones included', async () => {
    await sb.put({ 'b.txt': '', 'a/x.txt': '', '.env': '', 'Z.md': '' });
    await sb.link('b.txt', 'link');
    const out = await run(sb, 'LS', {});
    expect(out.text).toBe('.env\nZ.md\na/\nb.txt\nlink@');
    expect(out.partial).toBeFalsy();
    expect((await run(sb, 'LS', { path: 'a' })).text).toBe('x.txt');
  });

  it('says so for an empty directory', async () => {
    expect((await run(sb, 'LS', { path: '.' })).text).toBe('(empty directory)');
  });

  it('refuses a file (suggesting Read) and a missing path', async () => {
    await sb.put({ 'f.txt': '' });
    await expect(run(sb, 'LS', { path: 'f.txt' })).rejects.toMatchObject({ code: 'INVALID_ARGS', suggestion: /Read/ });
    await expect(run(sb, 'LS', { path: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.each([
    [3, '(3 more entries not shown'],
    [1, '(1 more entry not shown'],
  ])(`shows at most ${MAX_LS_ENTRIES} entries, with partial and a count of the rest (%i more)`, async (more, note) => {
    const dir = path.join(sb.root, 'many');
    await mkdir(dir);
    await Promise.all(
      Array.from({ length: MAX_LS_ENTRIES + more }, (_, i) => writeFile(path.join(dir, `f${String(i).padStart(5, '0')}`), '')),
    );
    const out = await run(sb, 'LS', { path: 'many' });
    expect(out.partial).toBe(true);
    expect(out.text).toContain(note);
    expect(out.text.split('\n')[0]).toBe('f00000');
  });
});
