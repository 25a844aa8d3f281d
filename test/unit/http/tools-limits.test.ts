import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { fixtureTools } from '../../helpers/catalog.js';

/** GET /tools says when a listing is more than a provider's API takes, and when a tool goes without the strict mode asked for. */

/** An object nested 11 levels deep: over OpenAI's strict-mode nesting limit of 10. */
function deepSchema(): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 11; i++)
    schema = { type: 'object', properties: { [`l${i}`]: schema }, required: [`l${i}`], additionalProperties: false };
  return schema;
}

describe('GET /tools: provider limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    const deep = {
      name: 'deep_tool',
      description: 'Deep.',
      parameters: deepSchema(),
      concurrencySafe: true,
      run: async () => ({ text: 'ok' }),
    };
    t = await buildTestApp({ tools: [...fixtureTools(), deep], config: { toolsets: { issues: ['issues_*'] } } });
  });
  afterAll(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it.each(['openai', 'responses'])(
    '%s: over 128 tools, the x-toolgate-tool-limit header and a warning pointing at ?q= and toolsets',
    async (format) => {
      const res = await get(`/tools?format=${format}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.tools.length).toBeGreaterThan(128);
      expect(res.headers['x-toolgate-tool-limit']).toBe('128');
      expect(body.warnings).toEqual([
        `${body.tools.length} tools, over the 128 the ${format} API takes in one request: ask for fewer with ?q=<words>&limit=N or ?toolset=<name>`,
      ]);
    },
  );

  it.each([
    ['a search', '/tools?q=create+an+issue&limit=20'],
    ['a toolset', '/tools?toolset=issues'],
    ['a format with a higher limit (gemini: 512 declarations)', '/tools?format=gemini'],
    ['a format without a documented limit', '/tools?format=anthropic'],
  ])('%s within the limit: no header, no warnings', async (_what, url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-toolgate-tool-limit']).toBeUndefined();
    expect(res.json().warnings).toBeUndefined();
  });

  it.each(['openai', 'responses'])(
    '%s&strict=true: a tool over the strict-mode limits is sent without strict, and a warning says why',
    async (format) => {
      const res = await get(`/tools?format=${format}&strict=true&q=deep&limit=1`);
      const body = res.json();
      const tool = body.tools[0];
      expect(tool.function?.name ?? tool.name).toBe('deep_tool');
      expect(tool.function ? tool.function.strict : tool.strict).toBe(format === 'openai' ? undefined : false);
      expect(body.warnings).toEqual([
        "deep_tool: sent without strict mode: over OpenAI's strict-mode limits: 11 levels of nesting (at most 10)",
      ]);
      // Without strict there is nothing to say.
      expect((await get(`/tools?format=${format}&q=deep&limit=1`)).json().warnings).toBeUndefined();
    },
  );
});
