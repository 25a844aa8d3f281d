import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { putOrCount } from '../../../src/spill/counted.js';
import type { SpillStore } from '../../../src/spill/spill-store.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A store whose put reads `reads` chunks of a stream, then fails as a full disk would. */
function failingStore(reads = 1): SpillStore {
  return {
    put: async (_tenant: string, content: string | Buffer | AsyncIterable<Buffer>) => {
      if (typeof content !== 'string' && !Buffer.isBuffer(content)) {
        let n = 0;
        for await (const _chunk of content) if (++n >= reads) break;
      }
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    },
  } as Partial<SpillStore> as SpillStore;
}

async function* chunks(parts: string[], failAfter?: number): AsyncIterable<Buffer> {
  for (const [i, part] of parts.entries()) {
    if (i === failAfter) throw new Error('upstream reset');
    yield Buffer.from(part);
  }
}

describe('putOrCount', () => {
  it('turns a store failure into a SpillFailure with the whole stream counted and hashed, told to onFailure', async () => {
    const failures: unknown[] = [];
    const outcome = await putOrCount(failingStore(), 'acme', chunks(['ab', 'cd', 'ef']), (err) => failures.push(err));
    expect(outcome).toEqual({ failed: true, bytes: 6, sha256: sha256('abcdef') });
    expect(failures).toEqual([expect.objectContaining({ code: 'ENOSPC' })]);
  });

  it('counts a whole string or buffer the store refused', async () => {
    expect(await putOrCount(failingStore(), 'acme', 'héllo', () => {})).toEqual({ failed: true, bytes: 6, sha256: sha256('héllo') });
  });

  it('rejects when the content itself fails: that is the tool’s failure, not the store’s', async () => {
    const failures: unknown[] = [];
    await expect(putOrCount(failingStore(5), 'acme', chunks(['ab', 'cd', 'ef'], 1), (err) => failures.push(err))).rejects.toThrow(
      'upstream reset',
    );
    expect(failures).toEqual([]);
  });

  it("gives the store's record when the put works", async () => {
    const record = { id: 'x', uri: 'file:///x', bytes: 2, sha256: sha256('ok') };
    const store = { put: async () => record } as Partial<SpillStore> as SpillStore;
    expect(await putOrCount(store, 'acme', 'ok', () => {})).toBe(record);
  });
});
