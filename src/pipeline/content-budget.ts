/**
 * A result's `content` under the budgets (docs/api.md, "Images and other content"): blocks count their decoded bytes, and are
 * fitted before the text is cut: while they and each payload's text room exceed the budget, the largest inline block moves to
 * the spill store, named by `url` with a `note`, and the payload becomes `partial` unless it is an error. The per-call budget
 * counts every block but images (`limits.image_bytes` bounds each image instead, tools/content.ts); the batch budget counts all.
 */
import { extraBytes, inlineBytes, isInline, type InlineBlock } from '../protocol/content.js';
import type { Payload } from '../protocol/result.js';
import { MAX_INLINE_IMAGES, OVER_IMAGE_COUNT, spillBlock, type SpillBytes } from '../tools/content.js';

/** What the budgets leave each payload's text at least before they move a block. */
export const TEXT_ROOM_BYTES = 512;

const OVER_BUDGET = 'over the output budget';

/** Which inline blocks a budget counts. */
type Counted = (block: InlineBlock) => boolean;

const everyBlock: Counted = () => true;

/** What the per-call budget counts: images are bounded by `limits.image_bytes` instead, so a screenshot is not cut by a text budget. */
export const notImages: Counted = (block) => block.type !== 'image';

/** The bytes a payload's counted inline blocks add to its serialized size (their decoded base64). */
export function contentBytes(payload: Pick<Payload, 'content'>, counted: Counted = everyBlock): number {
  let bytes = 0;
  for (const block of payload.content ?? []) if (isInline(block) && counted(block)) bytes += extraBytes(block);
  return bytes;
}

/** Fits the inline blocks of `payloads` (serialized sizes `jsonBytes`) into `budgetBytes`, largest first. */
export async function fitContent(
  payloads: readonly Payload[],
  jsonBytes: readonly number[],
  budgetBytes: number,
  spill: SpillBytes,
  counted: Counted = everyBlock,
): Promise<Payload[]> {
  const result = payloads.slice();
  const inline: Array<{ payload: number; index: number; bytes: number }> = [];
  let total = 0;
  payloads.forEach((payload, p) => {
    total += Math.min(jsonBytes[p]!, TEXT_ROOM_BYTES);
    payload.content?.forEach((block, index) => {
      if (!isInline(block) || !counted(block)) return;
      const bytes = inlineBytes(block);
      inline.push({ payload: p, index, bytes });
      total += bytes;
    });
  });
  inline.sort((a, b) => b.bytes - a.bytes);
  for (const block of inline) {
    if (total <= budgetBytes) break;
    const payload = result[block.payload]!;
    const content = payload.content!.slice();
    content[block.index] = await spillBlock(content[block.index] as InlineBlock, spill, OVER_BUDGET);
    result[block.payload] = { ...payload, content, status: payload.status === 'error' ? 'error' : 'partial' };
    total -= block.bytes;
  }
  return result;
}

/** The inline images of `payloads`, which one answer shows at most MAX_INLINE_IMAGES of. */
export function countImages(payloads: readonly Pick<Payload, 'content'>[]): number {
  let images = 0;
  for (const payload of payloads) for (const block of payload.content ?? []) if (block.type === 'image' && isInline(block)) images++;
  return images;
}

/** The payloads with every inline image past the first MAX_INLINE_IMAGES of the answer (in call order) moved to the spill store. */
export async function capImages(payloads: readonly Payload[], spill: SpillBytes): Promise<Payload[]> {
  let shown = 0;
  const result: Payload[] = [];
  for (const payload of payloads) {
    if (!payload.content) {
      result.push(payload);
      continue;
    }
    const content = payload.content.slice();
    for (const [i, block] of content.entries())
      if (block.type === 'image' && isInline(block) && ++shown > MAX_INLINE_IMAGES)
        content[i] = await spillBlock(block, spill, OVER_IMAGE_COUNT);
    result.push({ ...payload, content });
  }
  return result;
}
