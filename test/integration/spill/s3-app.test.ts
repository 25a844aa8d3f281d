import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Agent, request } from 'undici';
import { SPILL_ERROR } from '../../../src/pipeline/budget.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createS3SpillStore, type S3SpillStore } from '../../../src/spill/s3.js';
import { createRedisStateStore } from '../../../src/state/redis/index.js';
import { configFrom } from '../../../src/config/load.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { FaultyProxy, s3StoreOptions } from '../../helpers/s3.js';
import { bigOutputTool, slowTool } from '../../helpers/tools.js';

// The streaming test measures live memory, so it needs to force collections; this fork is its own process.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const CHUNKS = Array.from({ length: 26 }, (_, i) => Buffer.alloc(CHUNK, String.fromCharCode(97 + i)));
const KEYS = { acme: 'tg_acme-exec', globex: 'tg_globex-exec' };
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

function expectedSha(total: number): string {
  const hash = createHash('sha256');
  for (let i = 0; i * CHUNK < total; i++) hash.update(CHUNKS[i % 26]!.subarray(0, Math.min(CHUNK, total - i * CHUNK)));
  return hash.digest('hex');
}

/** An upstream that streams `?bytes=N` from 26 shared chunks, so it allocates nothing per request. */
let upstream: Server;
let origin: string;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    const total = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('bytes'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    let i = 0;
    const pump = () => {
      while (i * CHUNK < total) {
        const chunk = CHUNKS[i % 26]!.subarray(0, Math.min(CHUNK, total - i * CHUNK));
        i++;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

function appConfig() {
  return {
    keys: Object.entries(KEYS).map(([tenant, key]) => ({ id: tenant, sha256: sha256(key), tenant, scopes: ['execute'] })),
    tools: [
      {
        name: 'blob',
        description: 'A long body.',
        parameters: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
        http: { method: 'GET', url: `${origin}/blob?bytes={bytes}`, allow_private_network: true, max_response_bytes: MiB },
        concurrency_safe: true,
      },
    ],
  };
}

async function s3App(store: S3SpillStore, clock: ManualClock, more: Parameters<typeof buildTestApp>[0] = {}): Promise<TestApp> {
  return buildTestApp({ spill: store, clock, config: appConfig(), tools: [bigOutputTool('Big')], ...more });
}

describe('an S3 spill store behind the app', () => {
  // 32 MiB through a real S3 server: about 8 s alone on two cores, several times that when they are busy.
  it('a 32 MiB HTTP body streams to S3 as multipart and back out with bounded memory, Range and sha256 intact', async () => {
    const clock = new ManualClock();
    // The real client and server; the dispatcher only notes the size of each request body the store sends.
    const sent: Array<{ method: string; query: string; bytes: number }> = [];
    const dispatcher = new Agent().compose((dispatch) => (opts, handler) => {
      const body = opts.body;
      const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? Buffer.byteLength(body) : 0;
      sent.push({ method: opts.method, query: String(opts.path).split('?')[1] ?? '', bytes });
      return dispatch(opts, handler);
    });
    const store = createS3SpillStore({ ...s3StoreOptions(inject('s3Endpoint')), ttlMs: 86_400_000, clock, dispatcher });
    // The store's own memory is measured here; the guardrails' streaming redactor holds a bounded round of its own
    // (pinned in test/unit/guardrails/stream.test.ts), so it is off for this output.
    const t = await s3App(store, clock, { config: { ...appConfig(), guardrails: { secrets: 'off' } } });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const total = 32 * MiB;
      // Warm up every path once, so the peak below measures the big output only.
      await execute(t.app, [{ id: 'warm', name: 'blob', arguments: { bytes: 2 * MiB } }], auth(KEYS.acme));
      // Live memory, not allocation: collect before each sample, so chunks already sent (garbage the next
      // collection frees) do not count. Holding the output whole would keep 32 MiB live.
      gc();
      sent.length = 0;
      const baseline = process.memoryUsage();
      let peak = 0;
      let rssPeak = 0;
      const sampler = setInterval(() => {
        gc();
        const now = process.memoryUsage();
        peak = Math.max(peak, now.heapUsed - baseline.heapUsed + (now.arrayBuffers - baseline.arrayBuffers));
        rssPeak = Math.max(rssPeak, now.rss - baseline.rss);
      }, 5);
      let served: Buffer | undefined;
      let truncated: Record<string, unknown>;
      try {
        const { body } = await execute(t.app, [{ id: 'big', name: 'blob', arguments: { bytes: total } }], auth(KEYS.acme));
        truncated = body.results[0].truncated;
        expect(body.results[0].status).toBe('partial');
        expect(truncated).toMatchObject({ original_bytes: total, sha256: expectedSha(total), url: expect.stringMatching(/^\/outputs\//) });
        expect(truncated.uri).toMatch(new RegExp(`^s3://toolgate-test/t-[0-9a-f]+/acme/`));
        const response = await request(`${address}${String(truncated.url)}`, { headers: auth(KEYS.acme) });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-length']).toBe(String(total));
        const hash = createHash('sha256');
        for await (const chunk of response.body) hash.update(chunk as Buffer);
        expect(hash.digest('hex')).toBe(expectedSha(total));
        const range = await request(`${address}${String(truncated.url)}`, {
          headers: { ...auth(KEYS.acme), range: `bytes=${10 * MiB - 2}-${10 * MiB + 1}` },
        });
        expect(range.statusCode).toBe(206);
        expect(range.headers['content-range']).toBe(`bytes ${10 * MiB - 2}-${10 * MiB + 1}/${total}`);
        served = Buffer.from(await range.body.arrayBuffer());
      } finally {
        clearInterval(sampler);
      }
      // Bytes 10 MiB - 2 … 10 MiB + 1 straddle chunks 159 and 160 of the upstream's 64 KiB chunks.
      expect(served.toString()).toBe(`${String.fromCharCode(97 + (159 % 26)).repeat(2)}${String.fromCharCode(97 + (160 % 26)).repeat(2)}`);
      // Two 5 MiB part buffers, the 1 MiB head and its text, chunks in flight and bodies the HTTP client has not yet let
      // go: 10-14 MiB measured, 17 MiB once on busy cores, whatever the output's size. Held whole it would be 32 MiB.
      expect(peak).toBeLessThan(24 * MiB);
      // Multipart: six parts of 5 MiB and the 2 MiB rest, no request carrying the whole output.
      const parts = sent.filter((r) => r.method === 'PUT' && r.query.includes('partNumber='));
      expect(parts.map((p) => p.bytes)).toEqual([...Array<number>(6).fill(5 * MiB), 2 * MiB]);
      expect(Math.max(...sent.map((r) => r.bytes))).toBeLessThanOrEqual(5 * MiB);
      expect(rssPeak).toBeLessThan(total);
      const other = await request(`${address}${String(truncated.url)}`, { headers: auth(KEYS.globex) });
      expect(other.statusCode).toBe(404);
      await other.body.dump();
    } finally {
      await t.close();
    }
  }, 90_000);

  it("serves only the key's own tenant: another tenant's id is 404, as a missing one", async () => {
    const clock = new ManualClock();
    const t = await s3App(createS3SpillStore({ ...s3StoreOptions(inject('s3Endpoint')), ttlMs: 86_400_000, clock }), clock);
    try {
      const { body } = await execute(t.app, [{ id: 'b', name: 'Big', arguments: { size: 60_000 } }], auth(KEYS.acme));
      const url = body.results[0].truncated.url as string;
      expect((await t.app.inject({ method: 'GET', url, headers: auth(KEYS.acme) })).body).toBe('x'.repeat(60_000));
      const theirs = await t.app.inject({ method: 'GET', url, headers: auth(KEYS.globex) });
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json().error.code).toBe('NOT_FOUND');
      const part = await t.app.inject({ method: 'GET', url, headers: { ...auth(KEYS.acme), range: 'bytes=0-0' } });
      expect([part.statusCode, part.body, part.headers['content-range']]).toEqual([206, 'x', 'bytes 0-0/60000']);
      clock.advance(86_400_000);
      expect((await t.app.inject({ method: 'GET', url, headers: auth(KEYS.acme) })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });

  it("two replicas on one Redis and one bucket serve each other's outputs, replayed results included", async () => {
    const clock = new ManualClock();
    const spillOptions = { ...s3StoreOptions(inject('s3Endpoint')), ttlMs: 86_400_000, clock };
    const state = configFrom().state;
    const redis = {
      url: inject('redisUrl'),
      keyPrefix: `s3-replicas-${randomUUID()}`,
      clock,
      connectTimeoutMs: state.connect_timeout_ms,
      commandTimeoutMs: state.command_timeout_ms,
    };
    const states = [createRedisStateStore(redis), createRedisStateStore(redis)];
    await Promise.all(states.map((s) => s.ping()));
    const write = { ...slowTool('BigWrite', { safe: false, ms: 1 }), run: async () => ({ text: 'w'.repeat(70_000) }) };
    const [a, b] = await Promise.all(
      states.map((s) => s3App(createS3SpillStore(spillOptions), clock, { state: s, tools: [bigOutputTool('Big'), write] })),
    );
    try {
      const first = await execute(
        a!.app,
        [
          { id: 'b', name: 'Big', arguments: { size: 60_000 } },
          { id: 'w1', name: 'BigWrite', arguments: {} },
        ],
        auth(KEYS.acme),
      );
      const [big, written] = first.body.results as Array<{ truncated: { url: string } }>;
      expect((await b!.app.inject({ method: 'GET', url: big!.truncated.url, headers: auth(KEYS.acme) })).body).toBe('x'.repeat(60_000));
      const replay = await execute(b!.app, [{ id: 'w1', name: 'BigWrite', arguments: {} }], auth(KEYS.acme));
      expect(replay.body.results[0]).toMatchObject({ replayed: true, truncated: { url: written!.truncated.url } });
      expect((await b!.app.inject({ method: 'GET', url: written!.truncated.url, headers: auth(KEYS.acme) })).body).toBe('w'.repeat(70_000));
      const fromB = await execute(b!.app, [{ id: 'b2', name: 'Big', arguments: { size: 55_000 } }], auth(KEYS.acme));
      expect((await a!.app.inject({ method: 'GET', url: fromB.body.results[0].truncated.url, headers: auth(KEYS.acme) })).body).toBe(
        'x'.repeat(55_000),
      );
    } finally {
      await Promise.all([a!.close(), b!.close()]);
      await Promise.all(states.map((s) => s.close()));
    }
  });
});

describe('an S3 store that fails (the budget still holds)', () => {
  let proxy: FaultyProxy;
  let t: TestApp;
  const clock = new ManualClock();
  beforeAll(async () => {
    proxy = await FaultyProxy.start(Number(new URL(inject('s3Endpoint')).port));
    const store = createS3SpillStore({ ...s3StoreOptions(proxy.endpoint), timeoutMs: 400, ttlMs: 86_400_000, clock });
    t = await s3App(store, clock);
  });
  afterAll(async () => {
    await t.close();
    await proxy.stop();
  });

  const failures = async () => (await t.app.metrics.spillFailures.get()).values[0]?.value ?? 0;
  const warnings = () => t.logs.filter((l) => String(l.msg).startsWith('spill store failing')).length;

  it.each([
    ['unreachable', () => proxy.stop()],
    ['slow (no answer within spill.timeout_ms)', async () => proxy.set('hang')],
    ['answering 503', async () => proxy.set('fail')],
  ] as const)(
    '%s: the call answers in time, cut, with url null and spill_error; /readyz names the store; recovery needs no restart',
    async (_, fail) => {
      const before = { failures: await failures(), warnings: warnings() };
      await fail();
      try {
        const started = Date.now();
        const { body } = await execute(
          t.app,
          [
            { id: 'b', name: 'Big', arguments: { size: 60_000 } },
            { id: 'h', name: 'blob', arguments: { bytes: 8 * MiB } },
          ],
          auth(KEYS.acme),
        );
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(body.results[0].truncated).toEqual({
          original_bytes: 60_000,
          uri: null,
          url: null,
          sha256: sha256('x'.repeat(60_000)),
          spill_error: SPILL_ERROR,
        });
        // The HTTP tool's stream was counted to its end although the store gave up on it.
        expect(body.results[1]).toMatchObject({
          status: 'partial',
          truncated: { original_bytes: 8 * MiB, sha256: expectedSha(8 * MiB), url: null, spill_error: SPILL_ERROR },
        });
        for (const message of body.messages) expect(Buffer.byteLength(message.content)).toBeLessThanOrEqual(51_200);
        await execute(t.app, [{ id: 'b2', name: 'Big', arguments: { size: 60_000 } }], auth(KEYS.acme));
        expect(await failures()).toBe(before.failures + 3);
        expect(warnings()).toBe(before.warnings + 1);
        const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
        expect([ready.statusCode, ready.json().failed]).toEqual([503, ['spill_store']]);
        expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      } finally {
        if (proxy.mode !== 'pass') proxy.set('pass');
        else await proxy.start();
      }
      const { body } = await execute(t.app, [{ id: 'b3', name: 'Big', arguments: { size: 60_000 } }], auth(KEYS.acme));
      expect(body.results[0].truncated.url).toMatch(/^\/outputs\//);
      expect((await t.app.inject({ method: 'GET', url: body.results[0].truncated.url, headers: auth(KEYS.acme) })).body).toBe(
        'x'.repeat(60_000),
      );
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      expect(t.logs.filter((l) => l.msg === 'spill store answering again').length).toBeGreaterThan(0);
    },
  );
});
