import { describe, expect, it } from 'vitest';
import { walkImage } from '../../../src/tools/image-structure.js';
import { describeBytes, imageTypeOf, isTextualMime, MAX_IMAGE_SIDE, mediaMismatch } from '../../../src/tools/media.js';
import { claimed, GIF, JPEG, png, wav, WEBP } from '../../helpers/images.js';

/** What image and audio bytes are, told by the bytes (docs/api.md, "Images and other content"). */

const PNG = png(64, 48);

describe('imageTypeOf and walkImage', () => {
  it.each([
    ['PNG', PNG, 'image/png', { width: 64, height: 48 }],
    ['JPEG', JPEG, 'image/jpeg', { width: 1, height: 1 }],
    ['GIF', GIF, 'image/gif', { width: 1, height: 1 }],
    ['WebP', WEBP, 'image/webp', { width: 1, height: 1 }],
  ])('a %s is told by its bytes, and its size by its header', (_name, bytes, mime, size) => {
    expect(imageTypeOf(bytes)).toBe(mime);
    expect(walkImage(bytes, mime)).toEqual(size);
  });

  it('a JPEG without a start-of-frame segment has no size', () => {
    expect(walkImage(Buffer.from([0xff, 0xd8, 0xff, 0xd9, 0, 0, 0, 0, 0, 0, 0, 0]), 'image/jpeg')).toHaveProperty('problem');
  });
});

describe('describeBytes: what bytes are, for an error', () => {
  it.each([
    [PNG, 'image/png'],
    [wav(5), 'audio/wav'],
    [Buffer.from('OggS\0\x02\0\0\0\0\0\0\0\0'), 'audio/ogg'],
    [Buffer.from('ID3\x04\0\0\0\0\0\0\0\0'), 'audio/mpeg'],
    [Buffer.from('plain text, with a tab\tand lines\n'), 'text'],
    [Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), 'unrecognised binary data'],
    [Buffer.alloc(0), 'empty'],
  ])('%#: %s', (bytes, what) => {
    expect(describeBytes(bytes)).toBe(what);
  });
});

describe('mediaMismatch: a block is what it declares, or says why not', () => {
  it('a whole image of the declared type within the providers’ size passes; an alias of the type is that type', () => {
    expect(mediaMismatch('image', 'image/png', PNG)).toBeUndefined();
    expect(mediaMismatch('image', 'image/jpg', JPEG)).toBeUndefined();
    expect(mediaMismatch('image', 'IMAGE/PNG; charset=binary', PNG)).toBeUndefined();
    expect(mediaMismatch('audio', 'audio/x-wav', wav(5))).toBeUndefined();
    expect(mediaMismatch('image', 'image/png', claimed(MAX_IMAGE_SIDE, MAX_IMAGE_SIDE))).toBeUndefined();
    // AAC in an MP4 container (an .m4a file) is AAC too; MP4 audio is not taken for AAC's ADTS the other way round.
    const m4a = Buffer.from('\0\0\0\x20ftypM4A \0\0\0\0', 'latin1');
    expect(mediaMismatch('audio', 'audio/aac', m4a)).toBeUndefined();
    expect(mediaMismatch('audio', 'audio/mp4', Buffer.from([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]))).toContain('audio/aac');
  });

  it.each([
    ['image', 'image/png', Buffer.from('a text file named text.png\n'), 'bytes are text, not image/png'],
    ['image', 'image/gif', PNG, 'bytes are image/png, not image/gif'],
    ['image', 'image/png', PNG.subarray(0, PNG.length - 1), 'bytes are not a whole image/png'],
    ['image', 'image/png', claimed(MAX_IMAGE_SIDE + 1, 10), `image is ${MAX_IMAGE_SIDE + 1}×10 pixels`],
    ['image', 'text/plain', PNG, 'declared type text/plain is not an image type'],
    ['audio', 'audio/wav', PNG, 'bytes are image/png, not audio/wav'],
    ['audio', 'audio/mpeg', wav(5), 'bytes are audio/wav, not audio/mpeg'],
    ['audio', 'audio/amr', JPEG, 'bytes are image/jpeg, not audio/amr'],
  ] as const)('%s declared %s: %s', (type, declared, bytes, why) => {
    expect(mediaMismatch(type, declared, bytes)).toContain(why);
  });

  it('a type the gateway cannot tell passes unless the bytes are of another kind it can, or text (SVG is markup)', () => {
    expect(
      mediaMismatch('audio', 'audio/amr', Buffer.from([...Buffer.from('#!AMR\n'), 0x3c, 0x91, 0x17, 0x16, 0xbe, 0x66, 0x78, 0])),
    ).toBeUndefined();
    expect(mediaMismatch('image', 'image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toContain(
      'bytes are text, not an image a provider takes (image/svg+xml)',
    );
    expect(mediaMismatch('audio', 'audio/amr', Buffer.from('just text, declared audio'))).toContain('bytes are text');
  });

  it('text-typed media types are told case-insensitively, parameters aside', () => {
    for (const type of [
      'text/plain',
      'TEXT/CSV; charset=utf-8',
      'application/json',
      'application/ld+json',
      'image/svg+xml',
      'application/xml',
    ])
      expect(isTextualMime(type)).toBe(true);
    for (const type of ['image/png', 'application/octet-stream', 'audio/mpeg']) expect(isTextualMime(type)).toBe(false);
  });
});
