import type { ChainHead } from './chain.js';

/** The chain a writer holds: its name and where it ends (null: empty). */
export interface OpenedChain {
  chain: string;
  head: ChainHead | null;
}

/**
 * Where the audit trail is kept: one chain of records per replica, each a
 * sequence of segments (files, objects) of JSON lines in seq order. A process
 * appends to the one chain it opened; reading (verify, GET /audit) sees every
 * chain. Methods reject with the store's own error; the trail decides what a
 * failure means.
 */
export interface AuditStore {
  /**
   * Take the chain named `replica` for this process and say where it ends,
   * after dropping a record a crash left half-written. A store that can tell
   * another live process holds it takes the first free `replica-2`, `-3`, …
   */
  open(replica: string): Promise<OpenedChain>;
  /**
   * Append sealed lines to the opened chain, `first` the seq of the first. With
   * `durable`, they are on disk (flushed, or stored as one object) before it
   * resolves; without, a store may leave them to the OS to flush, written
   * where a killed process cannot lose them. On rejection none of them is in
   * the chain.
   */
  append(lines: readonly string[], first: number, durable: boolean): Promise<void>;
  /** Every chain's name, sorted. */
  chains(): Promise<string[]>;
  /** A chain's segments, in seq order. */
  segments(chain: string): Promise<string[]>;
  /** The lines of one segment, in order, read as they are needed (never the whole chain in memory). */
  lines(chain: string, segment: string): AsyncIterable<string>;
  /** Resolves when the store can be written. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
