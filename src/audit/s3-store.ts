import { S3Client, type S3ClientOptions } from '../spill/index.js';
import type { AuditStore, OpenedChain } from './audit-store.js';
import { headOf, type ChainHead } from './chain.js';

const SEGMENT = /^\d{12}\.jsonl$/;
const CONTENT_TYPE = 'application/x-ndjson';

type S3AuditStoreOptions = S3ClientOptions & {
  prefix: string;
};

/**
 * `<prefix>/<chain>/<first seq>.jsonl`, one object per append, so a batch is in whole or not at all. Nothing tells it
 * another process writes the same chain: each process needs its own replica name.
 */
class S3AuditStore implements AuditStore {
  private readonly client: S3Client;
  private readonly prefix: string;
  private chain: string | undefined;

  constructor(options: S3AuditStoreOptions) {
    this.client = new S3Client(options);
    this.prefix = options.prefix === '' ? '' : `${options.prefix}/`;
  }

  async open(replica: string): Promise<OpenedChain> {
    await this.ping();
    this.chain = replica;
    return { chain: replica, head: await this.head(replica) };
  }

  private async head(chain: string): Promise<ChainHead | null> {
    const segments = await this.segments(chain);
    for (let i = segments.length - 1; i >= 0; i--) {
      let last: string | undefined;
      for await (const line of this.lines(chain, segments[i]!)) last = line;
      if (last === undefined) continue;
      const head = headOf(last);
      if (typeof head === 'string')
        throw new Error(`the last record of chain ${chain} (${segments[i]}) cannot be continued: ${head}; run toolgate audit verify`);
      return head;
    }
    return null;
  }

  async append(lines: readonly string[], first: number): Promise<void> {
    if (this.chain === undefined) throw new Error('no chain opened');
    const key = `${this.prefix}${this.chain}/${String(first).padStart(12, '0')}.jsonl`;
    const body = `${lines.join('\n')}\n`;
    await (
      await this.client.send({ operation: 'PutObject', method: 'PUT', key, body, headers: { 'content-type': CONTENT_TYPE } })
    ).body.dump();
  }

  async chains(): Promise<string[]> {
    const names = new Set<string>();
    for (const { key } of await this.client.list(this.prefix)) {
      const [chain, segment, ...more] = key.slice(this.prefix.length).split('/');
      if (more.length === 0 && chain && segment && SEGMENT.test(segment)) names.add(chain);
    }
    return [...names].sort();
  }

  async segments(chain: string): Promise<string[]> {
    const dir = `${this.prefix}${chain}/`;
    return (await this.client.list(dir))
      .map(({ key }) => key.slice(dir.length))
      .filter((name) => SEGMENT.test(name))
      .sort();
  }

  async *lines(chain: string, segment: string): AsyncIterable<string> {
    const response = await this.client.send({ operation: 'GetObject', method: 'GET', key: `${this.prefix}${chain}/${segment}` });
    const text = await response.body.text();
    const lines = text.split('\n');
    lines.pop();
    yield* lines;
  }

  async ping(): Promise<void> {
    await (await this.client.send({ operation: 'HeadBucket', method: 'HEAD', key: null })).body.dump();
  }

  async close(): Promise<void> {
    this.chain = undefined;
  }
}

export function createS3AuditStore(options: S3AuditStoreOptions): AuditStore {
  return new S3AuditStore(options);
}
