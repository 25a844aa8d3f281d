import { createReadStream, read } from 'node:fs';
import { promisify } from 'node:util';
import { counted } from '../../shared/count.js';
import type { ContentBlock } from '../../protocol/content.js';
import { imageTooLarge, keptBlock, limitImages, overImageLimit } from '../content.js';
import { isWholeImage } from '../media.js';
import type { ToolContext, ToolOutput } from '../tool.js';

const readAsync = promisify(read);

/** Thrown by Read's first look at a file whose bytes say image; Read then reads it as one (see readImage). */
export class ImageFile {
  constructor(readonly mime: string) {}
}

/**
 * An image file as Read's output: one `image` block and a line naming it; over `limits.image_bytes` it is spilled and the call answers
 * IMAGE_TOO_LARGE with its url, as it does over MAX_IMAGE_PIXELS. Undefined when the file is not a whole image (Read refuses it as binary).
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
  if (!isWholeImage(bytes, mime)) return undefined;
  const content: ContentBlock[] = [{ type: 'image', mime_type: mime, data: bytes.toString('base64') }];
  const error = await limitImages(content, ctx.imageBytes, ctx.spill);
  return { text, content, data: stamp, ...(error && { error }) };
}
