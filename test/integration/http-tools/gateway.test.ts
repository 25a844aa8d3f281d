import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from './helpers.js';

/**
 * HTTP tools through the whole gateway: declared in the config,
 * listed by GET /tools, called through POST /execute, with the breaker
 * counting only the upstream's own failures.
 */
let server: TestServer | undefined;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  await server?.close();
  t = server = undefined;
  expectTripwireQuiet();
});

function flakyTool(port: number, extra: Record<string, unknown> = {}) {
  return {
    name: 'flaky',
    description: 'A loopback service under test.',
    parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    http: { method: 'GET', url: `http://127.0.0.1:${port}/items/{item}`, retries: 0, allow_private_network: true, ...extra },
    concurrency_safe: true,
    breaker: { failure_threshold: 3, recovery_ms: 60_000 },
  };
}

const names = async (app: TestApp['app']) =>
  (await app.inject({ method: 'GET', url: '/tools' })).json().tools.map((x: { function: { name: string } }) => x.function.name);

describe('an HTTP tool declared in the config', () => {
  it('three 500s open its breaker and hide it from GET /tools; after the recovery time one probe closes it', async () => {
    let status = 500;
    server = await startServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status }));
    });
    t = await buildTestApp({ builtins: false, config: { tools: [flakyTool(server.port)] }, dispatchers: createTestDispatchers() });
    expect(await names(t.app)).toEqual(['flaky']);
    for (let i = 0; i < 3; i++) {
      const { body } = await execute(t.app, [{ id: `f${i}`, name: 'flaky', arguments: { item: 'a' } }]);
      expect(body.results[0].error).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { status: 500 } });
    }
    const open = await execute(t.app, [{ id: 'o', name: 'flaky', arguments: { item: 'a' } }]);
    expect(open.body.results[0].error).toMatchObject({ code: 'CIRCUIT_OPEN', retry_after_ms: 60_000 });
    expect(server.requests).toHaveLength(3);
    expect(await names(t.app)).toEqual([]);

    status = 200;
    t.clock.advance(60_000);
    expect(await names(t.app)).toEqual(['flaky']);
    const probe = await execute(t.app, [
      { id: 'p1', name: 'flaky', arguments: { item: 'a' } },
      { id: 'p2', name: 'flaky', arguments: { item: 'b' } },
    ]);
    expect(probe.body.results.map((r: { status: string }) => r.status).sort()).toEqual(['error', 'success']);
    expect(server.requests).toHaveLength(4);
    const closed = await execute(t.app, [{ id: 'c', name: 'flaky', arguments: { item: 'a' } }]);
    expect(closed.body.results[0]).toMatchObject({ status: 'success', data: { status: 200 } });
  });

  it('4xx answers never trip the breaker', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(404).end('no such item');
    });
    t = await buildTestApp({ builtins: false, config: { tools: [flakyTool(server.port)] }, dispatchers: createTestDispatchers() });
    for (let i = 0; i < 6; i++) {
      const { body } = await execute(t.app, [{ id: `n${i}`, name: 'flaky', arguments: { item: 'x' } }]);
      expect(body.results[0].error).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: false, details: { status: 404 } });
    }
    expect(server.requests).toHaveLength(6);
    expect(await names(t.app)).toEqual(['flaky']);
  });

  it('a header secret from the environment reaches the upstream, and never a result or a log line', async () => {
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`you sent ${req.headers.authorization}`);
    });
    const secret = 'tok-SECRET-4242';
    t = await buildTestApp({
      builtins: false,
      env: { ITEMS_TOKEN: secret },
      config: {
        tools: [
          { ...flakyTool(server.port), http: { ...flakyTool(server.port).http, headers: { authorization: 'Bearer ${ITEMS_TOKEN}' } } },
        ],
      },
      dispatchers: createTestDispatchers(),
    });
    const { body } = await execute(t.app, [{ id: 's', name: 'flaky', arguments: { item: 'a' } }]);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${secret}`);
    expect(body.results[0].status).toBe('success');
    expect(JSON.stringify(body)).not.toContain(secret);
    expect(JSON.stringify(t.logs)).not.toContain(secret);
  });
});
