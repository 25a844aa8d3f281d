import type { AuditStore } from './audit-store.js';
import { GENESIS, hashHolds, unseal } from './chain.js';

interface ChainReport {
  chain: string;
  records: number;
  problem?: string;
}

/** Each record's hash against its own bytes, its seq and prev against the last good one's; stops at the first problem. */
export async function verifyChain(store: AuditStore, chain: string): Promise<ChainReport> {
  let seq = 0;
  let prev = GENESIS;
  let records = 0;
  for (const segment of await store.segments(chain)) {
    let line = 0;
    for await (const text of store.lines(chain, segment)) {
      line++;
      const where = `${segment} line ${line}`;
      const problem = check(text, seq, prev, chain);
      if (problem) return { chain, records, problem: `${where}: ${problem}` };
      const { record, hash } = unseal(text) as Exclude<ReturnType<typeof unseal>, string>;
      seq = record.seq as number;
      prev = hash;
      records++;
    }
  }
  return { chain, records };
}

function check(text: string, lastSeq: number, lastHash: string, chain: string): string | undefined {
  const unsealed = unseal(text);
  if (typeof unsealed === 'string') return `the record was changed: ${unsealed}`;
  const { record } = unsealed;
  const seq = record.seq;
  const named = Number.isSafeInteger(seq) ? `record ${seq as number}` : 'the record';
  if (!hashHolds(unsealed)) return `${named} was changed: its hash does not match its content`;
  if (!Number.isSafeInteger(seq)) return 'the record has no seq';
  if (record.replica !== chain) return `${named} was moved: it belongs to chain ${String(record.replica)}`;
  const n = seq as number;
  if (n <= lastSeq) return `${named} is out of order: it comes after record ${lastSeq}`;
  if (n > lastSeq + 1)
    return `record ${lastSeq + 1}${n > lastSeq + 2 ? ` to ${n - 1}` : ''} removed: ${named} comes after record ${lastSeq}`;
  if (record.prev !== lastHash)
    return `${named} does not follow record ${lastSeq}: its prev is not that record's hash (one of them was changed or replaced)`;
  return undefined;
}
