/** Non-text content of a result (docs/api.md): blocks of `content`, inline until an output budget moves them to the spill store. */

/** Where a block's payload went when it left the result: the `/outputs/{id}` url (null when the spill store failed). */
interface SpilledPayload {
  bytes: number;
  sha256: string;
  url: string | null;
  /** Model-visible: why the payload is not inline and how to get it. */
  note: string;
  spill_error?: string;
}

/** An upstream MCP block's `annotations` (audience, priority, lastModified), passed on as given. */
interface Annotated {
  annotations?: Record<string, unknown>;
}

export interface InlineMedia extends Annotated {
  type: 'image' | 'audio';
  mime_type: string;
  data: string;
}

type SpilledMedia = { type: 'image' | 'audio'; mime_type: string } & SpilledPayload & Annotated;

interface ResourceBlock extends Annotated {
  type: 'resource';
  uri: string;
  mime_type: string | null;
  text?: string;
  data?: string;
}

type SpilledResource = { type: 'resource'; uri: string; mime_type: string | null } & SpilledPayload & Annotated;

interface ResourceLinkBlock extends Annotated {
  type: 'resource_link';
  uri: string;
  name: string;
  mime_type: string | null;
  /** As the upstream gave them, when it did. */
  title?: string;
  description?: string;
  size?: number;
}

/**
 * Where one of the upstream's text blocks sits among the others: its text is in the result's `text` (the parts joined by a line break,
 * in order), `bytes` its UTF-8 length there. An upstream's result has them unless its one text block, without annotations, came first
 * (tools/mcp/result.ts): `content` then keeps the whole order.
 */
export interface TextPart extends Annotated {
  type: 'text';
  bytes: number;
}

/** One block of a result's `content`. */
export type ContentBlock = InlineMedia | SpilledMedia | ResourceBlock | SpilledResource | ResourceLinkBlock | TextPart;

/** A block whose payload is still inline, so a budget may move it to the spill store. */
export type InlineBlock = InlineMedia | ResourceBlock;

export function isInline(block: ContentBlock): block is InlineBlock {
  return 'data' in block || 'text' in block;
}

export function isTextPart(block: ContentBlock): block is TextPart {
  return block.type === 'text';
}

/**
 * `text` split back into the text parts `content` places (see TextPart); undefined when it no longer holds them as given, because the
 * guardrails redacted it or a budget cut it.
 */
export function textPartsOf(text: string, content: readonly ContentBlock[]): string[] | undefined {
  const sizes = content.filter(isTextPart).map((part) => part.bytes);
  if (sizes.length === 0) return undefined;
  const bytes = Buffer.from(text, 'utf8');
  if (sizes.reduce((sum, size) => sum + size, sizes.length - 1) !== bytes.length) return undefined;
  const parts: string[] = [];
  let at = 0;
  for (const size of sizes) {
    parts.push(bytes.toString('utf8', at, at + size));
    at += size + 1;
  }
  return parts.join('\n') === text ? parts : undefined;
}

/** The bytes base64 `data` decodes to, from its length alone. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict base64: the alphabet, padding only at the end, a length that is a multiple of 4. */
export function isBase64(data: string): boolean {
  return data.length % 4 === 0 && BASE64.test(data);
}

/** The bytes an inline block's payload takes, base64 decoded or a resource's text. */
export function inlineBytes(block: InlineBlock): number {
  if (block.data !== undefined) return base64Bytes(block.data);
  return 'text' in block ? Buffer.byteLength(block.text ?? '', 'utf8') : 0;
}

/** What the budgets count for a block on top of its description: its base64, decoded (a resource's text is in the description). */
export function extraBytes(block: InlineBlock): number {
  return block.data === undefined ? 0 : base64Bytes(block.data);
}

/** The inline payload as bytes, as the spill store keeps it and `/outputs/{id}` serves it. */
export function payloadBuffer(block: InlineBlock): Buffer {
  if (block.data !== undefined) return Buffer.from(block.data, 'base64');
  return Buffer.from('text' in block ? (block.text ?? '') : '', 'utf8');
}

/** A block as the serialized payload names it: base64 `data` replaced by its size (it travels natively beside); a resource's text stays. */
export function described(block: ContentBlock): Record<string, unknown> {
  if (!('data' in block) || block.data === undefined) return block as unknown as Record<string, unknown>;
  const { data, ...rest } = block;
  return { ...rest, bytes: base64Bytes(data) };
}
