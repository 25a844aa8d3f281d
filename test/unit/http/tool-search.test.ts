import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { fixtureTools } from '../../helpers/catalog.js';
import { faultyTool } from '../../helpers/tools.js';

/**
 * The tool_search built-in: a model calls it to
 * find tools; its result carries the found tools' schemas in the caller's
 * format, and only what GET /tools?q= would list for the caller's key.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = { all: 'key-all', gists: 'key-gists' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const keys = [
  { id: 'all', sha256: sha256(KEY.all), tenant: 'acme', scopes: ['execute', 'admin'] },
  { id: 'gists', sha256: sha256(KEY.gists), tenant: 'acme', scopes: ['execute'], tools: ['tool_search', 'gists_*'] },
];

const openaiCall = (args: Record<string, unknown>, id = 'c1') => ({
  id,
  type: 'function',
  function: { name: 'tool_search', arguments: JSON.stringify(args) },
});

describe('tool_search', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      tools: [...fixtureTools(), faultyTool('flaky_weather')],
      config: { keys, builtins: { tool_search: { enabled: true } } },
    });
  });
  afterAll(() => t.close());

  const search = async (args: Record<string, unknown>, key = KEY.all) => {
    const res = await execute(t.app, { tool_calls: [openaiCall(args)] }, as(key));
    expect(res.status).toBe(200);
    return res.body.results[0];
  };

  it('off unless the config enables it: not listed, and calling it is UNKNOWN_TOOL', async () => {
    const off = await buildTestApp({ tools: fixtureTools().slice(0, 5) });
    try {
      const listed = (await off.app.inject({ method: 'GET', url: '/tools' })).json().tools.map((x: any) => x.function.name);
      expect(listed).not.toContain('tool_search');
      const res = await execute(off.app, [openaiCall({ query: 'issue' })]);
      expect(res.body.results[0].error.code).toBe('UNKNOWN_TOOL');
    } finally {
      await off.close();
    }
  });

  it('finds tools with their schemas, best first, five by default, in the format of the calls (openai here)', async () => {
    const result = await search({ query: 'create an issue' });
    expect(result.status).toBe('success');
    expect(result.data.format).toBe('openai');
    expect(result.data.tools).toHaveLength(5);
    expect(result.data.tools[0]).toMatchObject({ type: 'function', function: { name: 'issues_create', parameters: { type: 'object' } } });
    expect(result.text).toMatch(/^5 tools match "create an issue", best first: issues_create, /);
    const listed = (await t.app.inject({ method: 'GET', url: '/tools?q=create+an+issue&limit=5', headers: as(KEY.all) })).json();
    expect(result.data.tools).toEqual(listed.tools);
  });

  it('the format follows the call shape (an Anthropic tool_use → input_schema), and the format argument wins', async () => {
    const anthropic = await execute(
      t.app,
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'tool_search', input: { query: 'merge pull request', limit: 2 } }],
      },
      as(KEY.all),
    );
    const data = anthropic.body.results[0].data;
    expect(data.format).toBe('anthropic');
    expect(data.tools.map((x: any) => Object.keys(x).sort())).toEqual([
      ['description', 'input_schema', 'name'],
      ['description', 'input_schema', 'name'],
    ]);
    expect(data.tools[0].name).toBe('pulls_merge');
    const gemini = await search({ query: 'merge pull request', limit: 2, format: 'gemini' });
    expect(gemini.data.tools).toEqual([{ functionDeclarations: [expect.objectContaining({ name: 'pulls_merge' }), expect.any(Object)] }]);
  });

  it('never lists itself, and says so when nothing matches', async () => {
    const itself = await search({ query: 'find tools by what they do', limit: 100 });
    expect(itself.data.tools.map((x: any) => x.function.name)).not.toContain('tool_search');
    const none = await search({ query: 'zzyzx qwerty' });
    expect(none).toMatchObject({ status: 'success', text: 'No tool matches "zzyzx qwerty".', data: { tools: [] } });
  });

  it("only the tools of the caller's key, however well others match", async () => {
    const found = await search({ query: 'create an issue comment', limit: 100 }, KEY.gists);
    const names = found.data.tools.map((x: any) => x.function.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n: string) => n.startsWith('gists_'))).toBe(true);
  });

  it('a tool whose breaker is open is not found until it closes', async () => {
    const names = async () => (await search({ query: 'flaky weather' })).data.tools.map((x: any) => x.function.name);
    expect(await names()).toContain('flaky_weather');
    for (let i = 0; i < 3; i++) await execute(t.app, [{ id: `f${i}`, name: 'flaky_weather', arguments: { mode: 'fail' } }], as(KEY.all));
    expect(await names()).not.toContain('flaky_weather');
    await t.app.inject({ method: 'POST', url: '/circuits/flaky_weather/reset', headers: as(KEY.all) });
    expect(await names()).toContain('flaky_weather');
  });

  it('bad arguments are INVALID_ARGS: no query, a query over 1,000 characters, limit outside 1..100, an unknown format', async () => {
    for (const args of [
      {},
      { query: '' },
      { query: 'a'.repeat(1001) },
      { query: 'issue', limit: 0 },
      { query: 'issue', limit: 101 },
      { query: 'issue', format: 'cohere' },
    ]) {
      expect((await search(args)).error.code, JSON.stringify(args).slice(0, 60)).toBe('INVALID_ARGS');
    }
  });

  it('a query with no search words (blank, punctuation, only "the") is INVALID_ARGS naming query, not "no tool matches"', async () => {
    for (const query of ['   ', '\t\n', '?!', 'the']) {
      const result = await search({ query });
      expect(result.status, JSON.stringify(query)).toBe('error');
      expect(result.error).toMatchObject({
        code: 'INVALID_ARGS',
        message: expect.stringMatching(/has no search words/),
        suggestion: expect.stringMatching(/^Describe the tool you need/),
        details: { errors: [{ path: '/query', message: 'has no search words' }] },
      });
    }
    expect((await search({ query: '  create an issue  ', limit: 1 })).data.tools[0].function.name).toBe('issues_create');
  });

  it('concurrency-safe: several searches in one batch run together and each gets its own answer', async () => {
    const info = (await t.app.inject({ method: 'GET', url: '/tools/tool_search', headers: as(KEY.all) })).json();
    expect(info['x-toolgate'].concurrency_safe).toBe(true);
    const res = await execute(
      t.app,
      { tool_calls: [openaiCall({ query: 'lock an issue', limit: 1 }, 'a'), openaiCall({ query: 'render markdown', limit: 1 }, 'b')] },
      as(KEY.all),
    );
    expect(res.body.results.map((r: any) => r.data.tools[0].function.name)).toEqual(['issues_lock', 'markdown_render']);
  });

  it('over /mcp: the found tools in MCP form', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...as(KEY.all), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'tool_search', arguments: { query: 'render markdown', limit: 1 } },
      }),
    });
    const block = res.json().result.content[0];
    expect(block.text).toBe('1 tool matches "render markdown": markdown_render.');
    expect(block._meta['toolgate/data'].format).toBe('mcp');
    expect(block._meta['toolgate/data'].tools[0]).toMatchObject({ name: 'markdown_render', inputSchema: { type: 'object' } });
  });
});
