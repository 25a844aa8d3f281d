import type { StoredResult } from '../admission.js';

type Waiter = (result: StoredResult | null) => void;

/** Waiters on a running once-record, woken in-process; a runner cannot crash without its waiters, so no lease timer. */
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

  wakeAll(): void {
    for (const key of [...this.waiting.keys()]) this.wake(key, null);
  }
}
