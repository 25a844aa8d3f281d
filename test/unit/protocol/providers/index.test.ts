import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../../../src/protocol/providers/anthropic.js';
import type { ToolSchemaSource } from '../../../../src/protocol/providers/dialect.js';
import { toGemini } from '../../../../src/protocol/providers/gemini.js';
import { renderMessages } from '../../../../src/protocol/providers/index.js';
import { toMcp } from '../../../../src/protocol/providers/mcp.js';
import { toOpenAI } from '../../../../src/protocol/providers/openai.js';
import type { JsonSchema } from '../../../../src/tools/tool.js';
import { failed, generated, ok, tool, type Node } from './fixtures.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

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

describe('renderMessages: the messages each format expects, in request order', () => {
  it('openai: one tool message per call, in request order', () => {
    expect(renderMessages('openai', [ok, failed])).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: ok.content },
      { role: 'tool', tool_call_id: 'call_2', content: failed.content },
    ]);
  });

  it('responses: one function_call_output item per call, in request order, output the serialized payload', () => {
    expect(renderMessages('responses', [failed, ok])).toEqual([
      { type: 'function_call_output', call_id: 'call_2', output: failed.content },
      { type: 'function_call_output', call_id: 'call_1', output: ok.content },
    ]);
  });

  it('openai and anthropic keep the generated id: the client echoes it back with the call', () => {
    expect(renderMessages('openai', [generated])).toEqual([
      { role: 'tool', tool_call_id: generated.tool_call_id, content: generated.content },
    ]);
    expect(renderMessages('anthropic', [generated])[0]).toMatchObject({ content: [{ tool_use_id: generated.tool_call_id }] });
  });

  it.each(['openai', 'responses', 'anthropic', 'gemini'] as const)('%s: no calls, no messages', (format) => {
    expect(renderMessages(format, [])).toEqual([]);
  });

  it('renders only the content given, never the gateway’s own fields', () => {
    const [message] = renderMessages('openai', [ok]);
    expect(Object.keys(message ?? {})).toEqual(['role', 'tool_call_id', 'content']);
  });
});
