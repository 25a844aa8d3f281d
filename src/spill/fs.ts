import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat as fileStat, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import type { Clock } from '../shared/clock.js';
import { quotaFor, type QuotaEntry, type TenantQuota } from './quota.js';
import type { SpillRead, SpillRecord, SpillStore } from './spill-store.js';

interface FsSpillStoreOptions {
  dir: string;
  ttlMs: number;
  clock: Clock;
  /** Spilled bytes a tenant may hold; past it its oldest outputs are removed. None when absent. */
  tenantQuotaBytes?: number;
  onQuotaRemoval?: () => void;
}

interface EntryMeta {
  tenant: string;
  size: number;
  sha256: string;
  created_at: number;
}

/** 16 random bytes in base64url: 128 bits, and nothing a path could be built from. */
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
const TENANT_DIR_PATTERN = /^[0-9a-f]{64}$/;
const META_SUFFIX = '.json';
const TEMP_SUFFIX = '.tmp';

/**
 * `<dir>/<sha256(tenant)>/<id>` holds the bytes, `<id>.json` the metadata; the tenant directory is a hash so no tenant
 * string can name a path. Both are written under a temporary name and renamed, content first: the metadata is the commit.
 */
export class FsSpillStore implements SpillStore {
  private readonly dir: string;
  private readonly ttlMs: number;
  private readonly clock: Clock;
  private readonly quota: TenantQuota | undefined;

  constructor(options: FsSpillStoreOptions) {
    this.dir = resolve(options.dir);
    this.ttlMs = options.ttlMs;
    this.clock = options.clock;
    this.quota = quotaFor(options, {
      list: (tenant) => this.entries(tenant),
      remove: (tenant, id) => removeEntry(this.tenantDir(tenant), id),
    });
  }

  async put(tenant: string, content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillRecord> {
    const id = randomBytes(16).toString('base64url');
    this.quota?.writing(tenant, id);
    const dir = this.tenantDir(tenant);
    const file = join(dir, id);
    const metaFile = file + META_SUFFIX;
    const temps = [file + TEMP_SUFFIX, metaFile + TEMP_SUFFIX] as const;
    const hash = createHash('sha256');
    let size = 0;
    let meta: EntryMeta;
    const source = typeof content === 'string' ? [Buffer.from(content, 'utf8')] : Buffer.isBuffer(content) ? [content] : content;
    try {
      await mkdir(dir, { recursive: true });
      await pipeline(
        (async function* () {
          for await (const chunk of source) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        })(),
        // flush: a crash after the rename must not leave committed metadata over bytes that never reached the disk.
        createWriteStream(temps[0], { flags: 'wx', flush: true }),
      );
      meta = { tenant, size, sha256: hash.digest('hex'), created_at: this.clock.now() };
      await writeFile(temps[1], JSON.stringify(meta), { flag: 'wx', flush: true });
      await rename(temps[0], file);
      await rename(temps[1], metaFile);
    } catch (err) {
      await Promise.all([...temps, file, metaFile].map((path) => rm(path, { force: true })));
      this.quota?.abandon(tenant, id);
      throw err;
    }
    // Outside the try: a removal that fails must not take the committed output with it.
    await this.quota?.add(tenant, { id, bytes: meta.size, createdAt: meta.created_at });
    return { id, uri: pathToFileURL(file).href, bytes: meta.size, sha256: meta.sha256 };
  }

  async get(tenant: string, id: string, range?: { start: number; end: number }): Promise<SpillRead | null> {
    const meta = await this.liveMeta(tenant, id);
    if (!meta) return null;
    let handle: FileHandle;
    try {
      handle = await open(join(this.tenantDir(tenant), id), 'r');
    } catch (err) {
      // A sweep may remove the entry between reading its metadata and opening it.
      if (isNotFound(err)) return null;
      throw err;
    }
    const body = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    return { size: meta.size, sha256: meta.sha256, body };
  }

  async stat(tenant: string, id: string): Promise<{ size: number; sha256: string } | null> {
    const meta = await this.liveMeta(tenant, id);
    return meta && { size: meta.size, sha256: meta.sha256 };
  }

  async sweep(now: number): Promise<number> {
    let removed = 0;
    for (const tenantDir of await this.tenantDirs()) {
      const names = await readdir(tenantDir);
      const committed = new Set<string>();
      for (const name of names) {
        const id = name.slice(0, -META_SUFFIX.length);
        if (!name.endsWith(META_SUFFIX) || !ID_PATTERN.test(id)) continue;
        const meta = await readMeta(join(tenantDir, name));
        if (!meta) continue;
        committed.add(id);
        if (now - meta.created_at >= this.ttlMs) {
          await removeEntry(tenantDir, id);
          this.quota?.forget(meta.tenant, id);
          removed++;
        }
      }
      // Files of a put that crashed have no readable metadata, so they age by mtime instead.
      for (const name of names) {
        const id = name.split('.')[0] ?? '';
        if (committed.has(id)) continue;
        const path = join(tenantDir, name);
        const info = await fileStat(path).catch(() => null);
        if (info && now - info.mtimeMs >= this.ttlMs) await rm(path, { force: true });
      }
    }
    return removed;
  }

  async ping(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const probe = join(this.dir, `.ping-${randomBytes(8).toString('hex')}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  }

  private async entries(tenant: string): Promise<QuotaEntry[]> {
    const dir = this.tenantDir(tenant);
    const names = await readdir(dir).catch((err: unknown) => {
      if (isNotFound(err)) return [];
      throw err;
    });
    const found: QuotaEntry[] = [];
    for (const name of names) {
      const id = name.slice(0, -META_SUFFIX.length);
      if (!name.endsWith(META_SUFFIX) || !ID_PATTERN.test(id)) continue;
      const meta = await readMeta(join(dir, name));
      if (meta?.tenant === tenant) found.push({ id, bytes: meta.size, createdAt: meta.created_at });
    }
    return found;
  }

  private tenantDir(tenant: string): string {
    return join(this.dir, createHash('sha256').update(tenant, 'utf8').digest('hex'));
  }

  private async tenantDirs(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch((err: unknown) => {
      if (isNotFound(err)) return [];
      throw err;
    });
    return entries.filter((e) => e.isDirectory() && TENANT_DIR_PATTERN.test(e.name)).map((e) => join(this.dir, e.name));
  }

  private async liveMeta(tenant: string, id: string): Promise<EntryMeta | null> {
    if (!ID_PATTERN.test(id)) return null;
    const meta = await readMeta(join(this.tenantDir(tenant), id + META_SUFFIX));
    // The directory already derives from the tenant; the recorded owner is checked too so isolation does not rest on the layout alone.
    if (!meta || meta.tenant !== tenant) return null;
    return this.clock.now() - meta.created_at >= this.ttlMs ? null : meta;
  }
}

export function createFsSpillStore(options: FsSpillStoreOptions): FsSpillStore {
  return new FsSpillStore(options);
}

/** Metadata first: once it is gone no reader can find the entry, whatever happens to the content. */
async function removeEntry(tenantDir: string, id: string): Promise<void> {
  await rm(join(tenantDir, id + META_SUFFIX), { force: true });
  await rm(join(tenantDir, id), { force: true });
}

async function readMeta(path: string): Promise<EntryMeta | null> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
  try {
    return JSON.parse(raw) as EntryMeta;
  } catch {
    // Only a damaged file can fail to parse (writes are atomic); treat it as absent and let sweep age it out.
    return null;
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}
