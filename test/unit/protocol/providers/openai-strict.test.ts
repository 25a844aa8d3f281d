import { describe, expect, it } from 'vitest';
import { toOpenAI } from '../../../../src/protocol/providers/openai.js';
import type { JsonSchema } from '../../../../src/tools/tool.js';
import { schemaNodes, strict, tool, type Node } from './fixtures.js';

describe('dialects: openai strict mode', () => {
  it('closes every object, requires every property, makes optional ones nullable — nested too', () => {
    const result = strict({
      type: 'object',
      properties: {
        path: { type: 'string' },
        options: {
          type: 'object',
          properties: {
            depth: { type: 'integer' },
            mode: { type: 'string', enum: ['a', 'b'] },
            inner: { type: 'object', properties: { flag: { type: 'boolean' } }, required: [] },
          },
          required: ['depth'],
        },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
        union: { anyOf: [{ type: 'object', properties: { y: { type: 'string' } } }, { type: 'string' }] },
      },
      required: ['path', 'list', 'union'],
    });
    expect(result.strict).toBe(true);
    expect(result.parameters).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string' },
        options: {
          type: ['object', 'null'],
          properties: {
            depth: { type: 'integer' },
            mode: { type: ['string', 'null'], enum: ['a', 'b', null] },
            inner: {
              type: ['object', 'null'],
              properties: { flag: { type: ['boolean', 'null'] } },
              required: ['flag'],
              additionalProperties: false,
            },
          },
          required: ['depth', 'mode', 'inner'],
          additionalProperties: false,
        },
        list: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: ['number', 'null'] } }, required: ['x'], additionalProperties: false },
        },
        union: {
          anyOf: [
            { type: 'object', properties: { y: { type: ['string', 'null'] } }, required: ['y'], additionalProperties: false },
            { type: 'string' },
          ],
        },
      },
      required: ['path', 'options', 'list', 'union'],
      additionalProperties: false,
    });
    for (const node of schemaNodes(result.parameters)) {
      if (node.properties !== undefined) {
        expect(node.additionalProperties).toBe(false);
        expect(node.required).toEqual(Object.keys(node.properties as Node));
      }
    }
  });

  it('wraps an optional bare reference or const in anyOf with null; an inlined one gets a null type', () => {
    const result = strict({
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/A' },
        b: { $ref: '#/$defs/A', description: 'B' },
        c: { const: 'x' },
        d: { const: 1, description: 'D' },
      },
      $defs: { A: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] } },
    });
    expect(result.parameters.properties).toEqual({
      a: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'null' }] },
      b: {
        type: ['object', 'null'],
        description: 'B',
        properties: { v: { type: 'string' } },
        required: ['v'],
        additionalProperties: false,
      },
      c: { anyOf: [{ type: 'string', const: 'x' }, { type: 'null' }] },
      d: { description: 'D', anyOf: [{ type: 'integer', const: 1 }, { type: 'null' }] },
    });
    expect(result.parameters.$defs).toEqual({
      A: { type: 'object', properties: { v: { type: 'string' } }, required: ['v'], additionalProperties: false },
    });
  });

  it('leaves already-nullable optional properties alone', () => {
    const result = strict({
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    });
    expect(result.parameters.properties).toEqual({ a: { type: ['string', 'null'] }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] } });
  });

  it('keeps recursive references as references', () => {
    const result = strict({
      type: 'object',
      properties: { tree: { $ref: '#/$defs/Node' } },
      required: ['tree'],
      $defs: {
        Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['children'] },
      },
    });
    expect(result.strict).toBe(true);
    expect(result.parameters.properties).toEqual({ tree: { $ref: '#/$defs/Node' } });
    expect(result.parameters.$defs).toEqual({
      Node: {
        type: 'object',
        properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        required: ['children'],
        additionalProperties: false,
      },
    });
  });

  it('drops keywords strict mode rejects and keeps the supported ones', () => {
    const result = strict({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 10, pattern: '^[a-z]+$', format: 'uri', examples: ['a'] },
        email: { type: 'string', format: 'email' },
        count: { type: 'integer', minimum: 0, exclusiveMaximum: 10, multipleOf: 2, default: 4 },
        old: { type: 'number', exclusiveMinimum: true, minimum: 0 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, uniqueItems: true },
        choice: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        merged: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }], not: { type: 'null' } },
      },
      required: ['name', 'email', 'count', 'old', 'tags', 'choice', 'merged'],
    });
    expect(result.parameters).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-z]+$' },
        email: { type: 'string', format: 'email' },
        count: { type: 'integer', minimum: 0, multipleOf: 2, description: 'Default: 4.', exclusiveMaximum: 10 },
        old: { type: 'number', minimum: 0 },
        tags: { type: 'array', minItems: 1, maxItems: 5, items: { type: 'string' } },
        choice: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        merged: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
      },
      required: ['name', 'email', 'count', 'old', 'tags', 'choice', 'merged'],
      additionalProperties: false,
    });
  });

  it('gives a tool without arguments an empty closed object', () => {
    expect(strict({ type: 'object' })).toEqual({
      name: 'Read',
      description: 'Read a file.',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      strict: true,
    });
  });

  it.each([
    [
      'an open map (additionalProperties schema)',
      { type: 'object', properties: { env: { type: 'object', additionalProperties: { type: 'string' } } } },
    ],
    ['additionalProperties: true', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }],
    ['a free-form nested object', { type: 'object', properties: { meta: { type: 'object' } } }],
    ['patternProperties', { type: 'object', properties: { m: { type: 'object', patternProperties: { '^x': {} } } } }],
    ['an array of anything', { type: 'object', properties: { list: { type: 'array' } } }],
    ['a tuple', { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'string' } } } }],
    ['an untyped property', { type: 'object', properties: { any: {} } }],
    ['a boolean schema', { type: 'object', properties: { any: true } }],
    ['a root that is not an object', { anyOf: [{ type: 'object' }, { type: 'string' }] }],
  ])('falls back to the non-strict schema for %s', (_label, schema) => {
    const input = structuredClone(schema) as JsonSchema;
    expect(toOpenAI([tool(input)], { strict: true })).toEqual([
      { type: 'function', function: { name: 'Read', description: 'Read a file.', parameters: schema } },
    ]);
  });

  it('unravels $ref with siblings and flattens allOf at the root', () => {
    const result = strict({
      $ref: '#/$defs/Args',
      $defs: { Args: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
    });
    expect(result.strict).toBe(true);
    expect(result.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    });
  });
});
