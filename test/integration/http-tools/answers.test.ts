import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTool } from '../../../src/tools/http/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { createTestDispatchers, expectTripwireQuiet, httpToolConfig, startServer, type TestServer } from './helpers.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

/**
 * "An HTTP tool's answer", through the whole pipeline against a
 * real upstream on loopback: what comes back, whether it is retryable, and
 * whether the breaker counts it (3.5 gate 9).
 */

const dispatchers = createTestDispatchers();
afterEach(expectTripwireQuiet);

let server: TestServer;
let reply: { status: number; headers?: Record<string, string>; body: string } = { status: 200, body: '' };

beforeAll(async () => {
  server = await startServer((_req, res) => {
    res.writeHead(reply.status, reply.headers ?? {});
    res.end(reply.body);
  });
});
afterAll(async () => {
  await server.close();
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function gateway(origin = server.origin): Promise<TestApp> {
  const tool = createHttpTool(
    httpToolConfig(
      { method: 'GET', url: `${origin}/weather/{city}`, allow_private_network: true, retries: 0 },
      { name: 'get_weather', concurrency_safe: true },
    ),
    { dispatchers, credentials: createEnvCredentials({}) },
  );
  t = await buildTestApp({ builtins: false, tools: [tool] });
  return t;
}

const weather = (id: string) => ({ id, name: 'get_weather', arguments: { city: 'Paris' } });

async function circuit(app: TestApp['app']) {
  return (await app.inject({ method: 'GET', url: '/circuits' })).json().circuits[0];
}

describe("an HTTP tool's answer: each upstream outcome has one status, code and retryable", () => {
  it('2xx: success, the body in text and the parsed JSON in data', async () => {
    const { app } = await gateway();
    reply = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"temp_c":21}' };
    const { body } = await execute(app, [weather('a')]);
    expect(body.results[0]).toMatchObject({ status: 'success', text: '{"temp_c":21}', data: { temp_c: 21 } });
  });

  it('4xx other than 429: UPSTREAM_ERROR with details.status, not retryable, not counted by the breaker', async () => {
    const { app } = await gateway();
    reply = { status: 404, body: 'no such city' };
    for (let i = 0; i < 5; i++) {
      const { body } = await execute(app, [weather(`n${i}`)]);
      expect(body.results[0].error).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: false, details: { status: 404 } });
    }
    expect(await circuit(app)).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('429 still there after the retries: RATE_LIMITED, retry_after_ms from Retry-After, retryable, not counted', async () => {
    const { app } = await gateway();
    reply = { status: 429, headers: { 'retry-after': '7' }, body: 'slow down' };
    for (let i = 0; i < 5; i++) {
      const { body } = await execute(app, [weather(`r${i}`)]);
      expect(body.results[0].error).toMatchObject({ code: 'RATE_LIMITED', retryable: true, retry_after_ms: 7_000 });
    }
    expect(await circuit(app)).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('5xx: UPSTREAM_ERROR with details.status, retryable, counted: 3 in a row open the breaker', async () => {
    const { app } = await gateway();
    reply = { status: 500, body: 'boom' };
    for (let i = 0; i < 3; i++) {
      const { body } = await execute(app, [weather(`s${i}`)]);
      expect(body.results[0].error).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { status: 500 } });
    }
    expect(await circuit(app)).toMatchObject({ state: 'open', failures: 3 });
    const { body } = await execute(app, [weather('after')]);
    expect(body.results[0].error.code).toBe('CIRCUIT_OPEN');
  });

  it('connect errors: UPSTREAM_ERROR, retryable, counted: 3 in a row open the breaker', async () => {
    const closed = await startServer(() => undefined);
    const origin = closed.origin;
    await closed.close();
    const { app } = await gateway(origin);
    for (let i = 0; i < 3; i++) {
      const { body } = await execute(app, [weather(`c${i}`)]);
      expect(body.results[0].error).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true, details: { reason: 'connect' } });
    }
    expect(await circuit(app)).toMatchObject({ state: 'open', failures: 3 });
  });
});
