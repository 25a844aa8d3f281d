import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../../src/protocol/content.js';
import { limitImages } from '../../../src/tools/content.js';

const image = (bytes: number): ContentBlock =>
  ({ type: 'image', mime_type: 'image/png', data: Buffer.alloc(bytes, 1).toString('base64') }) as ContentBlock;

describe('limits.image_bytes bounds one image: a larger one is kept in the spill store, and the call is IMAGE_TOO_LARGE', () => {
  it('leaves images within the limit inline', async () => {
    const content = [image(10)];
    expect(await limitImages(content, 10, () => Promise.reject(new Error('no spill expected')))).toBeUndefined();
    expect(content[0]).toHaveProperty('data');
  });

  it('moves an image over it to the spill store and names the first such block', async () => {
    const spilled: number[] = [];
    const content = [image(5), image(20), image(30)];
    const error = await limitImages(content, 10, async (bytes) => {
      spilled.push(bytes.length);
      return { id: `o${spilled.length}`, uri: 'memory://', bytes: bytes.length, sha256: 'x' };
    });
    expect(spilled).toEqual([20, 30]);
    expect(error).toMatchObject({ code: 'IMAGE_TOO_LARGE', details: { block: 1, bytes: 20, limit: 10, url: '/outputs/o1' } });
    expect(content[1]).toMatchObject({ url: '/outputs/o1', bytes: 20 });
    expect(content[1]).not.toHaveProperty('data');
  });
});
