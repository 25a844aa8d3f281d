import type { AuditStore } from './audit-store.js';
import type { AuditRecord } from './record.js';

interface AuditQuery {
  tenant: string;
  sessionId?: string;
  user?: string;
  tool?: string;
  since?: number;
  limit: number;
}

/** A scan: each chain's segments newest first, until a segment gives enough or starts before `since` (docs/audit.md). */
export async function queryAudit(store: AuditStore, query: AuditQuery): Promise<AuditRecord[]> {
  const found: AuditRecord[] = [];
  for (const chain of await store.chains()) found.push(...(await scanChain(store, chain, query)));
  return found.sort(newestFirst).slice(0, query.limit);
}

const newestFirst = (a: AuditRecord, b: AuditRecord) => (a.time === b.time ? b.seq - a.seq : a.time < b.time ? 1 : -1);

async function scanChain(store: AuditStore, chain: string, query: AuditQuery): Promise<AuditRecord[]> {
  const tenantField = `"tenant":${JSON.stringify(query.tenant)}`;
  const found: AuditRecord[] = [];
  const segments = await store.segments(chain);
  for (let i = segments.length - 1; i >= 0 && found.length < query.limit; i--) {
    const kept: AuditRecord[] = [];
    let startsBefore = false;
    let first = true;
    for await (const line of store.lines(chain, segments[i]!)) {
      if (first) {
        startsBefore = query.since !== undefined && Date.parse(parse(line)?.time ?? '') < query.since;
        first = false;
      }
      // Only a line naming the tenant is parsed.
      if (!line.includes(tenantField)) continue;
      const record = parse(line);
      if (!record || !matches(record, query)) continue;
      kept.push(record);
      if (kept.length > query.limit) kept.shift();
    }
    found.unshift(...kept.slice(Math.max(0, kept.length - (query.limit - found.length))));
    if (startsBefore) break;
  }
  return found;
}

function parse(line: string): AuditRecord | undefined {
  try {
    return JSON.parse(line) as AuditRecord;
  } catch {
    return undefined;
  }
}

function matches(record: AuditRecord, query: AuditQuery): boolean {
  if (record.kind === 'trail' || record.tenant !== query.tenant) return false;
  if (query.sessionId !== undefined && record.session_id !== query.sessionId) return false;
  if (query.user !== undefined && record.user !== query.user) return false;
  if (query.tool !== undefined && record.tool !== query.tool) return false;
  return query.since === undefined || Date.parse(record.time) >= query.since;
}
