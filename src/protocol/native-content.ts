import { described, type ContentBlock } from './content.js';

/**
 * A result's `content` in each provider's own form (docs/api.md, "Images and
 * other content"). A block moved to the spill store is named in text, with
 * its note: its `url` is the gateway's, which no provider can fetch.
 */

/** A block the provider cannot carry natively, or one moved to the spill store, as one line of text. */
export function blockText(block: ContentBlock): string {
  return JSON.stringify(described(block));
}

/** MCP content blocks (server/tools, "Tool Result"): images, audio and resources as MCP gives them. */
export function mcpBlocks(content: readonly ContentBlock[]): Record<string, unknown>[] {
  return content.map((block) => {
    const mimeType = block.mime_type === null ? {} : { mimeType: block.mime_type };
    if (block.type === 'resource_link') return { type: 'resource_link', uri: block.uri, name: block.name, ...mimeType };
    if ('data' in block && block.type !== 'resource') return { type: block.type, data: block.data, mimeType: block.mime_type };
    if (block.type === 'resource' && 'data' in block && block.data !== undefined) return { type: 'resource', resource: { uri: block.uri, ...mimeType, blob: block.data } };
    if (block.type === 'resource' && 'text' in block && block.text !== undefined) return { type: 'resource', resource: { uri: block.uri, ...mimeType, text: block.text } };
    return { type: 'text', text: blockText(block) };
  });
}
