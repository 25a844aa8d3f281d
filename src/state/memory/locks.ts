import type { LockMeta } from '../state-store.js';
import { ExpiringMap } from './expiring-map.js';

/**
 * The lock transitions of the memory store (as lua/includes/lock.lua for
 * Redis): a settled Read, Write or Edit stores what it saw of a file for its
 * session, and admission hands it to the next write of that path.
 */
export class MemoryLocks {
  private readonly locks = new ExpiringMap<{ meta: LockMeta; expiresAt: number }>();

  /** A copy: the pipeline may keep it while a later settle replaces the stored one. */
  get(key: string, now: number): LockMeta | null {
    const lock = this.locks.get(key, now);
    return lock ? structuredClone(lock.meta) : null;
  }

  set(key: string, meta: LockMeta, expiresAt: number): void {
    this.locks.set(key, { meta: structuredClone(meta), expiresAt });
  }

  sweep(now: number): void {
    this.locks.sweep(now);
  }
}
