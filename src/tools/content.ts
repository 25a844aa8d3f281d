import { base64Bytes, payloadBuffer, type ContentBlock, type InlineBlock } from '../protocol/content.js';
import { GatewayError } from '../protocol/errors.js';
import { isSpillFailure, type SpillOutcome } from '../spill/spill-store.js';
import { counted } from '../shared/count.js';
import { MAX_IMAGE_PIXELS, overPixelBound } from './media.js';

/** Stores one block's payload for the caller's tenant; a store failure is an outcome, never a rejection. */
export type SpillBytes = (content: Buffer) => Promise<SpillOutcome>;

/**
 * A block whose payload is in the spill store: `url` names it and `note` says why, for the model; when the store failed, `url` is null and
 * the note says the payload was not kept. `head` is the block without its payload.
 */
export function keptBlock(head: Record<string, unknown>, outcome: SpillOutcome, why: string): ContentBlock {
  if (isSpillFailure(outcome)) {
    const note = `${why}; it was not kept: the spill store is unavailable`;
    return {
      ...head,
      bytes: outcome.bytes,
      sha256: outcome.sha256,
      url: null,
      note,
      spill_error: 'The spill store is unavailable.',
    } as ContentBlock;
  }
  const url = `/outputs/${outcome.id}`;
  return { ...head, bytes: outcome.bytes, sha256: outcome.sha256, url, note: `${why}: GET ${url} for it` } as ContentBlock;
}

/** The block with its inline payload moved to the spill store (see keptBlock). */
export async function spillBlock(block: InlineBlock, spill: SpillBytes, why: string): Promise<ContentBlock> {
  const { data: _data, text: _text, ...head } = block as InlineBlock & { data?: string; text?: string };
  return keptBlock(head, await spill(payloadBuffer(block)), why);
}

/** Why an image is not inline: over `limits.image_bytes`. */
export function overImageLimit(limit: number): string {
  return `over limits.image_bytes (${counted(limit, 'byte')})`;
}

/** The most images one result, and one answer, shows inline: Anthropic takes at most 20 images of any size in one request. */
export const MAX_INLINE_IMAGES = 20;

/** Why an image is not inline: more pixels than MAX_IMAGE_PIXELS. */
const OVER_PIXELS = `over ${counted(MAX_IMAGE_PIXELS, 'pixel')}, the most an image shown to a model may have`;

/** Why an image is not inline: past the MAX_INLINE_IMAGES one result shows. */
export const OVER_IMAGE_COUNT = `past the first ${MAX_INLINE_IMAGES} images, which are all one result or answer shows inline`;

/** The error of a call whose `content[index]` is an image over the limit in bytes or pixels, kept at `url`. */
export function imageTooLarge(index: number, mime: string, bytes: number, limit: number, kept: ContentBlock, pixels = false): GatewayError {
  const over = pixels
    ? `has more than ${counted(MAX_IMAGE_PIXELS, 'pixel')}, the limit for one image`
    : `is over the limit of ${counted(limit, 'byte')} for one image`;
  return new GatewayError('IMAGE_TOO_LARGE', {
    message: `content[${index}], an ${mime} image of ${counted(bytes, 'byte')}, ${over}.`,
    details: { block: index, bytes, limit, url: 'url' in kept ? kept.url : null },
    suggestion: 'Ask for a smaller image (a lower resolution or a part of it); the whole image is kept at the url in details.',
  });
}

/**
 * `limits.image_bytes` and MAX_IMAGE_PIXELS bound one image: an image over either is moved to the spill store (nothing is lost) and
 * the call answers IMAGE_TOO_LARGE naming the first such block, its size and where it is kept. Images past the first MAX_INLINE_IMAGES
 * inline ones are moved too, with a note, and the call is not an error for it. Replaces the blocks in `content`; undefined when no image
 * is over a limit.
 */
export async function limitImages(content: ContentBlock[], limit: number, spill: SpillBytes): Promise<GatewayError | undefined> {
  let error: GatewayError | undefined;
  let shown = 0;
  for (const [i, block] of content.entries()) {
    if (block.type !== 'image' || !('data' in block)) continue;
    const bytes = base64Bytes(block.data);
    const pixels = bytes <= limit && overPixelBound(Buffer.from(block.data, 'base64'), block.mime_type);
    if (bytes <= limit && !pixels) {
      if (++shown <= MAX_INLINE_IMAGES) continue;
      content[i] = await spillBlock(block, spill, OVER_IMAGE_COUNT);
      continue;
    }
    const kept = await spillBlock(block, spill, pixels ? OVER_PIXELS : overImageLimit(limit));
    content[i] = kept;
    error ??= imageTooLarge(i, block.mime_type, bytes, limit, kept, pixels);
  }
  return error;
}
