import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../src/shared/decode-text.js';

/** `text` as UTF-16 bytes of `order`, with or without a byte-order mark. */
function utf16(text: string, order: 'le' | 'be', bom: boolean): Buffer {
  const bytes = Buffer.from(`${bom ? '\ufeff' : ''}${text}`, 'utf16le');
  return order === 'le' ? bytes : bytes.swap16();
}

describe('decodeText', () => {
  it('reads UTF-8 as UTF-8, cutting on a character boundary, and UTF-16 of either order as text', () => {
    expect(decodeText(Buffer.from('héllo'), 2)).toBe('h');
    expect(decodeText(Buffer.from('plain ascii'), 100)).toBe('plain ascii');
    expect(decodeText(utf16('PowerShell wrote this', 'le', true), 1000)).toBe('PowerShell wrote this');
    expect(decodeText(utf16('no mark here', 'be', false), 1000)).toBe('no mark here');
    expect(decodeText(utf16('cut', 'le', false), 5)).toBe('cu');
    // Binary with a few NULs is not UTF-16.
    expect(decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x49, 0x48]), 10)).toBe(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x49, 0x48]).toString('utf8'),
    );
  });
});
