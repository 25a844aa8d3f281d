import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { bigOutputTool } from '../../helpers/tools.js';
import type { Tool } from '../../../src/tools/tool.js';
import { ADMIN_KEY, bearer, EXEC_KEY, KEYS, sha256 } from './auth-keys.js';

const counter = { runs: 0 };
const counted: Tool = {
  name: 'Counted',
  description: 'Counts its runs.',
  parameters: { type: 'object', additionalProperties: true },
  concurrencySafe: true,
  async run() {
    counter.runs += 1;
    return { text: 'ran' };
  },
};

interface Route {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS' | 'TRACE';
  /** As the OpenAPI document names it. */
  path: string;
  url: string;
  scope: 'execute' | 'admin';
  payload?: object;
  headers?: Record<string, string>;
  /** What the route answers a caller with the right key; undefined: anything but an auth refusal. */
  ok?: number;
}

/** Every route but the public ones needs a key with its scope. */
describe('authentication per route', () => {
  let t: TestApp;
  const routes: Route[] = [
    { method: 'GET', path: '/tools', url: '/tools', scope: 'execute', ok: 200 },
    { method: 'HEAD', path: '/tools', url: '/tools', scope: 'execute', ok: 200 },
    { method: 'GET', path: '/tools/{name}', url: '/tools/Read', scope: 'execute', ok: 200 },
    // No upstream MCP server here: no resources or prompts, listed empty; reading one is 404.
    { method: 'GET', path: '/resources', url: '/resources', scope: 'execute', ok: 200 },
    { method: 'GET', path: '/resources/read', url: '/resources/read?uri=ev%2Bdemo%3A%2F%2Fa', scope: 'execute', ok: 404 },
    { method: 'GET', path: '/prompts', url: '/prompts', scope: 'execute', ok: 200 },
    { method: 'POST', path: '/prompts/{name}', url: '/prompts/ev_simple', scope: 'execute', payload: {}, ok: 404 },
    {
      method: 'POST',
      path: '/execute',
      url: '/execute',
      scope: 'execute',
      payload: [{ id: 'c', name: 'Counted', arguments: {} }],
      ok: 200,
    },
    // The url of a real spilled output is filled in once the app is up.
    { method: 'GET', path: '/outputs/{id}', url: '', scope: 'execute', ok: 200 },
    // No Redis here, so no execution exists: with the right key, 404.
    { method: 'GET', path: '/executions/{id}', url: `/executions/exec_${'0'.repeat(32)}`, scope: 'execute', ok: 404 },
    { method: 'GET', path: '/approvals', url: '/approvals', scope: 'admin', ok: 200 },
    { method: 'GET', path: '/approvals/{id}', url: '/approvals/no-such-approval', scope: 'admin', ok: 404 },
    {
      method: 'POST',
      path: '/approvals/{id}',
      url: '/approvals/no-such-approval',
      scope: 'admin',
      payload: { decision: 'approve' },
      ok: 404,
    },
    { method: 'GET', path: '/circuits', url: '/circuits', scope: 'admin', ok: 200 },
    // This app writes no audit trail: with the right key, 404 saying so.
    { method: 'GET', path: '/audit', url: '/audit', scope: 'admin', ok: 404 },
    { method: 'POST', path: '/circuits/{tool}/reset', url: '/circuits/Read/reset', scope: 'admin', ok: 200 },
    {
      method: 'POST',
      path: '/mcp',
      url: '/mcp',
      scope: 'execute',
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
      headers: { accept: 'application/json, text/event-stream' },
    },
    { method: 'GET', path: '/mcp', url: '/mcp', scope: 'execute' },
    { method: 'DELETE', path: '/mcp', url: '/mcp', scope: 'execute' },
    { method: 'PUT', path: '/mcp', url: '/mcp', scope: 'execute' },
    { method: 'PATCH', path: '/mcp', url: '/mcp', scope: 'execute' },
    { method: 'OPTIONS', path: '/mcp', url: '/mcp', scope: 'execute' },
    { method: 'TRACE', path: '/mcp', url: '/mcp', scope: 'execute' },
    ...(['POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'TRACE'] as const).map((method) => ({
      method,
      path: '/mcp/{toolset}',
      url: '/mcp/coding',
      scope: 'execute' as const,
      ...(method === 'POST' && {
        payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { accept: 'application/json, text/event-stream' },
      }),
    })),
  ];

  /** The envelope error, or on /mcp the JSON-RPC error body that carries the same code. */
  const refusalBody = (route: Route, code: string, message: unknown = expect.any(String)) =>
    route.path.startsWith('/mcp')
      ? { jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { code } } }
      : { error: { code, message } };

  const refusals: Array<{ name: string; authorization?: string; status: number; code: string }> = [
    { name: 'no Authorization header', status: 401, code: 'UNAUTHORIZED' },
    {
      name: 'malformed header: Basic scheme',
      authorization: `Basic ${Buffer.from(`u:${EXEC_KEY}`).toString('base64')}`,
      status: 401,
      code: 'UNAUTHORIZED',
    },
    { name: 'malformed header: Bearer without a key', authorization: 'Bearer', status: 401, code: 'UNAUTHORIZED' },
    { name: 'malformed header: the key and more', authorization: `Bearer ${EXEC_KEY} ${ADMIN_KEY}`, status: 401, code: 'UNAUTHORIZED' },
    { name: 'malformed header: the bare key', authorization: EXEC_KEY, status: 401, code: 'UNAUTHORIZED' },
    { name: 'wrong key', authorization: 'Bearer tg_not-a-key-anyone-was-given', status: 401, code: 'UNAUTHORIZED' },
    { name: 'a key whose hash is a configured sha256', authorization: `Bearer ${sha256(EXEC_KEY)}`, status: 401, code: 'UNAUTHORIZED' },
  ];

  beforeAll(async () => {
    counter.runs = 0;
    // Many refusals on purpose: keep the brute-force guard out of this table.
    t = await buildTestApp({ tools: [counted, bigOutputTool('Big')], config: { keys: KEYS, auth: { failures_per_minute: 10_000 } } });
    const { body } = await execute(t.app, [{ id: 'b', name: 'Big', arguments: { size: 60_000 } }], bearer(EXEC_KEY));
    routes.find((r) => r.path === '/outputs/{id}')!.url = body.results[0].truncated.url;
  });
  afterAll(() => t.close());

  const send = (route: Route, authorization: string | undefined) =>
    t.app.inject({
      method: route.method,
      url: route.url,
      headers: { ...route.headers, ...(authorization === undefined ? {} : { authorization }) },
      ...(route.payload ? { payload: route.payload } : {}),
    });

  it('the table covers every route the OpenAPI document marks as needing a key', () => {
    const documented = Object.entries(t.app.swagger().paths ?? {}).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, { responses?: Record<string, unknown> }>)
        .filter(([, op]) => op.responses?.['401'] !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const tabled = routes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.path}`);
    expect(new Set(tabled)).toEqual(new Set(documented));
  });

  for (const route of routes) {
    describe(`${route.method} ${route.path}`, () => {
      for (const refusal of refusals) {
        it(`${refusal.name} → ${refusal.status}`, async () => {
          const runs = counter.runs;
          const res = await send(route, refusal.authorization);
          expect(res.statusCode).toBe(refusal.status);
          expect(res.headers['www-authenticate']).toBe('Bearer');
          if (route.method !== 'HEAD') expect(res.json()).toEqual(refusalBody(route, refusal.code));
          expect(counter.runs).toBe(runs);
        });
      }

      it('right key without the scope → 403 FORBIDDEN', async () => {
        const runs = counter.runs;
        const res = await send(route, `Bearer ${route.scope === 'execute' ? ADMIN_KEY : EXEC_KEY}`);
        expect(res.statusCode).toBe(403);
        expect(res.headers['www-authenticate']).toBeUndefined();
        if (route.method !== 'HEAD')
          expect(res.json()).toEqual(refusalBody(route, 'FORBIDDEN', `The API key lacks the "${route.scope}" scope.`));
        expect(counter.runs).toBe(runs);
      });

      it('right key → served', async () => {
        const res = await send(route, `Bearer ${route.scope === 'execute' ? EXEC_KEY : ADMIN_KEY}`);
        if (route.ok !== undefined) expect(res.statusCode).toBe(route.ok);
        else expect([401, 403, 429]).not.toContain(res.statusCode);
      });
    });
  }

  it('the scheme name is case-insensitive, as RFC 9110 says', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/tools', headers: { authorization: `bearer ${EXEC_KEY}` } });
    expect(res.statusCode).toBe(200);
  });

  it('the key is checked before the body is read: no key and an oversized body is 401, not 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/execute',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ tool_calls: [], pad: 'x'.repeat(t.config.limits.body_bytes + 10) }),
    });
    expect(res.statusCode).toBe(401);
  });

  it('/healthz, /readyz, /metrics and the OpenAPI document need no key, and ignore a bad one', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, url).toBe(200);
      }
    }
  });

  it('no log line holds a key, its sha256, or an Authorization header value', () => {
    const text = JSON.stringify(t.logs);
    // The table above sent every kind of header on every route; the capture saw those requests.
    expect(t.logs.filter((l) => l.msg === 'request completed').length).toBeGreaterThan(routes.length * (refusals.length + 2));
    expect(t.logs.some((l) => l.msg === 'tool call')).toBe(true);
    const secrets = [
      EXEC_KEY,
      ADMIN_KEY,
      sha256(EXEC_KEY),
      sha256(ADMIN_KEY),
      'tg_not-a-key-anyone-was-given',
      Buffer.from(`u:${EXEC_KEY}`).toString('base64'),
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/bearer|basic /i);
  });
});
