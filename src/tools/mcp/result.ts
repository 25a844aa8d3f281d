import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { redactThenCut, type RedactionCounts } from '../../guardrails/index.js';
import { isBase64, isTextPart, type ContentBlock, type TextPart } from '../../protocol/content.js';
import { GatewayError } from '../../protocol/errors.js';
import { isRecord } from '../../protocol/json.js';
import { limitImages, type SpillBytes } from '../content.js';
import { canonicalMime, isTextualMime, mediaMismatch } from '../media.js';
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

function badBlock(server: string, index: number, type: string, why: string, declared?: Record<string, string>): GatewayError {
  return new GatewayError('UPSTREAM_ERROR', {
    message: `The tool on MCP server ${server} answered with ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} block, content[${index}], whose ${why}.`,
    retryable: false,
    details: { server, reason: 'bad_content', block: index, ...declared },
    suggestion: 'The upstream server sent malformed content; report it to its maintainers.',
  });
}

/** The block's `annotations`, when it has an object there. */
function annotationsOf(block: Block): { annotations?: Record<string, unknown> } {
  return isRecord(block.annotations) ? { annotations: block.annotations } : {};
}

/** base64 as given, or inside a data URL (whose media type then wins); null when it does not decode. */
function base64Of(data: unknown, mime: unknown): { data: string; mime_type: string } | null {
  if (typeof data !== 'string' || typeof mime !== 'string') return null;
  const url = DATA_URL.exec(data);
  const payload = url ? url[2]! : data;
  return isBase64(payload) ? { data: payload, mime_type: url ? url[1]! : mime } : null;
}

/** base64 `data` decoded as UTF-8; undefined when the bytes are not UTF-8. */
function utf8(data: string): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(data, 'base64'));
  } catch {
    return undefined;
  }
}

/** One non-text block as a `content` block; a GatewayError naming it when its payload does not decode; null for a type not known. */
function blockOf(block: Block, index: number, server: string): ContentBlock | GatewayError | null {
  switch (block.type) {
    case 'image':
    case 'audio': {
      const media = base64Of(block.data, block.mimeType);
      if (!media) return badBlock(server, index, block.type, 'data is not base64 (or a base64 data URL) with a mimeType');
      // No model may see an image or audio block that is not what it declares: a provider refuses it, and every later turn with it.
      const mismatch = mediaMismatch(block.type, media.mime_type, Buffer.from(media.data, 'base64'));
      if (mismatch) return badBlock(server, index, block.type, mismatch, { declared: media.mime_type });
      return { type: block.type, data: media.data, mime_type: canonicalMime(media.mime_type) };
    }
    case 'resource': {
      const resource = isRecord(block.resource) ? block.resource : {};
      if (typeof resource.uri !== 'string') return badBlock(server, index, 'resource', 'resource has no uri');
      const head = {
        type: 'resource' as const,
        uri: resource.uri,
        mime_type: typeof resource.mimeType === 'string' ? canonicalMime(resource.mimeType) : null,
      };
      if (typeof resource.text === 'string') return { ...head, text: resource.text };
      const blob = base64Of(resource.blob, head.mime_type ?? '');
      if (!blob) return badBlock(server, index, 'resource', 'blob is not base64');
      // A text-typed blob is text: kept as such, the guardrails scan it; bytes that are not UTF-8 stay a blob.
      const text = head.mime_type !== null && isTextualMime(head.mime_type) ? utf8(blob.data) : undefined;
      return text === undefined ? { ...head, data: blob.data } : { ...head, text };
    }
    case 'resource_link':
      if (typeof block.uri !== 'string') return badBlock(server, index, 'resource_link', 'uri is missing');
      return {
        type: 'resource_link',
        uri: block.uri,
        name: typeof block.name === 'string' ? block.name : block.uri,
        mime_type: typeof block.mimeType === 'string' ? canonicalMime(block.mimeType) : null,
        ...(typeof block.title === 'string' && { title: block.title }),
        ...(typeof block.description === 'string' && { description: block.description }),
        ...(typeof block.size === 'number' && { size: block.size }),
      };
    default:
      return null;
  }
}

/**
 * The blocks `content` keeps: all, text parts included, unless the upstream gave at most one text block, first and without annotations,
 * then other blocks: "text, then the blocks" already says that order, so its text part is left out.
 */
function keptLayout(content: ContentBlock[]): ContentBlock[] {
  const parts = content.filter(isTextPart);
  const plain = parts.length === 0 || (parts.length === 1 && content[0] === parts[0] && parts[0]!.annotations === undefined);
  return plain ? content.filter((block) => !isTextPart(block)) : content;
}

/** How the upstream's tool is read: its result's `structuredContent` follows its `outputSchema` and stays whole in `data`. */
interface ResultShape {
  server: string;
  hasOutputSchema: boolean;
}

/**
 * An upstream tool's result as the gateway's output: the text blocks joined into `text`; images, audio and embedded resources as `content`
 * blocks, never inlined into `text`, each with its `annotations`, in the order given; unless that order is "one text, then the rest"
 * (keptLayout), `content` holds the text blocks too, each as a TextPart in its place. An image or audio block whose bytes are not
 * the type it declares is UPSTREAM_ERROR naming it. `structuredContent` as `data`, but its `content` key when the result has other
 * blocks (for a tool with an `outputSchema`, only when it repeats the result's content). A block of a type the gateway does not know
 * is kept in `data.unknown_content` and named in a line of `text`, never dropped. A result with `isError` is the tool's own answer:
 * UPSTREAM_ERROR, not retryable and not counted by the breaker (`details.reason: "tool_error"`); its text is cut for the message after
 * the scan, with `secrets` (the tool's guardrails).
 */
export async function toToolOutput(
  result: UpstreamResult,
  shape: ResultShape,
  imageBytes: number,
  spill: SpillBytes,
  secrets?: ToolSecrets,
): Promise<ToolOutput> {
  const { server } = shape;
  const blocks = result.content as Block[];
  const texts: string[] = [];
  const content: ContentBlock[] = [];
  const unknown: Block[] = [];
  const textPart = (text: string, annotations: ReturnType<typeof annotationsOf>): TextPart => {
    texts.push(text);
    return { type: 'text', bytes: Buffer.byteLength(text, 'utf8'), ...annotations };
  };
  for (const [i, block] of blocks.entries()) {
    if (block.type === 'text') {
      content.push(textPart(String(block.text ?? ''), annotationsOf(block)));
      continue;
    }
    const converted = blockOf(block, i, server);
    if (converted instanceof GatewayError) throw converted;
    if (converted) {
      content.push({ ...converted, ...annotationsOf(block) });
    } else {
      unknown.push(block);
      const line = `[content[${i}] is a block of type ${JSON.stringify(block.type.slice(0, 100))} that the gateway does not pass on; it is kept in data.unknown_content]`;
      content.push(textPart(line, {}));
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
  const kept = keptLayout(content);
  // Servers repeat their blocks in `structuredContent.content` (server-filesystem's read_media_file): the model sees them once. A tool
  // with an `outputSchema` loses the key only when it is that repetition, and /mcp puts it back (protocol/mcp.ts).
  const others = kept.some((block) => !isTextPart(block));
  if (structured && others && (!shape.hasOutputSchema || JSON.stringify(structured.content) === JSON.stringify(result.content)))
    delete structured.content;
  if (structured || unknown.length > 0) output.data = unknown.length > 0 ? { ...structured, unknown_content: unknown } : structured;
  if (kept.length > 0) {
    output.content = kept;
    const tooLarge = await limitImages(kept, imageBytes, spill);
    if (tooLarge) output.error = tooLarge;
  }
  return output;
}
