import { describe, expect, it } from 'vitest';
import { isRecord, own } from '../../../src/protocol/json.js';

describe('JSON objects are read by their own keys only', () => {
  it('an object is a record; an array, null and a scalar are not', () => {
    expect(isRecord({})).toBe(true);
    for (const value of [[], null, 'x', 1, true, undefined]) expect(isRecord(value)).toBe(false);
  });

  it('a __proto__ key in the JSON is plain data, and nothing inherited counts', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}') as Record<string, unknown>;
    expect(own(parsed, '__proto__')).toEqual({ polluted: 1 });
    expect(own(parsed, 'polluted')).toBeUndefined();
    expect(own(parsed, 'a')).toBe(2);
    expect(own({}, 'toString')).toBeUndefined();
  });
});
