import { randomUUID } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { configFrom } from '../../src/config/load.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis/index.js';
import { buildTestApp, execute, type TestApp } from '../helpers/app.js';
import { OwnRedis, redisServerBinary, waitFor } from '../helpers/redis.js';
import { slowTool } from '../helpers/tools.js';

const STATE = configFrom().state;

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

let server: OwnRedis | undefined;
let store: RedisStateStore | undefined;
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  await store?.close();
  await server?.stop();
  t = store = server = undefined;
});

async function unavailableCount(app: TestApp['app']): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('toolgate_state_unavailable_total '));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

/** POST /execute, timed. */
async function timed(body: unknown, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await execute(t!.app, body, headers);
  return { ...res, ms: performance.now() - started };
}

const logsFrom = (from: number, level: number) => t!.logs.slice(from).filter((l) => l.level === level);
const WARN = 40;
const INFO = 30;

/** A store on a server of the test's own, with the timeouts server.ts sets from the config. */
async function ownStore(clock: ManualClock): Promise<RedisStateStore> {
  server = await OwnRedis.start(redisServerBinary());
  store = createRedisStateStore({
    url: server.url,
    keyPrefix: `faults-${randomUUID()}`,
    clock,
    connectTimeoutMs: STATE.connect_timeout_ms,
    commandTimeoutMs: STATE.command_timeout_ms,
  });
  await store.ping();
  return store;
}

describe('Redis stopped mid-run, then restarted on the same port: calls that need state answer STATE_UNAVAILABLE', () => {
  it.each(['SIGKILL', 'SIGTERM'] as const)(
    '%s: read-only calls run, calls that need state fail fast and write nothing; all recovers without a restart',
    async (signal) => {
      const clock = new ManualClock();
      const store = await ownStore(clock);
      const approvals = { runs: 0 };
      t = await buildTestApp({
        state: store,
        clock,
        tools: [{ ...slowTool('Deploy', { safe: true, ms: 1, counter: approvals }), requiresApproval: true }],
      });
      const session = { 'x-session-id': 'agent-1' };
      const notes = join(t.workspace, 'notes.txt');
      await writeFile(notes, 'alpha\nbeta\n');
      const read = await timed([call('r0', 'Read', { path: 'notes.txt' })], session);
      expect(read.body.results[0].status).toBe('success');
      const before = await stat(notes);

      const logMark = t.logs.length;
      await server!.stop(signal);

      // Read-only calls still run, in a batch and alone.
      const reads = await timed(
        [call('r1', 'Read', { path: 'notes.txt' }), call('l1', 'LS', { path: '.' }), call('g1', 'Grep', { pattern: 'beta' })],
        session,
      );
      expect(reads.body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'success']);
      expect(reads.body.results[2].text).toContain('notes.txt');
      expect(reads.ms).toBeLessThan(1000);
      expect((await timed([call('r2', 'Read', { path: 'notes.txt' })], session)).body.results[0].status).toBe('success');

      // Writes need their lock and their replay record: refused, promptly, and nothing touched.
      const metricBefore = await unavailableCount(t.app);
      const unsafe = [
        call('e1', 'Edit', { path: 'notes.txt', old_string: 'alpha', new_string: 'ALPHA' }),
        // Even with the caller's own lock: without the replay record a retried call id could run twice.
        call('e2', 'Edit', {
          path: 'notes.txt',
          old_string: 'alpha',
          new_string: 'ALPHA',
          expected_mtime_ms: before.mtimeMs,
          expected_size_bytes: before.size,
        }),
        call('w1', 'Write', { path: 'notes.txt', content: 'overwritten' }),
        call('w2', 'Write', { path: 'new.txt', content: 'created' }),
      ];
      for (const c of unsafe) {
        const res = await timed([c], session);
        expect(res.status).toBe(200);
        expect(res.body.results[0].error, c.id).toMatchObject({
          code: 'STATE_UNAVAILABLE',
          retryable: true,
          retry_after_ms: expect.any(Number),
        });
        expect(res.ms, c.id).toBeLessThan(1000);
      }
      // One failed admit per request (none of them executed, so none settled).
      expect(await unavailableCount(t.app)).toBe(metricBefore + unsafe.length);
      expect(await readFile(notes, 'utf8')).toBe('alpha\nbeta\n');
      expect((await stat(notes)).mtimeMs).toBe(before.mtimeMs);
      await expect(stat(join(t.workspace, 'new.txt'))).rejects.toThrow(/ENOENT/);

      // An approval lives in the state store: the ASK tool cannot run.
      const ask = await timed([call('a1', 'Deploy', { env: 'prod' })], session);
      expect(ask.body.results[0].error).toMatchObject({ code: 'STATE_UNAVAILABLE', retryable: true });
      expect(ask.ms).toBeLessThan(1000);
      expect(approvals.runs).toBe(0);

      // An Idempotency-Key cannot be honoured: the whole request is refused.
      const keyed = await timed([call('r3', 'Read', { path: 'notes.txt' })], { ...session, 'idempotency-key': 'k-1' });
      expect(keyed.status).toBe(503);
      expect(keyed.body.error.code).toBe('STATE_UNAVAILABLE');
      expect(keyed.headers['retry-after']).toBeDefined();
      expect(keyed.ms).toBeLessThan(1000);

      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'not_ready', failed: ['state_store'] });
      // The tool list still serves, every breaker read as closed.
      expect((await t.app.inject({ method: 'GET', url: '/tools' })).statusCode).toBe(200);

      const warnings = logsFrom(logMark, WARN);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/state store unreachable/);
      expect(t.logs.slice(logMark).filter((l) => (l.level as number) > WARN)).toEqual([]);
      expect(await unavailableCount(t.app)).toBeGreaterThan(metricBefore + unsafe.length);

      // Back on the same port, empty: the gateway reconnects by itself.
      await server!.start();
      await waitFor('/readyz to answer 200', async () => (await t!.app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200);
      const edit = await timed(
        [call('r4', 'Read', { path: 'notes.txt' }), call('e3', 'Edit', { path: 'notes.txt', old_string: 'alpha', new_string: 'ALPHA' })],
        session,
      );
      expect(edit.body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
      expect(await readFile(notes, 'utf8')).toBe('ALPHA\nbeta\n');
      expect((await timed([call('k2', 'Read', { path: 'notes.txt' })], { ...session, 'idempotency-key': 'k-2' })).status).toBe(200);
      expect(logsFrom(logMark, INFO).filter((l) => /reachable again/.test(String(l.msg)))).toHaveLength(1);
      expect(logsFrom(logMark, WARN)).toHaveLength(1);
    },
  );

  it('a call waiting for the same call id in another request, when Redis stops: STATE_UNAVAILABLE for that call, not a failed request', async () => {
    const clock = new ManualClock();
    const store = await ownStore(clock);
    const counter = { runs: 0 };
    t = await buildTestApp({ state: store, clock, tools: [slowTool('Deploy', { safe: false, ms: 1_500, counter })] });
    const body = [call('d1', 'Deploy', { target: 'prod' })];
    const waiting = vi.spyOn(store, 'awaitResult');

    const first = execute(t.app, body);
    await waitFor('the first request to run the call', async () => counter.runs === 1);
    const second = timed(body);
    await waitFor('the second request to wait for the first one’s result', async () => waiting.mock.calls.length === 1);
    await server!.stop();

    const answer = await second;
    expect(answer.status).toBe(200);
    expect(answer.body.results[0].error).toMatchObject({ code: 'STATE_UNAVAILABLE', retryable: true });
    // The first request's call is still running: the second gave up waiting at once.
    expect(answer.ms).toBeLessThan(1_500);
    expect((await first).body.results[0].status).toBe('success');
    expect(counter.runs).toBe(1);
    expect(t.logs.filter((l) => (l.level as number) > WARN)).toEqual([]);
  });
});
