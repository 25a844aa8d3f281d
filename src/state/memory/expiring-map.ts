/** Entries lapse at their own `expiresAt`: dropped when read past it, or by the sweep. */
export class ExpiringMap<V extends { expiresAt: number }> {
  private readonly entries = new Map<string, V>();

  get(key: string, now: number): V | undefined {
    const value = this.entries.get(key);
    if (value && value.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.set(key, value);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  sweep(now: number): void {
    for (const [key, value] of this.entries) if (value.expiresAt <= now) this.entries.delete(key);
  }
}
