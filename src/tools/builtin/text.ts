import { counted } from '../../shared/count.js';

/** How much of a file's start is checked for NUL bytes, as git and grep do. */
export const SNIFF_BYTES = 8192;

export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

/** Cuts a line for display, saying how much was left out. */
export function cutLine(line: string, max: number, omitted = 0): string {
  const over = Math.max(0, line.length - max) + omitted;
  return over === 0 ? line : `${line.slice(0, max)}… [${counted(over, 'more character')}]`;
}
