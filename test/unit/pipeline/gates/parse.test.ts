import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH, parseGate } from '../../../../src/pipeline/gates/parse.js';
import type { ExecContext, PlannedCall } from '../../../../src/pipeline/types.js';
import { caller, gateDeps, plannedCall } from '../../../helpers/gates.js';

const ctx = { caller: caller(), sessionId: 's' } as ExecContext;
/** A call as it reaches gate 1: nothing parsed yet. */
const arriving = (rawArguments: unknown): PlannedCall => plannedCall({ name: 'T' }, {}, { rawArguments, args: undefined });
const parse = (call: PlannedCall) => parseGate.check!(call, ctx, gateDeps());

/** `levels` objects, each holding the next. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const NOT_AN_OBJECT = {
  code: 'INVALID_JSON',
  message: 'The arguments must be a JSON object.',
  retryable: false,
  suggestion: 'Send the arguments as one JSON object.',
};

describe('parse gate: the arguments are one JSON object, or INVALID_JSON', () => {
  it('an object passes as it is; a JSON string is parsed into one', () => {
    const args = { path: 'a.txt' };
    const sent = arriving(args);
    expect(parse(sent)).toBeUndefined();
    expect(sent.args).toBe(args);
    const text = arriving('{"path":"a.txt","n":[1,2]}');
    expect(parse(text)).toBeUndefined();
    expect(text.args).toEqual({ path: 'a.txt', n: [1, 2] });
  });

  it.each([undefined, null, ''])('absent arguments (%j) are the empty object', (raw) => {
    const call = arriving(raw);
    expect(parse(call)).toBeUndefined();
    expect(call.args).toEqual({});
  });

  it('a string that is not JSON is INVALID_JSON, saying why, not retryable, and leaves no arguments', () => {
    const call = arriving('{"path": ');
    const error = parse(call)!.toCallError();
    expect(error).toMatchObject({ code: 'INVALID_JSON', retryable: false, suggestion: 'Send the arguments as one JSON object.' });
    expect(error.message).toMatch(/^The arguments are not valid JSON: ./);
    expect(call.args).toBeUndefined();
  });

  it.each([
    ['an array', [1]],
    ['a number', 7],
    ['a boolean', true],
    ['a JSON string holding an array', '[1]'],
    ['a JSON string holding a string', '"x"'],
    ['a JSON string holding null', 'null'],
  ])('%s is not an object: INVALID_JSON', (_, raw) => {
    expect(parse(arriving(raw))!.toCallError()).toEqual(NOT_AN_OBJECT);
  });

  it(`arguments nested ${MAX_ARGUMENT_DEPTH} levels deep pass; one level more is INVALID_ARGS at /`, () => {
    expect(parse(arriving(nested(MAX_ARGUMENT_DEPTH)))).toBeUndefined();
    const deeper = arriving(JSON.stringify(nested(MAX_ARGUMENT_DEPTH + 1)));
    expect(parse(deeper)!.toCallError()).toEqual({
      code: 'INVALID_ARGS',
      message: `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels.`,
      retryable: false,
      details: { errors: [{ path: '/', message: `nests deeper than ${MAX_ARGUMENT_DEPTH} levels` }] },
    });
    expect(deeper.args).toBeUndefined();
  });

  it('arrays count as levels; a deep string does not', () => {
    let array: unknown = [];
    for (let i = 1; i <= MAX_ARGUMENT_DEPTH; i++) array = [array];
    expect(parse(arriving({ list: array }))!.code).toBe('INVALID_ARGS');
    expect(parse(arriving({ text: 'x'.repeat(10_000) }))).toBeUndefined();
  });

  it('the depth check does not recurse: far past the limit it still answers INVALID_ARGS', () => {
    expect(parse(arriving(nested(100_000)))!.code).toBe('INVALID_ARGS');
  });
});
