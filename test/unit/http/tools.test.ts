import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';

/** GET /tools and GET /tools/{name}. */
describe('GET /tools', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ tools: [faultyTool('zeta'), faultyTool('alpha')] });
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('openai by default: tools usable in a Chat Completions request, sorted by name, with a version', async () => {
    const res = await get('/tools');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const names = body.tools.map((x: { function: { name: string } }) => x.function.name);
    expect(names).toEqual(['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write', 'alpha', 'zeta']);
    for (const tool of body.tools) {
      expect(tool.type).toBe('function');
      expect(Object.keys(tool.function).sort()).toEqual(['description', 'name', 'parameters']);
      expect(tool.function.parameters.type).toBe('object');
    }
    expect(body.version).toBe(res.headers.etag!.toString().replaceAll('"', ''));
  });

  it('anthropic, gemini and mcp dialects', async () => {
    const anthropic = (await get('/tools?format=anthropic')).json();
    expect(Object.keys(anthropic.tools[0]).sort()).toEqual(['description', 'input_schema', 'name']);
    const gemini = (await get('/tools?format=gemini')).json();
    expect(gemini.tools).toHaveLength(1);
    expect(gemini.tools[0].functionDeclarations).toHaveLength(8);
    expect(JSON.stringify(gemini)).not.toMatch(/"additionalProperties"|"\$schema"|"\$ref"/);
    const mcp = (await get('/tools?format=mcp')).json();
    const read = mcp.tools.find((x: { name: string }) => x.name === 'Read');
    expect(read.inputSchema.type).toBe('object');
    expect(read.annotations.readOnlyHint).toBe(true);
    const write = mcp.tools.find((x: { name: string }) => x.name === 'Write');
    expect(write.annotations.readOnlyHint).toBe(false);
  });

  it('openai strict mode: every property required, additionalProperties false, strict: true', async () => {
    const body = (await get('/tools?format=openai&strict=true')).json();
    for (const { function: fn } of body.tools) {
      expect(fn.strict).toBe(true);
      expect(fn.parameters.additionalProperties).toBe(false);
      expect([...fn.parameters.required].sort()).toEqual(Object.keys(fn.parameters.properties).sort());
    }
  });

  it('responses: flat function tools for the Responses API, strict: false unless strict mode is asked for', async () => {
    const openai = (await get('/tools')).json();
    const body = (await get('/tools?format=responses')).json();
    expect(body.tools).toEqual(
      openai.tools.map(({ function: fn }: { function: Record<string, unknown> }) => ({ type: 'function', ...fn, strict: false })),
    );
    const strict = (await get('/tools?format=responses&strict=true')).json();
    const strictOpenai = (await get('/tools?format=openai&strict=true')).json();
    expect(strict.tools).toEqual(
      strictOpenai.tools.map(({ function: fn }: { function: Record<string, unknown> }) => ({ type: 'function', ...fn })),
    );
    for (const tool of strict.tools) {
      expect(tool.strict).toBe(true);
      expect(tool.parameters.additionalProperties).toBe(false);
    }
  });

  it('responses: its own ETag per format and strictness, each answering 304 to itself', async () => {
    const tags = new Set<string>();
    for (const url of ['/tools', '/tools?format=responses', '/tools?format=responses&strict=true', '/tools?format=openai&strict=true']) {
      const etag = String((await get(url)).headers.etag);
      tags.add(etag);
      expect((await get(url, { 'if-none-match': etag })).statusCode).toBe(304);
    }
    expect(tags.size).toBe(4);
  });

  it('ETag is the hash of the list; If-None-Match gets 304; another format another tag', async () => {
    const first = await get('/tools');
    const etag = String(first.headers.etag);
    expect((await get('/tools', { 'if-none-match': etag })).statusCode).toBe(304);
    expect((await get('/tools')).headers.etag).toBe(etag);
    expect((await get('/tools?format=anthropic')).headers.etag).not.toBe(etag);
  });

  it('an unknown format is a 400 envelope error', async () => {
    const res = await get('/tools?format=cohere');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('BAD_REQUEST');
  });

  it('a breaker-open tool is left out, listed with include_unavailable, and its tag changes', async () => {
    const before = String((await get('/tools')).headers.etag);
    for (let i = 0; i < 3; i++) await execute(t.app, [{ id: `f${i}`, name: 'zeta', arguments: { mode: 'fail' } }]);
    const names = (await get('/tools')).json().tools.map((x: { function: { name: string } }) => x.function.name);
    expect(names).not.toContain('zeta');
    expect(String((await get('/tools')).headers.etag)).not.toBe(before);
    const all = (await get('/tools?include_unavailable=true')).json().tools;
    const zeta = all.find((x: { function: { name: string } }) => x.function.name === 'zeta');
    expect(zeta['x-toolgate']).toMatchObject({
      available: false,
      circuit: { state: 'open', failures: 3 },
      concurrency_safe: true,
      requires_approval: false,
      timeout_ms: 30_000,
    });
    const read = all.find((x: { function: { name: string } }) => x.function.name === 'Read');
    expect(read['x-toolgate']).toMatchObject({ available: true, circuit: { state: 'closed' } });
    const one = await get('/tools/zeta');
    expect(one.statusCode).toBe(200);
    expect(one.json()['x-toolgate'].circuit.state).toBe('open');
    await t.app.inject({ method: 'POST', url: '/circuits/zeta/reset' });
  });

  it('GET /tools/{name}: schema and gateway metadata; unknown → 404 envelope', async () => {
    const res = await get('/tools/Read');
    expect(res.json()).toMatchObject({
      name: 'Read',
      parameters: { type: 'object' },
      'x-toolgate': { concurrency_safe: true, available: true },
    });
    const missing = await get('/tools/Nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});
