import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../../src/protocol/content.js';
import { limitImages, MAX_INLINE_IMAGES, OVER_IMAGE_COUNT } from '../../../src/tools/content.js';
import { MAX_IMAGE_PIXELS } from '../../../src/tools/media.js';
import { claimed, png } from '../../helpers/images.js';

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

describe('what one result shows inline: MAX_IMAGE_PIXELS per image, MAX_INLINE_IMAGES images', () => {
  const store = (spilled: number[]) => async (bytes: Buffer) => {
    spilled.push(bytes.length);
    return { id: `o${spilled.length}`, uri: 'memory://', bytes: bytes.length, sha256: 'x' };
  };
  const pngBlock = (bytes: Buffer): ContentBlock => ({ type: 'image', mime_type: 'image/png', data: bytes.toString('base64') });

  it('an image declaring more than MAX_IMAGE_PIXELS (a decompression bomb) is kept in the spill store: IMAGE_TOO_LARGE', async () => {
    const spilled: number[] = [];
    const bomb = claimed(8000, 8000);
    const content = [pngBlock(png(2, 2)), pngBlock(bomb)];
    const error = await limitImages(content, 1 << 20, store(spilled));
    expect(spilled).toEqual([bomb.length]);
    expect(error).toMatchObject({ code: 'IMAGE_TOO_LARGE', details: { block: 1, url: '/outputs/o1' } });
    expect(error?.message).toContain(`more than ${MAX_IMAGE_PIXELS} pixels, the limit for one image`);
    expect(content[1]).toMatchObject({ note: expect.stringContaining('pixels, the most an image shown to a model may have') });
    expect(content[0]).toHaveProperty('data');
  });

  it(`images past the first ${MAX_INLINE_IMAGES} are moved with a note, and the call is no error for it`, async () => {
    const spilled: number[] = [];
    const content = Array.from({ length: MAX_INLINE_IMAGES + 3 }, () => pngBlock(png(2, 2)));
    expect(await limitImages(content, 1 << 20, store(spilled))).toBeUndefined();
    expect(spilled).toHaveLength(3);
    expect(content.filter((block) => 'data' in block)).toHaveLength(MAX_INLINE_IMAGES);
    expect(content[MAX_INLINE_IMAGES]).toMatchObject({ url: '/outputs/o1', note: `${OVER_IMAGE_COUNT}: GET /outputs/o1 for it` });
  });
});
