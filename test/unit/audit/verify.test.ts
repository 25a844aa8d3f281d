import { describe, expect, it } from 'vitest';
import type { AuditStore } from '../../../src/audit/audit-store.js';
import { GENESIS, seal } from '../../../src/audit/chain.js';
import { verifyChain } from '../../../src/audit/verify.js';
import { callEntry } from '../../suites/audit-store.suite.js';

/** `n` records of chain r1, sealed one after another. */
function sealedChain(n: number): string[] {
  const lines: string[] = [];
  let prev = GENESIS;
  for (let seq = 1; seq <= n; seq++) {
    const { line, hash } = seal(callEntry(seq), { seq, time: '2030-01-01T00:00:00.000Z', replica: 'r1', prev });
    lines.push(line);
    prev = hash;
  }
  return lines;
}

/** A store holding `lines` as the one segment of chain r1; verifyChain reads only segments and lines. */
function storeOf(lines: string[]): AuditStore {
  return {
    segments: async () => ['000001.jsonl'],
    lines: async function* () {
      yield* lines;
    },
  } as Partial<AuditStore> as AuditStore;
}

describe('verifyChain', () => {
  it('counts the records of an intact chain', async () => {
    expect(await verifyChain(storeOf(sealedChain(4)), 'r1')).toEqual({ chain: 'r1', records: 4 });
  });

  it('names the first changed record and counts only those before it', async () => {
    const lines = sealedChain(4);
    lines[2] = lines[2]!.replace('"req-3"', '"req-9"');
    expect(await verifyChain(storeOf(lines), 'r1')).toEqual({
      chain: 'r1',
      records: 2,
      problem: '000001.jsonl line 3: record 3 was changed: its hash does not match its content',
    });
  });

  it('says which records were removed, and which came out of order', async () => {
    const lines = sealedChain(5);
    expect((await verifyChain(storeOf([lines[0]!, lines[3]!]), 'r1')).problem).toBe(
      '000001.jsonl line 2: record 2 to 3 removed: record 4 comes after record 1',
    );
    expect((await verifyChain(storeOf([lines[0]!, lines[1]!, lines[0]!]), 'r1')).problem).toBe(
      '000001.jsonl line 3: record 1 is out of order: it comes after record 2',
    );
  });

  it('refuses a record of another chain', async () => {
    expect((await verifyChain(storeOf(sealedChain(1)), 'r2')).problem).toBe(
      '000001.jsonl line 1: record 1 was moved: it belongs to chain r1',
    );
  });
});
