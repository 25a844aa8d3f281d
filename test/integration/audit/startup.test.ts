import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { inspectConfig } from '../../../src/config/load.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { prepare } from '../../../src/startup.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { S3RVER_CREDENTIALS, TEST_BUCKET } from '../../helpers/s3.js';
import { callEntry } from '../../suites/audit-store.suite.js';

let scratch: string;
const dispatchers = createHttpDispatchers();
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-audit-start-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

const credentials = { AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey };

function start(env: NodeJS.ProcessEnv, file?: string, lines: string[] = []) {
  const full = { TOOLGATE_WORKSPACE: join(scratch, 'ws'), TOOLGATE_SPILL_URL: `file://${join(scratch, 'spill')}`, ...env };
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  return prepare(inspectConfig(full, file), full, dispatchers, createMetrics({ processMetrics: false }), logger);
}

describe('audit.url at start-up', () => {
  it('another scheme, a directory that cannot be written, an unreachable bucket: start-up stops naming audit.url', async () => {
    await expect(start({ TOOLGATE_AUDIT_URL: 'ftp://host/audit' })).rejects.toThrow(
      /audit\.url ftp:\/\/host\/audit: Unsupported audit store URL/,
    );
    writeFileSync(join(scratch, 'plain-file'), '');
    await expect(start({ TOOLGATE_AUDIT_URL: `file://${join(scratch, 'plain-file', 'audit')}` })).rejects.toThrow(
      /audit\.url file:\/\/.*plain-file\/audit: .*ENOTDIR/,
    );
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(start({ ...credentials, S3_ENDPOINT: closed, TOOLGATE_AUDIT_URL: `s3://${TEST_BUCKET}/audit` })).rejects.toThrow(
      /audit\.url s3:\/\/toolgate-test\/audit: /,
    );
    await expect(start({ S3_ENDPOINT: closed, TOOLGATE_AUDIT_URL: `s3://${TEST_BUCKET}/audit` })).rejects.toThrow(
      /audit\.url .*AWS_ACCESS_KEY_ID/,
    );
  });

  it('an s3:// trail opens on the bucket and writes there', async () => {
    const { audit, mcp } = await start({
      ...credentials,
      S3_ENDPOINT: inject('s3Endpoint'),
      TOOLGATE_AUDIT_URL: `s3://${TEST_BUCKET}/audit-start`,
    });
    await audit!.record(callEntry(1), true);
    expect(await audit!.store.segments(audit!.chain)).toEqual(['000000000001.jsonl']);
    await audit!.close();
    await mcp.close();
  });

  it('audit: false writes none, and says so', async () => {
    const file = join(scratch, 'off.yaml');
    writeFileSync(file, 'audit: false\n');
    const lines: string[] = [];
    const { audit, mcp } = await start({}, file, lines);
    expect(audit).toBeUndefined();
    expect(lines.some((line) => JSON.parse(line).msg === 'audit: false: no audit trail is written')).toBe(true);
    await mcp.close();
  });
});
