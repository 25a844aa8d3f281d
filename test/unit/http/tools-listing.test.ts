import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';

/** GET /tools — the x-toolgate object, the ETag, and what is left out. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEYS = { all: 'tg_list-all', all2: 'tg_list-all-2', some: 'tg_list-some' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });

/** The name of a listed tool, in any format. */
function nameOf(tool: any): string {
  return tool.function?.name ?? tool.name;
}

describe('GET /tools?include_unavailable=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      // Shared: the keys of both tenants see it open, so their lists are the same.
      tools: [Object.assign(faultyTool('broken', { safe: false, timeoutMs: 1234 }), { breaker: { shared: true } })],
      config: {
        builtins: { Write: { requires_approval: true } },
        keys: [
          { id: 'all', sha256: sha256(KEYS.all), tenant: 'a', scopes: ['execute', 'admin'] },
          { id: 'all2', sha256: sha256(KEYS.all2), tenant: 'b', scopes: ['execute'] },
          { id: 'some', sha256: sha256(KEYS.some), tenant: 'a', scopes: ['execute'], tools: ['Read', 'Grep'] },
        ],
      },
    });
    for (let i = 0; i < 3; i++) await execute(t.app, [{ id: `f${i}`, name: 'broken', arguments: { mode: 'fail' } }], as(KEYS.all));
  });
  afterAll(() => t.close());

  const get = (url: string, key = KEYS.all, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { ...as(key), ...headers } });

  it.each(['openai', 'anthropic', 'gemini', 'mcp'])(
    '%s: every tool, each with exactly available, circuit, concurrency_safe, requires_approval, timeout_ms',
    async (format) => {
      const body = (await get(`/tools?format=${format}&include_unavailable=true`)).json();
      const tools = format === 'gemini' ? body.tools[0].functionDeclarations : body.tools;
      expect(tools.map(nameOf)).toEqual(['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write', 'broken']);
      for (const tool of tools) {
        expect(Object.keys(tool['x-toolgate']).sort()).toEqual([
          'available',
          'circuit',
          'concurrency_safe',
          'requires_approval',
          'timeout_ms',
        ]);
      }
      const info = Object.fromEntries(tools.map((x: any) => [nameOf(x), x['x-toolgate']]));
      expect(info.broken).toMatchObject({ available: false, concurrency_safe: false, requires_approval: false, timeout_ms: 1234 });
      expect(info.broken.circuit).toMatchObject({ state: 'open' });
      expect(info.Write).toMatchObject({ available: true, concurrency_safe: false, requires_approval: true, timeout_ms: 30_000 });
      expect(info.Read).toMatchObject({ available: true, concurrency_safe: true, requires_approval: false });
      expect(info.Read.circuit).toMatchObject({ state: 'closed' });
    },
  );

  it('without include_unavailable there is no x-toolgate object and the open tool is left out', async () => {
    const tools = (await get('/tools')).json().tools;
    expect(tools.map(nameOf)).not.toContain('broken');
    for (const tool of tools) expect(tool).not.toHaveProperty('x-toolgate');
  });

  it('include_unavailable lists only what the key may use', async () => {
    const tools = (await get('/tools?include_unavailable=true', KEYS.some)).json().tools;
    expect(tools.map(nameOf)).toEqual(['Grep', 'Read']);
  });

  it('the ETag is the hash of the returned list: the same list has the same tag for any key, another list another tag', async () => {
    const [a, b, some] = await Promise.all([get('/tools', KEYS.all), get('/tools', KEYS.all2), get('/tools', KEYS.some)]);
    expect(a.json().tools).toEqual(b.json().tools);
    expect(a.headers.etag).toBe(b.headers.etag);
    expect(some.headers.etag).not.toBe(a.headers.etag);
    expect(some.json().version).toBe(String(some.headers.etag).replaceAll('"', ''));
    // The tag depends on nothing but the list: include_unavailable adds x-toolgate objects, so another list.
    expect((await get('/tools?include_unavailable=true')).headers.etag).not.toBe(a.headers.etag);
  });

  it('If-None-Match: 304 with the ETag and no body for a matching tag (also in a list, also weak); 200 otherwise', async () => {
    const etag = String((await get('/tools')).headers.etag);
    for (const inm of [etag, `"other", ${etag}`, `W/${etag}`]) {
      const res = await get('/tools', KEYS.all, { 'if-none-match': inm });
      expect(res.statusCode, inm).toBe(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.body).toBe('');
    }
    expect((await get('/tools', KEYS.all, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    // A tag of one key's list does not match another key's list.
    expect((await get('/tools', KEYS.some, { 'if-none-match': etag })).statusCode).toBe(200);
  });
});
