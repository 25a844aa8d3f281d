import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSpillStore, type FsSpillStore } from '../../../src/spill/fs.js';
import { createSpillStore } from '../../../src/spill/index.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { describeSpillQuota } from '../../suites/spill-quota.suite.js';

const TTL = 60_000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

async function drain(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every file below `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

let root: string;
let dir: string;
let clock: ManualClock;
let store: FsSpillStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'toolgate-spill-'));
  dir = join(root, 'spill');
  clock = new ManualClock();
  store = createFsSpillStore({ dir, ttlMs: TTL, clock });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describeSpillQuota('fs', async () => {
  const quotaRoot = await mkdtemp(join(tmpdir(), 'toolgate-spill-quota-'));
  return {
    open: (options) => createFsSpillStore({ dir: quotaRoot, ...options }),
    cleanup: () => rm(quotaRoot, { recursive: true, force: true }),
  };
});

describe('FsSpillStore round trip', () => {
  it('stores a string and reads back the same bytes, sha256 and size', async () => {
    const content = 'hello, spill\n'.repeat(1000);
    const record = await store.put('acme', content);
    expect(record.bytes).toBe(Buffer.byteLength(content));
    expect(record.sha256).toBe(sha256(content));
    const read = await store.get('acme', record.id);
    expect(read).not.toBeNull();
    const bytes = await drain(read!.body);
    expect(bytes.toString('utf8')).toBe(content);
    expect(sha256(bytes)).toBe(record.sha256);
    expect({ size: read!.size, sha256: read!.sha256 }).toEqual({ size: record.bytes, sha256: record.sha256 });
    expect(await store.stat('acme', record.id)).toEqual({ size: record.bytes, sha256: record.sha256 });
  });

  it('uses random URL-safe ids of at least 128 bits', async () => {
    const ids = await Promise.all(Array.from({ length: 50 }, () => store.put('acme', 'x').then((r) => r.id)));
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(id, 'base64url').length).toBeGreaterThanOrEqual(16);
    }
  });

  it('gives a file:// uri naming the absolute path of the stored bytes', async () => {
    const record = await store.put('acme', 'content');
    expect(record.uri.startsWith(pathToFileURL(dir).href + '/')).toBe(true);
    expect(await readFile(fileURLToPath(record.uri), 'utf8')).toBe('content');
  });

  it('stores a Buffer and an async iterable as they arrive', async () => {
    const buffer = Buffer.from([0, 1, 2, 255, 254]);
    const fromBuffer = await store.put('acme', buffer);
    expect(await drain((await store.get('acme', fromBuffer.id))!.body)).toEqual(buffer);

    async function* chunks() {
      for (let i = 0; i < 100; i++) yield Buffer.from(`chunk ${i};`);
    }
    const expected = Array.from({ length: 100 }, (_, i) => `chunk ${i};`).join('');
    const fromIterable = await store.put('acme', chunks());
    expect(fromIterable).toMatchObject({ bytes: Buffer.byteLength(expected), sha256: sha256(expected) });
    expect((await drain((await store.get('acme', fromIterable.id))!.body)).toString()).toBe(expected);
  });

  it('round-trips unicode and serves exactly the inclusive byte range asked for', async () => {
    const content = 'αβγ 漢字テキスト 😀🎉 mixed ascii\n'.repeat(50);
    const bytes = Buffer.from(content, 'utf8');
    const record = await store.put('acme', content);
    expect(record.sha256).toBe(sha256(bytes));
    for (const [start, end] of [
      [0, 0],
      [0, bytes.length - 1],
      [1, 2],
      [7, 40],
      [bytes.length - 1, bytes.length - 1],
      [100, 1000],
    ] as const) {
      const read = await store.get('acme', record.id, { start, end });
      expect(await drain(read!.body)).toEqual(bytes.subarray(start, end + 1));
      expect(read!.size).toBe(bytes.length);
    }
  });

  it('stores an empty output', async () => {
    const record = await store.put('acme', '');
    expect(record).toMatchObject({ bytes: 0, sha256: sha256('') });
    expect((await drain((await store.get('acme', record.id))!.body)).length).toBe(0);
  });

  it('keeps concurrent puts apart', async () => {
    const contents = Array.from({ length: 30 }, (_, i) => `output ${i} `.repeat(500 + i));
    const records = await Promise.all(contents.map((c, i) => store.put(i % 2 ? 'acme' : 'globex', c)));
    expect(new Set(records.map((r) => r.id)).size).toBe(contents.length);
    await Promise.all(
      records.map(async (record, i) => {
        const read = await store.get(i % 2 ? 'acme' : 'globex', record.id);
        expect((await drain(read!.body)).toString()).toBe(contents[i]);
      }),
    );
  });
});

describe('FsSpillStore isolation and hostile input', () => {
  it("finds nothing under another tenant's name", async () => {
    const record = await store.put('acme', 'secret');
    expect(await store.get('globex', record.id)).toBeNull();
    expect(await store.stat('globex', record.id)).toBeNull();
    expect(await store.get('ACME', record.id)).toBeNull();
  });

  it('answers null for malformed ids and never reads outside the store', async () => {
    await writeFile(join(root, 'outside'), 'not yours');
    const record = await store.put('acme', 'mine');
    const hostile = [
      '',
      '.',
      '..',
      '../outside',
      '../../outside',
      `../${record.id}`,
      '%2e%2e%2foutside',
      '..%2Foutside',
      `${record.id}\0`,
      `\0${record.id.slice(1)}`,
      `${record.id}.json`,
      `${record.id}/`,
      '/etc/passwd',
      'a'.repeat(10_000),
      'A'.repeat(22),
    ];
    for (const id of hostile) {
      expect(await store.get('acme', id), JSON.stringify(id.slice(0, 40))).toBeNull();
      expect(await store.stat('acme', id)).toBeNull();
    }
  });

  it('keeps every tenant string inside the store directory and apart from the others', async () => {
    const tenants = ['../../escape', '..', '.', 'a/b', '/abs', '%2e%2e', 'nul\0byte', '', 'ü'.repeat(5000), 'x'.repeat(10_000)];
    const records = await Promise.all(tenants.map((t) => store.put(t, `for ${t.slice(0, 20)}`)));
    expect(await readdir(root)).toEqual(['spill']);
    for (const record of records) expect(fileURLToPath(record.uri).startsWith(dir + '/')).toBe(true);
    for (const [i, tenant] of tenants.entries()) {
      expect((await drain((await store.get(tenant, records[i]!.id))!.body)).toString()).toBe(`for ${tenant.slice(0, 20)}`);
      const other = tenants[(i + 1) % tenants.length]!;
      expect(await store.get(other, records[i]!.id)).toBeNull();
    }
  });
});

describe('FsSpillStore writes atomically', () => {
  it('leaves nothing behind when the async iterable fails', async () => {
    async function* failing() {
      yield Buffer.from('first part');
      yield Buffer.from('second part');
      throw new Error('upstream reset');
    }
    await expect(store.put('acme', failing())).rejects.toThrow('upstream reset');
    expect(await filesUnder(dir)).toEqual([]);
  });

  it('shows no committed entry while a put is still streaming', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const midway = new Promise<void>((r) => (started = r));
    async function* slow() {
      yield Buffer.from('half');
      started();
      await gate;
      yield Buffer.from(' and the rest');
    }
    const pending = store.put('acme', slow());
    await midway;
    // The write stream opens its file asynchronously: the first chunk can be read before the file is there.
    let during = await filesUnder(dir);
    for (let tries = 0; during.length === 0 && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      during = await filesUnder(dir);
    }
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((f) => f.endsWith('.tmp'))).toBe(true);
    release();
    const record = await pending;
    expect((await drain((await store.get('acme', record.id))!.body)).toString()).toBe('half and the rest');
    expect((await filesUnder(dir)).some((f) => f.endsWith('.tmp'))).toBe(false);
  });
});

describe('FsSpillStore expiry', () => {
  it('hides an entry once its TTL has passed and sweep deletes it', async () => {
    const record = await store.put('acme', 'short-lived');
    clock.advance(TTL - 1);
    expect(await store.stat('acme', record.id)).not.toBeNull();
    expect(await store.sweep(clock.now())).toBe(0);

    clock.advance(1);
    expect(await store.get('acme', record.id)).toBeNull();
    expect(await store.stat('acme', record.id)).toBeNull();
    expect(await filesUnder(dir)).toHaveLength(2);
    expect(await store.sweep(clock.now())).toBe(1);
    expect(await filesUnder(dir)).toEqual([]);
  });

  it('sweeps by created_at: only the entries older than the TTL go', async () => {
    const old = await store.put('acme', 'old');
    clock.advance(TTL / 2);
    const young = await store.put('globex', 'young');
    clock.advance(TTL / 2);
    expect(await store.sweep(clock.now())).toBe(1);
    expect(await store.stat('acme', old.id)).toBeNull();
    expect(await store.stat('globex', young.id)).not.toBeNull();
  });

  it('removes the leftovers of a crashed put by file age without counting them', async () => {
    // Leftovers have no metadata, so their age is the file mtime: the clock must read wall time here.
    clock.set(Date.now());
    const record = await store.put('acme', 'kept');
    const tenantDir = join(dir, createHash('sha256').update('acme').digest('hex'));
    const stale = new Date(clock.now() - 2 * TTL);
    for (const name of ['AAAAAAAAAAAAAAAAAAAAAA.tmp', 'BBBBBBBBBBBBBBBBBBBBBB', 'CCCCCCCCCCCCCCCCCCCCCC.json.tmp']) {
      await writeFile(join(tenantDir, name), 'partial');
      await utimes(join(tenantDir, name), stale, stale);
    }
    await writeFile(join(tenantDir, 'DDDDDDDDDDDDDDDDDDDDDD.tmp'), 'a put in progress');
    expect(await store.sweep(clock.now())).toBe(0);
    expect((await readdir(tenantDir)).sort()).toEqual(['DDDDDDDDDDDDDDDDDDDDDD.tmp', record.id, `${record.id}.json`].sort());
    expect(await store.stat('acme', record.id)).not.toBeNull();
  });

  it('sweeps a store that has never been written', async () => {
    expect(await store.sweep(clock.now())).toBe(0);
  });
});

describe('FsSpillStore ping', () => {
  it('creates the directory and succeeds when it is writable', async () => {
    await store.ping();
    expect(await readdir(dir)).toEqual([]);
  });

  it('fails when the directory cannot be created', async () => {
    await writeFile(join(root, 'a-file'), '');
    const broken = createFsSpillStore({ dir: join(root, 'a-file', 'spill'), ttlMs: TTL, clock });
    await expect(broken.ping()).rejects.toThrow();
  });
});

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

  it('says S3 is not available in this build, and refuses other schemes', () => {
    expect(() => createSpillStore('s3://bucket/prefix', { ttlMs: TTL, clock })).toThrow(/S3 spill store is not available/);
    expect(() => createSpillStore('https://example.com/x', { ttlMs: TTL, clock })).toThrow(/Unsupported spill store URL/);
    expect(() => createSpillStore('file://remote-host/dir', { ttlMs: TTL, clock })).toThrow();
  });
});
