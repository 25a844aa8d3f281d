import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_GREP_FILE_BYTES, MAX_SEARCHED_LINE_CHARS } from '../../../../src/tools/builtin/grep.js';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

describe('Grep', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({
      'src/a.ts': 'import x from "y";\n// TODO: one\nconst todo = 1;\n',
      'src/b.js': '// TODO: two\r\n',
      'docs/readme.md': 'nothing here\n',
      'node_modules/dep/index.js': '// TODO: skipped\n',
    });
  });
  afterEach(() => sb.cleanup());

  it('returns path:line:text for every match, paths relative to the root', async () => {
    const out = await run(sb, 'Grep', { pattern: 'TODO' });
    expect(out.text).toBe('src/a.ts:2:// TODO: one\nsrc/b.js:1:// TODO: two');
    expect(out.partial).toBeFalsy();
  });

  it('ignore_case, glob on file names or paths, and a file as path', async () => {
    expect((await run(sb, 'Grep', { pattern: 'todo', ignore_case: true, glob: '*.ts' })).text).toBe(
      'src/a.ts:2:// TODO: one\nsrc/a.ts:3:const todo = 1;',
    );
    expect((await run(sb, 'Grep', { pattern: 'TODO', glob: 'src/*.js' })).text).toBe('src/b.js:1:// TODO: two');
    expect((await run(sb, 'Grep', { pattern: 'import', path: 'src/a.ts' })).text).toBe('src/a.ts:1:import x from "y";');
    expect((await run(sb, 'Grep', { pattern: 'zzz' })).text).toBe('No matches.');
  });

  it('stops at max_results with partial', async () => {
    const out = await run(sb, 'Grep', { pattern: '.', max_results: 2 });
    expect(out.text.split('\n\n')[0]?.split('\n')).toHaveLength(2);
    expect(out.partial).toBe(true);
    expect(out.text).toMatch(/stopped at max_results=2/);
  });

  it('invalid regex → INVALID_ARGS', async () => {
    await expect(run(sb, 'Grep', { pattern: 'foo(' })).rejects.toMatchObject({ code: 'INVALID_ARGS', message: /regular expression/ });
  });

  it('patterns that backtrack exponentially in JavaScript run in linear time', async () => {
    const line = 'a'.repeat(MAX_SEARCHED_LINE_CHARS);
    await writeFile(path.join(sb.root, 'evil.txt'), `${line}\n`.repeat(200));
    const started = performance.now();
    for (const pattern of ['(a+)+$b', '(a|aa)*c', '(\\w*\\s?)*!', '(a|a)*$x']) {
      expect((await run(sb, 'Grep', { pattern, path: 'evil.txt' })).text).toBe('No matches.');
    }
    // A backtracking engine takes longer than the age of the universe on one of these lines.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('lookaround and backreferences are INVALID_ARGS with a hint about RE2 syntax', async () => {
    for (const pattern of ['(?=a)b', '(a)\\1']) {
      await expect(run(sb, 'Grep', { pattern })).rejects.toMatchObject({ code: 'INVALID_ARGS', suggestion: /RE2/ });
    }
  });

  it('searches only the first characters of a very long line', async () => {
    await writeFile(path.join(sb.root, 'min.js'), `${'x'.repeat(MAX_SEARCHED_LINE_CHARS)}NEEDLE\nNEEDLE\n`);
    expect((await run(sb, 'Grep', { pattern: 'NEEDLE', path: 'min.js' })).text).toBe('min.js:2:NEEDLE');
  });

  it('skips binary files and notes skipped big files', async () => {
    await writeFile(path.join(sb.root, 'bin.dat'), Buffer.concat([Buffer.from('TODO'), Buffer.from([0])]));
    await writeFile(path.join(sb.root, 'big.log'), `TODO\n${'y'.repeat(MAX_GREP_FILE_BYTES)}`);
    const out = await run(sb, 'Grep', { pattern: 'TODO' });
    expect(out.text).not.toMatch(/bin\.dat|big\.log:/);
    expect(out.text).toContain(`(1 file over ${MAX_GREP_FILE_BYTES} bytes not searched)`);
  });

  it('stops with TIMEOUT when the call is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(run(sb, 'Grep', { pattern: 'TODO' }, sb.ctx(controller.signal))).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('a missing path → NOT_FOUND', async () => {
    await expect(run(sb, 'Grep', { pattern: 'x', path: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
