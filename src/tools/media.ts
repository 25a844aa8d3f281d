import { walkImage } from './image-structure.js';

/**
 * What image and audio bytes are, told by the bytes, never a name or a declared type: Read uses it to tell an image file, the MCP result
 * mapping to hold an upstream's block to the type it declares (docs/api.md, "Images and other content").
 */

/** The longest side of an image a provider takes: Anthropic refuses one over 8000 px on a side; OpenAI and Gemini scale larger ones. */
export const MAX_IMAGE_SIDE = 8000;

/**
 * The most pixels (width × height) an image shown to a model may have: a provider decodes it, and a small file can declare a huge
 * canvas (a decompression bomb: an 8000×8000 PNG of 186 KB decodes to 192 MB). 25 megapixels holds a 6000×4000 photo.
 */
export const MAX_IMAGE_PIXELS = 25_000_000;

/** The bytes a file's kind is told by: the longest signature checked (WebP's RIFF header). */
const SIGNATURE_BYTES = 12;

const startsWith = (head: Buffer, bytes: readonly number[], at = 0) => bytes.every((b, i) => head[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const WAVE = ascii('WAVE');

/** The media type of a PNG, JPEG, GIF or WebP file, told by its first bytes; undefined for anything else. */
export function imageTypeOf(head: Buffer): string | undefined {
  if (head.length < SIGNATURE_BYTES) return undefined;
  if (startsWith(head, PNG)) return 'image/png';
  if (startsWith(head, JPEG)) return 'image/jpeg';
  if (startsWith(head, GIF87) || startsWith(head, GIF89)) return 'image/gif';
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return 'image/webp';
  return undefined;
}

/** Whether the whole image has the structure its signature promises: one cut short, patched or a polyglot is not an image. */
export function isWholeImage(bytes: Buffer, mime: string): boolean {
  return !('problem' in walkImage(bytes, mime));
}

/** Whether an image of type `mime` declares more pixels than MAX_IMAGE_PIXELS; false for bytes that do not walk as one. */
export function overPixelBound(bytes: Buffer, mime: string): boolean {
  const size = walkImage(bytes, canonicalMime(mime));
  return !('problem' in size) && size.width * size.height > MAX_IMAGE_PIXELS;
}

/** The audio kinds whose bytes are told, each by its canonical media type. */
function audioTypeOf(head: Buffer): string | undefined {
  if (head.length < SIGNATURE_BYTES) return undefined;
  if (startsWith(head, RIFF) && startsWith(head, WAVE, 8)) return 'audio/wav';
  if (startsWith(head, ascii('OggS'))) return 'audio/ogg';
  if (startsWith(head, ascii('fLaC'))) return 'audio/flac';
  if (startsWith(head, ascii('ftyp'), 4)) return 'audio/mp4';
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'audio/webm';
  // ADTS (AAC) has layer bits 00; an MPEG audio frame any other layer; ID3 tags lead MP3 files.
  if (head[0] === 0xff && (head[1]! & 0xf6) === 0xf0) return 'audio/aac';
  if (startsWith(head, ascii('ID3')) || (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0)) return 'audio/mpeg';
  return undefined;
}

/** Declared media types, lower-cased without parameters, by the canonical type their bytes must be. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg',
  'audio/mpeg3': 'audio/mpeg',
  'audio/x-aac': 'audio/aac',
  'audio/opus': 'audio/ogg',
  'audio/vorbis': 'audio/ogg',
  'audio/x-flac': 'audio/flac',
  'audio/m4a': 'audio/mp4',
  'audio/x-m4a': 'audio/mp4',
};

/** The types whose bytes the gateway tells: a block declaring one must hold one. */
const KNOWN: ReadonlySet<string> = new Set([
  ...['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  ...['audio/wav', 'audio/ogg', 'audio/flac', 'audio/mp4', 'audio/webm', 'audio/aac', 'audio/mpeg'],
]);

/** Bytes a declared type is also given as: AAC travels as ADTS, in an MP4 container, or after an ID3 tag. */
const ALSO: Partial<Record<string, readonly string[]>> = { 'audio/aac': ['audio/mp4', 'audio/mpeg'] };

/** A declared media type as the gateway passes it on: lower-cased, without parameters, aliases by their canonical type. */
export function canonicalMime(declared: string): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  return ALIASES[type] ?? type;
}

/** Whether a media type names text (text/*, JSON, XML, SVG, YAML, JavaScript): a blob of it is read as text, scanned like text. */
export function isTextualMime(declared: string): boolean {
  const type = canonicalMime(declared);
  return /^text\/|[/+](json|xml|yaml|javascript|ecmascript)$/.test(type) || type === 'application/x-yaml';
}

/** A control character text does not hold: all but tab, the line breaks and form feed. */
const isControl = (code: number) => code < 0x09 || (code > 0x0d && code < 0x20);

/** What the bytes are, in words, for an error: their media type when told, else text or unrecognised binary data. */
export function describeBytes(bytes: Buffer): string {
  const told = imageTypeOf(bytes) ?? audioTypeOf(bytes);
  if (told) return told;
  if (bytes.length === 0) return 'empty';
  try {
    const head = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, 4096), { stream: true });
    if (![...head].some((c) => isControl(c.charCodeAt(0)))) return 'text';
  } catch {
    // not UTF-8: binary
  }
  return 'unrecognised binary data';
}

/** Why an image or audio block is not what it declares (a sentence's end: "whose …"); undefined when it is. */
export function mediaMismatch(type: 'image' | 'audio', declared: string, bytes: Buffer): string | undefined {
  const want = canonicalMime(declared);
  const told = imageTypeOf(bytes) ?? audioTypeOf(bytes);
  if (!want.startsWith(`${type}/`)) return `declared type ${declared} is not an ${type} type`;
  if (!KNOWN.has(want)) {
    // A type the gateway cannot tell (BMP, AMR…): refused when the bytes are of another kind it can, or text (SVG is markup, which
    // no provider takes as an image and which the guardrails would not scan as one).
    if (told !== undefined && !told.startsWith(`${type}/`)) return `bytes are ${told}, not ${declared}`;
    return describeBytes(bytes) === 'text' ? `bytes are text, not an ${type} a provider takes (${declared})` : undefined;
  }
  if (told !== want && !(told && ALSO[want]?.includes(told))) return `bytes are ${told ?? describeBytes(bytes)}, not ${declared}`;
  if (type === 'audio') return undefined;
  const size = walkImage(bytes, want);
  if ('problem' in size) return `bytes are not a whole ${want}: ${size.problem} (${bytes.length} bytes)`;
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE || size.width === 0 || size.height === 0)
    return `image is ${size.width}×${size.height} pixels: a side is 0 or over ${MAX_IMAGE_SIDE}, which no provider takes`;
  return undefined;
}
