import { describe, expect, it } from 'vitest';
import { overStrictLimits } from '../../../../src/protocol/providers/openai-limits.js';
import { toOpenAI } from '../../../../src/protocol/providers/openai.js';

const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
/** An object nested `levels` deep: the root is level 1. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = object({ [`l${i}`]: schema });
  return schema;
}
const values = (n: number, width = 3) => Array.from({ length: n }, (_, i) => String(i).padStart(width, 'v'));

describe("OpenAI's documented strict-mode limits (Structured Outputs, Supported schemas)", () => {
  it('a schema within every limit passes: 10 levels, 1,000 enum values, 5,000 properties', () => {
    expect(overStrictLimits(nested(10))).toBeUndefined();
    expect(
      overStrictLimits(object({ a: { type: 'string', enum: values(500) }, b: { type: 'string', enum: values(500) } })),
    ).toBeUndefined();
    expect(overStrictLimits(object(Object.fromEntries(values(5000, 4).map((name) => [name, { type: 'string' }]))))).toBeUndefined();
  });

  it.each([
    ['11 levels of nesting', nested(11), /11 levels of nesting \(at most 10\)/],
    [
      'an array counts as a level too: object, array, then 10 levels',
      object({ a: { type: 'array', items: nested(10) } }),
      /12 levels of nesting/,
    ],
    [
      '1,001 enum values across properties',
      object({ a: { type: 'string', enum: values(600) }, b: { type: 'string', enum: values(401) } }),
      /1001 enum values \(at most 1000\)/,
    ],
    [
      '5,001 properties',
      object(Object.fromEntries(values(5001, 4).map((name) => [name, { type: 'string' }]))),
      /5001 object properties \(at most 5000\)/,
    ],
    [
      'an enum of 300 strings of 60 characters',
      object({ a: { type: 'string', enum: values(300, 60) } }),
      /an enum of over 250 values with 18000 characters \(at most 15000\)/,
    ],
    [
      'over 120,000 characters of property names, enum values and consts',
      object({ a: { type: 'string', enum: values(200, 600) }, [`b${'x'.repeat(1)}`]: { type: 'string', const: 'y' } }),
      /120004 characters of names and enum values \(at most 120000\)/,
    ],
  ])('%s', (_what, schema, reason) => {
    expect(overStrictLimits(schema)).toMatch(reason);
  });

  it('a tool whose strict form is over a limit is sent without strict, and the notes say why', () => {
    const notes: string[] = [];
    const [sent] = toOpenAI([{ name: 'deep', description: 'd', parameters: nested(11), concurrencySafe: true }], {
      strict: true,
      notes: (name, note) => notes.push(`${name}: ${note}`),
    });
    expect(sent!.function.strict).toBeUndefined();
    expect(notes).toEqual(["deep: sent without strict mode: over OpenAI's strict-mode limits: 11 levels of nesting (at most 10)"]);
    const [within] = toOpenAI([{ name: 'flat', description: 'f', parameters: nested(3), concurrencySafe: true }], {
      strict: true,
      notes: () => expect.fail('no note'),
    });
    expect(within!.function.strict).toBe(true);
  });
});
