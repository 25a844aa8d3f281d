import { describe, expect, it } from 'vitest';
import { contentBytes, fitContent, TEXT_ROOM_BYTES } from '../../../src/pipeline/content-budget.js';
import type { Payload } from '../../../src/protocol/result.js';
import type { SpillOutcome } from '../../../src/spill/spill-store.js';

/** Blocks are kept before text: the largest inline block moves while the blocks plus each payload's text room exceed the budget. */

const image = (bytes: number) => ({ type: 'image' as const, mime_type: 'image/png', data: Buffer.alloc(bytes, 7).toString('base64') });
const payload = (status: Payload['status'], ...content: Payload['content'] & object): Payload => ({
  status,
  text: 'x',
  content,
  truncated: null,
});
const stored: Buffer[] = [];
const spill = async (bytes: Buffer): Promise<SpillOutcome> => {
  stored.push(bytes);
  return { id: `o${stored.length}`, uri: `file:///o${stored.length}`, bytes: bytes.length, sha256: 'ab' };
};

describe('fitContent', () => {
  it('counts a block by the bytes its base64 decodes to', () => {
    expect(contentBytes(payload('success', image(3000), { type: 'resource', uri: 'u', mime_type: null, text: 'in the description' }))).toBe(
      3000,
    );
  });

  it('keeps a block that fits beside the room for the text; moves it when it does not', async () => {
    const one = payload('success', image(10_000));
    expect(await fitContent([one], [100], 10_100, spill)).toEqual([one]);
    const [moved] = await fitContent([one], [2000], 10_000 + TEXT_ROOM_BYTES - 1, spill);
    expect(moved).toMatchObject({
      status: 'partial',
      content: [
        {
          type: 'image',
          mime_type: 'image/png',
          bytes: 10_000,
          url: '/outputs/o1',
          note: 'over the output budget: GET /outputs/o1 for it',
        },
      ],
    });
    expect(stored.at(-1)!.equals(Buffer.alloc(10_000, 7))).toBe(true);
  });

  it('moves the largest block of the batch first, and only as many as needed; an error stays an error', async () => {
    const [a, b] = await fitContent([payload('error', image(6000)), payload('success', image(4000), image(1000))], [600, 600], 6100, spill);
    expect(a!.status).toBe('error');
    expect(a!.content![0]).toHaveProperty('url');
    expect(b!.status).toBe('success');
    expect(b!.content!.every((block) => 'data' in block)).toBe(true);
  });
});
