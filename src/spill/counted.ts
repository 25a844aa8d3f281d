import { createHash } from 'node:crypto';
import type { SpillOutcome, SpillStore } from './spill-store.js';

/**
 * `store.put` with a store failure turned into a `SpillFailure` (told to `onFailure`): the rest of a stream is still
 * read, counted and hashed. A failure of the content itself (an upstream reset) still rejects: it is the tool's.
 */
export async function putOrCount(
  store: SpillStore,
  tenant: string,
  content: string | Buffer | AsyncIterable<Buffer>,
  onFailure: (err: unknown) => void,
): Promise<SpillOutcome> {
  const hash = createHash('sha256');
  let bytes = 0;
  const count = (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
  };
  const whole = typeof content === 'string' || Buffer.isBuffer(content);
  const source = whole ? undefined : content[Symbol.asyncIterator]();
  let sourceFailed = false;
  const pull = async () => {
    try {
      return await source!.next();
    } catch (err) {
      sourceFailed = true;
      throw err;
    }
  };
  // Pulled by hand, not with for-await: a store that gives up must not close the source, whose rest is still to be counted.
  const fed = source
    ? (async function* () {
        for (let next = await pull(); !next.done; next = await pull()) {
          count(next.value);
          yield next.value;
        }
      })()
    : content;
  try {
    return await store.put(tenant, fed);
  } catch (err) {
    if (sourceFailed) throw err;
    onFailure(err);
    if (source) for (let next = await pull(); !next.done; next = await pull()) count(next.value);
    else count(typeof content === 'string' ? Buffer.from(content, 'utf8') : (content as Buffer));
    return { failed: true, bytes, sha256: hash.digest('hex') };
  }
}
