import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/** Envelope errors share one shape; hostile bodies never take the server down. */
describe('envelope errors and hostile bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { limits: { body_bytes: 64 * 1024 } } });
  });
  afterAll(() => t.close());

  const post = (payload: string | Buffer, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/execute', payload, headers: { 'content-type': contentType } });

  async function stillServes(): Promise<void> {
    const res = await execute(t.app, [{ id: 'ok', name: 'LS', arguments: { path: '.' } }]);
    expect(res.status).toBe(200);
    expect(res.body.results[0].status).toBe('success');
  }

  function expectEnvelope(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string) {
    expect(res.statusCode).toBe(status);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  }

  it('non-JSON body: 400 BAD_REQUEST', async () => {
    expectEnvelope(await post('{"tool_calls": ['), 400, 'BAD_REQUEST');
    await stillServes();
  });

  it('malformed JSON: the message gives the line, column and character where it breaks', async () => {
    const res = await post('{\n  "tool_calls": [1,,]\n}');
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.json().error.message).toBe('The request body is not valid JSON: unexpected "," at line 2, column 20 (character 21).');
    expect(res.json().error.details).toMatchObject({ line: 2, column: 20, offset: 21 });
    const cut = await post('{"tool_calls": [');
    expect(cut.json().error.message).toMatch(/it ends early at line 1, column 17 \(character 16\)/);
    // The position is found without recursion: a body nested as deep as the limit allows is no stack overflow.
    const deep = await post(`${'['.repeat(60_000)}}`);
    expect(deep.json().error.details).toMatchObject({ line: 1, offset: 60_000 });
  });

  it('a media type other than JSON: 415', async () => {
    expectEnvelope(await post('hello', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over the limit: 413 and nothing runs', async () => {
    const big = JSON.stringify([{ id: 'w', name: 'Write', arguments: { path: 'big.txt', content: 'x'.repeat(70 * 1024) } }]);
    const res = await post(big);
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.json().error.message).toContain(`over the limit of ${64 * 1024} bytes (limits.body_bytes)`);
    const ls = await execute(t.app, [{ id: 'l', name: 'LS', arguments: { path: '.' } }]);
    expect(ls.body.results[0].text).not.toContain('big.txt');
  });

  it('10,000-deep nesting: a clean answer, then the server still serves', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const res = await post(deep);
    expect([200, 400]).toContain(res.statusCode);
    const nested = '{"a":' + '['.repeat(5_000) + ']'.repeat(5_000) + '}';
    for (const args of [nested, JSON.stringify(nested)]) {
      const res2 = await post(`[{"id":"d","name":"LS","arguments":${args}}]`);
      expect(res2.statusCode).toBe(200);
      expect(res2.json().results[0].error.code).toBe('INVALID_ARGS');
    }
    await stillServes();
  });

  it('__proto__ keys are refused with a message that says so, and no prototype is polluted', async () => {
    const res = await post('{"tool_calls":[{"id":"p","name":"LS","arguments":{"path":".","__proto__":{"polluted":true}}}]}');
    expectEnvelope(res, 400, 'BAD_REQUEST');
    expect(res.json().error.message).toBe(
      'The body has a forbidden "__proto__" key at /tool_calls/0/arguments: such keys are refused, as they could change object prototypes.',
    );
    for (const body of ['{"\\u005f_proto__": {}, "tool_calls": []}', '[{"constructor": {"prototype": {"x": 1}}}]']) {
      expect((await post(body)).json().error.message).toMatch(/^The body has a forbidden "(__proto__|constructor)" key at \/[0-9]*:/);
    }
    expect((await post('[{"id":"c","name":"LS","arguments":{"path":".","constructor":"fine"}}]')).statusCode).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const inString = await post(JSON.stringify([{ id: 'p', name: 'LS', arguments: '{"path":".","__proto__":{"polluted":true}}' }]));
    expect([200]).toContain(inString.statusCode);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await stillServes();
  });

  it('envelopes of the wrong shape: 400 with a message that says what is wrong', async () => {
    for (const body of [
      '"just a string"',
      '42',
      'null',
      '{"tool_calls": "nope"}',
      '[{"id": "x"}]',
      '[{"name": 5}]',
      '{"tool_calls": [], "timeout_ms": -1}',
    ]) {
      expectEnvelope(await post(body), 400, 'BAD_REQUEST');
    }
    await stillServes();
  });

  it('random garbage never crashes the server', async () => {
    for (let i = 0; i < 50; i++) {
      const res = await post(randomBytes(1 + ((i * 37) % 2000)));
      expect(res.statusCode).toBeGreaterThanOrEqual(200);
      expect(res.statusCode).toBeLessThan(500);
    }
    await stillServes();
  });

  it('unknown routes: 404 in the same shape', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/nope' }), 404, 'NOT_FOUND');
  });

  it('every response carries x-request-id; a sane incoming one is kept', async () => {
    const mine = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-abc.123' } });
    expect(mine.headers['x-request-id']).toBe('req-abc.123');
    const hostile = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a b\tc' + 'x'.repeat(300) } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('every log line of a request carries its request id', async () => {
    t.logs.length = 0;
    await execute(t.app, [{ id: 'l1', name: 'LS', arguments: { path: '.' } }], { 'x-request-id': 'trace-me' });
    const lines = t.logs.filter((l) => l.request_id === 'trace-me');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(t.logs.filter((l) => l.msg === 'tool call' && l.request_id !== 'trace-me')).toEqual([]);
  });
});

describe('request bounds', () => {
  it('past limits.inflight_requests a request gets 503 OVERLOADED with Retry-After, and the next one is served', async () => {
    const { slowTool } = await import('../../helpers/tools.js');
    const t = await buildTestApp({ tools: [slowTool('Slow', { safe: true, ms: 300 })], config: { limits: { inflight_requests: 2 } } });
    try {
      const slow = () => t.app.inject({ method: 'POST', url: '/execute', payload: [{ name: 'Slow', arguments: {} }] });
      const responses = await Promise.all([slow(), slow(), slow()]);
      const statuses = responses.map((r) => r.statusCode).sort();
      expect(statuses).toEqual([200, 200, 503]);
      const refused = responses.find((r) => r.statusCode === 503)!;
      expect(refused.json().error.code).toBe('OVERLOADED');
      expect(refused.headers['retry-after']).toBe('1');
      expect((await slow()).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('Idempotency-Key with a hostile body', () => {
  it('10,000-deep arguments (what the key fingerprints) are a 400, not a crash', async () => {
    const t = await buildTestApp();
    try {
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      for (const args of [deep, JSON.stringify(deep)]) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/execute',
          payload: `{"tool_calls":[{"id":"d","name":"LS","arguments":${args}}]}`,
          headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('BAD_REQUEST');
      }
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
