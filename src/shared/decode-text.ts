const SNIFF_BYTES = 4096;

/** A byte-order mark, or NUL as the high byte of nine pairs in ten in the first SNIFF_BYTES. */
function utf16Order(bytes: Uint8Array): 'le' | 'be' | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'be';
  const pairs = Math.min(bytes.length, SNIFF_BYTES) >> 1;
  if (pairs < 2) return undefined;
  let le = 0;
  let be = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (bytes[i] !== 0 && bytes[i + 1] === 0) le++;
    else if (bytes[i] === 0 && bytes[i + 1] !== 0) be++;
  }
  if (le * 10 >= pairs * 9) return 'le';
  if (be * 10 >= pairs * 9) return 'be';
  return undefined;
}

/** UTF-16 (a file PowerShell's `>` wrote) when the bytes look like it, else UTF-8; the cut never splits a character. */
export function decodeText(bytes: Buffer, maxBytes: number): string {
  const order = utf16Order(bytes);
  if (order === undefined) return utf8Prefix(bytes, maxBytes);
  let end = Math.min(maxBytes, bytes.length);
  end -= end % 2;
  const units = Buffer.from(bytes.subarray(0, end));
  if (order === 'be') units.swap16();
  let text = units.toString('utf16le');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const last = text.charCodeAt(text.length - 1);
  if (end < bytes.length && last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return text;
}

export function utf8Prefix(buf: Buffer, maxBytes: number): string {
  let end = Math.min(maxBytes, buf.length);
  if (end < buf.length) while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}
