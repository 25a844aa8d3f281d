import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Clock } from '../shared/clock.js';
import { createdAt, ID_PATTERN, newId, tenantSegment } from './s3-keys.js';
import { quotaFor, type QuotaEntry, type TenantQuota } from './quota.js';
import { S3Client, S3Error, xmlValues, type S3Credentials, type S3Location } from './s3-client.js';
import type { SpillRead, SpillRecord, SpillStore } from './spill-store.js';

export interface S3SpillStoreOptions {
  location: S3Location;
  credentials: S3Credentials;
  prefix: string;
  ttlMs: number;
  clock: Clock;
  /** A slow store is a failed spill, not a stalled call. */
  timeoutMs: number;
  tenantQuotaBytes?: number;
  onQuotaRemoval?: () => void;
  dispatcher?: Dispatcher;
}

/** S3's smallest part but the last; parts are buffered one at a time, so this bounds memory per spill. */
const PART_BYTES = 5 * 1024 * 1024;
const CONTENT_TYPE = 'text/plain; charset=utf-8';
const READ_BODY_TIMEOUT_MS = 300_000;

function firstBytes(body: Readable, limit: number): Readable {
  body.on('error', () => {});
  return Readable.from(
    (async function* () {
      let left = limit;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (chunk.length >= left) {
          yield chunk.subarray(0, left);
          return;
        }
        left -= chunk.length;
        yield chunk;
      }
    })(),
  );
}

/**
 * Parts of exactly `PART_BYTES`, counted and hashed, in two buffers used in turn: a part must be sent before the one after
 * next is read. Each chunk is copied into its part as it comes, so at most the two parts are held; only until a first part
 * fills are the chunks held as they came, so an output under one part never takes a part's buffer.
 */
async function* inParts(content: string | Buffer | AsyncIterable<Buffer>, counted: { bytes: number; hash: ReturnType<typeof createHash> }) {
  const source = typeof content === 'string' ? [Buffer.from(content, 'utf8')] : Buffer.isBuffer(content) ? [content] : content;
  const buffers: Buffer[] = [];
  let turn = 0;
  let held: Buffer[] = [];
  let filled = 0;
  for await (const chunk of source) {
    counted.hash.update(chunk);
    counted.bytes += chunk.length;
    let offset = 0;
    while (offset < chunk.length) {
      let part = buffers[turn];
      if (part === undefined) {
        if (buffers.length === 0 && filled + chunk.length - offset < PART_BYTES) {
          held.push(offset === 0 ? chunk : chunk.subarray(offset));
          filled += chunk.length - offset;
          break;
        }
        part = buffers[turn] = Buffer.allocUnsafe(PART_BYTES);
        let at = 0;
        for (const piece of held) at += piece.copy(part, at);
        held = [];
      }
      const copied = chunk.copy(part, filled, offset, offset + PART_BYTES - filled);
      offset += copied;
      filled += copied;
      if (filled === PART_BYTES) {
        turn = 1 - turn;
        filled = 0;
        yield part;
      }
    }
  }
  // No empty last part after full ones; an empty output is one empty part.
  if (filled > 0 || buffers.length === 0) yield buffers[turn]?.subarray(0, filled) ?? Buffer.concat(held, filled);
}

/**
 * `<prefix>/<tenant>/<id>` holds the output; its sha256 (metadata, set by a copy onto itself after a multipart upload)
 * is the commit: an object without it is not served. The quota is counted from the bucket's listing each time.
 */
export class S3SpillStore implements SpillStore {
  private readonly client: S3Client;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly clock: Clock;
  private readonly quota: TenantQuota | undefined;

  constructor(options: S3SpillStoreOptions) {
    this.client = new S3Client({
      location: options.location,
      credentials: options.credentials,
      timeoutMs: options.timeoutMs,
      ...(options.dispatcher && { dispatcher: options.dispatcher }),
    });
    this.prefix = options.prefix === '' ? '' : `${options.prefix}/`;
    this.ttlMs = options.ttlMs;
    this.clock = options.clock;
    this.quota = quotaFor(
      options,
      { list: (tenant) => this.entries(tenant), remove: (tenant, id) => this.remove(this.key(tenant, id)) },
      true,
    );
  }

  async put(tenant: string, content: string | Buffer | AsyncIterable<Buffer>): Promise<SpillRecord> {
    const createdMs = this.clock.now();
    const id = newId(createdMs);
    const key = this.key(tenant, id);
    const counted = { bytes: 0, hash: createHash('sha256') };
    this.quota?.writing(tenant, id);
    let sha256: string;
    try {
      sha256 = await this.upload(
        key,
        inParts(content, counted),
        { 'content-type': CONTENT_TYPE, 'x-amz-meta-tenant': tenantSegment(tenant) },
        () => counted.hash.digest('hex'),
      );
    } catch (err) {
      this.quota?.abandon(tenant, id);
      throw err;
    }
    // Outside the try: a removal that fails must not take the committed output with it.
    await this.quota?.add(tenant, { id, bytes: counted.bytes, createdAt: createdMs });
    return { id, uri: `s3://${this.client.bucket}/${key}`, bytes: counted.bytes, sha256 };
  }

  async get(tenant: string, id: string, range?: { start: number; end: number }): Promise<SpillRead | null> {
    if (!this.live(id)) return null;
    const response = await this.client.send({
      operation: 'GetObject',
      method: 'GET',
      key: this.key(tenant, id),
      headers: range ? { range: `bytes=${range.start}-${range.end}` } : {},
      accept: [404],
      bodyTimeoutMs: READ_BODY_TIMEOUT_MS,
    });
    const sha256 = this.committedSha(tenant, response);
    if (sha256 === null) {
      await response.body.dump();
      return null;
    }
    const served = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(response.headers['content-range'] ?? ''));
    const size = Number(served?.[3] ?? response.headers['content-length']);
    // Some S3-compatible servers (s3rver) answer `bytes=0-0` with the whole object: cut what was not asked for.
    const over = range && served && Number(served[2]) > range.end;
    return { size, sha256, body: over ? firstBytes(response.body, range.end - range.start + 1) : response.body };
  }

  async stat(tenant: string, id: string): Promise<{ size: number; sha256: string } | null> {
    if (!this.live(id)) return null;
    const response = await this.client.send({ operation: 'HeadObject', method: 'HEAD', key: this.key(tenant, id), accept: [404] });
    await response.body.dump();
    const sha256 = this.committedSha(tenant, response);
    return sha256 === null ? null : { size: Number(response.headers['content-length']), sha256 };
  }

  async sweep(now: number): Promise<number> {
    const expired = (await this.client.list(this.prefix)).filter(({ key }) => {
      const [segment, id, ...more] = key.slice(this.prefix.length).split('/');
      return more.length === 0 && segment !== undefined && id !== undefined && ID_PATTERN.test(id) && now - createdAt(id) >= this.ttlMs;
    });
    // One at a time: background work, and some servers (s3rver) race on parallel deletes.
    for (const { key } of expired) await this.remove(key);
    return expired.length;
  }

  async ping(): Promise<void> {
    await (await this.client.send({ operation: 'HeadBucket', method: 'HEAD', key: null })).body.dump();
  }

  private async upload(key: string, content: AsyncGenerator<Buffer>, meta: Record<string, string>, digest: () => string): Promise<string> {
    const first = await content.next();
    const second = await content.next();
    if (second.done) {
      const sha256 = digest();
      await (
        await this.client.send({
          operation: 'PutObject',
          method: 'PUT',
          key,
          headers: { ...meta, 'x-amz-meta-sha256': sha256 },
          body: first.value!,
        })
      ).body.dump();
      return sha256;
    }
    let uploadId: string | undefined;
    let completed = false;
    try {
      const created = await this.client.sendForXml({
        operation: 'CreateMultipartUpload',
        method: 'POST',
        key,
        query: { uploads: '' },
        headers: meta,
      });
      uploadId = xmlValues(created, 'UploadId')[0];
      if (!uploadId) throw new S3Error('CreateMultipartUpload', 200, 'NoUploadId');
      const etags: string[] = [];
      const part = async (body: Buffer) => {
        const query = { partNumber: String(etags.length + 1), uploadId: uploadId! };
        const answer = await this.client.send({ operation: 'UploadPart', method: 'PUT', key, query, body });
        await answer.body.dump();
        etags.push(String(answer.headers.etag ?? ''));
      };
      await part(first.value!);
      for (let next: IteratorResult<Buffer> = second; !next.done; next = await content.next()) await part(next.value);
      const manifest = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`).join('');
      const body = `<CompleteMultipartUpload>${manifest}</CompleteMultipartUpload>`;
      await this.client.sendForXml({ operation: 'CompleteMultipartUpload', method: 'POST', key, query: { uploadId }, body });
      completed = true;
      const sha256 = digest();
      const copy = { 'x-amz-meta-sha256': sha256, 'x-amz-copy-source': this.client.copySource(key), 'x-amz-metadata-directive': 'REPLACE' };
      await this.client.sendForXml({ operation: 'CopyObject', method: 'PUT', key, headers: { ...meta, ...copy } });
      return sha256;
    } catch (err) {
      // Best effort: sweep and the lifecycle rule collect what stays.
      if (completed) await this.remove(key).catch(() => {});
      else if (uploadId) {
        const abort = { operation: 'AbortMultipartUpload', method: 'DELETE', key, query: { uploadId } } as const;
        await this.client.send(abort).then(
          (r) => r.body.dump(),
          () => {},
        );
      }
      throw err;
    }
  }

  private key(tenant: string, id: string): string {
    return `${this.prefix}${tenantSegment(tenant)}/${id}`;
  }

  /** The age is in the id, so an expired output costs no request. */
  private live(id: string): boolean {
    return ID_PATTERN.test(id) && this.clock.now() - createdAt(id) < this.ttlMs;
  }

  private committedSha(tenant: string, response: Dispatcher.ResponseData): string | null {
    if (response.statusCode === 404) return null;
    const sha256 = response.headers['x-amz-meta-sha256'];
    // The key already derives from the tenant; the recorded owner is checked too so isolation does not rest on the layout alone.
    if (response.headers['x-amz-meta-tenant'] !== tenantSegment(tenant) || typeof sha256 !== 'string') return null;
    return sha256;
  }

  private async entries(tenant: string): Promise<QuotaEntry[]> {
    const dir = `${this.prefix}${tenantSegment(tenant)}/`;
    return (await this.client.list(dir)).flatMap(({ key, bytes }) => {
      const id = key.slice(dir.length);
      return ID_PATTERN.test(id) ? [{ id, bytes, createdAt: createdAt(id) }] : [];
    });
  }

  private async remove(key: string): Promise<void> {
    await (await this.client.send({ operation: 'DeleteObject', method: 'DELETE', key, accept: [404] })).body.dump();
  }
}

export function createS3SpillStore(options: S3SpillStoreOptions): S3SpillStore {
  return new S3SpillStore(options);
}
