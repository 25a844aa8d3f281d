import { pino } from 'pino';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { inspectConfig } from '../../../src/config/load.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { S3SpillStore } from '../../../src/spill/s3.js';
import { prepare } from '../../../src/startup.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { S3RVER_CREDENTIALS, TEST_BUCKET } from '../../helpers/s3.js';

let workspace: string;
const dispatchers = createHttpDispatchers();
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

function start(env: NodeJS.ProcessEnv) {
  const full = { TOOLGATE_WORKSPACE: workspace, TOOLGATE_SPILL_URL: `s3://${TEST_BUCKET}/startup`, ...env };
  return prepare(inspectConfig(full, undefined), full, dispatchers, createMetrics({ processMetrics: false }), pino({ level: 'silent' }));
}

/** TOOLGATE_SPILL_URL=s3://… with S3_ENDPOINT and the AWS_* variables, checked before the port opens. */
describe('start-up with an s3:// spill store', () => {
  const credentials = { AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey };

  it('opens the store on the bucket the environment names', async () => {
    const { spill } = await start({ ...credentials, S3_ENDPOINT: inject('s3Endpoint'), AWS_REGION: 'eu-west-1' });
    expect(spill).toBeInstanceOf(S3SpillStore);
    expect((await spill.put('acme', 'hello')).uri).toMatch(new RegExp(`^s3://${TEST_BUCKET}/startup/acme/`));
  });

  it('stops on missing credentials and on a bucket that refuses them, listing the problem', async () => {
    await expect(start({ S3_ENDPOINT: inject('s3Endpoint') })).rejects.toThrow(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    // s3rver checks the access key id, not SigV4 signatures: an unknown key is its refusal.
    await expect(start({ AWS_ACCESS_KEY_ID: 'nobody', AWS_SECRET_ACCESS_KEY: 'x', S3_ENDPOINT: inject('s3Endpoint') })).rejects.toThrow(
      /spill\.url s3:\/\/toolgate-test\/startup: S3 HeadBucket answered 403/,
    );
    await expect(start({ ...credentials, S3_ENDPOINT: inject('s3Endpoint'), TOOLGATE_SPILL_URL: 's3://no-such-bucket/p' })).rejects.toThrow(
      /HeadBucket answered 404/,
    );
  });

  it('starts while the store is only unreachable: /readyz reports it until it answers', async () => {
    const { spill } = await start({ ...credentials, S3_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    await expect(spill.ping()).rejects.toThrow();
  });
});
