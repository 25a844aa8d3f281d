/**
 * A request for one file's write lock, the fleet's check-and-rename step
 * (docs/replicas.md, "The write lock"). The lock is a lease:
 * it lapses after `leaseMs` if its holder neither releases it nor finishes,
 * and whoever takes it next is told the lapsed holder's `holder` name.
 */
export interface FileLockRequest {
  tenant: string;
  /** The file, as a workspace-relative real path. */
  path: string;
  /**
   * The name of the temp file, beside the file, that the holder renames over
   * it: the holder's token, and what a successor removes before it checks
   * the file, so a holder that stalled past its lease can no longer rename.
   */
  holder: string;
  leaseMs: number;
}

export type FileLockAnswer =
  /** `fence`: the temp files of every earlier holder whose lease lapsed unreleased, to remove before the file is checked. */
  { outcome: 'granted'; fence: string[] } | { outcome: 'busy'; retryAfterMs: number };

/** One writer per file across the fleet. */
export interface FileLockStore {
  /**
   * Take a file's write lock when it is free or its lease lapsed. A lapsed
   * holder's name joins the fence the new holder is given; the fence is kept
   * (for FILE_LOCK_RECORD_MS) until a holder releases, which says it removed
   * every temp file named in it.
   */
  lockFile(request: FileLockRequest, now: number): Promise<FileLockAnswer>;
  /** Release a file's lock, fence included, when `holder` still holds it; otherwise nothing. */
  unlockFile(tenant: string, path: string, holder: string): Promise<void>;
}
