import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditStore, OpenedChain } from './audit-store.js';
import { headOf, type ChainHead } from './chain.js';

const SEGMENT = /^\d{12}\.jsonl$/;
const LOCK = 'writer.pid';
const MAX_SUFFIX = 16;
const TAIL_CHUNK = 65_536;
/** Chains this process holds: a second store in the same process must not take one (its pid would look like ours). */
const held = new Set<string>();

interface FileAuditStoreOptions {
  dir: string;
  rotateBytes: number;
}

const segmentName = (first: number) => `${String(first).padStart(12, '0')}.jsonl`;

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Bytes after the last newline are a record a crash cut short; read backwards in chunks. */
async function lastLine(handle: FileHandle, size: number): Promise<{ line: string | null; end: number }> {
  const chunks: Buffer[] = [];
  let pos = size;
  let end = -1;
  while (pos > 0) {
    const length = Math.min(TAIL_CHUNK, pos);
    pos -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, pos);
    chunks.unshift(chunk);
    const joined = Buffer.concat(chunks);
    if (end < 0) {
      const last = joined.lastIndexOf(10);
      if (last < 0) continue;
      end = pos + last + 1;
    }
    const before = end - 1 - pos > 0 ? joined.lastIndexOf(10, end - 2 - pos) : -1;
    if (before >= 0) return { line: joined.subarray(before + 1, end - 1 - pos).toString('utf8'), end };
  }
  if (end < 0) return { line: null, end: 0 };
  return {
    line: Buffer.concat(chunks)
      .subarray(0, end - 1)
      .toString('utf8'),
    end,
  };
}

/**
 * `<dir>/<chain>/<first seq>.jsonl`, a new file past `rotateBytes`. A durable append's fdatasync flushes every record
 * before it, and a file is flushed before the next starts; a failed write is cut off so the file ends on a whole record.
 * `writer.pid` says which process holds a chain; one whose process is gone is taken over.
 */
class FileAuditStore implements AuditStore {
  private chain: string | undefined;
  private handle: FileHandle | undefined;
  private current: { path: string; size: number } | undefined;
  private size = 0;
  private tornAt: number | undefined;

  constructor(private readonly options: FileAuditStoreOptions) {}

  async open(replica: string): Promise<OpenedChain> {
    await mkdir(this.options.dir, { recursive: true });
    for (let i = 1; i <= MAX_SUFFIX; i++) {
      const chain = i === 1 ? replica : `${replica}-${i}`;
      if (!(await this.lock(chain))) continue;
      this.chain = chain;
      return { chain, head: await this.recover(chain) };
    }
    throw new Error(`the chains ${replica} to ${replica}-${MAX_SUFFIX} in ${this.options.dir} are all held by running processes`);
  }

  private async lock(chain: string): Promise<boolean> {
    const dir = join(this.options.dir, chain);
    if (held.has(dir)) return false;
    await mkdir(dir, { recursive: true });
    const path = join(dir, LOCK);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
        held.add(dir);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (pid !== process.pid && alive(pid)) return false;
      await unlink(path).catch(() => {});
    }
    return false;
  }

  /** Drops a half-written last record, and an empty last file, then reads where the chain ends. */
  private async recover(chain: string): Promise<ChainHead | null> {
    const segments = await this.segments(chain);
    while (segments.length > 0) {
      const path = join(this.options.dir, chain, segments.pop()!);
      const handle = await open(path, 'r+');
      try {
        const size = (await handle.stat()).size;
        const { line, end } = await lastLine(handle, size);
        if (end < size) {
          await handle.truncate(end);
          await handle.datasync();
        }
        if (line === null) {
          await unlink(path);
          continue;
        }
        const head = headOf(line);
        if (typeof head === 'string')
          throw new Error(`the last record of chain ${chain} (${path}) cannot be continued: ${head}; run toolgate audit verify`);
        this.current = { path, size: end };
        return head;
      } finally {
        await handle.close();
      }
    }
    return null;
  }

  async append(lines: readonly string[], first: number, durable: boolean): Promise<void> {
    if (this.chain === undefined) throw new Error('no chain opened');
    if (this.handle && this.tornAt !== undefined) {
      await this.handle.truncate(this.tornAt);
      this.tornAt = undefined;
    }
    if (!this.handle || this.size >= this.options.rotateBytes) await this.begin(first);
    const handle = this.handle!;
    const data = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    try {
      for (let at = 0; at < data.length;) at += (await handle.write(data, at)).bytesWritten;
      if (durable) await handle.datasync();
      this.size += data.length;
    } catch (err) {
      this.tornAt = this.size;
      await handle.truncate(this.size).then(
        () => (this.tornAt = undefined),
        () => {},
      );
      throw err;
    }
  }

  private async begin(first: number): Promise<void> {
    // Records the last appends left to the OS are flushed before a later file can hold records that follow them.
    await this.handle?.datasync();
    await this.handle?.close();
    this.handle = undefined;
    const resumed = this.current;
    this.current = undefined;
    if (resumed && resumed.size < this.options.rotateBytes) {
      this.handle = await open(resumed.path, 'a');
      this.size = resumed.size;
      return;
    }
    const dir = join(this.options.dir, this.chain!);
    this.handle = await open(join(dir, segmentName(first)), 'a');
    this.size = 0;
    // The new file's name must survive a crash as its records do.
    await syncDir(dir);
  }

  async chains(): Promise<string[]> {
    const entries = await readdir(this.options.dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  }

  async segments(chain: string): Promise<string[]> {
    return (await readdir(join(this.options.dir, chain))).filter((name) => SEGMENT.test(name)).sort();
  }

  /** Whole lines only: bytes after the last newline are a write in progress, or a crash's. */
  async *lines(chain: string, segment: string): AsyncIterable<string> {
    let rest = '';
    for await (const chunk of createReadStream(join(this.options.dir, chain, segment), { encoding: 'utf8', highWaterMark: TAIL_CHUNK })) {
      const parts = (rest + (chunk as string)).split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
  }

  async ping(): Promise<void> {
    const probe = join(this.options.dir, '.probe');
    await writeFile(probe, '');
    await unlink(probe);
  }

  async close(): Promise<void> {
    try {
      await this.handle?.datasync();
    } finally {
      await this.handle?.close();
      this.handle = undefined;
    }
    if (this.chain === undefined) return;
    const dir = join(this.options.dir, this.chain);
    held.delete(dir);
    await unlink(join(dir, LOCK)).catch(() => {});
    this.chain = undefined;
  }
}

export function createFileAuditStore(options: FileAuditStoreOptions): AuditStore {
  return new FileAuditStore(options);
}
