import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSpillStore, type FsSpillStore } from '../../../src/spill/fs.js';
import { createSpillStore } from '../../../src/spill/index.js';
import { S3SpillStore } from '../../../src/spill/s3.js';
import { ManualClock } from '../../../src/shared/clock.js';

const TTL = 60_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

let root: string;
let dir: string;
const clock = new ManualClock();
let store: FsSpillStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolgate-spill-'));
  dir = join(root, 'spill');
  store = createFsSpillStore({ dir, ttlMs: TTL, clock });
});

afterEach(() => rm(root, { recursive: true, force: true }));

describe('createSpillStore', () => {
  it('opens a file store from an absolute file:// URL', async () => {
    const fromUrl = createSpillStore(pathToFileURL(dir).href, { ttlMs: TTL, clock });
    const record = await fromUrl.put('acme', 'via url');
    expect(record.uri.startsWith(pathToFileURL(dir).href + '/')).toBe(true);
    expect(await store.stat('acme', record.id)).toEqual({ size: 7, sha256: sha256('via url') });
  });

  it('resolves file://./relative against the working directory', async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const relativeStore = createSpillStore('file://./data/spill', { ttlMs: TTL, clock });
      const record = await relativeStore.put('acme', 'relative');
      expect(record.uri.startsWith(pathToFileURL(join(root, 'data', 'spill')).href + '/')).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  });

  it('opens an S3 store only with credentials and a valid bucket name, and refuses other schemes', () => {
    const s3 = (credentials: object) => ({ region: 'us-east-1', credentials, timeoutMs: 1000 });
    expect(() => createSpillStore('s3://bucket/prefix', { ttlMs: TTL, clock })).toThrow(/AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    expect(() => createSpillStore('s3://bucket/prefix', { ttlMs: TTL, clock, s3: s3({ accessKeyId: 'k' }) })).toThrow(
      /AWS_SECRET_ACCESS_KEY/,
    );
    expect(() => createSpillStore('s3://Bad_Bucket/p', { ttlMs: TTL, clock, s3: s3({ accessKeyId: 'k', secretAccessKey: 's' }) })).toThrow(
      /not a bucket name/,
    );
    expect(
      createSpillStore('s3://bucket/prefix', { ttlMs: TTL, clock, s3: s3({ accessKeyId: 'k', secretAccessKey: 's' }) }),
    ).toBeInstanceOf(S3SpillStore);
    expect(() => createSpillStore('https://example.com/x', { ttlMs: TTL, clock })).toThrow(/Unsupported spill store URL/);
    expect(() => createSpillStore('file://remote-host/dir', { ttlMs: TTL, clock })).toThrow();
  });
});
