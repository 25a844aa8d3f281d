import { createReadStream, read } from 'node:fs';
import { promisify } from 'node:util';
import { counted } from '../../shared/count.js';
import { imageTooLarge, keptBlock, overImageLimit } from '../content.js';
import type { ToolContext, ToolOutput } from '../tool.js';

const readAsync = promisify(read);

/** The bytes an image file's kind is told by: the longest signature checked (WebP's RIFF header). */
const SIGNATURE_BYTES = 12;

const startsWith = (head: Buffer, bytes: readonly number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const IHDR = ascii('IHDR');
const IEND = [...ascii('IEND'), 0xae, 0x42, 0x60, 0x82];

/** The media type of a PNG, JPEG, GIF or WebP file, told by its first bytes (never its name); undefined for anything else. */
export function imageTypeOf(head: Buffer): string | undefined {
  if (head.length < SIGNATURE_BYTES) return undefined;
  if (startsWith(head, PNG)) return 'image/png';
  if (startsWith(head, JPEG)) return 'image/jpeg';
  if (startsWith(head, GIF87) || startsWith(head, GIF89)) return 'image/gif';
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return 'image/webp';
  return undefined;
}

/** Whether the whole file has the structure its signature promises: a file cut short or patched is read as binary. */
function isWhole(bytes: Buffer, mime: string): boolean {
  switch (mime) {
    case 'image/png':
      return bytes.length >= 57 && startsWith(bytes, IHDR, 12) && startsWith(bytes, IEND, bytes.length - 8);
    case 'image/jpeg':
      return bytes.length >= 4 && bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9;
    case 'image/gif':
      return bytes.length >= 14 && bytes[bytes.length - 1] === 0x3b;
    default:
      return bytes.readUInt32LE(4) + 8 === bytes.length;
  }
}

/** Thrown by Read's first look at a file whose bytes say image; Read then reads it as one (see readImage). */
export class ImageFile {
  constructor(readonly mime: string) {}
}

/**
 * An image file as Read's output: one `image` block and a line naming it; over `limits.image_bytes` it is spilled and the call answers
 * IMAGE_TOO_LARGE with its url. Undefined when the file is not a whole image (Read refuses it as binary).
 */
export async function readImage(fd: number, size: number, mime: string, ctx: ToolContext, stamp: unknown): Promise<ToolOutput | undefined> {
  const text = `(an ${mime} image of ${counted(size, 'byte')}; it is in content)`;
  if (size > ctx.imageBytes) {
    const outcome = await ctx.spill(createReadStream('', { fd, start: 0, autoClose: false }));
    const kept = keptBlock({ type: 'image', mime_type: mime }, outcome, overImageLimit(ctx.imageBytes));
    return { text, content: [kept], data: stamp, error: imageTooLarge(0, mime, size, ctx.imageBytes, kept) };
  }
  const bytes = Buffer.allocUnsafe(size);
  for (let at = 0; at < size;) {
    const { bytesRead } = await readAsync(fd, bytes, at, size - at, at);
    if (bytesRead === 0) return undefined;
    at += bytesRead;
  }
  if (!isWhole(bytes, mime)) return undefined;
  return { text, content: [{ type: 'image', mime_type: mime, data: bytes.toString('base64') }], data: stamp };
}
