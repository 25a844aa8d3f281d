import { describe, expect, it } from 'vitest';
import { walkImage } from '../../../src/tools/image-structure.js';
import { GIF, JPEG, png, pngChunk, undecodableImages, WEBP } from '../../helpers/images.js';

/** Image bytes are walked from first to last byte before a model sees them (docs/api.md, "Images and other content"). */

describe('walkImage: a whole image gives its size', () => {
  it.each([
    ['PNG', png(64, 48), 'image/png', { width: 64, height: 48 }],
    ['JPEG', JPEG, 'image/jpeg', { width: 1, height: 1 }],
    ['GIF', GIF, 'image/gif', { width: 1, height: 1 }],
    ['WebP (VP8L)', WEBP, 'image/webp', { width: 1, height: 1 }],
  ])('%s', (_name, bytes, mime, size) => {
    expect(walkImage(bytes, mime)).toEqual(size);
  });

  it('a lossy WebP (VP8 with its start code) and an extended one (VP8X, then the frame) are whole', () => {
    const frame = Buffer.from([0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a, 3, 0, 2, 0, 0, 0]);
    const chunk = (type: string, data: Buffer) => {
      const head = Buffer.alloc(8);
      head.write(type, 0, 'latin1');
      head.writeUInt32LE(data.length, 4);
      return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
    };
    const riff = (...chunks: Buffer[]) => {
      const body = Buffer.concat([Buffer.from('WEBP'), ...chunks]);
      const head = Buffer.from('RIFF\0\0\0\0', 'latin1');
      head.writeUInt32LE(body.length, 4);
      return Buffer.concat([head, body]);
    };
    expect(walkImage(riff(chunk('VP8 ', frame)), 'image/webp')).toEqual({ width: 3, height: 2 });
    const vp8x = Buffer.from([0, 0, 0, 0, 2, 0, 0, 1, 0, 0]);
    expect(walkImage(riff(chunk('VP8X', vp8x), chunk('VP8 ', frame)), 'image/webp')).toEqual({ width: 3, height: 2 });
    expect(walkImage(riff(chunk('VP8X', vp8x)), 'image/webp')).toEqual({ problem: 'WebP has no image frame' });
  });
});

describe('walkImage: PNG chunk CRCs', () => {
  /** `bytes` with the CRC of its first chunk of `type` spoiled. */
  const spoil = (bytes: Buffer, type: string) => {
    const copy = Buffer.from(bytes);
    const at = copy.indexOf(type, 8, 'latin1');
    const crcAt = at + 4 + copy.readUInt32BE(at - 4);
    copy.writeUInt32BE((copy.readUInt32BE(crcAt) ^ 1) >>> 0, crcAt);
    return copy;
  };
  const withText = (image: Buffer) => Buffer.concat([image.subarray(0, 33), pngChunk('tEXt', Buffer.from('k\0v')), image.subarray(33)]);

  it('a critical chunk (IHDR, IDAT, IEND) with a bad CRC is refused', () => {
    for (const type of ['IHDR', 'IDAT', 'IEND'])
      expect(walkImage(spoil(png(4, 4), type), 'image/png')).toEqual({ problem: `PNG chunk "${type}" fails its CRC` });
  });

  it("an ancillary chunk's bad CRC is skipped as decoders skip it (the reference MCP server's sample image has one)", () => {
    expect(walkImage(withText(png(4, 4)), 'image/png')).toEqual({ width: 4, height: 4 });
    expect(walkImage(spoil(withText(png(4, 4)), 'tEXt'), 'image/png')).toEqual({ width: 4, height: 4 });
  });
});

describe('walkImage: bytes that only start and end like an image are not one', () => {
  it.each(undecodableImages().map((c) => [c.name, c.mime, c.bytes, c.problem] as const))('%s', (_name, mime, bytes, problem) => {
    const walk = walkImage(bytes, mime);
    expect(walk).toHaveProperty('problem');
    expect((walk as { problem: string }).problem).toContain(problem);
  });

  it('a PNG must start with IHDR and end with IEND, nothing after', () => {
    const whole = png(2, 2);
    const idat = pngChunk('IDAT', Buffer.alloc(4));
    expect(walkImage(Buffer.concat([whole.subarray(0, 8), idat, whole.subarray(8)]), 'image/png')).toEqual({
      problem: 'PNG does not start with IHDR',
    });
    expect(walkImage(whole.subarray(0, whole.length - 12), 'image/png')).toEqual({ problem: 'PNG has no IEND chunk' });
    expect(walkImage(Buffer.concat([whole, Buffer.from([0])]), 'image/png')).toEqual({ problem: 'PNG has bytes after IEND' });
  });

  it('a JPEG needs a frame header before its scan, a scan, and EOI last', () => {
    expect(walkImage(JPEG.subarray(0, JPEG.length - 2), 'image/jpeg')).toEqual({ problem: 'JPEG does not end with EOI' });
    expect(walkImage(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0, 0xff, 0xd9]), 'image/jpeg')).toEqual({
      problem: 'JPEG has a scan before any frame header',
    });
    expect(walkImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 2, 0xff, 0xd9]), 'image/jpeg')).toEqual({ problem: 'JPEG has no scan (SOS)' });
  });

  it('a GIF needs an image descriptor and its trailer last', () => {
    const screenOnly = Buffer.concat([GIF.subarray(0, 13 + 6), Buffer.from(';')]);
    expect(walkImage(screenOnly, 'image/gif')).toEqual({ problem: 'GIF has no image' });
    expect(walkImage(Buffer.concat([GIF, Buffer.from('x')]), 'image/gif')).toEqual({ problem: 'GIF has bytes after its trailer' });
    expect(walkImage(GIF.subarray(0, GIF.length - 1), 'image/gif')).toEqual({ problem: 'GIF has no trailer' });
  });
});
