import { describe, expect, it } from 'vitest';
import { formBody } from '../../../../src/tools/openapi/form.js';

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
