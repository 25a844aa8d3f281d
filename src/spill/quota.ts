export interface QuotaEntry {
  id: string;
  bytes: number;
  createdAt: number;
}

interface QuotaBackend {
  /** Read once per tenant, the first time it spills after start-up. */
  list(tenant: string): Promise<QuotaEntry[]>;
  remove(tenant: string, id: string): Promise<void>;
}

interface TenantQuotaOptions {
  quotaBytes: number;
  backend: QuotaBackend;
  /** Other processes write to the same store: the tenant's entries are listed afresh at each step. */
  shared?: boolean;
  onRemove?: () => void;
}

/** The entries to remove, oldest first, until the rest fit; those in `keep` (still being written) never go. */
function entriesOverQuota(entries: Iterable<QuotaEntry>, quotaBytes: number, keep: ReadonlySet<string>): QuotaEntry[] {
  const all = [...entries];
  let total = all.reduce((sum, e) => sum + e.bytes, 0);
  const remove: QuotaEntry[] = [];
  for (const entry of all.sort((a, b) => a.createdAt - b.createdAt)) {
    if (total <= quotaBytes) break;
    if (keep.has(entry.id)) continue;
    remove.push(entry);
    total -= entry.bytes;
  }
  return remove;
}

interface Ledger {
  entries: Map<string, QuotaEntry>;
  bytes: number;
}

/**
 * Per-tenant spilled bytes, counted from the store's listing plus what is written since. A tenant's steps run one at a
 * time, entries are keyed by id, and an output is protected from `writing` until its own `add` counts it.
 */
export class TenantQuota {
  private readonly ledgers = new Map<string, Ledger>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly writes = new Map<string, Set<string>>();

  constructor(private readonly options: TenantQuotaOptions) {}

  /** An output of the tenant is being written under `id`: nothing removes it until `add` or `abandon`. */
  writing(tenant: string, id: string): void {
    const ids = this.writes.get(tenant) ?? new Set<string>();
    this.writes.set(tenant, ids.add(id));
  }

  abandon(tenant: string, id: string): void {
    const ids = this.writes.get(tenant);
    ids?.delete(id);
    if (ids?.size === 0) this.writes.delete(tenant);
  }

  add(tenant: string, entry: QuotaEntry): Promise<void> {
    const previous = this.queues.get(tenant) ?? Promise.resolve();
    const step = previous.then(() => this.enforce(tenant, entry)).finally(() => this.abandon(tenant, entry.id));
    const tail = step.catch(() => {});
    this.queues.set(tenant, tail);
    void tail.then(() => {
      if (this.queues.get(tenant) === tail) this.queues.delete(tenant);
    });
    return step;
  }

  /** An entry the store removed for another reason (it expired). */
  forget(tenant: string, id: string): void {
    const ledger = this.ledgers.get(tenant);
    const entry = ledger?.entries.get(id);
    if (!ledger || !entry) return;
    ledger.entries.delete(id);
    ledger.bytes -= entry.bytes;
  }

  private async enforce(tenant: string, entry: QuotaEntry): Promise<void> {
    const ledger = await this.ledger(tenant);
    if (!ledger.entries.has(entry.id)) {
      ledger.entries.set(entry.id, entry);
      ledger.bytes += entry.bytes;
    }
    if (ledger.bytes <= this.options.quotaBytes) return;
    const keep = this.writes.get(tenant) ?? new Set([entry.id]);
    for (const old of entriesOverQuota(ledger.entries.values(), this.options.quotaBytes, keep)) {
      await this.options.backend.remove(tenant, old.id);
      this.forget(tenant, old.id);
      this.options.onRemove?.();
    }
  }

  private async ledger(tenant: string): Promise<Ledger> {
    let ledger = this.options.shared ? undefined : this.ledgers.get(tenant);
    if (!ledger) {
      const entries = new Map((await this.options.backend.list(tenant)).map((e) => [e.id, e] as const));
      ledger = { entries, bytes: [...entries.values()].reduce((sum, e) => sum + e.bytes, 0) };
      this.ledgers.set(tenant, ledger);
    }
    return ledger;
  }
}

export function quotaFor(
  options: { tenantQuotaBytes?: number; onQuotaRemoval?: () => void },
  backend: QuotaBackend,
  shared = false,
): TenantQuota | undefined {
  if (options.tenantQuotaBytes === undefined) return undefined;
  return new TenantQuota({
    quotaBytes: options.tenantQuotaBytes,
    backend,
    shared,
    ...(options.onQuotaRemoval && { onRemove: options.onQuotaRemoval }),
  });
}
