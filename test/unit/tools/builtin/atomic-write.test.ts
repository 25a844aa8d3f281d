import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileLocks, FILE_LEASE_MS } from '../../../../src/pipeline/file-locks.js';
import { ManualClock } from '../../../../src/shared/clock.js';
import { createMemoryStateStore } from '../../../../src/state/memory/index.js';
import type { FileLocks } from '../../../../src/tools/tool.js';
import type { makeCtx } from '../fixtures.js';
import { makeSandbox, run, type Sandbox } from '../fixtures.js';

// Faults are injected around the commit of a write: the directory handle's
// check (readlink of /proc/self/fd, before the temp file is created), the
// file lock (another writer finishing first) and the rename itself. The rest
// is the real fs.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsp>();
  return { ...actual, rename: vi.fn(actual.rename) };
});

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  return { ...actual, readlinkSync: vi.fn(actual.readlinkSync) };
});

const readlinkMock = vi.mocked(fs.readlinkSync);
const actualFs = await vi.importActual<typeof fs>('node:fs');
const renameMock = vi.mocked(fsp.rename);
/** The renames made over `name`: a temp file is renamed twice, armed first, then over the file. */
const renamesOver = (name: string) => renameMock.mock.calls.filter(([, to]) => String(to).endsWith(`/${name}`));

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
    await expect(run(sb, 'Write', { path: 'f.txt', content: 'x'.repeat(1 << 20) }, sb.ctx(controller.signal))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(controller.signal.aborted).toBe(true);
    expect(renameMock).not.toHaveBeenCalled();
    expect(await sb.read('f.txt')).toBe('old content\n');
    expect(await fsp.readdir(sb.root)).toEqual(['f.txt']);
  });

  it('Edit checks the file with its lock held: a change made while it waited for the lock wins and is not overwritten', async () => {
    const ctx = sb.ctx();
    const locks = ctx.fileLocks;
    // Another writer of the file finishes just before this call gets the lock.
    ctx.fileLocks = {
      acquire: async (file, holder) => {
        await fsp.writeFile(path.join(sb.root, 'f.txt'), 'someone else wrote this, longer\n');
        return locks.acquire(file, holder);
      },
    };
    await expect(run(sb, 'Edit', { path: 'f.txt', old_string: 'old', new_string: 'mine' }, ctx)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await sb.read('f.txt')).toBe('someone else wrote this, longer\n');
    expect(renamesOver('f.txt')).toEqual([]);
    expect(await fsp.readdir(sb.root)).toEqual(['f.txt']);
  });

  it('a holder that stalls past its lease before its rename cannot rename: the next holder removed its temp file first', async () => {
    const clock = new ManualClock();
    const state = createMemoryStateStore({ clock });
    const ctxOn = (locks: (call: ReturnType<typeof makeCtx>) => FileLocks) => {
      const ctx = sb.ctx();
      ctx.fileLocks = locks(ctx);
      return ctx;
    };
    // Replica A, as a gateway takes locks; replica B is another process: it asks the shared store straight away.
    const a = ctxOn((call) => createFileLocks({ state, clock, tenant: call.caller.tenant, call }));
    const b = ctxOn((call) => ({
      async acquire(file, holder) {
        const answer = await state.lockFile({ tenant: call.caller.tenant, path: file, holder, leaseMs: FILE_LEASE_MS }, clock.now());
        if (answer.outcome !== 'granted') throw new Error('B expected the lapsed lease');
        return {
          fence: answer.fence,
          release: async (fenced) => (fenced ? state.unlockFile(call.caller.tenant, file, holder) : undefined),
        };
      },
    }));
    // A checked the file and stalls just before its rename, past its lease.
    let resume!: () => void;
    const stalled = new Promise<void>((resolve) => (resume = resolve));
    let reachedRename!: () => void;
    const atRename = new Promise<void>((resolve) => (reachedRename = resolve));
    const realRename = renameMock.getMockImplementation()!;
    // The rename over the file (not the one that arms the temp file) stalls, once.
    renameMock.mockImplementation(async (from, to) => {
      if (String(to).endsWith('/f.txt')) {
        renameMock.mockImplementation(realRename);
        reachedRename();
        await stalled;
      }
      return realRename(from, to);
    });
    const writeA = run(sb, 'Write', { path: 'f.txt', content: 'A, stalled\n', expected_size_bytes: 12 }, a);
    await atRename;
    clock.advance(FILE_LEASE_MS);
    const writeB = await run(sb, 'Write', { path: 'f.txt', content: 'B, after the lease\n', expected_size_bytes: 12 }, b);
    expect(writeB.text).toMatch(/^Overwrote f\.txt/);
    resume();
    await expect(writeA).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/past its lease/) });
    expect(await sb.read('f.txt')).toBe('B, after the lease\n');
    expect(await fsp.readdir(sb.root)).toEqual(['f.txt']);
    await state.close();
  });

  it('a write leaves a later mtime than the file it replaced, even one stamped ahead of the clock: no stamp comes back', async () => {
    const file = path.join(sb.root, 'f.txt');
    const ahead = new Date(Date.now() + 60_000);
    await fsp.utimes(file, ahead, ahead);
    const before = (await fsp.stat(file)).mtimeMs;
    const out = await run(sb, 'Write', { path: 'f.txt', content: 'new content\n' });
    const after = await fsp.stat(file);
    expect(after.mtimeMs).toBeGreaterThan(before);
    expect(out.data).toEqual({ file_mtime_ms: after.mtimeMs, file_size_bytes: after.size });
  });
});
