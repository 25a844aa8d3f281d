import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { slowTool } from '../../helpers/tools.js';
import { expectRpcError, post, rpc } from './mcp-rpc.js';

/** POST /mcp behind API keys: who may list and call, and the refusals under load and repeated auth failures. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('/mcp with API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      config: {
        keys: [
          { id: 'reader', sha256: sha256('reader-key'), tenant: 'acme', scopes: ['execute'], tools: ['Read', 'LS'] },
          { id: 'ops', sha256: sha256('ops-key'), tenant: 'acme', scopes: ['admin'] },
        ],
      },
    });
  });
  afterAll(() => t.close());

  it('no Bearer is a 401 JSON-RPC error with WWW-Authenticate: Bearer, a key without the execute scope a 403', async () => {
    for (const res of [
      await post(t, rpc('tools/list')),
      await post(t, rpc('tools/list'), { authorization: 'Bearer wrong-key' }),
      await t.app.inject({ method: 'GET', url: '/mcp' }),
    ]) {
      expectRpcError(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expectRpcError(await post(t, rpc('tools/list'), { authorization: 'Bearer ops-key' }), 403, 'FORBIDDEN');
  });

  it('the key sees and calls only its own tools; an origin does not matter when a key is required', async () => {
    const auth = { authorization: 'Bearer reader-key', origin: 'https://app.example' };
    const tools = (await post(t, rpc('tools/list'), auth)).json().result.tools;
    expect(tools.map((x: { name: string }) => x.name)).toEqual(['LS', 'Read']);
    const write = (await post(t, rpc('tools/call', { name: 'Write', arguments: { path: 'x', content: 'y' } }), auth)).json();
    expect(write.error).toMatchObject({ code: -32602, data: { code: 'UNKNOWN_TOOL', details: { available: ['LS', 'Read'] } } });
  });
});

describe('/mcp refusals under load and auth failures', () => {
  it('past limits.inflight_requests a 503 JSON-RPC error with Retry-After; past auth.failures_per_minute a 429 one', async () => {
    const t = await buildTestApp({
      tools: [slowTool('Slow', { safe: true, ms: 300 })],
      config: {
        limits: { inflight_requests: 1 },
        auth: { failures_per_minute: 1 },
        keys: [{ id: 'reader', sha256: sha256('reader-key'), tenant: 'acme', scopes: ['execute'] }],
      },
    });
    try {
      const auth = { authorization: 'Bearer reader-key' };
      const slow = () => post(t, rpc('tools/call', { name: 'Slow', arguments: {} }), auth);
      const responses = await Promise.all([slow(), slow()]);
      expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 503]);
      const refused = responses.find((r) => r.statusCode === 503)!;
      expectRpcError(refused, 503, 'OVERLOADED');
      expect(refused.headers['retry-after']).toBe('1');
      expectRpcError(await post(t, rpc('ping'), { authorization: 'Bearer wrong' }), 401, 'UNAUTHORIZED');
      const limited = await post(t, rpc('ping'), { authorization: 'Bearer wrong' });
      expectRpcError(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });
});
