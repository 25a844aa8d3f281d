import { describe, expect, it } from 'vitest';
import { createSchemaAjv, re2RegExp, unrunnablePatterns, upstreamRegExp } from '../../../src/tools/schema-ajv.js';

/** Tool schemas' patterns run on RE2 with ECMAScript's meaning: a pattern can never hold the event loop. */
describe('re2RegExp: ajv patterns on RE2', () => {
  const test = (pattern: string, input: string) => re2RegExp(pattern, 'u').test(input);

  it('a catastrophic pattern (^(a+)+$ on 40 a and !) answers at once', () => {
    const started = performance.now();
    expect(test('^(a+)+$', `${'a'.repeat(40)}!`)).toBe(false);
    expect(test('^(a+)+$', 'a'.repeat(40))).toBe(true);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('searches like ECMAScript: unanchored unless the pattern anchors, ^ and $ at the ends of the whole string only', () => {
    expect(test('b', 'abc')).toBe(true);
    expect(test('^b', 'abc')).toBe(false);
    expect(test('^a$', 'a\n')).toBe(/^a$/u.test('a\n'));
    expect(test('^a$', 'b\na')).toBe(false);
  });

  it('reads code points and ECMAScript escapes (\\u, \\u{}, \\p{}, named groups, [^])', () => {
    expect(test('^.$', '😀')).toBe(true);
    expect(test('^\\u00e9$', 'é')).toBe(true);
    expect(test('^\\u{1F600}$', '😀')).toBe(true);
    expect(test('^\\p{L}+$', 'Grüße')).toBe(true);
    expect(test('^(?<year>\\d{4})-\\d{2}$', '2024-05')).toBe(true);
    expect(test('^[^]$', '\n')).toBe(true);
    expect(test('^a\\/b$', 'a/b')).toBe(true);
  });

  it('. stops at every ECMAScript line terminator and \\s is ECMAScript white space, as new RegExp(p, "u") has them', () => {
    const cases: Array<[string, string]> = [
      ['^.$', '\r'],
      ['^.$', '\u2028'],
      ['^.$', '\n'],
      ['^\\s$', '\u00a0'],
      ['^\\s$', '\u3000'],
      ['^\\S$', '\u00a0'],
      ['^[\\s,]+$', ' ,\u00a0'],
      ['^[.]$', '.'],
      ['^[.]$', 'x'],
    ];
    for (const [pattern, input] of cases)
      expect([pattern, input, test(pattern, input)]).toEqual([pattern, input, new RegExp(pattern, 'u').test(input)]);
  });

  it('ajv passes "u" or nothing; any other flag, a look-around, a back-reference is refused with the pattern named', () => {
    expect(re2RegExp('a', '').test('a')).toBe(true);
    expect(() => re2RegExp('a', 'g')).toThrow('regular expression flags "g" are not supported');
    expect(() => re2RegExp('^(?=a)', 'u')).toThrow(/^pattern "\^\(\?=a\)" is not run by the gateway's linear-time engine \(RE2\)/);
    expect(() => re2RegExp('(a)\\1', 'u')).toThrow(/linear-time engine/);
  });

  it('each pattern has a text of its own, which ajv keys its compiled patterns by', () => {
    expect(String(re2RegExp('a', 'u'))).toBe('/a/u');
    expect(String(re2RegExp('b', 'u'))).not.toBe(String(re2RegExp('a', 'u')));
  });
});

describe('createSchemaAjv', () => {
  const ajv = createSchemaAjv(false);

  it('validates pattern and patternProperties with RE2: two patterns in one schema each keep their meaning', () => {
    const validate = ajv.compile({
      type: 'object',
      properties: { q: { type: 'string', pattern: '^(a+)+$' }, r: { type: 'string', pattern: '^b+$' } },
      patternProperties: { '^x-(\\w+)+$': { type: 'integer' } },
      additionalProperties: false,
    });
    const started = performance.now();
    expect(validate({ q: `${'a'.repeat(40)}!` })).toBe(false);
    expect(validate({ 'x-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!': 1 })).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
    expect(validate({ q: 'aaa', r: 'bb', 'x-a': 1 })).toBe(true);
    expect(validate({ r: 'a' })).toBe(false);
    expect(validate({ 'x-a': 'no' })).toBe(false);
  });

  it('a schema whose pattern RE2 cannot run does not compile, and says why', () => {
    expect(() => ajv.compile({ type: 'string', pattern: '^(?!admin)' })).toThrow(/is not run by the gateway's linear-time engine/);
  });
});

describe("an upstream's patterns", () => {
  it('one RE2 cannot run is not checked (the upstream checks it); the others run on RE2', () => {
    const ajv = createSchemaAjv(false, upstreamRegExp);
    const validate = ajv.compile({
      type: 'object',
      properties: { host: { type: 'string', pattern: '^(?=.{1,5}$)[a-z]+$' }, q: { type: 'string', pattern: '^(a+)+$' } },
    });
    expect(validate({ host: 'much-too-long' })).toBe(true);
    expect(validate({ q: `${'a'.repeat(40)}!` })).toBe(false);
  });

  it('unrunnablePatterns names them at any depth, patternProperties names included', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'string', pattern: '(x)\\1' } }, b: { type: 'string', pattern: '^b$' } },
      patternProperties: { '^(?!_)': {} },
    };
    expect(unrunnablePatterns(schema).sort()).toEqual(['(x)\\1', '^(?!_)']);
    expect(unrunnablePatterns({ type: 'string', pattern: '^(a+)+$' })).toEqual([]);
  });
});
