import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: 20 requests that Edit one file at once (different
 * sessions, different call ids). Each Edit read the file, checked its stamp
 * just before the rename and renamed, with awaits in between, so most of them
 * checked before any had renamed: 17 answered success while one change
 * survived. Nothing may be lost: every Edit reported as a success must be in
 * the file, every other one must say why (CONFLICT, or old_string not found).
 */
const N = 20;

describe('concurrent writers of one file lose nothing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  const edit = (i: number, file: string, from: string, to: string) =>
    t.app.inject({
      method: 'POST',
      url: '/execute',
      headers: { 'x-session-id': `s${i}` },
      payload: [{ id: `e${i}`, name: 'Edit', arguments: { path: file, old_string: from, new_string: to } }],
    });

  it('parallel Edits of distinct lines: each reported success is in the file', async () => {
    await writeFile(
      join(t.workspace, 'lines.txt'),
      Array.from({ length: N }, (_, i) => `T${String(i).padStart(2, '0')}`).join('\n') + '\n',
    );
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) => edit(i, 'lines.txt', `T${String(i).padStart(2, '0')}\n`, `DONE-${String(i).padStart(2, '0')}\n`)),
    );
    const results = responses.map((r) => r.json().results[0]);
    const content = await readFile(join(t.workspace, 'lines.txt'), 'utf8');
    for (const [i, r] of results.entries()) {
      const applied = content.includes(`DONE-${String(i).padStart(2, '0')}\n`);
      if (r.status === 'success') expect([i, applied]).toEqual([i, true]);
      else expect(r.error.code).toMatch(/^(CONFLICT|INVALID_ARGS)$/);
    }
    expect(results.filter((r) => r.status === 'success').length).toBe((content.match(/DONE-/g) ?? []).length);
  });

  it('parallel same-size Edits (the stamp cannot tell them apart) lose nothing either', async () => {
    await writeFile(join(t.workspace, 'same.txt'), Array.from({ length: N }, (_, i) => `a${String(i).padStart(2, '0')}`).join('\n') + '\n');
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        edit(i + 100, 'same.txt', `a${String(i).padStart(2, '0')}\n`, `b${String(i).padStart(2, '0')}\n`),
      ),
    );
    const results = responses.map((r) => r.json().results[0]);
    const content = await readFile(join(t.workspace, 'same.txt'), 'utf8');
    expect(results.filter((r) => r.status === 'success').length).toBe((content.match(/^b/gm) ?? []).length);
  });

  it('parallel Writes that all expect the same stamp: exactly one wins, the others get CONFLICT', async () => {
    await writeFile(join(t.workspace, 'guarded.txt'), 'v0\n');
    const before = await stat(join(t.workspace, 'guarded.txt'));
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/execute',
          headers: { 'x-session-id': `w${i}` },
          payload: [
            {
              id: `w${i}`,
              name: 'Write',
              arguments: {
                path: 'guarded.txt',
                content: `writer ${i}\n`,
                expected_mtime_ms: before.mtimeMs,
                expected_size_bytes: before.size,
              },
            },
          ],
        }),
      ),
    );
    const results = responses.map((r) => r.json().results[0]);
    const winners = results.flatMap((r, i) => (r.status === 'success' ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 'error').every((r) => r.error.code === 'CONFLICT')).toBe(true);
    expect(await readFile(join(t.workspace, 'guarded.txt'), 'utf8')).toBe(`writer ${winners[0]}\n`);
  });
});
