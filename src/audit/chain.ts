import { canonicalJson, sha256Hex } from '../protocol/canonical.js';
import type { AuditEntry } from './record.js';

/** The `prev` of a chain's first record. */
export const GENESIS = '0'.repeat(64);

/** Where a chain ends: its last record's seq and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** What a record's place in its chain adds to its entry. */
export interface Place {
  seq: number;
  time: string;
  replica: string;
  prev: string;
}

const SEALED = /,"hash":"([0-9a-f]{64})"\}$/;

/**
 * The record as one line: the canonical JSON of the entry with its place
 * (keys sorted at every depth, no whitespace), then `hash`, the sha256 of
 * `prev` followed by that JSON, added as its last key. The bytes hashed are
 * the line's own, so a verifier never re-serializes anything.
 */
export function seal(entry: AuditEntry, place: Place): { line: string; hash: string } {
  const body = canonicalBody(entry, place);
  const hash = sha256Hex(place.prev + body);
  return { line: `${body.slice(0, -1)},"hash":"${hash}"}`, hash };
}

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : 1);

/**
 * canonicalJson of the entry and its place as one object, without making that
 * object: an object spread from two grew slow to read key by key, and this is
 * paid for every call.
 */
function canonicalBody(entry: AuditEntry, place: Place): string {
  const fields: Array<[string, unknown]> = Object.entries(entry);
  fields.push(['seq', place.seq], ['time', place.time], ['replica', place.replica], ['prev', place.prev]);
  fields.sort(byKey);
  let body = '';
  for (const [key, value] of fields) {
    if (value === undefined) continue;
    body += `${body ? ',' : '{'}${JSON.stringify(key)}:${typeof value === 'object' && value !== null ? canonicalJson(value) : JSON.stringify(value)}`;
  }
  return `${body}}`;
}

/** A line taken apart: the JSON its hash covers, the hash it states, and that JSON parsed; a string says why it cannot be. */
export function unseal(line: string): { body: string; hash: string; record: Record<string, unknown> } | string {
  const match = SEALED.exec(line);
  if (!match) return 'it does not end with its hash';
  const body = `${line.slice(0, match.index)}}`;
  let record: unknown;
  try {
    record = JSON.parse(body);
  } catch {
    return 'it is not JSON';
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return 'it is not a JSON object';
  return { body, hash: match[1]!, record: record as Record<string, unknown> };
}

/** Whether the hash a line states is the one its own bytes give. */
export function hashHolds(unsealed: { body: string; hash: string; record: Record<string, unknown> }): boolean {
  const prev = unsealed.record.prev;
  return typeof prev === 'string' && sha256Hex(prev + unsealed.body) === unsealed.hash;
}

/** The head a chain's last line leaves, for a writer to continue from; a string says why it cannot. */
export function headOf(line: string): ChainHead | string {
  const unsealed = unseal(line);
  if (typeof unsealed === 'string') return unsealed;
  const seq = unsealed.record.seq;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) return 'its seq is not a positive whole number';
  return { seq: seq as number, hash: unsealed.hash };
}
