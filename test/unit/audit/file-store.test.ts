import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import { verifyChain } from '../../../src/audit/index.js';
import { callEntry, describeAuditStore, openTrail } from '../../suites/audit-store.suite.js';

describeAuditStore('file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-'));
  return {
    open: () => createFileAuditStore({ dir, rotateBytes: 1 << 20 }),
    rewrite: async (chain, segment, edit) =>
      writeFileSync(join(dir, chain, segment), edit(readFileSync(join(dir, chain, segment), 'utf8'))),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('file audit store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('rotates by size, each file named by its first seq, the chain running on across them', async () => {
    const trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 4_096 }));
    for (let i = 1; i <= 40; i++) await trail.record(callEntry(i), true);
    await trail.close();
    const files = readdirSync(join(dir, 'r1'))
      .filter((f) => f.endsWith('.jsonl'))
      .sort();
    expect(files.length).toBeGreaterThan(2);
    expect(files[0]).toBe('000000000001.jsonl');
    const firstSeqs = files.map((f) => JSON.parse(readFileSync(join(dir, 'r1', f), 'utf8').split('\n')[0]!).seq);
    expect(firstSeqs.map((seq) => `${String(seq).padStart(12, '0')}.jsonl`)).toEqual(files);
    expect(await verifyChain(createFileAuditStore({ dir, rotateBytes: 4_096 }), 'r1')).toEqual({ chain: 'r1', records: 40 });
  });

  it('drops a record a crash cut short and continues from the last whole one: no fork', async () => {
    let trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 1 << 20 }));
    for (let i = 1; i <= 3; i++) await trail.record(callEntry(i), true);
    await trail.close();
    const [file] = readdirSync(join(dir, 'r1')).filter((f) => f.endsWith('.jsonl'));
    // What a SIGKILL in the middle of a write leaves: part of a record, no newline; and the lock of a process that is gone.
    appendFileSync(join(dir, 'r1', file!), '{"arguments":{"path":"half');
    writeFileSync(join(dir, 'r1', 'writer.pid'), '999999999\n');
    trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 1 << 20 }));
    await trail.record(callEntry(4), true);
    await trail.close();
    expect(await verifyChain(createFileAuditStore({ dir, rotateBytes: 1 << 20 }), 'r1')).toEqual({ chain: 'r1', records: 4 });
  });

  it('flushes an append a caller waits for, leaves one of read-only records to the OS, and flushes a file before the next and at close', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    const datasync = vi.spyOn(Object.getPrototypeOf(probe) as { datasync(): Promise<void> }, 'datasync');
    await probe.close();
    try {
      // rotateBytes 1: every append after the first starts a file, after flushing the one it leaves.
      const trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 1 }));
      datasync.mockClear();
      trail.record(callEntry(1), false);
      await trail.flush();
      expect(datasync).toHaveBeenCalledTimes(0);
      await trail.record(callEntry(2), true);
      expect(datasync).toHaveBeenCalledTimes(2); // the first file, then the record waited for
      for (let i = 3; i <= 6; i++) trail.record(callEntry(i), false);
      await trail.flush();
      expect(datasync).toHaveBeenCalledTimes(3); // only the file it left
      await trail.close();
      expect(datasync).toHaveBeenCalledTimes(4);
      expect(readdirSync(join(dir, 'r1')).filter((f) => f.endsWith('.jsonl'))).toHaveLength(3);
      expect(await verifyChain(createFileAuditStore({ dir, rotateBytes: 1 }), 'r1')).toEqual({ chain: 'r1', records: 6 });
    } finally {
      datasync.mockRestore();
    }
  });

  it('gives a second writer of the same replica a chain of its own', async () => {
    const first = await createFileAuditStore({ dir, rotateBytes: 1 << 20 }).open('host');
    const second = createFileAuditStore({ dir, rotateBytes: 1 << 20 });
    expect((await second.open('host')).chain).toBe('host-2');
    expect(first.chain).toBe('host');
  });

  it('refuses a directory it cannot write', async () => {
    writeFileSync(join(dir, 'file'), '');
    await expect(createFileAuditStore({ dir: join(dir, 'file', 'audit'), rotateBytes: 1 << 20 }).open('r1')).rejects.toThrow(/ENOTDIR/);
  });
});
