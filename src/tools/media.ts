/**
 * What image and audio bytes are, told by the bytes, never a name or a declared type: Read uses it to tell an image file, the MCP result
 * mapping to hold an upstream's block to the type it declares (docs/api.md, "Images and other content").
 */

/** The longest side of an image a provider takes: Anthropic refuses one over 8000 px on a side; OpenAI and Gemini scale larger ones. */
export const MAX_IMAGE_SIDE = 8000;

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
const IHDR = ascii('IHDR');
const IEND = [...ascii('IEND'), 0xae, 0x42, 0x60, 0x82];

/** The media type of a PNG, JPEG, GIF or WebP file, told by its first bytes; undefined for anything else. */
export function imageTypeOf(head: Buffer): string | undefined {
  if (head.length < SIGNATURE_BYTES) return undefined;
  if (startsWith(head, PNG)) return 'image/png';
  if (startsWith(head, JPEG)) return 'image/jpeg';
  if (startsWith(head, GIF87) || startsWith(head, GIF89)) return 'image/gif';
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8)) return 'image/webp';
  return undefined;
}

/** Whether the whole image has the structure its signature promises: one cut short or patched is not an image. */
export function isWholeImage(bytes: Buffer, mime: string): boolean {
  switch (mime) {
    case 'image/png':
      return bytes.length >= 57 && startsWith(bytes, IHDR, 12) && startsWith(bytes, IEND, bytes.length - 8);
    case 'image/jpeg':
      return bytes.length >= 4 && bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9;
    case 'image/gif':
      return bytes.length >= 14 && bytes[bytes.length - 1] === 0x3b;
    default:
      return bytes.length >= SIGNATURE_BYTES && bytes.readUInt32LE(4) + 8 === bytes.length;
  }
}

/** A JPEG's size from its first start-of-frame segment (SOF0-SOF15 but DHT, JPG and DAC); undefined when there is none. */
function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

/** A WebP's size from its first chunk (lossy VP8, lossless VP8L or extended VP8X). */
function webpSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 30) return undefined;
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  return undefined;
}

/** An image's size in pixels as its header gives it; undefined when the header does not say. */
export function imageSize(bytes: Buffer, mime: string): { width: number; height: number } | undefined {
  switch (mime) {
    case 'image/png':
      return bytes.length >= 24 ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) } : undefined;
    case 'image/gif':
      return bytes.length >= 10 ? { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) } : undefined;
    case 'image/jpeg':
      return jpegSize(bytes);
    default:
      return webpSize(bytes);
  }
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

function canonical(declared: string): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  return ALIASES[type] ?? type;
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
  const want = canonical(declared);
  const told = imageTypeOf(bytes) ?? audioTypeOf(bytes);
  if (!want.startsWith(`${type}/`)) return `declared type ${declared} is not an ${type} type`;
  if (!KNOWN.has(want)) {
    // A type the gateway cannot tell (SVG, BMP, AMR…): refused only when the bytes are of another kind it can.
    return told !== undefined && !told.startsWith(`${type}/`) ? `bytes are ${told}, not ${declared}` : undefined;
  }
  if (told !== want && !(told && ALSO[want]?.includes(told))) return `bytes are ${told ?? describeBytes(bytes)}, not ${declared}`;
  if (type === 'audio') return undefined;
  if (!isWholeImage(bytes, want)) return `bytes are ${want} cut short or damaged (${bytes.length} bytes)`;
  const size = imageSize(bytes, want);
  if (!size) return `${want} header gives no size`;
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE || size.width === 0 || size.height === 0)
    return `image is ${size.width}×${size.height} pixels: a side is 0 or over ${MAX_IMAGE_SIDE}, which no provider takes`;
  return undefined;
}
