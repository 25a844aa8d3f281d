import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { soundPart } from '../../../src/config/sound-part.js';

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile<Record<string, unknown>>({
  type: 'object',
  additionalProperties: false,
  properties: {
    port: { type: 'integer', default: 8080 },
    tools: { type: 'array', default: [], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
    builtins: { type: 'object', default: {}, additionalProperties: { type: 'object', properties: { timeout_ms: { type: 'integer' } } } },
  },
});

/** The errors `validate` finds in `doc`, as loadConfig has them before it asks for the sound part. */
function errorsOf(doc: Record<string, unknown>) {
  expect(validate(structuredClone(doc))).toBe(false);
  return validate.errors!;
}

describe('soundPart', () => {
  it('drops a broken item, empties a broken builtins entry, and puts defaults in place of a bad or unknown value', () => {
    const doc = {
      port: 'x',
      extra: 1,
      tools: [{ name: 'a' }, { nome: 'b' }],
      builtins: { Read: { timeout_ms: 'soon' }, Write: { timeout_ms: 5 } },
    };
    expect(soundPart(doc, errorsOf(doc), validate)).toEqual({
      port: 8080,
      tools: [{ name: 'a' }],
      builtins: { Read: {}, Write: { timeout_ms: 5 } },
    });
  });

  it('leaves the document it is given as it was', () => {
    const doc = { tools: [{ nome: 'b' }] };
    const before = structuredClone(doc);
    soundPart(doc, errorsOf(doc), validate);
    expect(doc).toEqual(before);
  });

  it('puts the default in place of a section of the wrong type', () => {
    const doc = { port: 1, tools: 'not a list' };
    expect(soundPart(doc, errorsOf(doc), validate)).toEqual({ port: 1, tools: [], builtins: {} });
  });
});
