import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: `Write "dir/"` created a file named `dir`, and
 * `Read "a.txt/"` read `a.txt`, because the trailing slash was dropped on
 * the way to the filesystem; a newline or other control character in a path
 * made a file whose name forges lines in listings and logs.
 */
describe('a file path cannot end with a slash (Read, Write, Edit)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'a.txt'), 'one\n');
  });
  afterAll(async () => t.close());

  const one = async (name: string, args: Record<string, unknown>) => (await execute(t.app, [{ name, arguments: args }])).body.results[0];

  it.each(['dir/', 'dir/.', 'new/dir/', './dir/'])('Write %j is INVALID_ARGS and creates nothing', async (path) => {
    const r = await one('Write', { path, content: 'x\n' });
    expect(r.error?.code).toBe('INVALID_ARGS');
    expect(r.error?.message).toContain('cannot end with "/"');
    expect(existsSync(join(t.workspace, 'dir'))).toBe(false);
    expect(existsSync(join(t.workspace, 'new'))).toBe(false);
  });

  it.each(['a.txt/', 'a.txt/.'])('Edit %j is INVALID_ARGS and changes nothing', async (path) => {
    const r = await one('Edit', { path, old_string: 'one', new_string: 'two' });
    expect(r.error?.code).toBe('INVALID_ARGS');
    expect(await readFile(join(t.workspace, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it.each(['a.txt/', 'a.txt/.'])('Read %j of an existing file is INVALID_ARGS, not the file', async (path) => {
    const r = await one('Read', { path });
    expect(r.error?.code).toBe('INVALID_ARGS');
    expect(r.text).toBe('');
  });

  it('the same paths without the slash still work', async () => {
    expect((await one('Read', { path: 'a.txt' })).status).toBe('success');
    expect((await one('Write', { path: 'dir', content: 'x\n' })).status).toBe('success');
  });
});

describe('a path with a control character is INVALID_ARGS for every built-in path argument', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await mkdir(join(t.workspace, 'src'));
    await writeFile(join(t.workspace, 'src', 'a.txt'), 'one\n');
  });
  afterAll(async () => t.close());

  const CALLS: Array<[string, (path: string) => Record<string, unknown>]> = [
    ['Read', (path) => ({ path })],
    ['Write', (path) => ({ path, content: 'x\n' })],
    ['Edit', (path) => ({ path, old_string: 'one', new_string: 'two' })],
    ['LS', (path) => ({ path })],
    ['Glob', (path) => ({ pattern: '**', path })],
    ['Grep', (path) => ({ pattern: 'one', path })],
  ];
  const PATHS = [
    'src/a\n.txt',
    'src\r/a.txt',
    'src/a.txt\n',
    'src/\u0000a.txt',
    'src/a\t.txt',
    'src/\u001b[31ma.txt',
    'src/a\u007f.txt',
    'src\n',
  ];

  it.each(CALLS.flatMap(([tool, args]) => PATHS.map((path) => [tool, path, args] as const)))('%s %j', async (tool, path, args) => {
    const r = (await execute(t.app, [{ name: tool, arguments: args(path) }])).body.results[0];
    expect(r.error?.code).toBe('INVALID_ARGS');
    expect(r.error?.message).toContain('control character');
    expect((await readdir(join(t.workspace, 'src'))).sort()).toEqual(['a.txt']);
    expect(await readdir(t.workspace)).toEqual(['src']);
  });
});
