import { crc32 } from 'node:zlib';

/**
 * Whether image bytes decode as far as their structure goes, walked from the first byte to the last (docs/api.md, "Images and other
 * content"): a file that only starts and ends like an image (a polyglot, text between a signature and a trailer) is not one.
 * - PNG: every chunk inside the file, each critical one (IHDR, PLTE, IDAT, IEND: an upper-case first letter) with its CRC-32; IHDR
 *   first, at least one IDAT, IEND last with nothing after it. An ancillary chunk's bad CRC is not a problem: decoders (libpng,
 *   browsers) skip such a chunk, and real files carry them (the reference MCP server's own sample image has one in iCCP).
 * - JPEG: the segments from SOI walked by their lengths up to SOS; a start-of-frame before it; EOI as the last two bytes.
 * - GIF: header, logical screen (and its color table), extensions, at least one image descriptor with its data, the trailer last.
 * - WebP: the RIFF chunks inside the file; a VP8 frame with its start code, a VP8L one with its signature, or a VP8X header
 *   followed by one of them (or animation frames).
 * The walk gives the size the image declares, or why the bytes are not the image.
 */
type ImageWalk = { width: number; height: number } | { problem: string };

const ascii = (bytes: Buffer, at: number, n: number) => bytes.toString('latin1', at, at + n);

function png(bytes: Buffer): ImageWalk {
  let at = 8;
  let size: { width: number; height: number } | undefined;
  let idat = false;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = ascii(bytes, at + 4, 4);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return { problem: `PNG chunk ${JSON.stringify(type)} runs past the end` };
    const critical = type.charCodeAt(0) >= 0x41 && type.charCodeAt(0) <= 0x5a;
    if (critical && crc32(bytes.subarray(at + 4, end - 4)) >>> 0 !== bytes.readUInt32BE(end - 4))
      return { problem: `PNG chunk ${JSON.stringify(type)} fails its CRC` };
    if (!size) {
      if (type !== 'IHDR' || length !== 13) return { problem: 'PNG does not start with IHDR' };
      size = { width: bytes.readUInt32BE(at + 8), height: bytes.readUInt32BE(at + 12) };
    } else if (type === 'IDAT') idat = true;
    else if (type === 'IEND') {
      if (!idat) return { problem: 'PNG has no IDAT chunk' };
      return end === bytes.length ? size : { problem: 'PNG has bytes after IEND' };
    }
    at = end;
  }
  return { problem: 'PNG has no IEND chunk' };
}

/** SOF0–SOF15 but DHT, JPG and DAC. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpeg(bytes: Buffer): ImageWalk {
  if (bytes.length < 4 || bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9)
    return { problem: 'JPEG does not end with EOI' };
  let at = 2;
  let size: { width: number; height: number } | undefined;
  while (at + 4 <= bytes.length - 2) {
    if (bytes[at] !== 0xff) return { problem: `JPEG has no segment marker at byte ${at}` };
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9) return { problem: 'JPEG has an SOI or EOI before its scan' };
    const length = bytes.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > bytes.length - 2) return { problem: 'JPEG segment runs past the end' };
    if (isStartOfFrame(marker)) {
      if (length < 8) return { problem: 'JPEG frame header is too short' };
      size = { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    if (marker === 0xda) return size ?? { problem: 'JPEG has a scan before any frame header' };
    at = end;
  }
  return { problem: 'JPEG has no scan (SOS)' };
}

/** The end of the data sub-blocks starting at `at` (after their 0 terminator); undefined when they run past the end. */
function subBlocksEnd(bytes: Buffer, at: number): number | undefined {
  while (at < bytes.length) {
    const size = bytes[at]!;
    at += 1 + size;
    if (size === 0) return at;
  }
  return undefined;
}

const colorTable = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);

function gif(bytes: Buffer): ImageWalk {
  if (bytes.length < 13) return { problem: 'GIF is shorter than its header' };
  const size = { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  let at = 13 + colorTable(bytes[10]!);
  let images = 0;
  while (at < bytes.length) {
    const introducer = bytes[at]!;
    let end: number | undefined;
    if (introducer === 0x3b) {
      if (images === 0) return { problem: 'GIF has no image' };
      return at === bytes.length - 1 ? size : { problem: 'GIF has bytes after its trailer' };
    } else if (introducer === 0x21) end = subBlocksEnd(bytes, at + 2);
    else if (introducer === 0x2c) {
      if (at + 11 > bytes.length) return { problem: 'GIF image descriptor runs past the end' };
      images++;
      end = subBlocksEnd(bytes, at + 10 + colorTable(bytes[at + 9]!) + 1);
    } else return { problem: `GIF has an unknown block 0x${introducer.toString(16)} at byte ${at}` };
    if (end === undefined) return { problem: 'GIF block runs past the end' };
    at = end;
  }
  return { problem: 'GIF has no trailer' };
}

/** A VP8 or VP8L frame's size from its chunk's data; undefined when the frame's own header is not there. */
function webpFrame(bytes: Buffer, type: string, at: number, length: number): { width: number; height: number } | undefined {
  if (type === 'VP8 ' && length >= 10 && bytes[at + 3] === 0x9d && bytes[at + 4] === 0x01 && bytes[at + 5] === 0x2a)
    return { width: bytes.readUInt16LE(at + 6) & 0x3fff, height: bytes.readUInt16LE(at + 8) & 0x3fff };
  if (type === 'VP8L' && length >= 5 && bytes[at] === 0x2f) {
    const bits = bytes.readUInt32LE(at + 1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return undefined;
}

function webp(bytes: Buffer): ImageWalk {
  if (bytes.length < 20 || bytes.readUInt32LE(4) + 8 !== bytes.length) return { problem: 'WebP RIFF size is not the file size' };
  let at = 12;
  let size: { width: number; height: number } | undefined;
  let extended = false;
  let frame = false;
  while (at + 8 <= bytes.length) {
    const type = ascii(bytes, at, 4);
    const length = bytes.readUInt32LE(at + 4);
    const end = at + 8 + length + (length % 2);
    if (end > bytes.length) return { problem: `WebP chunk ${JSON.stringify(type)} runs past the end` };
    if (at === 12) {
      if (type === 'VP8X') {
        if (length < 10) return { problem: 'WebP VP8X header is too short' };
        extended = true;
        size = { width: bytes.readUIntLE(at + 12, 3) + 1, height: bytes.readUIntLE(at + 15, 3) + 1 };
      } else {
        size = webpFrame(bytes, type, at + 8, length);
        if (!size) return { problem: `WebP has no VP8 or VP8L frame header` };
        frame = true;
      }
    } else if (extended && (type === 'VP8 ' || type === 'VP8L')) {
      if (!webpFrame(bytes, type, at + 8, length)) return { problem: `WebP ${type.trim()} chunk has no frame header` };
      frame = true;
    } else if (extended && type === 'ANMF') frame = true;
    at = end;
  }
  if (at !== bytes.length) return { problem: 'WebP has bytes after its last chunk' };
  return frame && size ? size : { problem: 'WebP has no image frame' };
}

/** Walks `bytes` as the image type `mime` (a canonical PNG, JPEG, GIF or WebP type). */
export function walkImage(bytes: Buffer, mime: string): ImageWalk {
  switch (mime) {
    case 'image/png':
      return png(bytes);
    case 'image/jpeg':
      return jpeg(bytes);
    case 'image/gif':
      return gif(bytes);
    default:
      return webp(bytes);
  }
}
