import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import { AuditTrail, AuditUnavailableError, verifyChain, type AuditStore } from '../../../src/audit/index.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { callEntry } from '../../suites/audit-store.suite.js';

describe('audit trail when its store fails', () => {
  let dir: string;
  let store: AuditStore;
  let failing: boolean;
  const events: string[] = [];
  let dropped = 0;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-'));
    store = createFileAuditStore({ dir, rotateBytes: 1 << 20 });
    failing = false;
    const append = store.append.bind(store);
    store.append = (lines, first, durable) =>
      failing ? Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })) : append(lines, first, durable);
    events.length = 0;
    dropped = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function trail(maxPending = 1_000): Promise<AuditTrail> {
    const chain = await store.open('r1');
    return new AuditTrail({
      store,
      chain,
      clock: new ManualClock(),
      flushMs: 5,
      maxPending,
      health: { failed: () => events.push('failed'), ok: () => events.push('ok') },
      onDropped: () => dropped++,
    });
  }

  it('answers a waiting caller AUDIT_UNAVAILABLE at once, is not writable until an append works, then writes what it held after a resumed record', async () => {
    const t = await trail();
    failing = true;
    await expect(t.record(callEntry(1), true)).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(t.writable).toBe(false);
    // Refused at once while down, and kept.
    await expect(t.record(callEntry(2), true)).rejects.toBeInstanceOf(AuditUnavailableError);
    t.record(callEntry(3), false);
    failing = false;
    await t.flush();
    expect(t.writable).toBe(true);
    expect(events).toEqual(['failed', 'ok']);
    await t.close();
    const lines: Array<Record<string, unknown>> = [];
    for await (const line of store.lines('r1', (await store.segments('r1'))[0]!)) lines.push(JSON.parse(line));
    expect(lines.map((r) => r.kind)).toEqual(['trail', 'call', 'call', 'call']);
    expect(lines[0]).toMatchObject({ event: 'resumed', dropped: 0 });
    expect(await verifyChain(store, 'r1')).toEqual({ chain: 'r1', records: 4 });
  });

  it('holds at most max_pending records while down, dropping the oldest, counted and said in the resumed record', async () => {
    const t = await trail(2);
    failing = true;
    await t.record(callEntry(1), true)?.catch(() => {});
    for (let i = 2; i <= 5; i++) t.record(callEntry(i), false);
    expect(dropped).toBe(3);
    failing = false;
    await t.flush();
    await t.close();
    const lines: Array<Record<string, unknown>> = [];
    for await (const line of store.lines('r1', (await store.segments('r1'))[0]!)) lines.push(JSON.parse(line));
    expect(lines[0]).toMatchObject({ kind: 'trail', dropped: 3 });
    expect(lines.slice(1).map((r) => r.call_id)).toEqual(['call_4', 'call_5']);
  });
});
