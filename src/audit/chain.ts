import { canonicalJson, sha256Hex } from '../protocol/canonical.js';
import type { AuditEntry } from './record.js';

export const GENESIS = '0'.repeat(64);

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface Place {
  seq: number;
  time: string;
  replica: string;
  prev: string;
}

const SEALED = /,"hash":"([0-9a-f]{64})"\}$/;

/** Canonical JSON of the entry and its place, then `hash` (sha256 of `prev` and that JSON) as its last key: a verifier never re-serializes. */
export function seal(entry: AuditEntry, place: Place): { line: string; hash: string } {
  const body = canonicalBody(entry, place);
  const hash = sha256Hex(place.prev + body);
  return { line: `${body.slice(0, -1)},"hash":"${hash}"}`, hash };
}

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : 1);

/** canonicalJson of the entry and its place as one object, without making that object. */
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

export function hashHolds(unsealed: { body: string; hash: string; record: Record<string, unknown> }): boolean {
  const prev = unsealed.record.prev;
  return typeof prev === 'string' && sha256Hex(prev + unsealed.body) === unsealed.hash;
}

/** A string says why the line cannot be continued from. */
export function headOf(line: string): ChainHead | string {
  const unsealed = unseal(line);
  if (typeof unsealed === 'string') return unsealed;
  const seq = unsealed.record.seq;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) return 'its seq is not a positive whole number';
  return { seq: seq as number, hash: unsealed.hash };
}
