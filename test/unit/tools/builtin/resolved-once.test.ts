import { rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCtx, makeSandbox, type Sandbox } from '../fixtures.js';

/**
 * A path is resolved once per call: the permission gate's resolution
 * (canonicalArgs) is the one the tool opens, so a link swapped between the
 * policy decision and the run cannot turn an allowed path into another file.
 */
describe('one resolution per call', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'public/notes.txt': 'public notes\n', 'private/notes.txt': 'private notes\n' });
    await sb.link('public', 'docs');
  });
  afterEach(() => sb.cleanup());

  const swapLink = async () => {
    await rm(path.join(sb.root, 'docs'));
    await symlink('private', path.join(sb.root, 'docs'));
  };

  it('Read opens the file the gate resolved, not what a swapped link points to later', async () => {
    const args = { path: 'docs/notes.txt' };
    const spellings = await sb.tools.Read!.canonicalArgs!(args);
    expect(spellings.map((s) => s.path)).toEqual(['public/notes.txt', 'docs/notes.txt']);
    await swapLink();
    const output = await sb.tools.Read!.run(args, makeCtx());
    expect(output.text).toContain('public notes');
  });

  it('the resolution serves its own call once: the next call resolves afresh', async () => {
    const args = { path: 'docs/notes.txt' };
    await sb.tools.Read!.canonicalArgs!(args);
    await sb.tools.Read!.run(args, makeCtx());
    await swapLink();
    expect((await sb.tools.Read!.run(args, makeCtx())).text).toContain('private notes');
  });

  it('Write creates the file under the directory the gate resolved', async () => {
    const args = { path: 'docs/new.txt', content: 'written\n' };
    await sb.tools.Write!.canonicalArgs!(args);
    await swapLink();
    await sb.tools.Write!.run(args, makeCtx());
    expect(await sb.read('public/new.txt')).toBe('written\n');
    await expect(sb.read('private/new.txt')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('another arguments object with the same path does not use it', async () => {
    await sb.tools.Read!.canonicalArgs!({ path: 'docs/notes.txt' });
    await swapLink();
    expect((await sb.tools.Read!.run({ path: 'docs/notes.txt' }, makeCtx())).text).toContain('private notes');
  });
});
