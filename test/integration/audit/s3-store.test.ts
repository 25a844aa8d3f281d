import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createS3AuditStore } from '../../../src/audit/s3-store.js';
import { S3Client } from '../../../src/spill/index.js';
import { s3StoreOptions } from '../../helpers/s3.js';
import { describeAuditStore } from '../../suites/audit-store.suite.js';

describeAuditStore('s3', async () => {
  const options = s3StoreOptions(inject('s3Endpoint'), `audit-${randomBytes(6).toString('hex')}`);
  const client = new S3Client(options);
  return {
    open: () => createS3AuditStore(options),
    rewrite: async (chain, segment, edit) => {
      const key = `${options.prefix}/${chain}/${segment}`;
      const text = await (await client.send({ operation: 'GetObject', method: 'GET', key })).body.text();
      await (await client.send({ operation: 'PutObject', method: 'PUT', key, body: edit(text) })).body.dump();
    },
    cleanup: async () => {},
  };
});
