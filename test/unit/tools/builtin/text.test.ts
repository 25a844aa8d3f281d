import { describe, expect, it } from 'vitest';
import { cutLine, looksBinary, utf16Units } from '../../../../src/tools/builtin/text.js';

describe('text helpers of the file tools', () => {
  it('a NUL byte in the first 8 KiB makes a file binary; one past it does not', () => {
    expect(looksBinary(Buffer.from('abc\0def'))).toBe(true);
    expect(looksBinary(Buffer.concat([Buffer.alloc(8192, 0x61), Buffer.from([0])]))).toBe(false);
  });

  it('cuts a long line saying how much was left out; a short one is kept', () => {
    expect(cutLine('short', 10)).toBe('short');
    expect(cutLine('abcdefghij', 4)).toBe('abcd… [6 more characters]');
  });

  it('counts UTF-16 units of UTF-8 bytes: two for a four-byte character', () => {
    expect(utf16Units(Buffer.from('aé日🚀'))).toBe('aé日🚀'.length);
  });
});
