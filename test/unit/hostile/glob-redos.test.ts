import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGlob } from '../../../src/tools/builtin/glob-match.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: a glob a model writes must not stall the process.
 * picomatch compiles `*a*a*a*a*a*a*b` to a backtracking RegExp that needs
 * about 8 s (one more star: a minute) against one 68-character file name,
 * with the event loop blocked: no tool timeout fires and every other
 * request of every tenant waits.
 */
const LONG_NAME = `${'a'.repeat(64)}.txt`;
const EVIL = `${'*a'.repeat(6)}*b`;

/** Runs `work` and reports the longest stretch the event loop could not run a 10 ms ticker. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    const result = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { result, stallMs };
  } finally {
    clearInterval(ticker);
  }
}

describe('hostile globs run in linear time', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, LONG_NAME), 'needle\n');
    await writeFile(join(t.workspace, 'short.txt'), 'needle\n');
  });
  afterAll(async () => t.close());

  it('Glob with a backtracking pattern answers at once and never blocks the event loop', async () => {
    const { result, stallMs } = await longestStall(() => execute(t.app, [{ id: 'g1', name: 'Glob', arguments: { pattern: EVIL } }]));
    expect(result.status).toBe(200);
    expect(result.body.results[0]).toMatchObject({ status: 'success', text: 'No files matched.' });
    expect(stallMs).toBeLessThan(1_500);
  });

  it("Grep's glob filter likewise", async () => {
    const { result, stallMs } = await longestStall(() =>
      // Another source than EVIL: V8 caches a RegExp by its source, and a cached one runs faster.
      execute(t.app, [{ id: 'g2', name: 'Grep', arguments: { pattern: 'needle', glob: `${'*a'.repeat(6)}*c` } }]),
    );
    expect(result.body.results[0]).toMatchObject({ status: 'success', text: 'No matches.' });
    expect(stallMs).toBeLessThan(1_500);
  });

  it('worse patterns (a minute each with a backtracking engine) are still instant', async () => {
    const started = performance.now();
    const res = await execute(t.app, [
      { id: 'w1', name: 'Glob', arguments: { pattern: `${'*a'.repeat(7)}*d` } },
      { id: 'w2', name: 'Glob', arguments: { pattern: `**/${'*(a|aa)'.repeat(4)}b` } },
      { id: 'w3', name: 'Grep', arguments: { pattern: 'needle', glob: `${'*a'.repeat(7)}*e` } },
    ]);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'success']);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('a glob RE2 cannot run (negated extglob) is a clear INVALID_ARGS, not a crash', async () => {
    const res = await execute(t.app, [{ id: 'n1', name: 'Glob', arguments: { pattern: '*.!(txt)' } }]);
    expect(res.body.results[0].error).toMatchObject({ code: 'INVALID_ARGS', retryable: false });
  });

  it('matches what picomatch matches on the paths a walk yields', () => {
    const globs = [
      '**/*.ts',
      '*.ts',
      '{lib/*,*.md}',
      'many/*.txt',
      '**',
      'src/**/*.{js,jsx}',
      '**/**/**/**',
      '[abc]*.ts',
      '?.ts',
      'a/**/b',
      '**/.git/**',
      '!*.ts',
      '!!*.ts',
      '@(a|b).ts',
      '+(a).ts',
      '{1..3}.txt',
      '\\*.ts',
      'a/*/b/**/c*',
      '.env',
      '**/.*',
      '*',
      'x/**',
      '**/x',
      '*.[jt]s',
      '[!a]*',
      'src/**',
      '**/*test*',
      '{a,b}/{c,d}',
    ];
    const paths = [
      'a.ts',
      'src/a.ts',
      'src/lib/c.ts',
      'src/readme.md',
      'many/1.txt',
      'a/b',
      'a/x/b',
      'a/x/y/b',
      '.env',
      '.git/x',
      'b.ts',
      '1.txt',
      'abc',
      '*.ts',
      'x/y',
      'y/x',
      'a/q/b/z/c1',
      'ab.ts',
      'c.ts',
      'a.js',
      'src/x.jsx',
      'deep/.hidden/f.test.ts',
      'a/c',
      'b/d',
      'x',
    ];
    for (const glob of globs) {
      const ours = compileGlob(glob);
      const theirs = picomatch(glob, { dot: true });
      for (const path of paths) expect([glob, path, ours(path)]).toEqual([glob, path, theirs(path)]);
    }
  });
});
