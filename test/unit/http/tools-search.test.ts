import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { fixtureTools } from '../../helpers/catalog.js';
import { faultyTool } from '../../helpers/tools.js';

/** Large catalogs: `GET /tools?q=<words>&limit=N`, the N most relevant tools, best first, in the requested format. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = { all: 'key-all', issues: 'key-issues', reader: 'key-reader' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });

describe('GET /tools?q=', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      tools: [...fixtureTools(), faultyTool('flaky_weather')],
      config: {
        keys: [
          { id: 'all', sha256: sha256(KEY.all), tenant: 'acme', scopes: ['execute', 'admin'] },
          { id: 'issues', sha256: sha256(KEY.issues), tenant: 'acme', scopes: ['execute'], tools: ['issues_*'] },
          { id: 'reader', sha256: sha256(KEY.reader), tenant: 'acme', scopes: ['execute'], tools: ['Read', 'Grep'] },
        ],
      },
    });
  });
  afterAll(() => t.close());

  const get = (url: string, key = KEY.all, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { ...as(key), ...headers } });
  const names = (body: { tools: Array<Record<string, any>> }) => body.tools.map((x) => x.function?.name ?? x.name);

  it('ranks the most relevant tools first, at most 10 by default, with a version', async () => {
    const res = await get('/tools?q=create%20an%20issue');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.tools).toHaveLength(10);
    expect(names(body)[0]).toBe('issues_create');
    expect(body.tools[0]).toMatchObject({ type: 'function', function: { name: 'issues_create', parameters: { type: 'object' } } });
    expect(body.version).toBe(String(res.headers.etag).replaceAll('"', ''));
  });

  it('in every format, the same tools in the same order', async () => {
    const order = names((await get('/tools?q=merge+pull+request&limit=5')).json());
    expect(order[0]).toBe('pulls_merge');
    const anthropic = (await get('/tools?q=merge+pull+request&limit=5&format=anthropic')).json();
    expect(names(anthropic)).toEqual(order);
    expect(Object.keys(anthropic.tools[0]).sort()).toEqual(['description', 'input_schema', 'name']);
    const responses = (await get('/tools?q=merge+pull+request&limit=5&format=responses')).json();
    expect(names(responses)).toEqual(order);
    expect(responses.tools[0]).toMatchObject({ type: 'function', strict: false });
    const gemini = (await get('/tools?q=merge+pull+request&limit=5&format=gemini')).json();
    expect(gemini.tools).toHaveLength(1);
    expect(gemini.tools[0].functionDeclarations.map((d: { name: string }) => d.name)).toEqual(order);
    const mcp = (await get('/tools?q=merge+pull+request&limit=5&format=mcp')).json();
    expect(names(mcp)).toEqual(order);
    expect(mcp.tools[0].inputSchema.type).toBe('object');
    const strict = (await get('/tools?q=merge+pull+request&limit=5&strict=true')).json();
    expect(strict.tools.every((x: any) => x.function.strict === true)).toBe(true);
  });

  it('limit bounds the answer: 1 to 100; outside, or not a whole number, a 400 envelope error', async () => {
    expect((await get('/tools?q=issue&limit=3')).json().tools).toHaveLength(3);
    expect((await get('/tools?q=repository&limit=100')).json().tools).toHaveLength(100);
    for (const limit of ['0', '101', '-1', '2.5', 'ten']) {
      const res = await get(`/tools?q=issue&limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
      expect(res.json().error.code).toBe('BAD_REQUEST');
    }
    const alone = await get('/tools?limit=5');
    expect(alone.statusCode).toBe(400);
    expect(alone.json().error.message).toMatch(/limit goes with q/);
  });

  it('a query over 1,000 characters is a 400 envelope error; 1,000 are searched', async () => {
    const long = await get(`/tools?q=${'a'.repeat(1001)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { errors: [{ path: '/q', message: 'must NOT have more than 1000 characters' }] },
    });
    expect((await get(`/tools?q=${'issue '.repeat(166)}abcd`)).statusCode).toBe(200);
  });

  it('a query matching nothing is an empty list, 200', async () => {
    const res = await get('/tools?q=zzyzx+qwerty');
    expect(res.statusCode).toBe(200);
    expect(res.json().tools).toEqual([]);
    expect((await get('/tools?q=zzyzx&format=gemini')).json().tools).toEqual([{ functionDeclarations: [] }]);
  });

  // A client that builds ?q=${input} from empty input would otherwise hand its model no tools, silently.
  it('a query with no search words (empty, blank, punctuation, only "the") is a 400 naming q, in every format and with limit', async () => {
    for (const url of [
      '/tools?q=',
      '/tools?q=%20%20',
      '/tools?q=+%09+',
      '/tools?q=%3F!%2C',
      '/tools?q=the',
      '/tools?q=&format=gemini',
      '/tools?q=%20&limit=3',
      '/tools?q=&include_unavailable=true',
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^q has no search words/),
        details: { errors: [{ path: '/q', message: 'has no search words' }] },
      });
    }
    // One word among blanks is searched.
    expect(names((await get('/tools?q=%20%20create%20an%20issue%20%20&limit=1')).json())).toEqual(['issues_create']);
    // Without q: the whole listing, as before.
    expect((await get('/tools')).json().tools.length).toBeGreaterThan(100);
  });

  it('ETag per result: If-None-Match gets 304; the same words spelled otherwise share it; other words, limit or format do not', async () => {
    const res = await get('/tools?q=create+issue');
    const etag = String(res.headers.etag);
    expect((await get('/tools?q=create+issue', KEY.all, { 'if-none-match': etag })).statusCode).toBe(304);
    expect(String((await get('/tools?q=Create+Issues!')).headers.etag)).toBe(etag);
    const others = ['/tools?q=close+issue', '/tools?q=create+issue&limit=3', '/tools?q=create+issue&format=anthropic', '/tools'];
    for (const url of others) expect(String((await get(url)).headers.etag), url).not.toBe(etag);
  });

  it('a tool the key may not use never appears in results, however well it matches', async () => {
    const issues = names((await get('/tools?q=create+pull+request+review&limit=100', KEY.issues)).json());
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((n) => n.startsWith('issues_'))).toBe(true);
    expect(names((await get('/tools?q=create+an+issue', KEY.reader)).json())).toEqual([]);
    expect(names((await get('/tools?q=read+a+file', KEY.reader)).json())).toEqual(['Read', 'Grep']);
    const listed = (await get('/tools?q=create+an+issue&include_unavailable=true', KEY.reader)).json();
    expect(listed.tools).toEqual([]);
  });

  it('a tool whose breaker is open is left out of results (listed with include_unavailable), and back once reset', async () => {
    const query = '/tools?q=flaky+weather+request';
    expect(names((await get(query)).json())[0]).toBe('flaky_weather');
    const before = String((await get(query)).headers.etag);
    for (let i = 0; i < 3; i++) await execute(t.app, [{ id: `f${i}`, name: 'flaky_weather', arguments: { mode: 'fail' } }], as(KEY.all));
    const open = await get(query);
    expect(names(open.json())).not.toContain('flaky_weather');
    expect(String(open.headers.etag)).not.toBe(before);
    expect(open.json().tools).toHaveLength(10);
    // The next best tool takes the open one's place: the limit still counts available tools.
    const one = names((await get(`${query}&limit=1`)).json());
    expect(one).toHaveLength(1);
    expect(one).not.toContain('flaky_weather');
    const all = (await get(`${query}&include_unavailable=true`)).json().tools;
    expect(all[0]).toMatchObject({ function: { name: 'flaky_weather' }, 'x-toolgate': { available: false, circuit: { state: 'open' } } });
    await t.app.inject({ method: 'POST', url: '/circuits/flaky_weather/reset', headers: as(KEY.all) });
    expect(names((await get(query)).json())[0]).toBe('flaky_weather');
  });
});
