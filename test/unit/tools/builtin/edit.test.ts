import { chmod, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

type Stamp = { file_mtime_ms: number; file_size_bytes: number };

describe('Edit', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'app.ts': 'const retries = 3;\nconst name = "a";\nconst other = "a";\n' });
  });
  afterEach(() => sb.cleanup());

  it('replaces the one occurrence and returns the new stamp', async () => {
    const out = await run(sb, 'Edit', { path: 'app.ts', old_string: 'retries = 3', new_string: 'retries = 5' });
    expect(out.text).toBe('Replaced 1 occurrence in app.ts.');
    expect(await sb.read('app.ts')).toBe('const retries = 5;\nconst name = "a";\nconst other = "a";\n');
    const stats = await stat(path.join(sb.root, 'app.ts'));
    expect(out.data).toEqual({ file_mtime_ms: stats.mtimeMs, file_size_bytes: stats.size });
  });

  it('takes new_string literally ($& and $1 are not replacement patterns)', async () => {
    await run(sb, 'Edit', { path: 'app.ts', old_string: '3', new_string: '$&$1$$' });
    expect(await sb.read('app.ts')).toContain('retries = $&$1$$;');
  });

  it('several matches without replace_all → INVALID_ARGS with a suggestion; with it every one is replaced', async () => {
    await expect(run(sb, 'Edit', { path: 'app.ts', old_string: '"a"', new_string: '"b"' })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: /occurs 2 times/,
      suggestion: /replace_all/,
      details: { occurrences: 2 },
    });
    const out = await run(sb, 'Edit', { path: 'app.ts', old_string: '"a"', new_string: '"b"', replace_all: true });
    expect(out.text).toBe('Replaced 2 occurrences in app.ts.');
    expect(await sb.read('app.ts')).toBe('const retries = 3;\nconst name = "b";\nconst other = "b";\n');
  });

  it('old_string not found → INVALID_ARGS (the file exists; the argument is wrong) and the file is untouched', async () => {
    await expect(run(sb, 'Edit', { path: 'app.ts', old_string: 'retries=3', new_string: 'x' })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: /not found/,
      suggestion: /Read/,
    });
    expect(await sb.read('app.ts')).toContain('retries = 3');
  });

  it('an old_string holding a redaction marker the file lacks → INVALID_ARGS saying the text held a secret the model never saw; a file that holds the marker itself is edited', async () => {
    await sb.put({ '.env': 'DB_PASSWORD=Tr0ub4dor&3x\nDB_HOST=db\n' });
    await expect(
      run(sb, 'Edit', { path: '.env', old_string: 'DB_PASSWORD=[REDACTED:password]\nDB_HOST=db', new_string: 'DB_HOST=db2' }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: /\[REDACTED:password\].*held a secret that was redacted before you saw it/,
      suggestion: /without a redaction marker/,
    });
    expect(await sb.read('.env')).toBe('DB_PASSWORD=Tr0ub4dor&3x\nDB_HOST=db\n');
    await sb.put({ 'notes.md': 'shown as [REDACTED:password]\n' });
    await run(sb, 'Edit', { path: 'notes.md', old_string: 'shown as [REDACTED:password]', new_string: 'shown as a marker' });
    expect(await sb.read('notes.md')).toBe('shown as a marker\n');
  });

  it('old_string equal to new_string, or empty → INVALID_ARGS', async () => {
    await expect(run(sb, 'Edit', { path: 'app.ts', old_string: 'x', new_string: 'x' })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
    await expect(run(sb, 'Edit', { path: 'app.ts', old_string: '', new_string: 'x' })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
  });

  it('a missing file → NOT_FOUND', async () => {
    await expect(run(sb, 'Edit', { path: 'nope.ts', old_string: 'a', new_string: 'b' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('Read, then the file changes behind the session, then Edit with the read stamp → CONFLICT, file byte-identical', async () => {
    const read = await run(sb, 'Read', { path: 'app.ts' });
    const stamp = read.data as Stamp;
    const file = path.join(sb.root, 'app.ts');
    await writeFile(file, 'const retries = 3;\n// changed by someone else\n');
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    const behind = await readFile(file);
    await expect(
      run(sb, 'Edit', {
        path: 'app.ts',
        old_string: 'retries = 3',
        new_string: 'retries = 5',
        expected_mtime_ms: stamp.file_mtime_ms,
        expected_size_bytes: stamp.file_size_bytes,
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT', retryable: false });
    expect((await readFile(file)).equals(behind)).toBe(true);
    expect(await readdir(sb.root)).toEqual(['app.ts']);
  });

  it('CONFLICT on a size change alone and on an mtime change alone', async () => {
    const file = path.join(sb.root, 'app.ts');
    const { mtimeMs, size } = await stat(file);
    await expect(
      run(sb, 'Edit', { path: 'app.ts', old_string: '3', new_string: '4', expected_mtime_ms: mtimeMs, expected_size_bytes: size - 1 }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(
      run(sb, 'Edit', { path: 'app.ts', old_string: '3', new_string: '4', expected_mtime_ms: mtimeMs + 1, expected_size_bytes: size }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await run(sb, 'Edit', { path: 'app.ts', old_string: '3', new_string: '4', expected_mtime_ms: mtimeMs, expected_size_bytes: size });
    expect(await sb.read('app.ts')).toContain('retries = 4');
  });

  it('keeps the file mode, a BOM and CRLF line ends', async () => {
    const file = path.join(sb.root, 'win.txt');
    await writeFile(file, '\uFEFFline one\r\nline two\r\n');
    await chmod(file, 0o600);
    await run(sb, 'Edit', { path: 'win.txt', old_string: 'one', new_string: '1' });
    expect(await readFile(file, 'utf8')).toBe('\uFEFFline 1\r\nline two\r\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses binary and non-UTF-8 files, leaving them as they were', async () => {
    const bin = Buffer.from([0x61, 0x00, 0x62]);
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
    await writeFile(path.join(sb.root, 'x.bin'), bin);
    await writeFile(path.join(sb.root, 'latin1.txt'), latin1);
    await expect(run(sb, 'Edit', { path: 'x.bin', old_string: 'a', new_string: 'c' })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: /binary/,
    });
    await expect(run(sb, 'Edit', { path: 'latin1.txt', old_string: 'ca', new_string: 'co' })).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: /UTF-8/,
    });
    expect((await readFile(path.join(sb.root, 'latin1.txt'))).equals(latin1)).toBe(true);
  });

  it('refuses a directory', async () => {
    await sb.put({ 'dir/x': 'x' });
    await expect(run(sb, 'Edit', { path: 'dir', old_string: 'a', new_string: 'b' })).rejects.toMatchObject({ code: 'INVALID_ARGS' });
  });
});
