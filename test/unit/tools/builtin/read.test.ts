import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_READ_LIMIT, MAX_LINE_CHARS, MAX_SCAN_BYTES } from '../../../../src/tools/builtin/read.js';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

describe('Read', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(() => sb.cleanup());

  it('numbers lines like cat -n and reports the stat mtime and size for the lock', async () => {
    await sb.put({ 'a.txt': 'alpha\nbeta\n' });
    const out = await run(sb, 'Read', { path: 'a.txt' });
    expect(out.text).toBe('     1\talpha\n     2\tbeta');
    const stats = await stat(path.join(sb.root, 'a.txt'));
    expect(out.data).toEqual({ file_mtime_ms: stats.mtimeMs, file_size_bytes: 11 });
    expect(out.partial).toBeFalsy();
  });

  it('keeps a last line without a trailing newline and keeps empty lines', async () => {
    await sb.put({ 'a.txt': 'one\n\nthree' });
    expect((await run(sb, 'Read', { path: 'a.txt' })).text).toBe('     1\tone\n     2\t\n     3\tthree');
  });

  it("offset is the first line (1-based), limit the line count, numbers stay the file's own", async () => {
    await sb.put({ 'a.txt': ['l1', 'l2', 'l3', 'l4', 'l5'].join('\n') + '\n' });
    const out = await run(sb, 'Read', { path: 'a.txt', offset: 3, limit: 2 });
    expect(out.text).toBe('     3\tl3\n     4\tl4\n\n(more lines follow; continue with offset=5)');
    expect(out.partial).toBeFalsy();
    expect((await run(sb, 'Read', { path: 'a.txt', offset: 5 })).text).toBe('     5\tl5');
    expect((await run(sb, 'Read', { path: 'a.txt', offset: 9 })).text).toMatch(/has 5 lines; offset 9 is past the end/);
    await sb.put({ 'one.txt': 'only\n' });
    expect((await run(sb, 'Read', { path: 'one.txt', offset: 3 })).text).toBe('(the file has 1 line; offset 3 is past the end)');
  });

  it('stops at the default limit with partial and a note on how to continue', async () => {
    const lines = Array.from({ length: DEFAULT_READ_LIMIT + 5 }, (_, i) => `line ${i + 1}`);
    await sb.put({ 'big.txt': lines.join('\n') });
    const out = await run(sb, 'Read', { path: 'big.txt' });
    expect(out.partial).toBe(true);
    expect(out.text).toContain(`  2000\tline 2000\n\n(more lines follow; continue with offset=${DEFAULT_READ_LIMIT + 1})`);
    expect(out.text).not.toContain('line 2001');
  });

  it('cuts long lines with a marker saying how much was left out', async () => {
    await sb.put({ 'long.txt': `${'x'.repeat(MAX_LINE_CHARS + 300)}\nshort\n` });
    const out = await run(sb, 'Read', { path: 'long.txt' });
    expect(out.text).toContain(`${'x'.repeat(MAX_LINE_CHARS)}… [300 more characters]`);
    await sb.put({ 'one-over.txt': 'y'.repeat(MAX_LINE_CHARS + 1) });
    expect((await run(sb, 'Read', { path: 'one-over.txt' })).text).toContain(`${'y'.repeat(MAX_LINE_CHARS)}… [1 more character]`);
    expect(out.text).toContain('     2\tshort');
    expect(out.partial).toBe(true);
  });

  it('counts what it cut from a line longer than a read chunk, multi-byte characters as the text counts them, and goes on after it', async () => {
    const ascii = 'a'.repeat(300_000);
    const wide = '\u00e9\u20ac\u{1f600}'.repeat(50_000);
    await sb.put({ 'long.txt': `${ascii}\n${wide}\nthird\n` });
    const out = await run(sb, 'Read', { path: 'long.txt' });
    expect(out.text).toContain(`     1\t${'a'.repeat(MAX_LINE_CHARS)}… [${300_000 - MAX_LINE_CHARS} more characters]`);
    expect(out.text).toContain(`     2\t${wide.slice(0, MAX_LINE_CHARS)}… [${wide.length - MAX_LINE_CHARS} more characters]`);
    expect(out.text).toContain('     3\tthird');
  });

  /** Bytes this process has read with read(2) and the like, so far (Linux). */
  const bytesRead = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

  it('cuts a 64 MiB one-line file after reading at most MAX_SCAN_BYTES past the cut, not the whole line', async () => {
    // Text at the start (the binary check reads 8 KB), then a sparse run to 64 MiB: no newline anywhere.
    await sb.put({ 'huge.txt': 'z'.repeat(16 * 1024) });
    await truncate(path.join(sb.root, 'huge.txt'), 64 * 1024 * 1024);
    const before = bytesRead();
    const out = await run(sb, 'Read', { path: 'huge.txt' });
    const read = bytesRead() - before;
    expect(read).toBeLessThan(MAX_SCAN_BYTES + 1024 * 1024);
    expect(out.text).toContain(`     1\t${'z'.repeat(MAX_LINE_CHARS)}… [`);
    expect(out.text).toMatch(/line 1 goes on for more than 8 MiB past its first 2000 characters: Read stopped in it/);
    expect(out.partial).toBe(true);
    expect(out.data).toMatchObject({ file_size_bytes: 64 * 1024 * 1024 });
    // A window past the line says the same, without lines.
    const later = await run(sb, 'Read', { path: 'huge.txt', offset: 2 });
    expect(later.text).toMatch(/^\(line 1 goes on for more than 8 MiB/);
  });

  it('reads a multi-byte UTF-8 text split across chunk borders intact', async () => {
    const line = 'é'.repeat(40_000);
    await sb.put({ 'u.txt': `${line}\nend\n` });
    const out = await run(sb, 'Read', { path: 'u.txt' });
    expect(out.text).not.toContain('\uFFFD');
    expect(out.text).toContain('     2\tend');
  });

  it('reads files at, just under and just over one and two read chunks whole', async () => {
    const chunk = 64 * 1024;
    for (const size of [chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 7]) {
      // Lines of 100 bytes, the last one short and without a newline.
      const text = Array.from({ length: Math.ceil(size / 100) }, (_, i) => `${String(i).padStart(6, '0')} ${'x'.repeat(92)}\n`)
        .join('')
        .slice(0, size);
      await sb.put({ 'f.txt': text });
      const lines = text.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
      const expected = lines
        .slice(0, DEFAULT_READ_LIMIT)
        .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
        .join('\n');
      expect((await run(sb, 'Read', { path: 'f.txt' })).text.startsWith(expected), `size ${size}`).toBe(true);
    }
  });

  it('reads a small file into a buffer of its own size, not a 64 KB one per call', async () => {
    // V8 counts array buffers as heap bytes: 64 KB per Read drove scavenges, and those promoted kept old-space marking
    // running back to back under load once a full collection had tightened the heap limit (docs/performance-notebook.md).
    await sb.put({ 'one.txt': 'a file of one line\n' });
    await run(sb, 'Read', { path: 'one.txt' });
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) expect((await run(sb, 'Read', { path: 'one.txt' })).text).toBe('     1\ta file of one line');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(512 * 1024);
  });

  it('says so for an empty file', async () => {
    await sb.put({ 'empty.txt': '' });
    expect(await run(sb, 'Read', { path: 'empty.txt' })).toMatchObject({ text: '(empty file)', data: { file_size_bytes: 0 } });
  });

  it('refuses binary files, directories (suggesting LS) and missing files', async () => {
    await writeFile(path.join(sb.root, 'img.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await sb.put({ 'dir/x.txt': 'x' });
    await expect(run(sb, 'Read', { path: 'img.bin' })).rejects.toMatchObject({ code: 'INVALID_ARGS', message: /binary/ });
    await expect(run(sb, 'Read', { path: 'dir' })).rejects.toMatchObject({ code: 'INVALID_ARGS', suggestion: /LS/ });
    await expect(run(sb, 'Read', { path: 'nope.txt' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO without blocking on it', async () => {
    execFileSync('mkfifo', [path.join(sb.root, 'pipe')]);
    await expect(run(sb, 'Read', { path: 'pipe' })).rejects.toMatchObject({ code: 'INVALID_ARGS', message: /not a regular file/ });
  });

  it('takes null for an optional argument as absent (OpenAI strict mode sends null)', async () => {
    await sb.put({ 'a.txt': 'a\n' });
    expect((await run(sb, 'Read', { path: 'a.txt', offset: null, limit: null })).text).toBe('     1\ta');
    await run(sb, 'Write', { path: 'a.txt', content: 'b\n', expected_mtime_ms: null, expected_size_bytes: null });
  });

  it('rejects arguments of the wrong type when called without the validate gate', async () => {
    await expect(run(sb, 'Read', { path: 42 })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    await sb.put({ 'a.txt': 'a' });
    await expect(run(sb, 'Read', { path: 'a.txt', offset: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    await expect(run(sb, 'Read', { path: 'a.txt', limit: 1.5 })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
  });

  it('stops with TIMEOUT when the call is already aborted', async () => {
    await sb.put({ 'a.txt': 'a\n' });
    const controller = new AbortController();
    controller.abort();
    await expect(run(sb, 'Read', { path: 'a.txt' }, sb.ctx(controller.signal))).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});
