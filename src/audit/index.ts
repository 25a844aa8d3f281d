import { hostname } from 'node:os';
import { fileUrlToDir, s3Target, type S3Settings } from '../spill/index.js';
import type { AuditStore } from './audit-store.js';
import { createFileAuditStore } from './file-store.js';
import { createS3AuditStore } from './s3-store.js';

export type { AuditStore } from './audit-store.js';
export type { AuditEntry, AuditRecord, CallEntry, AuditDecision } from './record.js';
export { AuditTrail, AuditUnavailableError } from './trail.js';
export { verifyChain } from './verify.js';
export { queryAudit } from './query.js';

/** `file://` (JSON Lines files) or `s3://` (objects, on the spill's endpoint and credentials); throws on any other URL. */
export function createAuditStore(url: string, rotateBytes: number, s3: S3Settings | undefined): AuditStore {
  if (/^file:\/\//i.test(url)) return createFileAuditStore({ dir: fileUrlToDir(url), rotateBytes });
  if (/^s3:\/\//i.test(url)) return createS3AuditStore(s3Target(url, s3, 'audit store'));
  throw new Error('Unsupported audit store URL: expected file://<dir> or s3://<bucket>/<prefix>.');
}

/** `audit.replica`, else the host name (a worker's with `-worker`), cut to a valid name. */
export function replicaName(configured: string | undefined, role: 'server' | 'worker'): string {
  if (configured !== undefined) return configured;
  const host =
    hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .slice(0, 50) || 'toolgate';
  return role === 'worker' ? `${host}-worker` : host;
}
