import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/schema.js';
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
const servers: TestServer[] = [];
const open: ServerResponse[] = [];

afterEach(async () => {
  for (const res of open.splice(0)) res.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]));

/** A server answering its n-th request (0-based) with `plan[n]`, repeating the last entry. */
async function scripted(plan: Array<{ status: number; headers?: Record<string, string>; body?: string }>) {
  const server = await startServer((_req, res) => {
    const step = plan[Math.min(server.requests.length - 1, plan.length - 1)]!;
    res.writeHead(step.status, step.headers);
    res.end(step.body ?? '');
  });
  servers.push(server);
  return server;
}

/** The tool, with a sleep that records each wait and returns at once. */
function tool(http: Partial<ToolConfig['http']> & { url: string }) {
  const waits: number[] = [];
  const t = createHttpTool(httpToolConfig({ method: 'GET', allow_private_network: true, ...http }), {
    dispatchers,
    credentials: createEnvCredentials({}),
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { t, waits };
}

describe('timeouts: the call ends at its deadline with TIMEOUT', () => {
  it('a server that never answers', async () => {
    const server = await startServer((_req, res) => void open.push(res));
    servers.push(server);
    const started = Date.now();
    const err = await failure(() => tool({ url: `${server.origin}/hang` }).t.run({}, callContext(300)));
    expect(err.code).toBe('TIMEOUT');
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a server that trickles the body one byte at a time', async () => {
    const server = await startServer((_req, res) => {
      open.push(res);
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
    });
    servers.push(server);
    const started = Date.now();
    const err = await failure(() => tool({ url: `${server.origin}/slow` }).t.run({}, callContext(400)));
    expect(err.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('retries: exponential backoff with jitter on 429/502/503/504 and transport failures', () => {
  it('a 503 then a 200 succeeds on the second attempt, after a jittered backoff', async () => {
    const server = await scripted([{ status: 503 }, { status: 200, body: 'fine' }]);
    const { t, waits } = tool({ url: `${server.origin}/x` });
    expect(await t.run({}, callContext(5000))).toEqual({ text: 'fine' });
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(100);
    expect(waits[0]).toBeLessThanOrEqual(200);
  });

  it.each([502, 504])('%i is retried', async (status) => {
    const server = await scripted([{ status }, { status: 200, body: 'fine' }]);
    expect(await tool({ url: `${server.origin}/x` }).t.run({}, callContext(5000))).toEqual({ text: 'fine' });
    expect(server.requests).toHaveLength(2);
  });

  it('a 429 with Retry-After waits exactly that long', async () => {
    const server = await scripted([
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200, body: 'fine' },
    ]);
    const { t, waits } = tool({ url: `${server.origin}/x` });
    expect(await t.run({}, callContext(5000))).toEqual({ text: 'fine' });
    expect(waits).toEqual([1000]);
  });

  it('a 429 still there after the retries is RATE_LIMITED with retry_after_ms', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '1' }, body: 'slow down' }]);
    const { t, waits } = tool({ url: `${server.origin}/x`, retries: 2 });
    const err = await failure(() => t.run({}, callContext(5000)));
    expect(err).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retryAfterMs: 1000 });
    expect(err.toCallError().retry_after_ms).toBe(1000);
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('never waits past the deadline: a Retry-After beyond it ends the call at once', async () => {
    const server = await scripted([{ status: 503, headers: { 'retry-after': '120' } }]);
    const { t, waits } = tool({ url: `${server.origin}/x` });
    const err = await failure(() => t.run({}, callContext(2000)));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, retryAfterMs: 120_000, details: { status: 503 } });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('retries: 0 makes a single attempt', async () => {
    const server = await scripted([{ status: 503 }, { status: 200 }]);
    await failure(() => tool({ url: `${server.origin}/x`, retries: 0 }).t.run({}, callContext(5000)));
    expect(server.requests).toHaveLength(1);
  });

  it.each(['POST', 'PATCH'] as const)('%s is not retried', async (method) => {
    const server = await scripted([{ status: 503 }, { status: 200 }]);
    const err = await failure(() => tool({ method, url: `${server.origin}/x`, retries: 3 }).t.run({ a: 1 }, callContext(5000)));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', details: { status: 503 } });
    expect(server.requests).toHaveLength(1);
  });

  it('POST is retried when the tool declares idempotent: true', async () => {
    const server = await scripted([{ status: 503 }, { status: 200, body: 'created' }]);
    const { t } = tool({ method: 'POST', idempotent: true, url: `${server.origin}/x` });
    expect(await t.run({ a: 1 }, callContext(5000))).toEqual({ text: 'created' });
    expect(server.requests.map((r) => r.body)).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('idempotent: false turns retries off for any method', async () => {
    const server = await scripted([{ status: 503 }, { status: 200 }]);
    await failure(() => tool({ method: 'PUT', idempotent: false, url: `${server.origin}/x` }).t.run({}, callContext(5000)));
    expect(server.requests).toHaveLength(1);
  });

  it('PUT and DELETE are idempotent by definition and retried', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      const server = await scripted([{ status: 502 }, { status: 204 }]);
      expect(await tool({ method, url: `${server.origin}/x` }).t.run({}, callContext(5000))).toEqual({ text: '' });
      expect(server.requests).toHaveLength(2);
    }
  });

  it('a refused connection is retried, then UPSTREAM_ERROR with reason connect and no status', async () => {
    const server = await startServer(() => undefined);
    await server.close();
    const { t, waits } = tool({ url: `${server.origin}/x` });
    const err = await failure(() => t.run({}, callContext(5000)));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { reason: 'connect' } });
    expect(err.details).not.toHaveProperty('status');
    expect(waits).toHaveLength(2);
  });

  it('a connection reset before the answer is retried, then UPSTREAM_ERROR with reason reset', async () => {
    const server = await startServer((req) => {
      req.socket.destroy();
    });
    servers.push(server);
    const err = await failure(() => tool({ url: `${server.origin}/x` }).t.run({}, callContext(5000)));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { reason: 'reset' } });
    expect(server.requests).toHaveLength(3);
  });

  it('the real backoff sleep stops when the call is aborted, with TIMEOUT', async () => {
    const server = await scripted([{ status: 503, headers: { 'retry-after': '1' } }, { status: 200 }]);
    const t = createHttpTool(httpToolConfig({ method: 'GET', allow_private_network: true, url: `${server.origin}/x` }), {
      dispatchers,
      credentials: createEnvCredentials({}),
    });
    // The 1 s wait fits before the deadline, but the pipeline aborts the call while it waits.
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const err = await failure(() => t.run({}, Object.assign(callContext(1500), { signal: controller.signal })));
    expect(err.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(900);
    expect(server.requests).toHaveLength(1);
  });
});
