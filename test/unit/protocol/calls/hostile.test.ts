import { describe, expect, it } from 'vitest';
import { errorOf, geminiPart, openaiCall, parse } from './fixtures.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('parseEnvelope: hostile input', () => {
  it('ignores a tool_calls key that only exists under __proto__', () => {
    const body: unknown = JSON.parse('{"__proto__": {"tool_calls": [{"id": "a", "name": "Read"}]}}');
    expect(errorOf(() => parse(body)).code).toBe('BAD_REQUEST');
  });

  it('does not take a name from a call’s __proto__ key', () => {
    const body: unknown = JSON.parse('[{"id": "a", "__proto__": {"name": "Read"}, "arguments": "{}"}]');
    expect(errorOf(() => parse(body)).details).toEqual({ index: 0, path: '[0].name' });
  });

  it('ignores inherited properties', () => {
    const body = Object.create({ tool_calls: [openaiCall] }) as object;
    expect(errorOf(() => parse(body)).code).toBe('BAD_REQUEST');
  });

  it('reads null-prototype objects', () => {
    const call = Object.assign(Object.create(null) as object, { id: 'a', name: 'Read', arguments: '{}' });
    const body = Object.assign(Object.create(null) as object, { tool_calls: [call] });
    expect(parse(body).calls[0]?.name).toBe('Read');
  });

  it('passes __proto__ keys inside arguments through as data, polluting nothing', () => {
    const body: unknown = JSON.parse('[{"id": "a", "name": "Read", "arguments": {"__proto__": {"polluted": true}}}]');
    const args = parse(body).calls[0]?.rawArguments as object;
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives a clean BAD_REQUEST for a 10,000-deep array, not a RangeError', () => {
    let deep: unknown = [];
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(errorOf(() => parse(deep)).code).toBe('BAD_REQUEST');
    expect(errorOf(() => parse({ tool_calls: deep })).code).toBe('BAD_REQUEST');
  });

  it('gives a clean BAD_REQUEST for a 10,000-deep object', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { tool: deep, message: deep };
    expect(errorOf(() => parse(deep)).code).toBe('BAD_REQUEST');
  });

  it('leaves 10,000-deep arguments untouched for the parse gate', () => {
    let deep: unknown = {};
    for (let i = 0; i < 10_000; i++) deep = { a: [deep] };
    expect(parse([{ id: 'a', name: 'Read', arguments: deep }]).calls[0]?.rawArguments).toBe(deep);
  });

  it('does not modify the body', () => {
    const body = {
      tool_calls: [openaiCall, { name: 'Read', arguments: { a: 1 } }, geminiPart],
      session_id: 's',
      finish_reason: 'tool_calls',
    };
    const before = structuredClone(body);
    deepFreeze(body);
    parse(body);
    expect(body).toEqual(before);
  });
});
