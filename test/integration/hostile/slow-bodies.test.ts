import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { configFrom } from '../../../src/config/load.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { createRegistry, registryDefaults } from '../../../src/registry/registry.js';
import { createFsSpillStore } from '../../../src/spill/fs.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createMemoryStateStore } from '../../../src/state/memory/index.js';
import { createHttpDispatchers } from '../../../src/tools/http/index.js';
import { loadTools } from '../../../src/tools/index.js';
import { slowTool } from '../../helpers/tools.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

/**
 * Hostile-input sweep on a listening server: bodies that never finish
 * arriving. fastify's default is no request timeout, and the in-flight cap
 * (limits.inflight_requests) counts a request from its headers on. So a
 * client that sent headers and part of a body held its slot for ever;
 * `inflight_requests` such connections — to a route that does not even
 * exist, so without any key — made every request, /healthz included, a 503
 * OVERLOADED until they closed.
 */
interface Server {
  app: FastifyInstance;
  port: number;
  close(): Promise<void>;
}

async function listen(options: { inflight: number; requestTimeoutMs?: number; keys?: boolean }): Promise<Server> {
  const workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
  const spillDir = await mkdtemp(join(tmpdir(), 'toolgate-spill-'));
  const clock = new ManualClock();
  const config = configFrom({
    workspace,
    limits: { inflight_requests: options.inflight },
    ...(options.keys ? { keys: [{ id: 'k', sha256: '0'.repeat(64), tenant: 't', scopes: ['execute'] }] } : {}),
  });
  const state = createMemoryStateStore({ clock });
  const dispatchers = createHttpDispatchers();
  const tools = [
    ...loadTools(config, { workspace, credentials: createEnvCredentials({}), dispatchers }),
    slowTool('Slow', { safe: true, ms: 2_500, timeoutMs: 10_000 }),
  ];
  const registry = createRegistry(tools, registryDefaults(config));
  const app = await buildApp(
    {
      state,
      spill: createFsSpillStore({ dir: spillDir, ttlMs: config.spill.ttl_ms, clock }),
      registry,
      clock,
      logger: pino({ level: 'silent' }),
      metrics: createMetrics({ processMetrics: false }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    },
    config,
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    port,
    async close() {
      await app.close();
      await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
      await state.close();
      await rm(workspace, { recursive: true, force: true });
      await rm(spillDir, { recursive: true, force: true });
    },
  };
}

/** Sends headers announcing `length` bytes and only the first byte of the body; collects what comes back. */
function stall(port: number, requestLine: string, length = 100): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += String(d)));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(`${requestLine} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n[`);
  return { socket, received: () => data, closed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('slow and unfinished bodies cannot hold the gateway', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await server?.close();
    server = undefined;
  });

  it('unfinished bodies to an unknown route are answered 404 at once and take no in-flight slot (no key needed)', async () => {
    server = await listen({ inflight: 3, keys: true });
    const stalled = [0, 1, 2, 3].map(() => stall(server!.port, 'POST /no-such-route'));
    sockets.push(...stalled.map((s) => s.socket));
    await sleep(300);
    for (const s of stalled) {
      expect(s.received()).toMatch(/^HTTP\/1\.1 404 /);
      expect(s.received()).toContain('"code":"NOT_FOUND"');
    }
    const health = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(health.status).toBe(200);
  });

  it('a body that stops arriving is cut after the request timeout and its slot is freed', async () => {
    server = await listen({ inflight: 2, requestTimeoutMs: 1_000 });
    const stalled = [0, 1].map(() => stall(server!.port, 'POST /execute'));
    sockets.push(...stalled.map((s) => s.socket));
    await sleep(200);
    const refused = await fetch(`http://127.0.0.1:${server.port}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[]',
    });
    expect(refused.status).toBe(503);
    // Bounded: the stalled connections must be closed well within 5 s.
    const cut = await Promise.race([Promise.all(stalled.map((s) => s.closed)).then(() => true), sleep(5_000).then(() => false)]);
    expect(cut).toBe(true);
    for (const s of stalled) {
      expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(s.received()).toContain('"error":{"code":"REQUEST_TIMEOUT"');
    }
    const served = await fetch(`http://127.0.0.1:${server.port}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[]',
    });
    expect(served.status).toBe(200);
  });

  it('only the arrival of the request is timed: a call that runs longer than the timeout is answered', async () => {
    server = await listen({ inflight: 2, requestTimeoutMs: 1_000 });
    const res = await fetch(`http://127.0.0.1:${server.port}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ id: 's1', name: 'Slow', arguments: {} }]),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: Array<{ status: string }> }).results[0]!.status).toBe('success');
  });

  it('the request timeout is on by default', async () => {
    server = await listen({ inflight: 2 });
    expect(server.app.server.requestTimeout).toBeGreaterThan(0);
    expect(server.app.server.requestTimeout).toBeLessThanOrEqual(60_000);
  });

  it('/healthz answers 200 while the in-flight cap is reached', async () => {
    server = await listen({ inflight: 2, requestTimeoutMs: 10_000 });
    const stalled = [0, 1].map(() => stall(server!.port, 'POST /execute'));
    sockets.push(...stalled.map((s) => s.socket));
    await sleep(200);
    expect((await fetch(`http://127.0.0.1:${server.port}/tools`)).status).toBe(503);
    const health = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });
});
