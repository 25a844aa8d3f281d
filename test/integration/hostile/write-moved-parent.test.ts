import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: a folder renamed back and forth (no links involved)
 * while Writes below it run. A Write that resolved the folder just before it
 * moved met ENOENT in its resolution and answered EXECUTION_FAILED, which the
 * breaker counts: three of them opened Write for the whole fleet. A caller
 * with Bash can move its own folders, so the rule is: every race in resolving
 * or writing a path is the caller's (NOT_FOUND, CONFLICT, PERMISSION_DENIED,
 * INVALID_ARGS), and the breakers stay closed. The file-system tools that
 * only read resolve the same way and are held to the same rule.
 */

/** A separate process renames `gone` to `gone2` and back as fast as it can, until killed (bounded). */
const MOVER = `
const { renameSync } = require('node:fs');
const [ws] = process.argv.slice(1);
const deadline = Date.now() + 30_000;
const move = (from, to) => { try { renameSync(ws + '/' + from, ws + '/' + to); } catch {} };
while (Date.now() < deadline) { move('gone', 'gone2'); move('gone2', 'gone'); }
`;

const ROUNDS = 60;
const AT_ONCE = 8;
const CALLERS_MISTAKES = ['PERMISSION_DENIED', 'CONFLICT', 'INVALID_ARGS', 'NOT_FOUND'];

/** The n-th call of the sweep: mostly Writes (half in a folder they make), and a reader of each kind now and then. */
function callOf(n: number): { id: string; name: string; arguments: Record<string, unknown> } {
  const id = `c${n}`;
  switch (n % 8) {
    case 1:
      return { id, name: 'Read', arguments: { path: 'gone/keep.txt' } };
    case 3:
      return { id, name: 'LS', arguments: { path: 'gone/sub' } };
    case 5:
      return { id, name: 'Glob', arguments: { pattern: '*.txt', path: 'gone/sub' } };
    case 7:
      return { id, name: 'Grep', arguments: { pattern: 'x', path: 'gone/sub' } };
    default:
      return { id, name: 'Write', arguments: { path: n % 4 ? `gone/new-${n}/x.txt` : `gone/f-${n}.txt`, content: `write ${n}\n` } };
  }
}

describe('a folder renamed back and forth while Writes run below it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await mkdir(join(t.workspace, 'gone', 'sub'), { recursive: true });
    await writeFile(join(t.workspace, 'gone', 'keep.txt'), 'kept\n');
    await writeFile(join(t.workspace, 'gone', 'sub', 'a.txt'), 'x\n');
  });
  afterAll(() => t.close());

  it("answers every race as the caller's and keeps every breaker closed", async () => {
    const mover = spawn(process.execPath, ['-e', MOVER, t.workspace], { stdio: 'ignore' });
    const tally: Record<string, number> = {};
    const failures: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const calls = Array.from({ length: AT_ONCE }, (_, i) => {
          const call = callOf(round * AT_ONCE + i);
          return execute(t.app, [call], { 'x-session-id': `s${call.id}` }).then(({ body }) => ({ call, result: body.results[0] }));
        });
        for (const { call, result } of await Promise.all(calls)) {
          const outcome = result.status === 'success' ? 'success' : result.error.code;
          const key = `${call.name} ${outcome}`;
          tally[key] = (tally[key] ?? 0) + 1;
          if (outcome !== 'success' && !CALLERS_MISTAKES.includes(outcome)) failures.push(`${key}: ${result.error.message}`);
        }
      }
    } finally {
      mover.kill('SIGKILL');
    }
    expect(failures).toEqual([]);
    expect(tally['Write success']).toBeGreaterThan(0);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    const states = metrics.body.split('\n').filter((line) => line.startsWith('toolgate_breaker_state{'));
    expect(states.some((line) => line.includes('tool="Write"'))).toBe(true);
    expect(states.filter((line) => !line.endsWith(' 0'))).toEqual([]);
    const inside = (await readdir(t.workspace, { recursive: true })).map(String);
    expect(inside.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const { body } = await execute(t.app, [{ id: 'after', name: 'Write', arguments: { path: 'after.txt', content: 'still open\n' } }]);
    expect(body.results[0].status).toBe('success');
    console.warn(`moved parent: ${JSON.stringify(tally)}`);
  }, 60_000);
});
