import { describe, expect, it } from 'vitest';
import { validateGate } from '../../../../src/pipeline/gates/validate.js';
import type { ExecContext, PlannedCall } from '../../../../src/pipeline/types.js';
import type { Tool } from '../../../../src/tools/tool.js';
import { caller, gateDeps, plannedCall } from '../../../helpers/gates.js';

const ctx = { caller: caller(), sessionId: 's' } as ExecContext;
const validate = (call: PlannedCall) => validateGate.check!(call, ctx, gateDeps());

const PARAMETERS = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    limit: { type: 'integer', minimum: 1 },
    note: { type: ['string', 'null'] },
    nested: { type: 'object', properties: { deep: { type: 'string' }, depth: { type: 'integer' } } },
  },
  required: ['path'],
  additionalProperties: false,
};
const tool = (more: Partial<Tool> = {}) => ({ name: 'T', parameters: PARAMETERS, ...more });
const arriving = (args: Record<string, unknown>, more: Partial<Tool> = {}) => plannedCall(tool(more), args);

describe("validate gate: string sizes, then the tool's JSON Schema, or INVALID_ARGS", () => {
  it('arguments that match the schema pass unchanged', () => {
    const args = { path: 'a.txt', limit: 3, nested: { deep: 'x' } };
    const call = arriving(args);
    expect(validate(call)).toBeUndefined();
    expect(call.args).toBe(args);
  });

  it('schema violations are INVALID_ARGS, not retryable, with every error as {path, message}', () => {
    expect(validate(arriving({ limit: 0, nested: { deep: 1 }, extra: true }))!.toCallError()).toEqual({
      code: 'INVALID_ARGS',
      message:
        'The arguments do not match the schema of T: / must have required property \'path\'; / unknown property "extra"; /limit must be >= 1; /nested/deep must be string.',
      retryable: false,
      suggestion: 'Fix the arguments to match the parameters of T and call it again.',
      details: {
        errors: [
          { path: '/', message: "must have required property 'path'" },
          { path: '/', message: 'unknown property "extra"' },
          { path: '/limit', message: 'must be >= 1' },
          { path: '/nested/deep', message: 'must be string' },
        ],
      },
    });
  });

  it('at most 20 errors are reported', () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const call = plannedCall(
      { name: 'Many', parameters: { type: 'object', properties } },
      Object.fromEntries(Object.keys(properties).map((k) => [k, 1])),
    );
    expect((validate(call)!.details as { errors: unknown[] }).errors).toHaveLength(20);
  });

  it('a string over limits.arg_chars, at any depth, is ARG_TOO_LARGE before the schema is checked', () => {
    const at = 'x'.repeat(50_000);
    expect(validate(arriving({ path: at }))).toBeUndefined();
    expect(validate(arriving({ path: 7, nested: { deep: `${at}x` } }))!.toCallError()).toEqual({
      code: 'ARG_TOO_LARGE',
      message: 'The argument at /nested/deep is over 50000 characters, the limit set by limits.arg_chars.',
      retryable: false,
      suggestion: 'Send a value of at most 50000 characters, or raise limits.arg_chars (max_arg_chars of T for this tool alone).',
      details: { path: '/nested/deep', limit: 50_000, setting: 'limits.arg_chars' },
    });
  });

  it("a tool's own max_arg_chars is its limit and the setting the error names", () => {
    expect(validate(arriving({ path: 'abcd' }, { maxArgChars: 3 }))!.toCallError()).toEqual({
      code: 'ARG_TOO_LARGE',
      message: 'The argument at /path is over 3 characters, the limit set by max_arg_chars of T.',
      retryable: false,
      suggestion: 'Send a value of at most 3 characters, or raise max_arg_chars of T.',
      details: { path: '/path', limit: 3, setting: 'max_arg_chars of T' },
    });
  });

  it('a limit of one character is said in the singular', () => {
    const error = validate(arriving({ path: 'ab' }, { maxArgChars: 1 }))!.toCallError();
    expect(error.message).toBe('The argument at /path is over 1 character, the limit set by max_arg_chars of T.');
    expect(error.suggestion).toBe('Send a value of at most 1 character, or raise max_arg_chars of T.');
  });

  it('a content argument has its own limit, named builtins.<tool>.max_arg_chars, and says how to send a file in parts', () => {
    const writeLike = { name: 'W', contentArgs: ['content'], maxArgChars: 5, parameters: { type: 'object' } };
    expect(validate(plannedCall(writeLike, { content: 'x'.repeat(5), path: 'y'.repeat(40) }))).toBeUndefined();
    const error = validate(plannedCall(writeLike, { content: 'x'.repeat(6) }))!.toCallError();
    expect(error).toMatchObject({
      code: 'ARG_TOO_LARGE',
      message: 'The argument at /content is over 5 characters, the limit set by builtins.W.max_arg_chars.',
      details: { path: '/content', limit: 5, setting: 'builtins.W.max_arg_chars' },
    });
    expect(error.suggestion).toMatch(/^Send the file in parts: Write the first part, then add each next one with Edit/);
  });

  it('strict mode: null for an optional property that takes no null is dropped; a nullable or required one keeps it', () => {
    const call = arriving({ path: 'a.txt', limit: null, note: null, nested: { deep: null, depth: 2 } });
    expect(validate(call)).toBeUndefined();
    expect(call.args).toEqual({ path: 'a.txt', note: null, nested: { depth: 2 } });
    expect(validate(arriving({ path: null }))!.toCallError().details).toEqual({ errors: [{ path: '/path', message: 'must be string' }] });
  });
});
