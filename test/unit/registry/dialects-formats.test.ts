import { describe, expect, it } from 'vitest';
import { toAnthropic, toGemini, toMcp, toOpenAI, type ToolSchemaSource } from '../../../src/registry/dialects/index.js';
import type { JsonSchema } from '../../../src/tools/tool.js';
import { readSchema, tool, type Node } from './dialects-fixtures.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('dialects: the four formats, each as its provider expects', () => {
  const tools = [
    tool(readSchema),
    tool({ type: 'object', properties: { cmd: { type: 'string' } } }, { name: 'Bash', concurrencySafe: false }),
  ];

  it('openai: function entries, schema unchanged, no strict flag', () => {
    expect(toOpenAI(tools, { strict: false })).toEqual([
      { type: 'function', function: { name: 'Read', description: 'Read a file.', parameters: readSchema } },
      { type: 'function', function: { name: 'Bash', description: 'Read a file.', parameters: tools[1]?.parameters } },
    ]);
  });

  it('anthropic: name, description, input_schema', () => {
    expect(toAnthropic(tools)[0]).toEqual({ name: 'Read', description: 'Read a file.', input_schema: readSchema });
  });

  it('gemini: one entry holding every declaration', () => {
    const result = toGemini(tools);
    expect(result).toHaveLength(1);
    expect(result[0]?.functionDeclarations.map((d) => d.name)).toEqual(['Read', 'Bash']);
  });

  it('gemini: no tools, no entry', () => {
    expect(toGemini([])).toEqual([]);
  });

  it('mcp: inputSchema and read-only/destructive hints from concurrencySafe', () => {
    expect(toMcp(tools)).toEqual([
      { name: 'Read', description: 'Read a file.', inputSchema: readSchema, annotations: { readOnlyHint: true, destructiveHint: false } },
      {
        name: 'Bash',
        description: 'Read a file.',
        inputSchema: tools[1]?.parameters,
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
    ]);
  });

  it('keeps the input order', () => {
    const names = ['b', 'a', 'c'].map((name) => tool(readSchema, { name }));
    expect(toAnthropic(names).map((t) => t.name)).toEqual(['b', 'a', 'c']);
  });
});

describe('dialects: never mutate, always deterministic', () => {
  const complex: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      node: { $ref: '#/$defs/Node', description: 'Root' },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      extra: { allOf: [{ $ref: '#/$defs/Leaf' }, { properties: { note: { type: 'string' } } }] },
      mode: { oneOf: [{ const: 'fast' }, { const: 'slow' }], default: 'fast' },
    },
    required: ['node'],
    $defs: {
      Node: { type: 'object', properties: { value: { type: 'number' }, next: { $ref: '#/$defs/Node' } }, required: ['value'] },
      Leaf: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  };
  const converters = {
    openai: (t: ToolSchemaSource[]) => toOpenAI(t, { strict: false }),
    strict: (t: ToolSchemaSource[]) => toOpenAI(t, { strict: true }),
    anthropic: toAnthropic,
    gemini: toGemini,
    mcp: toMcp,
  };

  it.each(Object.entries(converters))('%s leaves frozen input untouched', (_name, convert) => {
    const input = deepFreeze(structuredClone(complex));
    expect(() => convert([tool(input)])).not.toThrow();
    expect(input).toEqual(complex);
  });

  it.each(Object.entries(converters))('%s output shares nothing mutable with the input', (_name, convert) => {
    const input = structuredClone(complex);
    const output = convert([tool(input)]);
    const mutate = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      for (const inner of Object.values(value)) mutate(inner);
      if (Array.isArray(value)) value.push('x');
      else (value as Node).mutated = true;
    };
    mutate(output);
    expect(input).toEqual(complex);
  });

  it.each(Object.entries(converters))('%s gives byte-identical JSON for the same input', (_name, convert) => {
    const first = JSON.stringify(convert([tool(complex)]));
    expect(JSON.stringify(convert([tool(complex)]))).toBe(first);
    expect(JSON.stringify(convert([tool(structuredClone(complex))]))).toBe(first);
  });
});
