import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { deliverCallback, type CallbackJob } from '../../../src/queue/callbacks.js';
import { queueMetrics } from '../../../src/queue/metrics.js';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { execute } from '../../helpers/app.js';
import {
  createTestDispatchers,
  expectTripwireQuiet,
  expectWiredThroughTripwire,
  startServer,
  type TestServer,
} from '../http-tools/helpers.js';

const SECRET = 'callback-secret-0123456789abcdef';

let g: AsyncGateway | undefined;
let receiver: TestServer | undefined;
afterEach(async () => {
  await g?.close();
  g = undefined;
  await receiver?.close();
  receiver = undefined;
});
afterEach(expectTripwireQuiet);

/** A receiver that answers the statuses in turn (the last one from then on). */
async function receiverAnswering(...statuses: number[]): Promise<TestServer> {
  let seen = 0;
  return startServer((_req, res) => {
    res.writeHead(statuses[Math.min(seen++, statuses.length - 1)]!);
    res.end();
  });
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const verified = (body: string, header: string | string[] | undefined) => {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
  const given = Buffer.from(String(header));
  return given.length === expected.length && timingSafeEqual(given, expected);
};

const batch = { tool_calls: [{ id: 'c1', name: 'LS', arguments: {} }] };

/** Callbacks: the finished body POSTed, signed, retried with backoff, through the SSRF guard. */
describe('async callbacks', () => {
  it('POSTs the GET /executions/{id} body, signed with HMAC-SHA256 of the raw body, with the execution id and delivery number', async () => {
    receiver = await receiverAnswering(204);
    g = await asyncGateway({
      dispatchers: createTestDispatchers(),
      config: { async: { callback_secret: SECRET, callback_allow_private_network: true } },
    });
    g.startWorkers();
    const { status, body } = await g.submit({ ...batch, callback_url: `${receiver.origin}/hook?x=1` });
    expect(status).toBe(202);
    await until(() => receiver!.requests.length === 1);
    const [delivery] = receiver.requests;
    expect(delivery).toMatchObject({ method: 'POST', url: '/hook?x=1' });
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-toolgate-execution-id']).toBe(body.execution_id);
    expect(delivery!.headers['x-toolgate-delivery']).toBe('1');
    expect(verified(delivery!.body, delivery!.headers['x-toolgate-signature'])).toBe(true);
    expect(verified(`${delivery!.body} `, delivery!.headers['x-toolgate-signature'])).toBe(false);
    expect(JSON.parse(delivery!.body)).toEqual((await g.read(body.execution_id)).body);
    expect((await g.app.inject({ method: 'GET', url: '/metrics' })).body).toContain(
      'toolgate_async_callback_deliveries_total{outcome="delivered"} 1',
    );
  });

  it('a batch that fails as a whole: GET says failed, with no internals, and the callback carries that body', async () => {
    receiver = await receiverAnswering(200);
    g = await asyncGateway({
      dispatchers: createTestDispatchers(),
      config: { async: { callback_secret: SECRET, callback_allow_private_network: true } },
    });
    g.startWorkers();
    // No request can queue a batch the pipeline cannot read; a job written by another version could be one.
    const id = `exec_${'f'.repeat(32)}`;
    const job = {
      calls: null,
      tenant: 'local',
      key_id: 'local',
      scopes: ['execute'],
      tools: null,
      rate_limit_per_minute: null,
      session_id: 's',
      format: 'openai',
      timeout_ms: null,
      callback_url: `${receiver.origin}/hook`,
      submitted_at: 0,
    };
    await g.executions.queue.add('execute', job as never, { jobId: id, attempts: 1 });
    await until(() => receiver!.requests.length === 1);
    const expected = {
      execution_id: id,
      status: 'failed',
      error: { code: 'INTERNAL', message: expect.stringContaining('could not be completed'), retryable: true },
    };
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual(expected);
    expect(verified(receiver.requests[0]!.body, receiver.requests[0]!.headers['x-toolgate-signature'])).toBe(true);
    expect((await g.read(id)).body).toEqual(expected);
    expect(g.logs.find((l) => l.msg === 'execution failed' && l.execution_id === id)).toBeDefined();
  });

  it('retries errors and non-2xx answers with backoff, numbering each delivery, until one is accepted', async () => {
    receiver = await receiverAnswering(500, 302, 200);
    g = await asyncGateway({
      dispatchers: createTestDispatchers(),
      config: { async: { callback_secret: SECRET, callback_allow_private_network: true, callback_backoff_ms: 100 } },
    });
    g.startWorkers();
    await g.submit({ ...batch, callback_url: `${receiver.origin}/hook` });
    await until(() => receiver!.requests.length === 3);
    expect(receiver.requests.map((r) => r.headers['x-toolgate-delivery'])).toEqual(['1', '2', '3']);
    // Each attempt is signed over the same body.
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    for (const r of receiver.requests) expect(verified(r.body, r.headers['x-toolgate-signature'])).toBe(true);
    const metrics = (await g.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('toolgate_async_callback_deliveries_total{outcome="http_error"} 2');
    expect(metrics).toContain('toolgate_async_callback_deliveries_total{outcome="delivered"} 1');
  });

  it('a receiver that drops the connection is retried too, counted as a network error', async () => {
    let drops = 1;
    receiver = await startServer((req, res) => {
      if (drops-- > 0) req.socket.destroy();
      else res.writeHead(200).end();
    });
    g = await asyncGateway({
      dispatchers: createTestDispatchers(),
      config: { async: { callback_secret: SECRET, callback_allow_private_network: true, callback_backoff_ms: 50 } },
    });
    g.startWorkers();
    await g.submit({ ...batch, callback_url: `${receiver.origin}/hook` });
    await until(() => receiver!.requests.length === 2);
    await until(() => g!.logs.some((l) => l.msg === 'callback delivered'));
    const metrics = (await g.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('toolgate_async_callback_deliveries_total{outcome="network_error"} 1');
    expect(metrics).toContain('toolgate_async_callback_deliveries_total{outcome="delivered"} 1');
  });

  it('gives up after async.callback_retries retries', async () => {
    receiver = await receiverAnswering(503);
    g = await asyncGateway({
      dispatchers: createTestDispatchers(),
      config: { async: { callback_secret: SECRET, callback_allow_private_network: true, callback_backoff_ms: 50, callback_retries: 2 } },
    });
    g.startWorkers();
    const { body } = await g.submit({ ...batch, callback_url: `${receiver.origin}/hook` });
    await until(() => g!.logs.some((l) => l.msg === 'callback abandoned' && l.execution_id === body.execution_id));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.map((r) => r.headers['x-toolgate-delivery'])).toEqual(['1', '2', '3']);
  });

  it.each([
    ['127.0.0.1', 'http://127.0.0.1:9/hook'],
    ['::1', 'http://[::1]:9/hook'],
    ['localhost', 'http://localhost:9/hook'],
    ['10.x', 'http://10.0.0.1/hook'],
    ['cloud metadata', 'http://169.254.169.254/latest'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:9/hook'],
    ['decimal loopback', 'http://2130706433:9/hook'],
  ])('a callback_url to %s without callback_allow_private_network: 400, nothing queued', async (_name, url) => {
    g = await asyncGateway({ dispatchers: createTestDispatchers(), config: { async: { callback_secret: SECRET } } });
    g.startWorkers();
    const response = await execute(g.app, { ...batch, mode: 'async', callback_url: url });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/not a public address.*callback_allow_private_network/);
    expect(await g.executions.queue.count()).toBe(0);
  });
});

/** The guard at delivery time: a target that reaches a private address when connecting is refused there, and not retried. */
describe('callback delivery through the SSRF guard', () => {
  const dispatchers = createTestDispatchers();
  let target: TestServer;
  beforeAll(async () => {
    target = await receiverAnswering(200);
    await expectWiredThroughTripwire(dispatchers, target.port);
    target.requests.length = 0;
  });
  afterAll(async () => {
    await target.close();
    await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
  });

  it('refuses a loopback target without the allowance, sends nothing, and counts it as refused', async () => {
    const registry = new Registry();
    const metrics = queueMetrics(registry);
    const config = configFrom({ async: { callback_secret: SECRET } }).async;
    const job = {
      data: { execution_id: 'exec_x', url: `http://127.0.0.1:${target.port}/hook`, body: '{}' },
      attemptsMade: 0,
    } as Job<CallbackJob>;
    const logger = pino({ level: 'silent' });
    await expect(deliverCallback(job, { config, dispatchers, metrics, logger })).rejects.toBeInstanceOf(UnrecoverableError);
    expect(target.requests).toHaveLength(0);
    expect(await registry.metrics()).toContain('toolgate_async_callback_deliveries_total{outcome="refused"} 1');
  });
});
