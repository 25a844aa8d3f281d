import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError } from '../../protocol/errors.js';
import { isRecord } from '../../protocol/json.js';
import { isSpillFailure } from '../../spill/spill-store.js';
import type { ToolContext, ToolOutput } from '../tool.js';

type Block = CallToolResult['content'][number];

/**
 * A content block the model does not read as text: an image, audio or
 * embedded resource, stored whole in the spill store and named here by its
 * `/outputs/{id}` url; a resource link as the upstream gave it.
 */
export type ContentReference = Record<string, unknown> & { type: string };

/** How much of an error result's text its message carries. */
const ERROR_TEXT_CHARS = 2_000;

/** The bytes of a base64 or text payload, in the spill store; the reference says where, or why not. */
async function stored(content: Buffer, ctx: ToolContext): Promise<Record<string, unknown>> {
  const outcome = await ctx.spill(content);
  if (isSpillFailure(outcome)) {
    return { bytes: outcome.bytes, sha256: outcome.sha256, url: null, spill_error: 'The spill store is unavailable: this content was not kept.' };
  }
  return { bytes: outcome.bytes, sha256: outcome.sha256, url: `/outputs/${outcome.id}` };
}

async function referenceOf(block: Exclude<Block, { type: 'text' }>, ctx: ToolContext): Promise<ContentReference> {
  switch (block.type) {
    case 'image':
    case 'audio':
      return { type: block.type, mime_type: block.mimeType, ...(await stored(Buffer.from(block.data, 'base64'), ctx)) };
    case 'resource': {
      const { uri, mimeType } = block.resource;
      const bytes = 'text' in block.resource ? Buffer.from(block.resource.text) : Buffer.from(block.resource.blob, 'base64');
      return { type: 'resource', uri, mime_type: mimeType ?? null, ...(await stored(bytes, ctx)) };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: block.uri, name: block.name, mime_type: block.mimeType ?? null };
  }
}

const textOf = (content: readonly Block[]) =>
  content
    .filter((block): block is Extract<Block, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

/**
 * An upstream tool's result as the gateway's output: the text
 * blocks joined into `text`; `structuredContent` as `data`; every other
 * block as a reference in `data.content`, never inlined into `text` (a
 * base64 image there would spend the model's context on noise). A result
 * with `isError` is the tool's own answer: UPSTREAM_ERROR, not retryable and
 * not counted by the breaker (`details.reason: "tool_error"`).
 */
export async function toToolOutput(result: CallToolResult, server: string, ctx: ToolContext): Promise<ToolOutput> {
  const content = result.content ?? [];
  const text = textOf(content);
  if (result.isError) {
    throw new GatewayError('UPSTREAM_ERROR', {
      message: text.length > 0 ? text.slice(0, ERROR_TEXT_CHARS) : `The tool on MCP server ${server} answered with an error.`,
      retryable: false,
      details: { server, reason: 'tool_error' },
      suggestion: 'Read the message: the upstream tool refused or failed this call.',
    });
  }
  const references: ContentReference[] = [];
  for (const block of content) if (block.type !== 'text') references.push(await referenceOf(block, ctx));
  const structured = isRecord(result.structuredContent) ? result.structuredContent : undefined;
  if (!structured && references.length === 0) return { text };
  return { text, data: references.length === 0 ? structured : { ...structured, content: references } };
}
