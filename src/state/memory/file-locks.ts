import { ADMISSION_CONSTANTS } from '../admission-constants.js';
import type { FileLockAnswer, FileLockRequest } from '../file-locks.js';
import { ExpiringMap } from './expiring-map.js';

const { FILE_LOCK_RECORD_MS } = ADMISSION_CONSTANTS;

interface FileLockRecord {
  holder: string;
  until: number;
  /** Lapsed holders' temp files, not yet removed by a holder that released. */
  fence: string[];
  expiresAt: number;
}

/** The file write locks of the memory store (as lua/file-lock.lua and lua/file-unlock.lua for Redis). */
export class MemoryFileLocks {
  private readonly records = new ExpiringMap<FileLockRecord>();

  lock(key: string, request: FileLockRequest, now: number): FileLockAnswer {
    const record = this.records.get(key, now);
    if (record && record.until > now) return { outcome: 'busy', retryAfterMs: record.until - now };
    const fence = record ? [...record.fence, record.holder] : [];
    this.records.set(key, { holder: request.holder, until: now + request.leaseMs, fence, expiresAt: now + FILE_LOCK_RECORD_MS });
    return { outcome: 'granted', fence: [...fence] };
  }

  unlock(key: string, holder: string, now: number): void {
    if (this.records.get(key, now)?.holder === holder) this.records.delete(key);
  }

  sweep(now: number): void {
    this.records.sweep(now);
  }
}
