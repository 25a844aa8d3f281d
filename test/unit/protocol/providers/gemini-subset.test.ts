import { describe, expect, it } from 'vitest';
import { toGemini } from '../../../../src/protocol/providers/gemini.js';
import { geminiSubsetProblems } from '../../../helpers/gemini-subset.js';
import { largeOpenApiCatalog } from '../../../helpers/catalog.js';
import { ANY_VALUE, geminiParameters } from './fixtures.js';

/** Gemini takes only its documented Schema subset, at every level: what has no form there is rewritten, never sent as it is. */
describe('gemini: every schema within the documented subset', () => {
  it('drops anyOf branches that only constrain (GitHub gists: "description or files required"): Gemini has no form for them', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: {
        gist: {
          type: 'object',
          properties: { description: { type: 'string' }, files: { type: 'object' } },
          anyOf: [{ required: ['description'] }, { required: ['files'] }],
        },
        either: { anyOf: [{ required: ['a'] }, { type: 'string' }] },
      },
    });
    expect(parameters?.properties).toEqual({
      gist: { type: 'object', properties: { description: { type: 'string' }, files: { type: 'object' } } },
      either: { type: 'string' },
    });
  });

  it('a schema that names no type (any value) becomes anyOf every JSON type: Gemini needs a type or anyOf at every level', () => {
    const parameters = geminiParameters({
      type: 'object',
      properties: { anything: { description: 'Any value.' }, list: { type: 'array', items: {} } },
    });
    expect(parameters?.properties).toEqual({
      anything: { description: 'Any value.', anyOf: ANY_VALUE },
      list: { type: 'array', items: { anyOf: ANY_VALUE } },
    });
  });

  it('every tool of the GitHub Enterprise import (672 tools) is within the subset', async () => {
    const [declarations] = toGemini(await largeOpenApiCatalog());
    const problems = declarations!.functionDeclarations.flatMap((d) =>
      d.parameters ? geminiSubsetProblems(d.parameters).map((p) => `${d.name}${p}`) : [],
    );
    expect(problems).toEqual([]);
  });
});
