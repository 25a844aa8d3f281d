import type { ChainHead } from './chain.js';

export interface OpenedChain {
  chain: string;
  head: ChainHead | null;
}

/**
 * One chain of records per replica, each a sequence of segments of JSON lines in seq order. A process appends to the
 * chain it opened; readers see every chain. Methods reject with the store's own error.
 */
export interface AuditStore {
  /** Drops a record a crash left half-written; a store that can tell another live process holds `replica` takes `replica-2`, … */
  open(replica: string): Promise<OpenedChain>;
  /** With `durable`, flushed (or one object) before it resolves. On rejection none of `lines` is in the chain. */
  append(lines: readonly string[], first: number, durable: boolean): Promise<void>;
  chains(): Promise<string[]>;
  segments(chain: string): Promise<string[]>;
  /** Read as needed, never the whole chain in memory. */
  lines(chain: string, segment: string): AsyncIterable<string>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
