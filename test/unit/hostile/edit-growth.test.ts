import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EDIT_BYTES } from '../../../src/tools/builtin/edit.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: Edit bounded the file it reads (10 MiB) but not the
 * file it writes. `replace_all` of one character by a long `new_string`
 * multiplies the size: on a 10 MB file of "a\n" lines with a 100-character
 * new_string the gateway built a 505 MB string (RSS 1.1 GB) and wrote it to
 * the workspace; with a 50,000-character new_string V8 gave up only past
 * its string limit. The result size is now checked before anything is built.
 */
describe('Edit cannot grow a file past its limit', () => {
  let t: TestApp;
  const original = 'a\n'.repeat(200_000);
  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'many.txt'), original);
  });
  afterAll(async () => t.close());

  it('replace_all that would make the file larger than the limit is refused, the file untouched', async () => {
    const res = await execute(t.app, [
      { id: 'g1', name: 'Edit', arguments: { path: 'many.txt', old_string: 'a', new_string: 'b'.repeat(100), replace_all: true } },
    ]);
    const result = res.body.results[0];
    expect(result.status).toBe('error');
    expect(result.error).toMatchObject({ code: 'INVALID_ARGS', retryable: false });
    expect(result.error.details).toMatchObject({ occurrences: 200_000, result_bytes: 20_200_000, limit: MAX_EDIT_BYTES });
    expect(await readFile(join(t.workspace, 'many.txt'), 'utf8')).toBe(original);
    expect((await readdir(t.workspace)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a replacement that stays within the limit (exactly at it, too) still works', async () => {
    await writeFile(join(t.workspace, 'fits.txt'), original);
    const res = await execute(t.app, [
      { id: 'g2', name: 'Edit', arguments: { path: 'fits.txt', old_string: 'a', new_string: 'bcd', replace_all: true } },
    ]);
    expect(res.body.results[0].status).toBe('success');
    expect((await stat(join(t.workspace, 'fits.txt'))).size).toBe(800_000);
    await writeFile(join(t.workspace, 'edge.txt'), `x${'y'.repeat(MAX_EDIT_BYTES - 11)}`);
    const edge = await execute(t.app, [
      { id: 'g3', name: 'Edit', arguments: { path: 'edge.txt', old_string: 'x', new_string: 'z'.repeat(11) } },
    ]);
    expect(edge.body.results[0].status).toBe('success');
    expect((await stat(join(t.workspace, 'edge.txt'))).size).toBe(MAX_EDIT_BYTES);
    const over = await execute(t.app, [
      { id: 'g4', name: 'Edit', arguments: { path: 'edge.txt', old_string: 'z'.repeat(11), new_string: 'z'.repeat(12) } },
    ]);
    expect(over.body.results[0].error).toMatchObject({ code: 'INVALID_ARGS', details: { result_bytes: MAX_EDIT_BYTES + 1 } });
  });
});
