import type { LockMeta } from '../admission.js';
import { ExpiringMap } from './expiring-map.js';

/** A copy: the pipeline may keep what it gets while a later settle replaces the stored one. */
const copyOf = (meta: LockMeta): LockMeta => ({ file_mtime_ms: meta.file_mtime_ms, file_size_bytes: meta.file_size_bytes });

/** Read locks (lua/includes/lock.lua for Redis): what a settled call saw of a file, for the session's next write. */
export class MemoryLocks {
  private readonly locks = new ExpiringMap<{ meta: LockMeta; expiresAt: number }>();

  get(key: string, now: number): LockMeta | null {
    const lock = this.locks.get(key, now);
    return lock ? copyOf(lock.meta) : null;
  }

  set(key: string, meta: LockMeta, expiresAt: number): void {
    this.locks.set(key, { meta: copyOf(meta), expiresAt });
  }

  sweep(now: number): void {
    this.locks.sweep(now);
  }
}
