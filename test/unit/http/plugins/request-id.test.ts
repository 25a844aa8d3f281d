import { createHash } from 'node:crypto';
import { connect, type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetricsApp } from '../../../../src/app.js';
import { createMetrics } from '../../../../src/observability/metrics.js';
import { ERROR_CODES, type ErrorCode } from '../../../../src/protocol/errors.js';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';

/**
 * "A request id is returned in `x-request-id` on every response",
 * and envelope errors have one shape — also for what is refused before any
 * route runs (a URL the router cannot decode, a path parameter over its
 * length limit, a request the HTTP parser refuses).
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const EXEC = 'tg_request-id-exec';
const ADMIN = 'tg_request-id-admin';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectEnvelope(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(Object.keys(body.error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
}

/** Sends raw bytes to a listening server and returns what comes back before it closes. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const done = () => resolve(answer);
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('close', done);
    socket.on('error', done);
    setTimeout(() => socket.destroy(), 3_000).unref();
  });
}

function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('x-request-id on every response (no keys)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { limits: { body_bytes: 1024 } } });
  });
  afterAll(() => t.close());

  it('200s of every public route, including /docs and a 304', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/tools', '/tools/Read', '/circuits', '/approvals']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(400);
      expect(res.headers['x-request-id'], url).toMatch(UUID);
    }
    const etag = String((await t.app.inject({ method: 'GET', url: '/tools' })).headers.etag);
    const notModified = await t.app.inject({ method: 'GET', url: '/tools', headers: { 'if-none-match': etag } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['x-request-id']).toMatch(UUID);
  });

  it('404, 413, 415, 400 and 422 envelope errors', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/no/such/route' }), 404, 'NOT_FOUND');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/executions/abc' }), 404, 'NOT_FOUND');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/outputs/nope' }), 404, 'NOT_FOUND');
    expectEnvelope(
      await t.app.inject({
        method: 'POST',
        url: '/execute',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ tool_calls: [], pad: 'x'.repeat(2048) }),
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectEnvelope(
      await t.app.inject({ method: 'POST', url: '/execute', headers: { 'content-type': 'text/plain' }, payload: '[]' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectEnvelope(
      await t.app.inject({ method: 'POST', url: '/execute', headers: { 'content-type': 'application/json' }, payload: '{' }),
      400,
      'BAD_REQUEST',
    );
    expectEnvelope(
      await t.app.inject({ method: 'POST', url: '/execute', payload: { finish_reason: 'length', tool_calls: [] } }),
      422,
      'INCOMPLETE_TOOL_CALLS',
    );
  });

  it('a URL the router cannot decode: 400 envelope with a request id, before any route or hook', async () => {
    for (const url of ['/%E0%A4%A', '/tools/%E0%A4%A', '/outputs/%ZZ']) {
      expectEnvelope(await t.app.inject({ method: 'GET', url }), 400, 'BAD_REQUEST');
    }
    const mine = await t.app.inject({ method: 'GET', url: '/%E0%A4%A', headers: { 'x-request-id': 'bad-url-1' } });
    expect(mine.headers['x-request-id']).toBe('bad-url-1');
  });

  it("a path parameter over the router limit: an envelope with a request id, not fastify's own body", async () => {
    const res = await t.app.inject({ method: 'GET', url: `/tools/${'a'.repeat(300)}` });
    expectEnvelope(res, 400, 'BAD_REQUEST');
  });

  it('a request the HTTP parser refuses (malformed, headers too large) still gets an envelope with x-request-id', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    // Each status with the code the error table gives it: 431 is HEADERS_TOO_LARGE (a long URL counts too), not BAD_REQUEST.
    const cases: Array<[string, number, string]> = [
      ['GARBAGE\r\n\r\n', 400, 'BAD_REQUEST'],
      ['GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: x\r\n\r\n', 400, 'BAD_REQUEST'],
      [`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
      [`GET /healthz?${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ];
    for (const [request, status, code] of cases) {
      const answer = parseRaw(await raw(port, request));
      expect(answer.status).toBe(status);
      expect(answer.headers['x-request-id']).toMatch(UUID);
      const body = JSON.parse(answer.body);
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error.code).toBe(code);
      expect(ERROR_CODES[code as ErrorCode].status).toBe(status);
    }
  });

  it('503 OVERLOADED is refused in the first hook and still carries the id', async () => {
    const { slowTool } = await import('../../../helpers/tools.js');
    const small = await buildTestApp({ tools: [slowTool('Slow', { safe: true, ms: 200 })], config: { limits: { inflight_requests: 1 } } });
    try {
      const slow = () => small.app.inject({ method: 'POST', url: '/execute', payload: [{ name: 'Slow', arguments: {} }] });
      const [a, b] = await Promise.all([slow(), slow()]);
      const refused = [a, b].find((r) => r.statusCode === 503)!;
      expectEnvelope(refused, 503, 'OVERLOADED');
    } finally {
      await small.close();
    }
  });
});

describe('x-request-id on every response (with keys)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      config: {
        keys: [
          { id: 'exec', sha256: sha256(EXEC), tenant: 't', scopes: ['execute'] },
          { id: 'admin', sha256: sha256(ADMIN), tenant: 't', scopes: ['admin'] },
        ],
        auth: { failures_per_minute: 2 },
      },
    });
  });
  afterAll(() => t.close());

  it('401, 403 and the 429 of the brute-force guard, which also says Retry-After', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/tools', headers: { authorization: `Bearer ${ADMIN}` } }), 403, 'FORBIDDEN');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/tools' }), 401, 'UNAUTHORIZED');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/tools', headers: { authorization: 'Bearer wrong' } }), 401, 'UNAUTHORIZED');
    // The third failure is over failures_per_minute: 2; from then on every attempt from the address is 429.
    expectEnvelope(
      await t.app.inject({ method: 'GET', url: '/tools', headers: { authorization: 'Bearer wrong-again' } }),
      429,
      'RATE_LIMITED',
    );
    const limited = await t.app.inject({ method: 'GET', url: '/tools', headers: { authorization: `Bearer ${EXEC}` } });
    expectEnvelope(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('/docs needs no key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });
});

describe('the metrics port (METRICS_PORT) answers with request ids and envelopes too', () => {
  it('/metrics and a 404 on the metrics app', async () => {
    const t = await buildTestApp();
    const metricsApp = await buildMetricsApp(createMetrics({ processMetrics: false }), t.app.pipeline, pino({ level: 'silent' }));
    try {
      const scrape = await metricsApp.inject({ method: 'GET', url: '/metrics', headers: { 'x-request-id': 'scrape-1' } });
      expect(scrape.statusCode).toBe(200);
      expect(scrape.headers['x-request-id']).toBe('scrape-1');
      expect(scrape.body).toContain('toolgate_');
      expectEnvelope(await metricsApp.inject({ method: 'GET', url: '/tools' }), 404, 'NOT_FOUND');
      expectEnvelope(await metricsApp.inject({ method: 'GET', url: '/%E0%A4%A' }), 400, 'BAD_REQUEST');
    } finally {
      await metricsApp.close();
      await t.close();
    }
  });
});

describe('the request id is in every log line of its request', () => {
  it('tool call lines and the request line of a failing and a succeeding request', async () => {
    const t = await buildTestApp();
    try {
      await execute(t.app, [{ id: 'x', name: 'Nope', arguments: {} }], { 'x-request-id': 'trace-2' });
      const mine = t.logs.filter((l) => l.request_id === 'trace-2').map((l) => l.msg);
      expect(mine).toEqual(expect.arrayContaining(['tool call', 'request completed']));
      expect(
        t.logs.filter((l) => l.msg === 'tool call' || l.msg === 'request completed').every((l) => typeof l.request_id === 'string'),
      ).toBe(true);
    } finally {
      await t.close();
    }
  });
});
