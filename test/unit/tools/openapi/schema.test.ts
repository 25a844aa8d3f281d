import { describe, expect, it } from 'vitest';
import { DocumentSchemas, SchemaWalk } from '../../../../src/tools/openapi/schema.js';

/** `schema` converted in a document of these components, and the `$defs` it reaches. */
function convert(schema: unknown, schemas: Record<string, unknown> = {}, version: '3.0' | '3.1' = '3.1') {
  const document = new DocumentSchemas({ components: { schemas } }, version);
  const walk = new SchemaWalk(document);
  const out = walk.convert(schema);
  return { out, ...document.closure(walk.uses), notes: walk.notes };
}
const toJsonSchema = (schema: unknown) => convert(schema).out;

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

  it('an object written twice (a YAML alias) is converted twice; one that contains itself is refused, not walked forever', () => {
    const shared = { type: 'string', nullable: true };
    const out = toJsonSchema({ type: 'object', properties: { a: shared, b: shared } });
    expect(out.properties).toEqual({ a: { type: ['string', 'null'] }, b: { type: ['string', 'null'] } });
    const loop: Record<string, unknown> = { type: 'object' };
    loop.properties = { self: loop };
    expect(() => toJsonSchema(loop)).toThrow('its schema contains itself without a $ref (a YAML alias cycle)');
  });
});

describe('$ref: shared definitions stay shared, as the tool\'s own $defs', () => {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  it('a component named twice is one definition; the tool gets only the definitions it reaches', () => {
    const { out, defs } = convert(
      { type: 'object', properties: { a: ref('Pet'), b: { type: 'array', items: ref('Pet') } } },
      { Pet: { type: 'object', properties: { tag: ref('Tag') } }, Tag: { type: 'string', readOnly: false }, Unused: { type: 'integer' } },
    );
    expect(out).toEqual({ type: 'object', properties: { a: { $ref: '#/$defs/Pet' }, b: { type: 'array', items: { $ref: '#/$defs/Pet' } } } });
    expect(defs).toEqual({ Pet: { type: 'object', properties: { tag: { $ref: '#/$defs/Tag' } } }, Tag: { type: 'string' } });
  });

  it('a billion-laughs fan-out (each level naming the next ten times) costs its size, not ten to the depth', () => {
    const schemas: Record<string, unknown> = { L0: { type: 'string' } };
    for (let i = 1; i <= 30; i++) schemas[`L${i}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`p${k}`, ref(`L${i - 1}`)])) };
    const started = performance.now();
    const { defs, chars } = convert(ref('L30'), schemas);
    expect(Object.keys(defs)).toHaveLength(31);
    expect(chars).toBeLessThan(20_000);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a cycle is a reference to itself; a chain of a thousand definitions is converted without deep recursion', () => {
    const { defs } = convert(ref('A'), { A: { type: 'object', properties: { b: ref('B') } }, B: { type: 'array', items: ref('A') } });
    expect(defs).toEqual({ A: { type: 'object', properties: { b: { $ref: '#/$defs/B' } } }, B: { type: 'array', items: { $ref: '#/$defs/A' } } });
    const chain: Record<string, unknown> = { C0: { type: 'string' } };
    for (let i = 1; i <= 5000; i++) chain[`C${i}`] = { type: 'array', items: ref(`C${i - 1}`) };
    expect(Object.keys(convert(ref('C5000'), chain).defs)).toHaveLength(5001);
  });

  it('names stay within what a $ref fragment may hold, and two that would be one get a number', () => {
    const doc = { components: { schemas: { 'a b': { type: 'string' } } }, paths: { '/x': { schema: { type: 'integer' } } }, other: { 'a_b': { type: 'boolean' } } };
    const walk = new SchemaWalk(new DocumentSchemas(doc, '3.1'));
    const out = walk.convert({ anyOf: [{ $ref: '#/components/schemas/a%20b' }, { $ref: '#/other/a_b' }, { $ref: '#/paths/~1x/schema' }] });
    expect(out).toEqual({ anyOf: [{ $ref: '#/$defs/a_b' }, { $ref: '#/$defs/a_b_2' }, { $ref: '#/$defs/schema' }] });
  });

  it('3.1 keeps the keywords beside a $ref, 3.0 ignores them, as each version says', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/components/schemas/T', description: 'the a' } } };
    expect(convert(schema, { T: { type: 'string' } }, '3.1').out.properties).toEqual({ a: { $ref: '#/$defs/T', description: 'the a' } });
    expect(convert(schema, { T: { type: 'string' } }, '3.0').out.properties).toEqual({ a: { $ref: '#/$defs/T' } });
  });

  it('a read-only property behind a $ref is left out of the request', () => {
    const { out } = convert({ type: 'object', required: ['id', 'n'], properties: { id: ref('Id'), n: { type: 'integer' } } }, { Id: { type: 'string', readOnly: true } });
    expect(out).toEqual({ type: 'object', required: ['n'], properties: { n: { type: 'integer' } } });
  });

  it('an external $ref, one that points nowhere, and a definition that cannot be converted each throw, naming the ref', () => {
    expect(() => convert({ $ref: 'other.json#/Pet' })).toThrow('its $ref "other.json#/Pet" points outside the document; external references are not followed');
    expect(() => convert(ref('Gone'))).toThrow('its $ref "#/components/schemas/Gone" points nowhere in the document');
    expect(() => convert(ref('A'), { A: { properties: { x: { $ref: 'http://elsewhere/x.json' } } } })).toThrow('its $ref "http://elsewhere/x.json" points outside the document');
  });

  it('a pattern for another engine is rewritten without its needless escapes, or dropped, each with a note', () => {
    const { out, notes } = convert({
      type: 'object',
      properties: { a: { type: 'string', pattern: '^[A-Za-z0-9\\:\\-\\_\\.\\@]+$' }, b: { type: 'string', pattern: '(?<!x)\\Z' }, c: { type: 'string', pattern: '^[a-z]+$' } },
    });
    expect(out.properties).toEqual({ a: { type: 'string', pattern: '^[A-Za-z0-9:\\-_\\.@]+$' }, b: { type: 'string' }, c: { type: 'string', pattern: '^[a-z]+$' } });
    expect(notes).toEqual([
      'pattern "^[A-Za-z0-9\\\\:\\\\-\\\\_\\\\.\\\\@]+$" rewritten as "^[A-Za-z0-9:\\\\-_\\\\.@]+$" (needless escapes are errors under ECMAScript\'s u flag)',
      'pattern "(?<!x)\\\\Z" dropped: it is not an ECMAScript regular expression under the u flag',
    ]);
  });
});
