import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTool } from '../../../src/tools/http/index.js';
import {
  callContext,
  createTestDispatchers,
  expectTripwireQuiet,
  failure,
  httpToolConfig,
  startServer,
  type TestServer,
} from './helpers.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

const dispatchers = createTestDispatchers();
afterEach(expectTripwireQuiet);
const SECRET = 's3cr3t-token-0123456789';
const env = { TG_TEST_TOKEN: SECRET };

let server: TestServer;
let answer: (url: string) => { status: number; type?: string; body: string };

beforeAll(async () => {
  server = await startServer((_req, res, recorded) => {
    const { status, type, body } = answer(recorded.url);
    res.writeHead(status, type ? { 'content-type': type } : {});
    res.end(body);
  });
});
afterAll(async () => {
  await server.close();
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

function tool(http: Partial<Parameters<typeof httpToolConfig>[0]> & { url: string }) {
  return createHttpTool(httpToolConfig({ method: 'GET', allow_private_network: true, ...http }), {
    dispatchers,
    credentials: createEnvCredentials(env),
  });
}

function lastRequest() {
  return server.requests.at(-1)!;
}

describe('URL templates: {arg} placeholders are percent-encoded and cannot change the URL structure', () => {
  beforeAll(() => {
    answer = () => ({ status: 200, body: 'ok' });
  });

  it.each([
    ['../', '..%2F'],
    ['../../admin', '..%2F..%2Fadmin'],
    ['a?x=1', 'a%3Fx%3D1'],
    ['a#frag', 'a%23frag'],
    ['two words', 'two%20words'],
    ['ünï 日本 🚀', '%C3%BCn%C3%AF%20%E6%97%A5%E6%9C%AC%20%F0%9F%9A%80'],
    ['a&b=c/d', 'a%26b%3Dc%2Fd'],
  ])('path and query placeholder with %j', async (value, encoded) => {
    const t = tool({ url: `${server.origin}/items/{id}/detail?q={q}` });
    await t.run({ id: value, q: value }, callContext(5000, undefined, env));
    expect(lastRequest().url).toBe(`/items/${encoded}/detail?q=${encoded}`);
  });

  it.each(['..', '.', ''])('a path segment of %j is refused before any request', async (value) => {
    const before = server.requests.length;
    const t = tool({ url: `${server.origin}/items/{id}` });
    const err = await failure(() => t.run({ id: value }, callContext(5000, undefined, env)));
    expect(err.code).toBe('INVALID_ARGS');
    expect(server.requests.length).toBe(before);
  });

  it('a lone surrogate is INVALID_ARGS, not a crash', async () => {
    const t = tool({ url: `${server.origin}/items/{id}` });
    expect((await failure(() => t.run({ id: '\ud800' }, callContext(5000, undefined, env)))).code).toBe('INVALID_ARGS');
  });

  it('a missing URL argument is INVALID_ARGS', async () => {
    const t = tool({ url: `${server.origin}/items/{id}` });
    expect((await failure(() => t.run({}, callContext(5000, undefined, env)))).code).toBe('INVALID_ARGS');
  });

  it('numbers and booleans fill placeholders as text', async () => {
    const t = tool({ url: `${server.origin}/page/{n}?draft={draft}` });
    await t.run({ n: 3, draft: false }, callContext(5000, undefined, env));
    expect(lastRequest().url).toBe('/page/3?draft=false');
  });
});

describe('argument mapping: the rest go to the query for GET/DELETE and to the JSON body for POST/PUT/PATCH', () => {
  beforeAll(() => {
    answer = () => ({ status: 200, body: 'ok' });
  });

  it.each(['GET', 'DELETE'] as const)('%s appends unused arguments to the query', async (method) => {
    const t = tool({ method, url: `${server.origin}/search/{kind}?fixed=1` });
    await t.run(
      { kind: 'books', term: 'a b&c', tags: ['x', 'y'], limit: 5, filter: { a: 1 }, skip: null },
      callContext(5000, undefined, env),
    );
    const req = lastRequest();
    expect(req.method).toBe(method);
    expect(req.url).toBe('/search/books?fixed=1&term=a%20b%26c&tags=x&tags=y&limit=5&filter=%7B%22a%22%3A1%7D');
    expect(req.body).toBe('');
  });

  it.each(['POST', 'PUT', 'PATCH'] as const)('%s sends unused arguments as the JSON body', async (method) => {
    const t = tool({ method, url: `${server.origin}/users/{id}` });
    await t.run({ id: 7, name: 'Ann', tags: ['a'], nested: { ok: true } }, callContext(5000, undefined, env));
    const req = lastRequest();
    expect(req.method).toBe(method);
    expect(req.url).toBe('/users/7');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ name: 'Ann', tags: ['a'], nested: { ok: true } });
  });
});

describe('responses: 2xx body in text, parsed JSON in data', () => {
  it('JSON content types are parsed into data', async () => {
    answer = () => ({ status: 200, type: 'application/json; charset=utf-8', body: '{"temp":21.5}' });
    expect(await tool({ url: `${server.origin}/w` }).run({}, callContext(5000, undefined, env))).toEqual({
      text: '{"temp":21.5}',
      data: { temp: 21.5 },
    });
    answer = () => ({ status: 200, type: 'application/problem+json', body: '[1]' });
    expect(await tool({ url: `${server.origin}/w` }).run({}, callContext(5000, undefined, env))).toEqual({ text: '[1]', data: [1] });
  });

  it('other content types, and JSON that does not parse, give text only', async () => {
    answer = () => ({ status: 200, type: 'text/plain', body: '{"a":1}' });
    expect(await tool({ url: `${server.origin}/w` }).run({}, callContext(5000, undefined, env))).toEqual({ text: '{"a":1}' });
    answer = () => ({ status: 200, type: 'application/json', body: '{broken' });
    expect(await tool({ url: `${server.origin}/w` }).run({}, callContext(5000, undefined, env))).toEqual({ text: '{broken' });
  });

  it('4xx is UPSTREAM_ERROR with the status, not retryable, with a short excerpt', async () => {
    answer = () => ({ status: 404, body: `no such city ${'x'.repeat(5000)}` });
    const before = server.requests.length;
    const err = await failure(() => tool({ url: `${server.origin}/w` }).run({}, callContext(5000, undefined, env)));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.retryable).toBe(false);
    const details = err.details as { status: number; body_excerpt: string };
    expect(details.status).toBe(404);
    expect(details.body_excerpt.startsWith('no such city')).toBe(true);
    expect(details.body_excerpt.length).toBe(512);
    expect(server.requests.length).toBe(before + 1);
  });

  it('500 is UPSTREAM_ERROR with the status, retryable, and is not retried (only 429/502/503/504 are)', async () => {
    answer = () => ({ status: 500, body: 'boom' });
    const before = server.requests.length;
    const err = await failure(() => tool({ url: `${server.origin}/w` }).run({}, callContext(5000, undefined, env)));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { status: 500, body_excerpt: 'boom' } });
    expect(server.requests.length).toBe(before + 1);
  });
});

describe('secrets: ${VAR} header values come from the environment and never come back', () => {
  const headers = { Authorization: 'Bearer ${TG_TEST_TOKEN}', 'x-static': 'plain' };

  it('sends the substituted header', async () => {
    answer = () => ({ status: 200, body: 'ok' });
    await tool({ url: `${server.origin}/me`, headers }).run({}, callContext(5000, undefined, env));
    expect(lastRequest().headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(lastRequest().headers['x-static']).toBe('plain');
  });

  it('scrubs the value from a 2xx body that echoes it', async () => {
    answer = () => ({ status: 200, type: 'application/json', body: JSON.stringify({ seen: `Bearer ${SECRET}` }) });
    const out = await tool({ url: `${server.origin}/echo`, headers }).run({}, callContext(5000, undefined, env));
    expect(out.text).not.toContain(SECRET);
    expect(out.data).toEqual({ seen: 'Bearer [REDACTED]' });
  });

  it('scrubs the value from an error excerpt and keeps it out of the error', async () => {
    answer = () => ({ status: 401, body: `bad token ${SECRET} for ${SECRET}` });
    const err = await failure(() => tool({ url: `${server.origin}/echo`, headers }).run({}, callContext(5000, undefined, env)));
    expect((err.details as { body_excerpt: string }).body_excerpt).toBe('bad token [REDACTED] for [REDACTED]');
    expect(JSON.stringify(err.toCallError())).not.toContain(SECRET);
    expect(err.message).not.toContain(SECRET);
  });

  it('an unset variable is a start-up error naming it, without any value', () => {
    const create = () =>
      createHttpTool(httpToolConfig({ method: 'GET', url: `${server.origin}/x`, headers: { 'x-key': '${TG_NOT_SET}', ...headers } }), {
        dispatchers,
        credentials: createEnvCredentials(env),
      });
    expect(create).toThrow(/TG_NOT_SET/);
    expect(create).not.toThrow(new RegExp(SECRET));
  });
});

describe('connections: one shared pool per origin with keep-alive', () => {
  it('sequential calls, also of different tools, reuse one kept-alive connection', async () => {
    answer = () => ({ status: 200, type: 'application/json', body: '{"ok":true}' });
    const before = server.connections();
    for (const path of ['/a', '/b', '/a', '/c']) await tool({ url: `${server.origin}${path}` }).run({}, callContext(5000, undefined, env));
    expect(server.connections() - before).toBeLessThanOrEqual(1);
  });
});

describe('tool metadata from the config entry', () => {
  it('maps gateway settings; HTTP tools are not concurrency-safe unless declared', () => {
    const base = httpToolConfig({ method: 'GET', url: `${server.origin}/x` });
    expect(createHttpTool(base, { dispatchers, credentials: createEnvCredentials(env) }).concurrencySafe).toBe(false);
    const t = createHttpTool(
      {
        ...base,
        concurrency_safe: true,
        timeout_ms: 1234,
        requires_approval: true,
        breaker: { failure_threshold: 5 },
        rate_limit: { per_minute: 60 },
      },
      { dispatchers, credentials: createEnvCredentials(env) },
    );
    expect(t).toMatchObject({
      name: 'test_tool',
      concurrencySafe: true,
      timeoutMs: 1234,
      requiresApproval: true,
      breaker: { failureThreshold: 5 },
      rateLimit: { perMinute: 60 },
    });
  });

  it('a URL placeholder missing from the parameters is a start-up error', () => {
    const config = { ...httpToolConfig({ method: 'GET', url: `${server.origin}/x/{id}` }), parameters: { type: 'object' as const } };
    expect(() => createHttpTool(config, { dispatchers, credentials: createEnvCredentials(env) })).toThrow(/\{id\}/);
  });
});
