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

export interface InlineMedia {
  type: 'image' | 'audio';
  mime_type: string;
  data: string;
}

type SpilledMedia = { type: 'image' | 'audio'; mime_type: string } & SpilledPayload;

interface ResourceBlock {
  type: 'resource';
  uri: string;
  mime_type: string | null;
  text?: string;
  data?: string;
}

type SpilledResource = { type: 'resource'; uri: string; mime_type: string | null } & SpilledPayload;

interface ResourceLinkBlock {
  type: 'resource_link';
  uri: string;
  name: string;
  mime_type: string | null;
}

/** One block of a result's `content`; text blocks are joined into the result's `text` instead. */
export type ContentBlock = InlineMedia | SpilledMedia | ResourceBlock | SpilledResource | ResourceLinkBlock;

/** A block whose payload is still inline, so a budget may move it to the spill store. */
export type InlineBlock = InlineMedia | ResourceBlock;

export function isInline(block: ContentBlock): block is InlineBlock {
  return 'data' in block || 'text' in block;
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
