import { cutOutsideMarkers } from '../../guardrails/index.js';
import { counted } from '../../shared/count.js';

/** How much of a file's start is checked for NUL bytes, as git and grep do. */
export const SNIFF_BYTES = 8192;

export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

/** Cuts a line (as a model may see it: cut after the scan) for display, never inside a marker, saying how much was left out. */
export function cutLine(line: string, max: number, omitted = 0): string {
  const at = cutOutsideMarkers(line, max);
  const over = line.length - at + omitted;
  return over === 0 ? line : `${line.slice(0, at)}… [${counted(over, 'more character')}]`;
}

/** UTF-16 code units (what a string's length counts) of the UTF-8 in `bytes`: one per character, two for one of four bytes. */
export function utf16Units(bytes: Buffer): number {
  let units = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1;
  }
  return units;
}
