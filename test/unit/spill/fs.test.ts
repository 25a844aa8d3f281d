import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsSpillStore, type FsSpillStore } from '../../../src/spill/fs.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { describeSpillQuota } from '../../suites/spill-quota.suite.js';
import { describeSpillStore, drain } from '../../suites/spill-store.suite.js';

const TTL = 60_000;

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

describeSpillStore('fs', async () => {
  const storeRoot = await mkdtemp(join(tmpdir(), 'toolgate-spill-suite-'));
  return {
    open: (options) => createFsSpillStore({ dir: storeRoot, ...options }),
    cleanup: () => rm(storeRoot, { recursive: true, force: true }),
  };
});

describeSpillQuota('fs', async () => {
  const quotaRoot = await mkdtemp(join(tmpdir(), 'toolgate-spill-quota-'));
  return {
    open: (options) => createFsSpillStore({ dir: quotaRoot, ...options }),
    cleanup: () => rm(quotaRoot, { recursive: true, force: true }),
  };
});

describe('FsSpillStore layout', () => {
  it('gives a file:// uri naming the absolute path of the stored bytes', async () => {
    const record = await store.put('acme', 'content');
    expect(record.uri.startsWith(pathToFileURL(dir).href + '/')).toBe(true);
    expect(await readFile(fileURLToPath(record.uri), 'utf8')).toBe('content');
  });
});

describe('FsSpillStore isolation and hostile input', () => {
  it('never reads outside the store, whatever the id (the suite checks the rest of the malformed ids)', async () => {
    await writeFile(join(root, 'outside'), 'not yours');
    const record = await store.put('acme', 'mine');
    for (const id of ['../outside', '../../outside', '..%2Foutside', `../${record.id}`, `${record.id}.json`]) {
      expect(await store.get('acme', id), id).toBeNull();
    }
  });

  it('keeps every tenant string inside the store directory', async () => {
    const tenants = ['../../escape', '..', '.', 'a/b', '/abs', '%2e%2e', 'nul\0byte', '', 'ü'.repeat(5000), 'x'.repeat(10_000)];
    const records = await Promise.all(tenants.map((t) => store.put(t, `for ${t.slice(0, 20)}`)));
    expect(await readdir(root)).toEqual(['spill']);
    for (const record of records) expect(fileURLToPath(record.uri).startsWith(dir + '/')).toBe(true);
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
