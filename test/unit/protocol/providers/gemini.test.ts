import { describe, expect, it } from 'vitest';
import { toGemini } from '../../../../src/protocol/providers/gemini.js';
import type { JsonSchema } from '../../../../src/tools/tool.js';
import { renderMessages } from '../../../../src/protocol/providers/index.js';
import { geminiSubsetProblems } from '../../../helpers/gemini-subset.js';
import { ANY_VALUE, failed, generated, geminiParameters, ok, png, readSchema, shot, tool, tools, type Node } from './fixtures.js';

/** Gemini's schema subset: types, enums, combinators and keywords it takes. References: schema-walk.test.ts. */
describe('dialects: gemini schema adaptation', () => {
  it('turns type [x, "null"] into nullable, and a null anyOf branch too', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: {
        a: { type: ['string', 'null'] },
        b: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }], description: 'B' },
        c: { type: 'string', enum: ['x', null] },
      },
    });
    expect(parameters?.properties).toEqual({
      a: { type: 'string', nullable: true },
      b: { type: 'integer', minimum: 0, description: 'B', nullable: true },
      c: { type: 'string', enum: ['x'], nullable: true },
    });
  });

  it('splits a type list into anyOf branches with their own keywords', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { v: { type: ['string', 'array', 'null'], minLength: 1, items: { type: 'number' }, maxItems: 3 } },
    });
    expect(parameters?.properties).toEqual({
      v: {
        nullable: true,
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'array', items: { type: 'number' }, maxItems: 3 },
        ],
      },
    });
  });

  it('maps const to enum, oneOf to anyOf, and notes non-string enums in the description', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: {
        kind: { const: 'file' },
        level: { type: 'integer', enum: [1, 2, 3], description: 'Level.' },
        flag: { enum: [true] },
        either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
    });
    expect(parameters?.properties).toEqual({
      kind: { type: 'string', enum: ['file'] },
      level: { type: 'integer', description: 'Level. One of: 1, 2, 3.' },
      flag: { type: 'boolean', description: 'One of: true.' },
      either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    });
  });

  it('merges allOf branches, references included', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: {
        both: {
          allOf: [{ $ref: '#/$defs/A' }, { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] }],
          description: 'Both',
        },
      },
      $defs: { A: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
    });
    expect(parameters?.properties).toEqual({
      both: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        required: ['a', 'b'],
        description: 'Both',
      },
    });
  });

  it('drops every keyword outside Gemini’s schema subset, at every depth', () => {
    const rejected = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:x',
      $comment: 'c',
      additionalProperties: false,
      examples: ['a'],
      patternProperties: { '^x': { type: 'string' } },
      unevaluatedProperties: false,
      propertyNames: { pattern: '^a' },
      if: { properties: { a: { const: 1 } } },
      then: { required: ['b'] },
      else: { required: ['c'] },
      not: { type: 'null' },
      dependentRequired: { a: ['b'] },
      dependentSchemas: { a: {} },
      exclusiveMinimum: 0,
      exclusiveMaximum: 10,
      multipleOf: 2,
      uniqueItems: true,
      contains: { type: 'string' },
      prefixItems: [{ type: 'string' }],
      readOnly: true,
      deprecated: true,
      contentEncoding: 'base64',
      strange: 1,
    };
    const parameters = geminiParameters({
      ...rejected,
      type: 'object',
      properties: {
        s: { ...rejected, type: 'string', format: 'uri', pattern: '^a' },
        n: { ...rejected, type: 'number', format: 'float', minimum: 1 },
        o: { ...rejected, type: 'object', properties: { deep: { ...rejected, type: 'array', items: { ...rejected, type: 'integer' } } } },
      },
    });
    // Every node of the output holds only fields of Gemini's documented Schema, by the list written apart in test/helpers.
    expect(geminiSubsetProblems(parameters)).toEqual([]);
    expect(parameters?.properties).toMatchObject({
      s: { type: 'string', pattern: '^a' },
      n: { type: 'number', format: 'float', minimum: 1 },
    });
    expect((parameters?.properties as Node).s).not.toHaveProperty('format');
  });

  it('keeps only formats Gemini takes for the type', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        uuid: { type: 'string', format: 'uuid' },
        big: { type: 'integer', format: 'int64' },
        wrong: { type: 'integer', format: 'double' },
      },
    });
    expect(parameters?.properties).toEqual({
      when: { type: 'string', format: 'date-time' },
      uuid: { type: 'string' },
      big: { type: 'integer', format: 'int64' },
      wrong: { type: 'integer' },
    });
  });

  it('keeps required to listed properties, drops empty properties, gives arrays items (any value when it has none Gemini takes)', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: {
        a: { type: 'string' },
        empty: { type: 'object', properties: {}, required: ['x'] },
        list: { type: 'array' },
        tuple: { type: 'array', items: [{ type: 'string' }] },
        wrongPlace: { type: 'string', properties: { x: { type: 'string' } }, items: { type: 'string' } },
      },
      required: ['a', 'ghost', 'a'],
    });
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string' },
        empty: { type: 'object' },
        list: { type: 'array', items: { anyOf: ANY_VALUE } },
        tuple: { type: 'array', items: { anyOf: ANY_VALUE } },
        wrongPlace: { type: 'string' },
      },
      required: ['a'],
    });
  });

  it('moves default into the description', () => {
    const parameters = geminiParameters(readSchema);
    expect((parameters?.properties as Node).limit).toEqual({ type: 'integer', minimum: 1, description: 'Default: 2000.' });
  });

  it('infers the type from properties, items or string enums', () => {
    const parameters = geminiParameters({
      properties: { o: { properties: { a: { type: 'string' } } }, l: { items: { type: 'string' } }, e: { enum: ['a', 'b'] } },
    });
    expect(parameters).toEqual({
      type: 'object',
      properties: {
        o: { type: 'object', properties: { a: { type: 'string' } } },
        l: { type: 'array', items: { type: 'string' } },
        e: { type: 'string', enum: ['a', 'b'] },
      },
    });
  });

  it.each([
    ['no properties', { type: 'object' }],
    ['empty properties', { type: 'object', properties: {} }],
    ['an empty schema', {}],
  ])('leaves parameters out for a tool without arguments (%s)', (_label, schema) => {
    expect(toGemini([tool(schema)])[0]?.functionDeclarations[0]).toEqual({ name: 'Read', description: 'Read a file.' });
  });

  it('keeps a property named __proto__ as a plain property', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}') as JsonSchema;
    const parameters = geminiParameters(schema);
    const properties = parameters?.properties as Node;
    expect(Object.hasOwn(properties, '__proto__')).toBe(true);
    expect(JSON.stringify(parameters)).toBe('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}');
  });
});

describe('dialects: the four formats, each as its provider expects', () => {
  it('gemini: one entry holding every declaration', () => {
    const result = toGemini(tools);
    expect(result).toHaveLength(1);
    expect(result[0]?.functionDeclarations.map((d) => d.name)).toEqual(['Read', 'Bash']);
  });

  it('gemini: no tools, no entry', () => {
    expect(toGemini([])).toEqual([]);
  });
});

describe('renderMessages: the messages each format expects, in request order', () => {
  it('gemini: one user message of functionResponse parts whose response is the payload object', () => {
    const [message] = renderMessages('gemini', [ok, failed]);
    expect(message).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'call_1', name: 'Read', response: ok.payload } },
        { functionResponse: { id: 'call_2', name: 'Edit', response: failed.payload } },
      ],
    });
    expect(JSON.parse(JSON.stringify(message))).toEqual(message);
  });

  it('gemini: no id for a call whose id the gateway made up', () => {
    expect(renderMessages('gemini', [generated])).toEqual([
      { role: 'user', parts: [{ functionResponse: { name: 'LS', response: generated.payload } }] },
    ]);
  });
});

describe('renderMessages: images travel natively beside the payload that names them', () => {
  it('gemini: inline-data parts of the function response, for the types its function responses take (no GIF)', () => {
    expect(renderMessages('gemini', [shot])[0]).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'call_s',
            name: 'shot',
            response: shot.payload,
            parts: [{ inlineData: { mimeType: 'image/png', data: png.data } }],
          },
        },
      ],
    });
  });
});
