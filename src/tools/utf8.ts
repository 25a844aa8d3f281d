/** The longest prefix of `buf` within `maxBytes` that does not split a UTF-8 character. */
export function utf8Prefix(buf: Buffer, maxBytes: number): string {
  let end = Math.min(maxBytes, buf.length);
  // Back off over continuation bytes (10xxxxxx) so the cut lands on a character start.
  if (end < buf.length) while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}
