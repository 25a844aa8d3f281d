import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createS3SpillStore, type S3SpillStoreOptions } from '../../../src/spill/s3.js';
import { S3RVER_CREDENTIALS, TEST_BUCKET } from '../../helpers/s3.js';
import { describeSpillQuota } from '../../suites/spill-quota.suite.js';
import { describeSpillStore } from '../../suites/spill-store.suite.js';

/** A store on the run's S3 server under a prefix of its own, so tests share the bucket without seeing each other. */
export function s3StoreOptions(endpoint: string, prefix = `t-${randomBytes(6).toString('hex')}`): Omit<S3SpillStoreOptions, 'ttlMs' | 'clock'> {
  return { location: { bucket: TEST_BUCKET, region: 'us-east-1', endpoint }, credentials: S3RVER_CREDENTIALS, prefix, timeoutMs: 5_000 };
}

describeSpillStore('s3', async () => {
  const options = s3StoreOptions(inject('s3Endpoint'));
  return { open: (more) => createS3SpillStore({ ...options, ...more }), cleanup: async () => {} };
});

describeSpillQuota('s3', async () => {
  const options = s3StoreOptions(inject('s3Endpoint'));
  return { open: (more) => createS3SpillStore({ ...options, ...more }), cleanup: async () => {} };
});
