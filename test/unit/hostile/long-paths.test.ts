import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: Write near PATH_MAX (4096 bytes, the schema allows a
 * 4096-character path below the workspace root).
 * - Over the limit, `mkdir` failed with ENAMETOOLONG, answered as
 *   EXECUTION_FAILED "Write failed unexpectedly" — a tool malfunction, which
 *   the breaker counts: three such calls opened Write's shared breaker for
 *   every tenant.
 * - Just under it, the directories were created and then the temp file's
 *   longer name failed: 2,000 directories left behind by a failed call.
 * - A file name of 237 to 255 bytes, valid on its own, could not be
 *   written at all: the temp file's name repeats it and went past NAME_MAX.
 */
describe('Write near the path limits', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => t.close());

  /** A relative path of nested one-letter directories whose absolute form is `total` bytes. */
  const nested = (total: number) => {
    const room = total - t.workspace.length - 1 - 'deep/'.length - 1;
    return `deep/${'d/'.repeat(Math.floor(room / 2))}${room % 2 ? 'f' : ''}f`.slice(0, total - t.workspace.length - 1);
  };

  const writeCall = (path: string, id: string) => ({ id, name: 'Write', arguments: { path, content: 'x' } });

  for (const total of [4_100, 4_090]) {
    it(`a path of ${total} bytes is INVALID_ARGS, leaves nothing behind and does not count against the breaker`, async () => {
      const path = nested(total);
      expect(join(t.workspace, path).length).toBe(total);
      const res = await execute(
        t.app,
        [1, 2, 3].map((i) => writeCall(path, `w${i}`)),
      );
      for (const r of res.body.results) expect(r.error).toMatchObject({ code: 'INVALID_ARGS', retryable: false });
      expect(await readdir(t.workspace)).toEqual([]);
      const circuits = await t.app.inject({ method: 'GET', url: '/circuits' });
      expect(circuits.json().circuits.find((c: { tool: string }) => c.tool === 'Write')).toMatchObject({ state: 'closed', failures: 0 });
      expect(t.logs.filter((l) => l.msg === 'tool threw an unexpected error')).toEqual([]);
    });
  }

  it('file names up to NAME_MAX can be written and edited', async () => {
    const names = ['c'.repeat(255), 'é'.repeat(127), 'n'.repeat(237)];
    const res = await execute(
      t.app,
      names.map((name, i) => writeCall(name, `n${i}`)),
    );
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'success']);
    const edit = await execute(t.app, [{ id: 'e', name: 'Edit', arguments: { path: names[0], old_string: 'x', new_string: 'y' } }]);
    expect(edit.body.results[0].status).toBe('success');
    expect(await readFile(join(t.workspace, names[0]!), 'utf8')).toBe('y');
    expect((await readdir(t.workspace)).sort()).toEqual([...names].sort());
  });
});
