import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderTools, TOOL_FORMATS } from '../../../../src/protocol/providers/index.js';
import { MAX_TOOL_SCHEMA_CHARS, planDocument } from '../../../../src/tools/openapi/plan.js';
import { refFanOut } from '../../../fixtures/openapi/hostile.js';
import { doc } from './helpers.js';

/** One operation, one verdict: what cannot be a tool costs only itself, and says why; the rest of the document is planned. */
const origin = { location: '/docs/api.json', isUrl: false };
const plan = (document: unknown) => planDocument(JSON.stringify(document), origin);
const verdicts = async (document: unknown) => (await plan(document)).operations.map((o) => ({ id: o.operation.operationId, reason: o.reason, notes: o.notes }));
const post = (operationId: string, schema: unknown) => ({ post: { operationId, requestBody: { content: { 'application/json': { schema } } }, responses: {} } });
const ping = { get: { operationId: 'ping', responses: {} } };

describe('planDocument: each operation judged alone', () => {
  it('an invalid type leaves only its operation out, naming where it is', async () => {
    const out = await verdicts(doc({ '/bad': post('bad', { type: 'object', properties: { when: { type: 'date' } } }), '/ping': ping }));
    expect(out).toEqual([
      { id: 'bad', reason: 'its schema is not valid JSON Schema at /properties/when/type: must be equal to one of the allowed values', notes: [] },
      { id: 'ping', reason: undefined, notes: [] },
    ]);
  });

  it('a schema valid to the meta-schema that ajv cannot compile (one $id twice) leaves its operation out', async () => {
    const twice = { type: 'object', properties: { a: { $id: 'dup', type: 'string' }, b: { $id: 'dup', type: 'string' } } };
    const [bad] = await verdicts(doc({ '/twice': post('twice', twice), '/ping': ping }));
    expect(bad!.reason).toMatch(/^its schema does not compile: reference "dup" resolves to more than one schema/);
  });

  it("ajv's unknown-format warnings are notes of the operation (for the JSON log), which is served", async () => {
    const [served] = await verdicts(doc({ '/f': post('f', { type: 'object', properties: { at: { type: 'string', format: 'weird-time' } } }) }));
    expect(served).toEqual({ id: 'f', reason: undefined, notes: ['unknown format "weird-time" ignored in schema at path "#/properties/at"'] });
  });

  it("a pattern for another engine (AWS's [A-Za-z0-9\\:\\-\\_\\.\\@]) is rewritten and the operation served", async () => {
    const planned = await plan(doc({ '/p': post('p', { type: 'object', properties: { arn: { type: 'string', pattern: '^[A-Za-z0-9\\:\\-\\_\\.\\@]+$' } } }) }));
    const [p] = planned.operations;
    expect(p!.reason).toBeUndefined();
    expect((p!.plan!.parameters.properties as Record<string, unknown>).arn).toEqual({ type: 'string', pattern: '^[A-Za-z0-9:\\-_\\.@]+$' });
    expect(p!.notes).toEqual([expect.stringMatching(/^pattern .* rewritten as /)]);
  });

  it('a pattern RE2 cannot run (a look-ahead, a back-reference) is dropped with a note and the operation served; ^(a+)+$ is kept', async () => {
    const properties = { pw: { type: 'string', pattern: '^(?=.*\\d).{8,}$' }, tag: { type: 'string', pattern: '^(a+)+$' } };
    const [p] = (await plan(doc({ '/p': post('p', { type: 'object', properties, patternProperties: { '^(x)\\1$': { type: 'string' } } }) }))).operations;
    expect(p!.reason).toBeUndefined();
    expect(p!.plan!.parameters.properties).toEqual({ pw: { type: 'string' }, tag: { type: 'string', pattern: '^(a+)+$' } });
    expect(p!.notes).toEqual([
      'pattern "^(?=.*\\\\d).{8,}$" dropped: the gateway checks patterns with RE2, which has no look-around or back-reference',
      'patternProperties: pattern "^(x)\\\\1$" dropped: the gateway checks patterns with RE2, which has no look-around or back-reference',
    ]);
  });

  it('one large definition reached by 150 operations is judged by ajv once: the work grows with the document, not the paths to it', async () => {
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(100) }])) };
    const paths = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`/a${i}`, post(`a${i}`, { type: 'object', properties: { b: { $ref: '#/components/schemas/Big' } } })]));
    const compiled: number[] = [];
    const ajv = new Ajv({ strict: false, logger: false });
    const compile = ajv.compile.bind(ajv);
    ajv.compile = ((schema: object) => {
      compiled.push(JSON.stringify(schema).length);
      return compile(schema);
    }) as typeof ajv.compile;
    const planned = await planDocument(JSON.stringify(doc(paths, { components: { schemas: { Big: big } } })), origin, ajv);
    expect(planned.operations.every((o) => o.reason === undefined)).toBe(true);
    const bigChars = JSON.stringify(big).length;
    expect(compiled).toHaveLength(151);
    expect(compiled.filter((chars) => chars > bigChars)).toHaveLength(1);
    expect(compiled.reduce((a, b) => a + b, 0)).toBeLessThan(2 * bigChars);
    // Every tool still carries the definition it reaches.
    expect((planned.operations[149]!.plan!.parameters.$defs as Record<string, unknown>).Big).toEqual(big);
  });

  it(`a schema over ${MAX_TOOL_SCHEMA_CHARS} characters with its definitions leaves its operation out`, async () => {
    const values = Array.from({ length: 30_000 }, (_, i) => `value-${i}`);
    const out = await verdicts(doc({ '/big': post('big', { $ref: '#/components/schemas/Big' }), '/ping': ping }, { components: { schemas: { Big: { type: 'object', properties: { v: { enum: values } } } } } }));
    expect(out[0]!.reason).toMatch(/^its parameters schema is [\d,]+ characters as JSON with its definitions, over the 262,144 a tool may have$/);
    expect(out[1]!.reason).toBeUndefined();
  });

  it('a schema nested deeper than 64 levels leaves its operation out', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 70; i++) deep = { type: 'array', items: deep };
    expect((await verdicts(doc({ '/deep': post('deep', { type: 'object', properties: { d: deep } }), '/ping': ping })))[0]!.reason).toBe('its schema nests deeper than 64 levels');
  });

  it('a definition that cannot be read costs the operations that reach it, and only those', async () => {
    const schemas = { Ext: { type: 'object', properties: { x: { $ref: 'https://elsewhere.example/x.json' } } }, Fine: { type: 'string' } };
    const out = await verdicts(doc({ '/a': post('a', { type: 'object', properties: { e: { $ref: '#/components/schemas/Ext' } } }), '/b': post('b', { type: 'object', properties: { f: { $ref: '#/components/schemas/Fine' } } }) }, { components: { schemas } }));
    expect(out.map((o) => [o.id, o.reason])).toEqual([
      ['a', 'its $ref "https://elsewhere.example/x.json" points outside the document; external references are not followed (bundle the document into one)'],
      ['b', undefined],
    ]);
  });

  it('a billion-laughs $ref fan-out (10 names of the next level, 30 levels deep) is planned at its size, in time', async () => {
    const started = performance.now();
    const [laugh, pingOp] = (await plan(refFanOut(30, 10))).operations;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(laugh!.reason).toBeUndefined();
    expect(Object.keys(laugh!.plan!.parameters.$defs as object)).toHaveLength(30);
    expect(JSON.stringify(laugh!.plan!.parameters).length).toBeLessThan(20_000);
    expect(pingOp!.reason).toBeUndefined();
  });
});

describe('a tool whose parameters hold $defs', () => {
  const node = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } };
  let parameters: Record<string, unknown>;
  beforeAll(async () => {
    const planned = await plan(doc({ '/tree': post('plant', { type: 'object', properties: { root: { $ref: '#/components/schemas/Node' } } }) }, { components: { schemas: { Node: node } } }));
    parameters = planned.operations[0]!.plan!.parameters;
  });

  it('validates with ajv, the recursion included', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(parameters);
    expect(validate({ root: { name: 'a', children: [{ name: 'b', children: [] }] } })).toBe(true);
    expect(validate({ root: { name: 'a', children: [{ children: [] }] } })).toBe(false);
  });

  it('renders in every dialect: $defs kept where the dialect takes them, inlined (a cycle cut) for Gemini', () => {
    const tool = { name: 'plant', description: 'Plant a tree', parameters, concurrencySafe: false };
    for (const format of TOOL_FORMATS) {
      for (const strict of [false, true]) {
        const text = JSON.stringify(renderTools(format, [tool], strict));
        if (format === 'gemini') expect(text).not.toMatch(/\$ref|\$defs/);
        else expect(text).toContain('"$defs"');
      }
    }
  });
});
