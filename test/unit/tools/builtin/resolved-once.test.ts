import { mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, SENTINEL, type Sandbox } from '../fixtures.js';

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
    const spellings = await sb.tools.Read!.canonicalArgs!(args, sb.ws);
    expect(spellings.map((s) => s.path)).toEqual(['public/notes.txt', 'docs/notes.txt']);
    await swapLink();
    const output = await sb.tools.Read!.run(args, sb.ctx());
    expect(output.text).toContain('public notes');
  });

  it('the resolution serves its own call once: the next call resolves afresh', async () => {
    const args = { path: 'docs/notes.txt' };
    await sb.tools.Read!.canonicalArgs!(args, sb.ws);
    await sb.tools.Read!.run(args, sb.ctx());
    await swapLink();
    expect((await sb.tools.Read!.run(args, sb.ctx())).text).toContain('private notes');
  });

  it('Write of a new file never lands where a swapped link points: CONFLICT, written nowhere', async () => {
    const args = { path: 'docs/new.txt', content: 'written\n' };
    await sb.tools.Write!.canonicalArgs!(args, sb.ws);
    await swapLink();
    await expect(sb.tools.Write!.run(args, sb.ctx())).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(sb.read('private/new.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(sb.read('public/new.txt')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('Glob, Grep and LS search the directory the gate resolved, not what a swapped link points to later', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['Glob', { path: 'docs', pattern: '*.txt' }],
      ['Grep', { path: 'docs', pattern: 'notes' }],
      ['LS', { path: 'docs' }],
    ];
    for (const [name, args] of calls) await sb.tools[name]!.canonicalArgs!(args, sb.ws);
    await swapLink();
    const texts = await Promise.all(calls.map(([name, args]) => sb.tools[name]!.run(args, sb.ctx()).then((o) => o.text)));
    expect(texts[1]).toContain('public notes');
    expect(texts.join('\n')).not.toContain('private');
  });

  it('another arguments object with the same path does not use it', async () => {
    await sb.tools.Read!.canonicalArgs!({ path: 'docs/notes.txt' }, sb.ws);
    await swapLink();
    expect((await sb.tools.Read!.run({ path: 'docs/notes.txt' }, sb.ctx())).text).toContain('private notes');
  });
});

/**
 * A path that existed at the decision is not resolved again, but a parent of it replaced by a link since (an
 * earlier call of the batch) leads its open elsewhere: the file opened, or the directory walked, must be the one
 * the gate resolved.
 */
describe('a parent directory replaced by a link after the decision', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'docs/notes.txt': 'docs notes\n', 'private/notes.txt': 'private notes\n', 'private/only.txt': 'only private\n' });
  });
  afterEach(() => sb.cleanup());

  const replaceDocs = async (target: string) => {
    await rm(path.join(sb.root, 'docs'), { recursive: true });
    await sb.link(target, 'docs');
  };

  const CALLS: Array<[string, Record<string, unknown>]> = [
    ['Read', { path: 'docs/notes.txt' }],
    ['Edit', { path: 'docs/notes.txt', old_string: 'notes', new_string: 'edited' }],
    ['Write', { path: 'docs/notes.txt', content: 'overwritten\n' }],
    ['LS', { path: 'docs' }],
    ['Glob', { path: 'docs', pattern: '*' }],
    ['Grep', { path: 'docs', pattern: 'notes' }],
    ['Grep', { path: 'docs/notes.txt', pattern: 'notes' }],
  ];

  it('to another directory inside the workspace: CONFLICT naming both paths, for every file tool; nothing read or written', async () => {
    const calls = CALLS.map(([name, args]): [string, Record<string, unknown>] => [name, { ...args }]);
    for (const [name, args] of calls) await sb.tools[name]!.canonicalArgs!(args, sb.ws);
    await replaceDocs('private');
    for (const [name, args] of calls) {
      await expect(sb.tools[name]!.run(args, sb.ctx()), name).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringMatching(/judged .* as "docs.*resolved to "private/),
      });
    }
    expect(await sb.read('private/notes.txt')).toBe('private notes\n');
  });

  it('to outside the workspace: PERMISSION_DENIED for every file tool; nothing read or written outside', async () => {
    const before = await sb.outsideState();
    const calls = CALLS.map(([name, args]): [string, Record<string, unknown>] => [
      name,
      { ...args, path: String(args.path).replace('notes.txt', 'secret.txt') },
    ]);
    await sb.put({ 'docs/secret.txt': 'docs secret name\n' });
    for (const [name, args] of calls) await sb.tools[name]!.canonicalArgs!(args, sb.ws);
    await replaceDocs(sb.outside);
    for (const [name, args] of calls)
      await expect(sb.tools[name]!.run(args, sb.ctx()), name).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await sb.outsideState()).toBe(before);
  });

  it('the last component replaced by a link inside the workspace: CONFLICT, not a file of the link', async () => {
    const args = { path: 'docs/notes.txt' };
    await sb.tools.Read!.canonicalArgs!(args, sb.ws);
    await rm(path.join(sb.root, 'docs/notes.txt'));
    await sb.link('../private/notes.txt', 'docs/notes.txt');
    await expect(sb.tools.Read!.run(args, sb.ctx())).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('"private/notes.txt"'),
    });
  });

  it('replaced and put back before the call runs: the call runs as judged', async () => {
    const args = { path: 'docs/notes.txt' };
    await sb.tools.Read!.canonicalArgs!(args, sb.ws);
    await rm(path.join(sb.root, 'docs'), { recursive: true });
    await sb.put({ 'docs/notes.txt': 'docs notes again\n' });
    expect((await sb.tools.Read!.run(args, sb.ctx())).text).toBe('     1\tdocs notes again');
  });
});

/**
 * A path that did not exist when the gate resolved it (an earlier call of the batch creates it) is resolved
 * again when its call runs, and used only if it is still the path the gate judged.
 */
describe('a path absent at the decision', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'private/notes.txt': 'private notes\n' });
  });
  afterEach(() => sb.cleanup());

  const decide = async (name: string, args: Record<string, unknown>) => {
    expect((await sb.tools[name]!.canonicalArgs!(args, sb.ws))[0]!.path).toBe(args.path);
    return args;
  };

  it('created since as the path judged: every file tool uses it', async () => {
    const read = await decide('Read', { path: 'new/notes.txt' });
    const edit = await decide('Edit', { path: 'new/notes.txt', old_string: 'made', new_string: 'edited' });
    const write = await decide('Write', { path: 'new/deeper/more.txt', content: 'more\n' });
    const calls = [
      await decide('LS', { path: 'new' }),
      await decide('Glob', { path: 'new', pattern: '*' }),
      await decide('Grep', { path: 'new', pattern: 'made' }),
    ];
    await sb.put({ 'new/notes.txt': 'made\n' });
    await mkdir(`${sb.root}/new/deeper`);
    const texts = [];
    for (const [name, args] of [
      ['LS', calls[0]!],
      ['Glob', calls[1]!],
      ['Grep', calls[2]!],
    ] as const)
      texts.push((await sb.tools[name]!.run(args, sb.ctx())).text);
    expect(texts).toEqual([
      expect.stringContaining('notes.txt'),
      expect.stringContaining('notes.txt'),
      expect.stringContaining('notes.txt:1:made'),
    ]);
    await sb.tools.Edit!.run(edit, sb.ctx());
    expect((await sb.tools.Read!.run(read, sb.ctx())).text).toBe('     1\tedited');
    await sb.tools.Write!.run(write, sb.ctx());
    expect(await sb.read('new/deeper/more.txt')).toBe('more\n');
  });

  it('still absent: NOT_FOUND, as without a decision', async () => {
    await expect(sb.tools.Read!.run(await decide('Read', { path: 'new/notes.txt' }), sb.ctx())).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('made since as a link to another path inside the workspace: CONFLICT, naming both paths, for every file tool', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['Read', { path: 'docs/notes.txt' }],
      ['Edit', { path: 'docs/notes.txt', old_string: 'private', new_string: 'public' }],
      ['Write', { path: 'docs/notes.txt', content: 'overwritten\n' }],
      ['Write', { path: 'docs/new.txt', content: 'new\n' }],
      ['LS', { path: 'docs' }],
      ['Glob', { path: 'docs', pattern: '*' }],
      ['Grep', { path: 'docs', pattern: 'private' }],
    ];
    for (const [name, args] of calls) await decide(name, args);
    await sb.link('private', 'docs');
    for (const [name, args] of calls) {
      const refused = sb.tools[name]!.run(args, sb.ctx());
      await expect(refused, name).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringMatching(/judged .* as "docs.*resolved to "private/),
      });
    }
    expect(await sb.read('private/notes.txt')).toBe('private notes\n');
    await expect(sb.read('private/new.txt')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('made since as a link to outside the workspace: PERMISSION_DENIED, nothing read or written outside', async () => {
    const before = await sb.outsideState();
    const read = await decide('Read', { path: 'out/secret.txt' });
    const write = await decide('Write', { path: 'out/new.txt', content: 'escaped\n' });
    await sb.link(sb.outside, 'out');
    await expect(sb.tools.Read!.run(read, sb.ctx())).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(sb.tools.Write!.run(write, sb.ctx())).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await sb.outsideState()).toBe(before);
    expect(before).toContain(JSON.stringify(SENTINEL).slice(1, -1));
  });
});
