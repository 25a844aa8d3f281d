import { describe, expect, it } from 'vitest';
import { toJsonSchema } from '../../../../src/tools/openapi/schema.js';

describe('OpenAPI schemas become JSON Schema for a request', () => {
  it('3.0 nullable, boolean exclusive bounds, read-only properties and annotations', () => {
    const input = {
      type: 'object',
      required: ['id', 'size'],
      'x-internal': true,
      example: { size: 1 },
      properties: {
        id: { type: 'integer', readOnly: true },
        size: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false },
        note: { type: 'string', nullable: true, xml: { name: 'n' } },
        kind: { type: 'string', enum: ['a', 'b'], nullable: true },
        example: { type: 'string', description: 'a property named like a keyword is kept' },
      },
    };
    const before = JSON.stringify(input);
    expect(toJsonSchema(input)).toEqual({
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'number', exclusiveMinimum: 0, maximum: 10 },
        note: { type: ['string', 'null'] },
        kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
        example: { type: 'string', description: 'a property named like a keyword is kept' },
      },
    });
    expect(JSON.stringify(input)).toBe(before);
  });

  it('a schema shared by two places is converted once and stays shared', () => {
    const shared = { type: 'string', nullable: true };
    const out = toJsonSchema({ type: 'object', properties: { a: shared, b: shared } });
    expect((out.properties as Record<string, unknown>).a).toBe((out.properties as Record<string, unknown>).b);
  });
});
