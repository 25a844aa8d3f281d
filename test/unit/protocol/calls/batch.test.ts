import { describe, expect, it } from 'vitest';
import { anthropicCall, errorOf, openaiCall, parse } from './fixtures.js';

describe('parseEnvelope: call ids', () => {
  it('generates call_<32 hex> ids for calls without one, all distinct', () => {
    const calls = parse(Array.from({ length: 64 }, () => ({ name: 'Read', arguments: '{}' }))).calls;
    for (const call of calls) {
      expect(call.id).toMatch(/^call_[0-9a-f]{32}$/);
      expect(call.idGenerated).toBe(true);
    }
    expect(new Set(calls.map((call) => call.id)).size).toBe(64);
  });

  it('generates an id for null and empty ids, and for Gemini calls without id', () => {
    const calls = parse([
      { id: null, name: 'Read', arguments: '{}' },
      { id: '', name: 'Read', arguments: '{}' },
      { functionCall: { name: 'Read', args: {} } },
    ]).calls;
    expect(calls.every((call) => call.idGenerated)).toBe(true);
  });

  it('uses the injected generator', () => {
    let n = 0;
    const calls = parse([{ name: 'A' }, { name: 'B' }], { generateId: () => `gen_${++n}` }).calls;
    expect(calls.map((call) => call.id)).toEqual(['gen_1', 'gen_2']);
  });

  it('rejects two calls with the same id: DUPLICATE_CALL_ID with the id', () => {
    const error = errorOf(() => parse([openaiCall, { ...anthropicCall, id: 'call_a' }]));
    expect(error.code).toBe('DUPLICATE_CALL_ID');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ id: 'call_a' });
  });

  it('rejects an id that is not a string, or over 256 characters', () => {
    expect(errorOf(() => parse([{ id: 7, name: 'Read' }])).details).toEqual({ index: 0, path: '[0].id' });
    expect(errorOf(() => parse([{ id: 'x'.repeat(257), name: 'Read' }])).code).toBe('BAD_REQUEST');
    expect(parse([{ id: 'x'.repeat(256), name: 'Read' }]).calls[0]?.id).toHaveLength(256);
  });
});

describe('parseEnvelope: TOO_MANY_CALLS', () => {
  const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'Read', arguments: '{}' }));

  it('accepts exactly maxCalls', () => {
    expect(parse(calls(5), { maxCalls: 5 }).calls).toHaveLength(5);
  });

  it('rejects maxCalls + 1 with max and got', () => {
    const error = errorOf(() => parse(calls(6), { maxCalls: 5 }));
    expect(error.code).toBe('TOO_MANY_CALLS');
    expect(error.details).toEqual({ max: 5, got: 6 });
    expect(error.message).toBe('The batch has 6 calls; at most 5 are allowed.');
  });

  it('says a maximum of one in the singular', () => {
    expect(errorOf(() => parse(calls(2), { maxCalls: 1 })).message).toBe('The batch has 2 calls; at most 1 is allowed.');
  });

  it('counts calls only, not the text blocks between them', () => {
    const content = [...calls(2).map((c) => ({ type: 'tool_use', id: c.id, name: 'Read', input: {} })), { type: 'text', text: 'x' }];
    expect(parse({ role: 'assistant', content }, { maxCalls: 2 }).calls).toHaveLength(2);
  });

  it('accepts an empty list: zero calls', () => {
    expect(parse([], { maxCalls: 0 })).toEqual({ calls: [], format: 'openai' });
  });
});
