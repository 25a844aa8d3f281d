import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: the Read→Edit lock is keyed by
 * the path. `./a.txt` and `a.txt` met, but the absolute spelling of the same
 * file (which the tools accept: models echo absolute paths) did not: after a
 * Read of `a.txt` and a change by someone else, an Edit of `/root/a.txt`
 * ran without the injected stamp and overwrote the change it never saw.
 */
describe('the Read lock holds whichever way the path is spelled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  const session = { 'x-session-id': 'agent-1' };

  it.each([
    ['absolute', 'abs.txt', (ws: string) => join(ws, 'abs.txt')],
    ['absolute with ./ and //', 'dots.txt', (ws: string) => `${ws}/.//dots.txt`],
    ['relative with ..', 'up.txt', () => 'sub/../up.txt'],
  ])('%s: an Edit after a change made since the Read is a CONFLICT', async (_label, name, spell) => {
    const file = join(t.workspace, name);
    await writeFile(file, 'version 1\n');
    const read = await execute(t.app, [{ name: 'Read', arguments: { path: name } }], session);
    expect(read.body.results[0].status).toBe('success');
    // Someone else changes the file (same size, later mtime).
    await writeFile(file, 'version 2\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);

    const edit = await execute(
      t.app,
      [{ name: 'Edit', arguments: { path: spell(t.workspace), old_string: 'version 2', new_string: 'version 3' } }],
      session,
    );
    expect(edit.body.results[0].error?.code).toBe('CONFLICT');
    expect(await readFile(file, 'utf8')).toBe('version 2\n');
  });
});
