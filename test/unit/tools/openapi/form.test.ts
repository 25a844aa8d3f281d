import { describe, expect, it } from 'vitest';
import { formBody, multipartBody } from '../../../../src/tools/openapi/form.js';

describe('a form body: bracket notation for nested values, repeated names for plain lists', () => {
  it('scalars, a plain list (form, exploded), an object, a list of objects; null and absent values left out', () => {
    const body = formBody(
      [
        ['email', 'a b@example.com'],
        ['amount', 1200],
        ['live', false],
        ['tags', ['x', 'y']],
        ['metadata', { order: '7', note: 'a&b' }],
        ['items', [{ price: 'p_1', quantity: 2 }]],
        ['skip', null],
        ['gone', undefined],
      ],
      new Set(),
    );
    expect(decodeURIComponent(body)).toBe(
      'email=a+b@example.com&amount=1200&live=false&tags=x&tags=y&metadata[order]=7&metadata[note]=a&b&items[0][price]=p_1&items[0][quantity]=2',
    );
    expect(body).toContain('metadata%5Bnote%5D=a%26b');
  });

  it('a list whose encoding says style: deepObject is indexed', () => {
    expect(decodeURIComponent(formBody([['expand', ['customer', 'invoice']]], new Set(['expand'])))).toBe('expand[0]=customer&expand[1]=invoice');
  });
});

describe('a multipart body (RFC 7578): a text part per scalar, a JSON part per object, a part per list item', () => {
  it('writes each field as its part, quotes names as HTML does, and ends with the closing boundary', () => {
    const { text, type } = multipartBody([
      ['title', 'Line 1\r\nLine 2'],
      ['count', 3],
      ['tags', ['a', 'b']],
      ['meta', { k: 'v' }],
      ['we"ird', 'x'],
      ['skip', null],
    ]);
    const boundary = /^multipart\/form-data; boundary=(toolgate-[0-9a-f-]{36})$/.exec(type)![1]!;
    const part = (head: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${head}\r\n\r\n${value}\r\n`;
    expect(text).toBe(
      part('title"', 'Line 1\r\nLine 2') +
        part('count"', '3') +
        part('tags"', 'a') +
        part('tags"', 'b') +
        part('meta"\r\nContent-Type: application/json', '{"k":"v"}') +
        part('we%22ird"', 'x') +
        `--${boundary}--\r\n`,
    );
  });
});
