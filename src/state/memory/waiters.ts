import type { StoredResult } from '../state-store.js';

type Waiter = (result: StoredResult | null) => void;

/**
 * Callers waiting for a running once-record, woken in-process when its runner
 * completes or releases it (the Redis store polls instead). In one process a
 * runner cannot crash without taking its waiters along, so a lease that
 * lapses while waiting needs no timer of its own: the runner settles or
 * releases (waking the waiter), or the timeout ends the wait.
 */
export class Waiters {
  private readonly waiting = new Map<string, Set<Waiter>>();

  /** Each waiter gets its own copy of the result. */
  wait(key: string, timeoutMs: number): Promise<StoredResult | null> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(key) ?? new Set<Waiter>();
      this.waiting.set(key, waiters);
      const waiter: Waiter = (result) => {
        clearTimeout(timer);
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
        resolve(result && structuredClone(result));
      };
      const timer = setTimeout(() => waiter(null), timeoutMs);
      waiters.add(waiter);
    });
  }

  wake(key: string, result: StoredResult | null): void {
    for (const waiter of [...(this.waiting.get(key) ?? [])]) waiter(result);
  }

  /** Every wait ends with null: the store is closing. */
  wakeAll(): void {
    for (const key of [...this.waiting.keys()]) this.wake(key, null);
  }
}
