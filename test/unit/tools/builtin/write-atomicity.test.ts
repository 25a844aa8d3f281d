import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeCtx, makeSandbox, run, type Sandbox } from '../fixtures.js';

// Faults are injected around the commit of a write: the opened-file check
// (readlink of /proc/self/fd, right after the temp file is created), the
// pre-rename stat (re-check) and the rename itself. The rest is the real fs.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsp>();
  return { ...actual, rename: vi.fn(actual.rename), stat: vi.fn(actual.stat) };
});

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  return { ...actual, readlinkSync: vi.fn(actual.readlinkSync) };
});

const readlinkMock = vi.mocked(fs.readlinkSync);
const actualFs = await vi.importActual<typeof fs>('node:fs');
const renameMock = vi.mocked(fsp.rename);
const statMock = vi.mocked(fsp.stat);
const actual = await vi.importActual<typeof fsp>('node:fs/promises');

describe('Write and Edit are atomic', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
    await sb.put({ 'f.txt': 'old content\n' });
  });
  afterEach(async () => {
    vi.resetAllMocks();
    await sb.cleanup();
  });

  it('a failing rename leaves the old content and no temp file', async () => {
    renameMock.mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    await expect(run(sb, 'Write', { path: 'f.txt', content: 'new content that never lands\n' })).rejects.toThrow(/EIO/);
    expect(await sb.read('f.txt')).toBe('old content\n');
    expect(await fsp.readdir(sb.root)).toEqual(['f.txt']);
  });

  it('an abort once the temp file exists leaves the old content and no temp file', async () => {
    const controller = new AbortController();
    readlinkMock.mockImplementation(((p: string) => {
      if (p.startsWith('/proc/self/fd/')) controller.abort();
      return actualFs.readlinkSync(p);
    }) as typeof fs.readlinkSync);
    await expect(run(sb, 'Write', { path: 'f.txt', content: 'x'.repeat(1 << 20) }, makeCtx(controller.signal))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(controller.signal.aborted).toBe(true);
    expect(renameMock).not.toHaveBeenCalled();
    expect(await sb.read('f.txt')).toBe('old content\n');
    expect(await fsp.readdir(sb.root)).toEqual(['f.txt']);
  });

  it('Edit re-checks the file just before the rename: a change made meanwhile wins and is not overwritten', async () => {
    const file = path.join(sb.root, 'f.txt');
    const real = await fsp.realpath(file);
    statMock.mockImplementation((async (p: Parameters<typeof fsp.stat>[0], opts?: Parameters<typeof fsp.stat>[1]) => {
      if (p === real) {
        statMock.mockImplementation(actual.stat);
        await fsp.writeFile(real, 'someone else wrote this, longer\n');
      }
      return actual.stat(p, opts);
    }) as typeof fsp.stat);
    await expect(run(sb, 'Edit', { path: 'f.txt', old_string: 'old', new_string: 'mine' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await sb.read('f.txt')).toBe('someone else wrote this, longer\n');
    expect(renameMock).not.toHaveBeenCalled();
    expect(await fsp.readdir(sb.root)).toEqual(['f.txt']);
  });
});
