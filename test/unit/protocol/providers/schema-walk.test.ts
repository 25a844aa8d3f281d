import { describe, expect, it } from 'vitest';
import { geminiParameters, type Node } from './fixtures.js';

/** Gemini takes no $ref: references are inlined, cycles and unresolvable ones cut. The other adaptations: gemini.test.ts. */
describe('dialects: gemini schema adaptation', () => {
  it('inlines $ref from $defs and definitions', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' }, b: { $ref: '#/definitions/B' } },
      $defs: { A: { type: 'string', description: 'An A' } },
      definitions: { B: { type: 'integer' } },
    });
    expect(parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'string', description: 'An A' }, b: { type: 'integer' } },
    });
  });

  it('inlines nested $defs and follows references inside definitions', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { outer: { $ref: '#/$defs/Outer' } },
      $defs: {
        Outer: {
          type: 'object',
          properties: { inner: { $ref: '#/$defs/Outer/$defs/Inner' }, list: { type: 'array', items: { $ref: '#/$defs/Item' } } },
          $defs: { Inner: { type: 'boolean' } },
        },
        Item: { type: 'object', properties: { 'a/b': { $ref: '#/$defs/Slash~1Name' } } },
        'Slash/Name': { type: 'number' },
      },
    });
    expect(parameters?.properties).toEqual({
      outer: {
        type: 'object',
        properties: {
          inner: { type: 'boolean' },
          list: { type: 'array', items: { type: 'object', properties: { 'a/b': { type: 'number' } } } },
        },
      },
    });
  });

  it('lets keywords beside $ref win over the target’s', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { a: { $ref: '#/$defs/A', description: 'Local' } },
      $defs: { A: { type: 'string', description: 'Shared' } },
    });
    expect(parameters?.properties).toEqual({ a: { type: 'string', description: 'Local' } });
  });

  it('cuts a recursive reference to a permissive object', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { tree: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: {
          type: 'object',
          description: 'A tree node',
          properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        },
      },
    });
    expect(parameters?.properties).toEqual({
      tree: {
        type: 'object',
        description: 'A tree node',
        properties: {
          value: { type: 'string' },
          children: { type: 'array', items: { type: 'object', description: 'A tree node' } },
        },
      },
    });
  });

  it('cuts a reference to the root and an unresolvable reference', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { self: { $ref: '#' }, remote: { $ref: 'https://example.com/schema.json' }, missing: { $ref: '#/$defs/Nope' } },
    });
    expect(parameters?.properties).toEqual({ self: { type: 'object' }, remote: { type: 'object' }, missing: { type: 'object' } });
  });

  it('keeps the output bounded when shared definitions would multiply', () => {
    const $defs: Node = { D0: { type: 'string' } };
    for (let i = 1; i <= 30; i++) {
      $defs[`D${i}`] = { type: 'object', properties: { l: { $ref: `#/$defs/D${i - 1}` }, r: { $ref: `#/$defs/D${i - 1}` } } };
    }
    const parameters = geminiParameters({ type: 'object', properties: { top: { $ref: '#/$defs/D30' } }, $defs });
    expect(JSON.stringify(parameters).length).toBeLessThan(200_000);
  });
});
