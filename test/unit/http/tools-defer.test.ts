import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';

/**
 * Large catalogs: `GET /tools?format=anthropic|responses&defer=…`
 * marks tools `defer_loading: true` and adds the provider's own tool search
 * tool, in the shape each provider documents. The expected bodies below are
 * typed with the official SDKs' request types (`npm run typecheck` fails
 * when a field or type name is not one the SDK accepts) and the gateway's
 * answers must equal them.
 */

const PARAMETERS = {
  type: 'object' as const,
  properties: { mode: { type: 'string', enum: ['ok', 'throw', 'fail', 'hang', 'not_found', 'late'] } },
  required: ['mode'],
};
const description = (name: string) => `Test tool ${name} that fails on request.`;

describe('GET /tools?defer=', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('alpha'), faultyTool('beta'), faultyTool('gamma')] });
  });
  afterAll(() => t.close());
  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('anthropic: the BM25 tool search tool first, every tool the patterns name with defer_loading, `!name` kept loaded', async () => {
    const expected = [
      { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
      { name: 'alpha', description: description('alpha'), input_schema: PARAMETERS, defer_loading: true },
      { name: 'beta', description: description('beta'), input_schema: PARAMETERS },
      { name: 'gamma', description: description('gamma'), input_schema: PARAMETERS, defer_loading: true },
    ] satisfies Anthropic.Messages.ToolUnion[];
    const res = await get('/tools?format=anthropic&defer=*,!beta');
    expect(res.statusCode).toBe(200);
    expect(res.json().tools).toEqual(expected);
    expect((await get('/tools?format=anthropic&defer=alpha,g*')).json().tools).toEqual(expected);
  });

  it('responses: the hosted tool_search first, deferred functions with defer_loading', async () => {
    const expected = [
      { type: 'tool_search' },
      { type: 'function', name: 'alpha', description: description('alpha'), parameters: PARAMETERS, strict: false, defer_loading: true },
      { type: 'function', name: 'beta', description: description('beta'), parameters: PARAMETERS, strict: false, defer_loading: true },
      { type: 'function', name: 'gamma', description: description('gamma'), parameters: PARAMETERS, strict: false, defer_loading: true },
    ] satisfies OpenAI.Responses.Tool[];
    expect((await get('/tools?format=responses&defer=*')).json().tools).toEqual(expected);
  });

  it('with q: only the found tools, deferred, after the search tool; its own ETag', async () => {
    const body = (await get('/tools?format=anthropic&defer=*&q=alpha')).json();
    expect(body.tools.map((x: { name: string }) => x.name)).toEqual(['tool_search_tool_bm25', 'alpha']);
    expect(body.tools[1].defer_loading).toBe(true);
    const tags = new Set(
      await Promise.all(
        ['/tools?format=anthropic', '/tools?format=anthropic&defer=*', '/tools?format=anthropic&defer=alpha'].map(async (u) =>
          String((await get(u)).headers.etag),
        ),
      ),
    );
    expect(tags.size).toBe(3);
  });

  it('formats without deferred loading (openai Chat Completions, gemini, mcp): a 400 naming the alternatives', async () => {
    for (const format of ['openai', 'gemini', 'mcp']) {
      const res = await get(`/tools?format=${format}&defer=*`);
      expect(res.statusCode, format).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/format=anthropic and format=responses.*\?q= or the tool_search built-in/),
      });
    }
    expect((await get(`/tools?defer=*`)).statusCode).toBe(400);
  });

  it('defer over 1,000 characters: 400', async () => {
    expect((await get(`/tools?format=anthropic&defer=${'a'.repeat(1001)}`)).statusCode).toBe(400);
  });
});
