import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../shared/clock.js';
import { createFsSpillStore } from './fs.js';
import { createS3SpillStore } from './s3.js';
import { S3Error, type S3ClientOptions, type S3Credentials } from './s3-client.js';

export type { S3ClientOptions } from './s3-client.js';

export { S3Client } from './s3-client.js';
import type { SpillStore } from './spill-store.js';

export interface SpillStoreOptions {
  ttlMs: number;
  clock: Clock;
  /** Config `spill.tenant_quota_bytes`. */
  tenantQuotaBytes?: number;
  onQuotaRemoval?: () => void;
  s3?: { endpoint?: string; region: string; credentials: Partial<S3Credentials>; timeoutMs: number };
}

/** Whether a failed first ping is the configuration's fault (an unwritable directory, a bucket that answers no), not an outage. */
export function refusesStartup(err: unknown): boolean {
  return !(err instanceof S3Error) ? !isNetworkError(err) : err.status >= 400 && err.status < 500;
}

function isNetworkError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    (code.startsWith('UND_ERR_') || ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code))
  );
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `file:///abs/dir`, `file://./rel/dir` or `s3://bucket/prefix`; throws on any other URL, or S3 without credentials. */
export function createSpillStore(url: string, options: SpillStoreOptions): SpillStore {
  if (/^file:\/\//i.test(url)) return createFsSpillStore({ dir: fileUrlToDir(url), ...options });
  if (/^s3:\/\//i.test(url)) return s3Store(url, options);
  throw new Error('Unsupported spill store URL: expected file://<dir> or s3://<bucket>/<prefix>.');
}

export function fileUrlToDir(url: string): string {
  const rest = url.slice('file://'.length);
  // `file://./dir` is not a valid file URL (its host would be "."), but it is the natural way to write a relative directory.
  if (/^\.\.?(\/|$)/.test(rest)) return resolve(decodeURIComponent(rest));
  return fileURLToPath(url);
}

/** How to reach an `s3://` URL's bucket: from `S3_ENDPOINT`, `AWS_REGION` and the `AWS_*` credentials. */
export type S3Settings = NonNullable<SpillStoreOptions['s3']>;

/** Throws when the bucket name is not one or the credentials are missing; `what` names the store in the message. */
export function s3Target(url: string, s3: S3Settings | undefined, what: string): S3ClientOptions & { prefix: string } {
  const parsed = new URL(url);
  const bucket = parsed.hostname;
  if (!BUCKET_NAME.test(bucket))
    throw new Error(
      `"${bucket}" is not a bucket name: expected s3://<bucket>/<prefix>, 3 to 63 lowercase letters, digits, dots and hyphens.`,
    );
  const { accessKeyId, secretAccessKey, sessionToken } = s3?.credentials ?? {};
  if (!s3 || !accessKeyId || !secretAccessKey)
    throw new Error(`an s3:// ${what} needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment.`);
  return {
    location: { bucket, region: s3.region, ...(s3.endpoint && { endpoint: s3.endpoint }) },
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) },
    prefix: decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, ''),
    timeoutMs: s3.timeoutMs,
  };
}

function s3Store(url: string, options: SpillStoreOptions) {
  const { s3, ...common } = options;
  return createS3SpillStore({ ...common, ...s3Target(url, s3, 'spill store') });
}
