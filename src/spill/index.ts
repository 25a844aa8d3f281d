import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../shared/clock.js';
import { createFsSpillStore } from './fs.js';
import type { SpillStore } from './spill-store.js';

export interface SpillStoreOptions {
  ttlMs: number;
  clock: Clock;
  /** Spilled bytes a tenant may hold (config `spill.tenant_quota_bytes`); past it its oldest outputs are removed. */
  tenantQuotaBytes?: number;
  onQuotaRemoval?: () => void;
}

/**
 * The spill store a `TOOLGATE_SPILL_URL` names: `file:///abs/dir`, or
 * `file://./rel/dir` resolved against the working directory. Throws on any
 * other URL, for the config loader to report.
 */
export function createSpillStore(url: string, options: SpillStoreOptions): SpillStore {
  if (/^file:\/\//i.test(url)) return createFsSpillStore({ dir: fileUrlToDir(url), ...options });
  if (/^s3:\/\//i.test(url)) throw new Error('The S3 spill store is not available in this build; use a file:// spill URL.');
  throw new Error('Unsupported spill store URL: expected file://<dir> or s3://<bucket>/<prefix>.');
}

function fileUrlToDir(url: string): string {
  const rest = url.slice('file://'.length);
  // `file://./dir` is not a valid file URL (its host would be "."), but it is the natural way to write a relative directory.
  if (/^\.\.?(\/|$)/.test(rest)) return resolve(decodeURIComponent(rest));
  return fileURLToPath(url);
}
