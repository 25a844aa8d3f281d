import type { LockMeta } from '../state-store.js';
import { ExpiringMap } from './expiring-map.js';

/**
 * A copy: the pipeline may keep what it gets while a later settle replaces the stored one. Field by field rather
 * than structuredClone, which costs 2-3 µs for these two numbers, and every settled Read stores one.
 */
const copyOf = (meta: LockMeta): LockMeta => ({ file_mtime_ms: meta.file_mtime_ms, file_size_bytes: meta.file_size_bytes });

/**
 * The lock transitions of the memory store (as lua/includes/lock.lua for
 * Redis): a settled Read, Write or Edit stores what it saw of a file for its
 * session, and admission hands it to the next write of that path.
 */
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
