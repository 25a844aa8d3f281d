import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createPolicy } from '../../../../src/policy/index.js';
import { createBuiltinTools } from '../../../../src/tools/builtin/index.js';
import type { Tool } from '../../../../src/tools/tool.js';

describe('createBuiltinTools', () => {
  const tools: Tool[] = createBuiltinTools(createPolicy([]));

  it('returns the six workspace tools with their lock roles and concurrency', () => {
    const summary = tools.map((t) => [t.name, t.concurrencySafe, t.lock?.role ?? null]);
    expect(summary).toEqual([
      ['Read', true, 'read'],
      ['Write', false, 'write'],
      ['Edit', false, 'write'],
      ['Glob', true, null],
      ['Grep', true, null],
      ['LS', true, null],
    ]);
    for (const tool of tools) if (tool.lock) expect(tool.lock.pathArg).toBe('path');
  });

  it('every schema is a closed object that ajv (draft 2020-12, strict) compiles, and its examples validate', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const tool of tools) {
      const schema = tool.parameters as {
        type: string;
        additionalProperties: boolean;
        required: string[];
        examples: unknown[];
        properties: Record<string, { description?: string; examples?: unknown[] }>;
      };
      expect(schema.type, tool.name).toBe('object');
      expect(schema.additionalProperties, tool.name).toBe(false);
      expect(Array.isArray(schema.required), tool.name).toBe(true);
      expect(tool.description.length, tool.name).toBeGreaterThan(100);
      const validate = ajv.compile(schema);
      for (const example of schema.examples) expect(validate(example), `${tool.name} ${JSON.stringify(validate.errors)}`).toBe(true);
      for (const [name, property] of Object.entries(schema.properties)) {
        expect(property.description, `${tool.name}.${name}`).toBeTruthy();
        for (const value of property.examples ?? [])
          expect(validate({ ...(schema.examples[0] as object), [name]: value }), `${tool.name}.${name}`).toBe(true);
      }
      expect(validate({ ...(schema.examples[0] as object), unexpected: 1 }), `${tool.name} additionalProperties`).toBe(false);
    }
  });
});
