import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { slowTool } from '../../helpers/tools.js';

/**
 * Named toolsets filter GET /tools (`?toolset=`, 404
 * for an unknown set, in every format, an ETag per set), GET /tools/{name}
 * (a tool outside the set is not found), POST /execute
 * (`?toolset=`: a call outside the set is UNKNOWN_TOOL naming the set's
 * tools) and /mcp/{toolset}; `keys[].toolsets` limits a key to its sets,
 * intersected with `keys[].tools`.
 */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEYS = { all: 'tg_sets-all', coder: 'tg_sets-coder', narrow: 'tg_sets-narrow' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const FORMATS = ['openai', 'responses', 'anthropic', 'gemini', 'mcp'] as const;
const TOOLSETS = { coding: ['Read', 'Edit', 'gh_*'], support: ['Grep', 'tickets_get'], github: ['gh_*'] };

function namesOf(body: any, format: string): string[] {
  const tools = format === 'gemini' ? body.tools[0].functionDeclarations : body.tools;
  return tools.map((tool: any) => tool.function?.name ?? tool.name);
}

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    tools: ['gh_list_issues', 'gh_create_issue', 'tickets_get', 'tickets_close'].map((name) => slowTool(name, { safe: true, ms: 0 })),
    config: {
      toolsets: TOOLSETS,
      keys: [
        { id: 'all', sha256: sha256(KEYS.all), tenant: 'a', scopes: ['execute'] },
        { id: 'coder', sha256: sha256(KEYS.coder), tenant: 'a', scopes: ['execute'], toolsets: ['coding'] },
        {
          id: 'narrow',
          sha256: sha256(KEYS.narrow),
          tenant: 'a',
          scopes: ['execute'],
          toolsets: ['coding', 'support'],
          tools: ['Read', 'Grep', 'gh_list_*'],
        },
      ],
    },
  });
});
afterAll(() => t.close());

const get = (url: string, key = KEYS.all, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...as(key), ...headers } });

describe('GET /tools?toolset=', () => {
  it.each(FORMATS)('%s: only the set, by names and globs', async (format) => {
    const res = await get(`/tools?format=${format}&toolset=coding`);
    expect(res.statusCode).toBe(200);
    expect(namesOf(res.json(), format)).toEqual(['Edit', 'Read', 'gh_create_issue', 'gh_list_issues']);
  });

  it.each(FORMATS)('%s: an unknown set is 404, naming the sets there are', async (format) => {
    const res = await get(`/tools?format=${format}&toolset=nope`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No toolset named "nope".',
      details: { available: ['coding', 'github', 'support'] },
    });
  });

  it("each set has its own ETag; one set's ETag never gets a 304 for another, nor a listing from its cache entry", async () => {
    const coding = await get('/tools?toolset=coding');
    const support = await get('/tools?toolset=support');
    const all = await get('/tools');
    const etags = [coding, support, all].map((r) => r.headers.etag);
    expect(new Set(etags).size).toBe(3);
    expect(namesOf(support.json(), 'openai')).toEqual(['Grep', 'tickets_get']);
    expect(namesOf(all.json(), 'openai')).toHaveLength(10);
    expect((await get('/tools?toolset=support', KEYS.all, { 'if-none-match': String(coding.headers.etag) })).statusCode).toBe(200);
    expect((await get('/tools?toolset=coding', KEYS.all, { 'if-none-match': String(coding.headers.etag) })).statusCode).toBe(304);
    // Served again from the cache: still each set's own list.
    expect(namesOf((await get('/tools?toolset=coding')).json(), 'openai')).toEqual(['Edit', 'Read', 'gh_create_issue', 'gh_list_issues']);
    expect(namesOf((await get('/tools?toolset=github')).json(), 'openai')).toEqual(['gh_create_issue', 'gh_list_issues']);
  });
});

describe('GET /tools/{name}?toolset=', () => {
  it('a tool of the set is found; one outside it is 404 like an unknown tool', async () => {
    const found = await get('/tools/gh_list_issues?toolset=github');
    expect(found.statusCode).toBe(200);
    expect(found.json().name).toBe('gh_list_issues');
    const outside = await get('/tools/tickets_get?toolset=github');
    expect(outside.statusCode).toBe(404);
    expect(outside.json().error).toMatchObject({ code: 'NOT_FOUND', message: 'No tool named "tickets_get".' });
    expect((await get('/tools/tickets_get')).statusCode).toBe(200);
  });

  it("an unknown set, or one the key does not have, is 404 naming the key's sets, as GET /tools", async () => {
    const unknown = await get('/tools/gh_list_issues?toolset=nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({
      message: 'No toolset named "nope".',
      details: { available: ['coding', 'github', 'support'] },
    });
    const notTheKeys = await get('/tools/gh_list_issues?toolset=github', KEYS.coder);
    expect(notTheKeys.statusCode).toBe(404);
    expect(notTheKeys.json().error.details).toEqual({ available: ['coding'] });
  });

  it('keys[].toolsets hold without asking for a set, and with keys[].tools the key gets what both allow', async () => {
    expect((await get('/tools/tickets_get', KEYS.coder)).statusCode).toBe(404);
    expect((await get('/tools/gh_create_issue', KEYS.coder)).statusCode).toBe(200);
    expect((await get('/tools/gh_create_issue?toolset=coding', KEYS.narrow)).statusCode).toBe(404);
    expect((await get('/tools/Grep?toolset=coding', KEYS.narrow)).statusCode).toBe(404);
    expect((await get('/tools/Grep?toolset=support', KEYS.narrow)).statusCode).toBe(200);
  });
});

describe('GET /tools?q= within a toolset', () => {
  it("ranks only the set's tools, and one set's search is never served from another's cache entry", async () => {
    const everywhere = namesOf((await get('/tools?q=issue+tickets&limit=10')).json(), 'openai');
    expect(everywhere).toEqual(expect.arrayContaining(['gh_create_issue', 'gh_list_issues', 'tickets_get', 'tickets_close']));
    expect(namesOf((await get('/tools?q=issue+tickets&limit=10&toolset=github')).json(), 'openai').sort()).toEqual([
      'gh_create_issue',
      'gh_list_issues',
    ]);
    expect(namesOf((await get('/tools?q=issue+tickets&limit=10&toolset=support')).json(), 'openai')).toEqual(['tickets_get']);
    expect(namesOf((await get('/tools?q=issue+tickets&limit=10&toolset=github')).json(), 'openai').sort()).toEqual([
      'gh_create_issue',
      'gh_list_issues',
    ]);
  });

  it("a blank q is a 400 naming q within a set too, never the set's whole listing or an empty one", async () => {
    for (const url of ['/tools?q=%20%20&toolset=github', '/tools?toolset=support&q=']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'BAD_REQUEST',
        details: { errors: [{ path: '/q', message: 'has no search words' }] },
      });
    }
    expect((await get('/tools?q=%20%20&toolset=nope')).statusCode).toBe(404);
  });

  it('a key held to its sets searches within them', async () => {
    const names = namesOf((await get('/tools?q=issue+tickets&limit=10', KEYS.coder)).json(), 'openai');
    expect(names.sort()).toEqual(['gh_create_issue', 'gh_list_issues']);
  });
});

describe('keys[].toolsets', () => {
  it('a key sees the tools of its sets only, without asking for one', async () => {
    expect(namesOf((await get('/tools', KEYS.coder)).json(), 'openai')).toEqual(['Edit', 'Read', 'gh_create_issue', 'gh_list_issues']);
  });

  it('with keys[].tools too, the key gets the tools both allow', async () => {
    expect(namesOf((await get('/tools', KEYS.narrow)).json(), 'openai')).toEqual(['Grep', 'Read', 'gh_list_issues']);
    expect(namesOf((await get('/tools?toolset=support', KEYS.narrow)).json(), 'openai')).toEqual(['Grep']);
  });

  it("a set the key does not have is 404 like an unknown one, naming only the key's sets", async () => {
    const res = await get('/tools?toolset=github', KEYS.coder);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.details).toEqual({ available: ['coding'] });
  });

  it('a set name that a URL path segment could not carry as it is, or an empty set, is a configuration problem', () => {
    expect(() => configFrom({ toolsets: { 'my set': ['Read'], empty: [] } })).toThrow(
      /toolsets: "my set" is not a valid name; use \^\[A-Za-z0-9_-\]\{1,64\}\$\n.*toolsets\.empty: must NOT have fewer than 1 items/,
    );
  });

  it('an unknown set in keys[].toolsets is a configuration problem', () => {
    expect(() =>
      configFrom({
        toolsets: TOOLSETS,
        keys: [{ id: 'k', sha256: sha256('x'), tenant: 't', scopes: ['execute'], toolsets: ['coding', 'ops'] }],
      }),
    ).toThrow('keys.k.toolsets: "ops" is not a toolset; define it under toolsets, or use one of coding, support, github');
  });
});

describe('POST /execute?toolset=', () => {
  const call = (name: string) => [{ id: `call_${randomUUID()}`, name, arguments: {} }];

  it('runs a call of the set', async () => {
    const { status, body } = await t.app
      .inject({ method: 'POST', url: '/execute?toolset=github', headers: as(KEYS.all), payload: call('gh_list_issues') })
      .then((r) => ({ status: r.statusCode, body: r.json() }));
    expect(status).toBe(200);
    expect(body.results[0].status).toBe('success');
  });

  it("a call outside the set is UNKNOWN_TOOL, with the set's tools in details.available", async () => {
    const body = (
      await t.app.inject({ method: 'POST', url: '/execute?toolset=github', headers: as(KEYS.all), payload: call('tickets_get') })
    ).json();
    expect(body.results[0].error).toMatchObject({ code: 'UNKNOWN_TOOL', details: { available: ['gh_create_issue', 'gh_list_issues'] } });
  });

  it("with a key's own limits: the set and the key's tools both", async () => {
    const body = (
      await t.app.inject({ method: 'POST', url: '/execute?toolset=coding', headers: as(KEYS.narrow), payload: call('gh_create_issue') })
    ).json();
    expect(body.results[0].error).toMatchObject({ code: 'UNKNOWN_TOOL', details: { available: ['Read', 'gh_list_issues'] } });
    // Without a set, the key's own sets still hold.
    const outside = await execute(t.app, call('tickets_close'), as(KEYS.coder));
    expect(outside.body.results[0].error.code).toBe('UNKNOWN_TOOL');
  });

  it('an unknown set is 404 and nothing runs', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/execute?toolset=nope',
      headers: as(KEYS.all),
      payload: call('gh_list_issues'),
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });
});

describe('/mcp/{toolset}', () => {
  const rpc = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method, params });
  const post = (url: string, body: unknown, key = KEYS.all) =>
    t.app.inject({ method: 'POST', url, headers: { ...as(key), accept: 'application/json, text/event-stream' }, payload: body as object });

  it('tools/list lists the set; /mcp lists everything the key may use', async () => {
    const listed = (await post('/mcp/support', rpc('tools/list'))).json().result.tools.map((x: { name: string }) => x.name);
    expect(listed).toEqual(['Grep', 'tickets_get']);
    expect((await post('/mcp', rpc('tools/list'))).json().result.tools).toHaveLength(10);
    expect((await post('/mcp/coding', rpc('tools/list'), KEYS.narrow)).json().result.tools.map((x: { name: string }) => x.name)).toEqual([
      'Read',
      'gh_list_issues',
    ]);
  });

  it('tools/call of a tool outside the set is an unknown tool', async () => {
    const res = (await post('/mcp/support', rpc('tools/call', { name: 'gh_list_issues', arguments: {} }))).json();
    expect(res.error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: gh_list_issues',
      data: { code: 'UNKNOWN_TOOL', details: { available: ['Grep', 'tickets_get'] } },
    });
    const ok = (await post('/mcp/support', rpc('tools/call', { name: 'tickets_get', arguments: {} }))).json();
    expect(ok.result.isError).toBe(false);
  });

  it('an unknown set is 404 with a JSON-RPC error body; other methods are 405 as on /mcp', async () => {
    const res = await post('/mcp/nope', rpc('tools/list'));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'NOT_FOUND' } } });
    expect((await post('/mcp/github', rpc('tools/list'), KEYS.coder)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'PUT', url: '/mcp/coding', headers: as(KEYS.all) })).statusCode).toBe(405);
  });
});
