import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { redactThenCut, type RedactionCounts } from '../../guardrails/index.js';
import { isBase64, type ContentBlock } from '../../protocol/content.js';
import { GatewayError } from '../../protocol/errors.js';
import { isRecord } from '../../protocol/json.js';
import { limitImages, type SpillBytes } from '../content.js';
import type { ToolOutput, ToolSecrets } from '../tool.js';

/**
 * A `tools/call` result as the gateway reads it: the SDK's schema, but any block with a `type`, so that a block of a type the SDK does not
 * know, or whose base64 does not decode, reaches toToolOutput to be kept or named instead of failing the whole call with a schema error.
 */
export const UpstreamResultSchema = CallToolResultSchema.extend({ content: z.array(z.looseObject({ type: z.string() })).default([]) });

type UpstreamResult = z.infer<typeof UpstreamResultSchema>;
type Block = Record<string, unknown> & { type: string };

/** How much of an error result's text its message carries: cut after the scan (see redactThenCut). */
const ERROR_TEXT_CHARS = 2_000;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function badBlock(server: string, index: number, type: string, why: string): GatewayError {
  return new GatewayError('UPSTREAM_ERROR', {
    message: `The tool on MCP server ${server} answered with a ${type} block, content[${index}], whose ${why}.`,
    retryable: false,
    details: { server, reason: 'bad_content', block: index },
    suggestion: 'The upstream server sent malformed content; report it to its maintainers.',
  });
}

/** base64 as given, or inside a data URL (whose media type then wins); null when it does not decode. */
function base64Of(data: unknown, mime: unknown): { data: string; mime_type: string } | null {
  if (typeof data !== 'string' || typeof mime !== 'string') return null;
  const url = DATA_URL.exec(data);
  const payload = url ? url[2]! : data;
  return isBase64(payload) ? { data: payload, mime_type: url ? url[1]! : mime } : null;
}

/** One non-text block as a `content` block; a GatewayError naming it when its payload does not decode; null for a type not known. */
function blockOf(block: Block, index: number, server: string): ContentBlock | GatewayError | null {
  switch (block.type) {
    case 'image':
    case 'audio': {
      const media = base64Of(block.data, block.mimeType);
      return media
        ? { type: block.type, ...media }
        : badBlock(server, index, block.type, 'data is not base64 (or a base64 data URL) with a mimeType');
    }
    case 'resource': {
      const resource = isRecord(block.resource) ? block.resource : {};
      if (typeof resource.uri !== 'string') return badBlock(server, index, 'resource', 'resource has no uri');
      const head = {
        type: 'resource' as const,
        uri: resource.uri,
        mime_type: typeof resource.mimeType === 'string' ? resource.mimeType : null,
      };
      if (typeof resource.text === 'string') return { ...head, text: resource.text };
      const blob = base64Of(resource.blob, head.mime_type ?? '');
      return blob ? { ...head, data: blob.data } : badBlock(server, index, 'resource', 'blob is not base64');
    }
    case 'resource_link':
      if (typeof block.uri !== 'string') return badBlock(server, index, 'resource_link', 'uri is missing');
      return {
        type: 'resource_link',
        uri: block.uri,
        name: typeof block.name === 'string' ? block.name : block.uri,
        mime_type: typeof block.mimeType === 'string' ? block.mimeType : null,
      };
    default:
      return null;
  }
}

/**
 * An upstream tool's result as the gateway's output: the text blocks joined into `text`; images, audio and embedded resources as `content`
 * blocks, in the order given, never inlined into `text`; `structuredContent` as `data` (but its `content` key when the result has other
 * blocks: servers repeat their base64 blocks there). A block of a type the gateway does not know is kept in `data.unknown_content` and
 * named in a line of `text`, never dropped. A result with `isError` is the tool's own answer: UPSTREAM_ERROR, not retryable and not counted
 * by the breaker (`details.reason: "tool_error"`); its text is cut for the message after the scan, with `secrets` (the tool's guardrails).
 */
export async function toToolOutput(
  result: UpstreamResult,
  server: string,
  imageBytes: number,
  spill: SpillBytes,
  secrets?: ToolSecrets,
): Promise<ToolOutput> {
  const blocks = result.content as Block[];
  const texts: string[] = [];
  const content: ContentBlock[] = [];
  const unknown: Block[] = [];
  for (const [i, block] of blocks.entries()) {
    if (block.type === 'text') {
      texts.push(String(block.text ?? ''));
      continue;
    }
    const converted = blockOf(block, i, server);
    if (converted instanceof GatewayError) throw converted;
    if (converted) content.push(converted);
    else {
      unknown.push(block);
      texts.push(
        `[content[${i}] is a block of type ${JSON.stringify(block.type.slice(0, 100))} that the gateway does not pass on; it is kept in data.unknown_content]`,
      );
    }
  }
  const text = texts.join('\n');
  if (result.isError) {
    const counts: RedactionCounts = {};
    const message = redactThenCut(secrets?.scanner, text, ERROR_TEXT_CHARS, counts);
    secrets?.count(counts);
    throw new GatewayError('UPSTREAM_ERROR', {
      message: message.length > 0 ? message : `The tool on MCP server ${server} answered with an error.`,
      retryable: false,
      details: { server, reason: 'tool_error' },
      suggestion: 'Read the message: the upstream tool refused or failed this call.',
    });
  }
  const output: ToolOutput = { text };
  const structured = isRecord(result.structuredContent) ? { ...result.structuredContent } : undefined;
  if (structured && content.length > 0) delete structured.content;
  if (structured || unknown.length > 0) output.data = unknown.length > 0 ? { ...structured, unknown_content: unknown } : structured;
  if (content.length > 0) {
    output.content = content;
    const tooLarge = await limitImages(content, imageBytes, spill);
    if (tooLarge) output.error = tooLarge;
  }
  return output;
}
