import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: a parent directory swapped for a link to outside the
 * workspace, over and over, while Writes below it run. The writes used to
 * check the directory and then create their temp file by path: 23 empty temp
 * files were left outside, and the errors counted against Write's breaker,
 * which opened for everyone. Rule: whatever is swapped meanwhile, nothing
 * appears outside the workspace, no temp file is left behind, and every
 * failure is the caller's (the breaker never counts it).
 */

/** A separate process swaps `d` between a real directory and a link to `outside` as fast as it can, until killed (bounded). */
const SWAPPER = `
const { renameSync } = require('node:fs');
const [ws] = process.argv.slice(1);
const deadline = Date.now() + 30_000;
const swap = (from, to) => { try { renameSync(ws + '/' + from, ws + '/' + to); } catch {} };
while (Date.now() < deadline) { swap('d', 'd-dir'); swap('d-link', 'd'); swap('d', 'd-link'); swap('d-dir', 'd'); }
`;

const ROUNDS = 40;
const AT_ONCE = 8;
const CALLERS_MISTAKES = ['PERMISSION_DENIED', 'CONFLICT', 'INVALID_ARGS', 'NOT_FOUND'];

describe('a parent directory swapped for a link while Writes run below it', () => {
  let t: TestApp;
  let outside: string;
  beforeAll(async () => {
    t = await buildTestApp();
    outside = await mkdtemp(join(tmpdir(), 'toolgate-outside-'));
    await mkdir(join(t.workspace, 'd'));
    await symlink(outside, join(t.workspace, 'd-link'));
  });
  afterAll(async () => {
    await t.close();
    await rm(outside, { recursive: true, force: true });
  });

  it('leaves nothing outside the workspace and no temp file anywhere, and never opens the breaker', async () => {
    const swapper = spawn(process.execPath, ['-e', SWAPPER, t.workspace], { stdio: 'ignore' });
    const tally: Record<string, number> = {};
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const calls = Array.from({ length: AT_ONCE }, (_, i) => {
          const n = round * AT_ONCE + i;
          // Half in `d` itself, half in a directory the Write makes below it.
          const path = n % 2 ? `d/new-${n}/f.txt` : `d/f-${n}.txt`;
          return execute(t.app, [{ id: `w${n}`, name: 'Write', arguments: { path, content: `write ${n}\n` } }], {
            'x-session-id': `s${n}`,
          });
        });
        for (const { body } of await Promise.all(calls)) {
          const result = body.results[0];
          const outcome = result.status === 'success' ? 'success' : result.error.code;
          tally[outcome] = (tally[outcome] ?? 0) + 1;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(Object.keys(tally).filter((code) => code !== 'success' && !CALLERS_MISTAKES.includes(code))).toEqual([]);
    // The race was met: some writes landed, some were refused as the swap caught them.
    expect(tally.success).toBeGreaterThan(0);
    expect(ROUNDS * AT_ONCE - tally.success!).toBeGreaterThan(0);
    expect(await readdir(outside, { recursive: true })).toEqual([]);
    const inside = (await readdir(t.workspace, { recursive: true })).map(String);
    expect(inside.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const { body } = await execute(t.app, [{ id: 'after', name: 'Write', arguments: { path: 'after.txt', content: 'still open\n' } }]);
    expect(body.results[0].status).toBe('success');
    console.warn(`write swap: ${JSON.stringify(tally)}`);
  });
});
