import { describe, expect, it } from 'vitest';
import { toAnthropic, toGemini, toMcp, toOpenAI, type ToolSchemaSource } from '../../../src/registry/dialects/index.js';
import type { JsonSchema } from '../../../src/tools/tool.js';

type Node = Record<string, unknown>;

function tool(parameters: JsonSchema, overrides: Partial<ToolSchemaSource> = {}): ToolSchemaSource {
  return { name: 'Read', description: 'Read a file.', parameters, concurrencySafe: true, ...overrides };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Every schema node of a converted schema: the root, property schemas, items, anyOf branches, definitions. */
function schemaNodes(schema: unknown): Node[] {
  const nodes: Node[] = [];
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const n = node as Node;
    nodes.push(n);
    for (const key of ['properties', '$defs', 'definitions']) {
      const map = n[key];
      if (typeof map === 'object' && map !== null) Object.values(map).forEach(visit);
    }
    visit(n.items);
    if (Array.isArray(n.anyOf)) n.anyOf.forEach(visit);
  };
  visit(schema);
  return nodes;
}

function geminiParameters(parameters: JsonSchema): Node | undefined {
  return toGemini([tool(parameters)])[0]?.functionDeclarations[0]?.parameters;
}

function strict(parameters: JsonSchema): { parameters: Node; strict?: true } {
  const [entry] = toOpenAI([tool(parameters)], { strict: true });
  return entry?.function as { parameters: Node; strict?: true };
}

const readSchema: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Workspace-relative path.' },
    offset: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, default: 2000 },
  },
  required: ['path'],
  additionalProperties: false,
};

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
    const allowed = new Set([
      'type',
      'format',
      'title',
      'description',
      'nullable',
      'enum',
      'properties',
      'required',
      'minProperties',
      'maxProperties',
      'items',
      'minItems',
      'maxItems',
      'minLength',
      'maxLength',
      'pattern',
      'minimum',
      'maximum',
      'anyOf',
    ]);
    for (const node of schemaNodes(parameters)) {
      for (const key of Object.keys(node)) expect(allowed, `keyword ${key}`).toContain(key);
    }
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

  it('keeps required to listed properties, drops empty properties, gives arrays items', () => {
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
        list: { type: 'array', items: {} },
        tuple: { type: 'array', items: {} },
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
