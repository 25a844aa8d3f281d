import { described, type ContentBlock, type InlineMedia } from './content.js';

/**
 * A result's `content` in each provider's own form (docs/api.md, "Images and
 * other content"). A block moved to the spill store is named in text, with
 * its note: its `url` is the gateway's, which no provider can fetch.
 */

/** A block the provider cannot carry natively, or one moved to the spill store, as one line of text. */
function blockText(block: ContentBlock): string {
  return JSON.stringify(described(block));
}

/** MCP content blocks (server/tools, "Tool Result"): images, audio and resources as MCP gives them. */
export function mcpBlocks(content: readonly ContentBlock[]): Record<string, unknown>[] {
  return content.map((block) => {
    const mimeType = block.mime_type === null ? {} : { mimeType: block.mime_type };
    if (block.type === 'resource_link') return { type: 'resource_link', uri: block.uri, name: block.name, ...mimeType };
    if ('data' in block && block.type !== 'resource') return { type: block.type, data: block.data, mimeType: block.mime_type };
    if (block.type === 'resource' && 'data' in block && block.data !== undefined)
      return { type: 'resource', resource: { uri: block.uri, ...mimeType, blob: block.data } };
    if (block.type === 'resource' && 'text' in block && block.text !== undefined)
      return { type: 'resource', resource: { uri: block.uri, ...mimeType, text: block.text } };
    return { type: 'text', text: blockText(block) };
  });
}

/** The image types every provider below takes inline (Anthropic, OpenAI); Gemini's function responses take GEMINI_IMAGE_TYPES. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const GEMINI_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

/** The inline images of `content` a provider taking `types` can show its model; every other block stays named in the payload only. */
function imagesOf(content: readonly ContentBlock[] | undefined, types = IMAGE_TYPES): InlineMedia[] {
  const images: InlineMedia[] = [];
  for (const block of content ?? []) if (block.type === 'image' && 'data' in block && types.has(block.mime_type)) images.push(block);
  return images;
}

const dataUrl = (image: InlineMedia) => `data:${image.mime_type};base64,${image.data}`;

/**
 * Anthropic `tool_result` content: the payload as a text block, then each image as a base64 `image` block; the payload string alone when
 * there is none.
 */
export function anthropicContent(payload: string, content: readonly ContentBlock[] | undefined): string | Record<string, unknown>[] {
  const images = imagesOf(content);
  if (images.length === 0) return payload;
  return [
    { type: 'text', text: payload },
    ...images.map((image) => ({ type: 'image', source: { type: 'base64', media_type: image.mime_type, data: image.data } })),
  ];
}

/**
 * Responses `function_call_output.output`: `input_text` with the payload, then an `input_image` per image; the payload string alone when
 * there is none.
 */
export function responsesOutput(payload: string, content: readonly ContentBlock[] | undefined): string | Record<string, unknown>[] {
  const images = imagesOf(content);
  if (images.length === 0) return payload;
  return [
    { type: 'input_text', text: payload },
    ...images.map((image) => ({ type: 'input_image', image_url: dataUrl(image), detail: 'auto' })),
  ];
}

/** Gemini `functionResponse.parts`: each image as inline data; undefined when there is none. */
export function geminiParts(content: readonly ContentBlock[] | undefined): Record<string, unknown>[] | undefined {
  const images = imagesOf(content, GEMINI_IMAGE_TYPES);
  return images.length === 0 ? undefined : images.map((image) => ({ inlineData: { mimeType: image.mime_type, data: image.data } }));
}

/**
 * OpenAI Chat: a tool message holds text only, so the images of every call
 * go in one `user` message after the tool messages, each `image_url` part
 * after a text part naming the call it came from. Undefined when no call
 * returned an image.
 */
export function chatImageMessage(
  calls: readonly { tool_call_id: string; name: string; content?: readonly ContentBlock[] | undefined }[],
): { role: 'user'; content: Record<string, unknown>[] } | undefined {
  const parts: Record<string, unknown>[] = [];
  for (const call of calls) {
    for (const image of imagesOf(call.content)) {
      parts.push({ type: 'text', text: `An ${image.mime_type} image from the ${call.name} call ${call.tool_call_id}:` });
      parts.push({ type: 'image_url', image_url: { url: dataUrl(image) } });
    }
  }
  return parts.length === 0 ? undefined : { role: 'user', content: parts };
}
