import { described, type ContentBlock, type InlineMedia } from '../content.js';

/**
 * What each provider's result messages share: which images it shows its model inline (docs/api.md, "Images and other content"). A block
 * moved to the spill store is named in text, with its note: its `url` is the gateway's, which no provider can fetch.
 */

/** A block the provider cannot carry natively, or one moved to the spill store, as one line of text. */
export function blockText(block: ContentBlock): string {
  return JSON.stringify(described(block));
}

/** The image types Anthropic and OpenAI take inline. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The inline images of `content` a provider taking `types` can show its model; every other block stays named in the payload only. */
export function imagesOf(content: readonly ContentBlock[] | undefined, types = IMAGE_TYPES): InlineMedia[] {
  const images: InlineMedia[] = [];
  for (const block of content ?? []) if (block.type === 'image' && 'data' in block && types.has(block.mime_type)) images.push(block);
  return images;
}

export const dataUrl = (image: InlineMedia) => `data:${image.mime_type};base64,${image.data}`;
