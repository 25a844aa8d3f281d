import { inject } from 'vitest';
import { createS3SpillStore } from '../../../src/spill/s3.js';
import { s3StoreOptions } from '../../helpers/s3.js';
import { describeSpillQuota } from '../../suites/spill-quota.suite.js';
import { describeSpillStore } from '../../suites/spill-store.suite.js';

describeSpillStore('s3', async () => {
  const options = s3StoreOptions(inject('s3Endpoint'));
  return { open: (more) => createS3SpillStore({ ...options, ...more }), cleanup: async () => {} };
});

describeSpillQuota('s3', async () => {
  const options = s3StoreOptions(inject('s3Endpoint'));
  return { open: (more) => createS3SpillStore({ ...options, ...more }), cleanup: async () => {} };
});
