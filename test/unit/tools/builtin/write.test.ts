import { chmod, readdir, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

describe('Write', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(() => sb.cleanup());

  it('creates a file and its missing parent directories, returning the new stamp', async () => {
    const out = await run(sb, 'Write', { path: 'a/b/c.txt', content: 'hello\nworld\n' });
    expect(await sb.read('a/b/c.txt')).toBe('hello\nworld\n');
    const stats = await stat(path.join(sb.root, 'a/b/c.txt'));
    expect(out.data).toEqual({ file_mtime_ms: stats.mtimeMs, file_size_bytes: 12 });
    expect(out.text).toBe('Created a/b/c.txt (12 bytes, 2 lines).');
  });

  it('says its counts in the singular for one: 1 byte, 1 line', async () => {
    expect((await run(sb, 'Write', { path: 'hello.txt', content: 'hi\n' })).text).toBe('Created hello.txt (3 bytes, 1 line).');
    expect((await run(sb, 'Write', { path: 'one.txt', content: 'x' })).text).toBe('Created one.txt (1 byte, 1 line).');
    expect((await run(sb, 'Write', { path: 'empty.txt', content: '' })).text).toBe('Created empty.txt (0 bytes, 0 lines).');
  });

  it('overwrites an existing file, keeping its permission bits', async () => {
    await sb.put({ 'run.sh': 'echo old\n' });
    await chmod(path.join(sb.root, 'run.sh'), 0o750);
    const out = await run(sb, 'Write', { path: 'run.sh', content: 'echo new\n' });
    expect(out.text).toMatch(/^Overwrote run.sh/);
    expect(await sb.read('run.sh')).toBe('echo new\n');
    expect((await stat(path.join(sb.root, 'run.sh'))).mode & 0o7777).toBe(0o750);
  });

  it('its returned stamp is what a following Read reports, so a chained Edit passes the lock', async () => {
    const written = await run(sb, 'Write', { path: 'f.txt', content: 'one\n' });
    const read = await run(sb, 'Read', { path: 'f.txt' });
    expect(read.data).toEqual(written.data);
    const stamp = written.data as { file_mtime_ms: number; file_size_bytes: number };
    await run(sb, 'Edit', {
      path: 'f.txt',
      old_string: 'one',
      new_string: 'two',
      expected_mtime_ms: stamp.file_mtime_ms,
      expected_size_bytes: stamp.file_size_bytes,
    });
    expect(await sb.read('f.txt')).toBe('two\n');
  });

  it('CONFLICT when the file differs from the expected mtime or size; the file is untouched', async () => {
    await sb.put({ 'f.txt': 'original\n' });
    const file = path.join(sb.root, 'f.txt');
    const { mtimeMs, size } = await stat(file);
    await expect(
      run(sb, 'Write', { path: 'f.txt', content: 'x', expected_mtime_ms: mtimeMs - 1000, expected_size_bytes: size }),
    ).rejects.toMatchObject({ code: 'CONFLICT', retryable: false, suggestion: /Read/ });
    await expect(
      run(sb, 'Write', { path: 'f.txt', content: 'x', expected_mtime_ms: mtimeMs, expected_size_bytes: size + 1 }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await sb.read('f.txt')).toBe('original\n');
    expect((await stat(file)).mtimeMs).toBe(mtimeMs);
    await run(sb, 'Write', { path: 'f.txt', content: 'ok\n', expected_mtime_ms: mtimeMs, expected_size_bytes: size });
    expect(await sb.read('f.txt')).toBe('ok\n');
  });

  it('CONFLICT when a file the caller expected to exist is gone', async () => {
    await expect(run(sb, 'Write', { path: 'gone.txt', content: 'x', expected_mtime_ms: 1, expected_size_bytes: 1 })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: /deleted/,
    });
    expect(await readdir(sb.root)).toEqual([]);
  });

  it('compares the mtime exactly, fractional milliseconds included', async () => {
    await sb.put({ 'f.txt': 'abc' });
    const file = path.join(sb.root, 'f.txt');
    await utimes(file, new Date(1_700_000_000_000), new Date(1_700_000_000_000));
    const { mtimeMs } = await stat(file);
    await expect(run(sb, 'Write', { path: 'f.txt', content: 'x', expected_mtime_ms: mtimeMs + 0.5 })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await run(sb, 'Write', { path: 'f.txt', content: 'x', expected_mtime_ms: mtimeMs });
  });

  it('leaves no temp file behind, after success or after a refusal', async () => {
    await run(sb, 'Write', { path: 'd/f.txt', content: 'x' });
    await expect(run(sb, 'Write', { path: 'd/f.txt', content: 'y', expected_size_bytes: 99 })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await readdir(path.join(sb.root, 'd'))).toEqual(['f.txt']);
  });

  it('refuses to replace a directory, or to create below a file', async () => {
    await sb.put({ 'dir/x.txt': 'x', 'file.txt': 'f' });
    await expect(run(sb, 'Write', { path: 'dir', content: 'x' })).rejects.toMatchObject({ code: 'INVALID_ARGS', message: /directory/ });
    await expect(run(sb, 'Write', { path: 'file.txt/child', content: 'x' })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    expect(await sb.read('file.txt')).toBe('f');
  });

  it('an aborted call writes nothing and answers TIMEOUT', async () => {
    await sb.put({ 'f.txt': 'old' });
    const controller = new AbortController();
    controller.abort();
    await expect(run(sb, 'Write', { path: 'f.txt', content: 'new' }, sb.ctx(controller.signal))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(await sb.read('f.txt')).toBe('old');
  });

  it('writes through a symlink that stays inside the workspace to its target, keeping the link', async () => {
    await sb.put({ 'real.txt': 'old' });
    await sb.link('real.txt', 'alias.txt');
    await run(sb, 'Write', { path: 'alias.txt', content: 'new' });
    expect(await sb.read('real.txt')).toBe('new');
    expect(await readdir(sb.root)).toEqual(['alias.txt', 'real.txt']);
  });
});
