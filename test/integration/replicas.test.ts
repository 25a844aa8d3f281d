import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { configFrom } from '../../src/config/load.js';
import { GatewayError } from '../../src/protocol/errors.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createRedisStateStore } from '../../src/state/redis/index.js';
import type { Tool } from '../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../helpers/app.js';
import { faultyTool, slowTool } from '../helpers/tools.js';

const url = inject('redisUrl');

const STATE = configFrom().state;
/** The default breaker: 3 consecutive failures open it for 300 s. */
const RECOVERY_MS = 300_000;

/** Two gateways as two replicas are deployed: one Redis prefix, one workspace, one clock. */
interface Replicas {
  a: TestApp;
  b: TestApp;
  clock: ManualClock;
  workspace: string;
  close(): Promise<void>;
}

async function replicas(tools: Tool[]): Promise<Replicas> {
  const keyPrefix = `replicas-${randomUUID()}`;
  const clock = new ManualClock();
  const workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
  // Timeouts as server.ts sets them from the config; the store reads the app's clock, as both read the system clock in production.
  const options = { url, keyPrefix, clock, connectTimeoutMs: STATE.connect_timeout_ms, commandTimeoutMs: STATE.command_timeout_ms };
  const stores = [createRedisStateStore(options), createRedisStateStore(options)];
  // As a rollout waits for /readyz: on a loaded machine the first connection can take longer than a request may wait for it.
  await Promise.all(stores.map((s) => s.ping()));
  const [a, b] = (await Promise.all(stores.map((state) => buildTestApp({ state, clock, workspace, tools })))) as [TestApp, TestApp];
  return {
    a,
    b,
    clock,
    workspace,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await Promise.all(stores.map((s) => s.close()));
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

let r: Replicas | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

async function toolNames(app: FastifyInstance): Promise<string[]> {
  const res = await app.inject({ method: 'GET', url: '/tools' });
  return (res.json().tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
}

/** Upper bound on a held call, so a test that lets too many through fails on its counts instead of hanging. */
const HOLD_MAX_MS = 3_000;

/**
 * A tool that counts its runs and holds each one until the test releases it,
 * so the test decides what is in flight when; `{"fail": true}` fails at once,
 * which the breaker counts. Each run answers with a token of its own.
 */
function heldTool(name: string, safe: boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const firstRun = new Promise<void>((resolve) => (started = resolve));
  const held = {
    runs: 0,
    firstRun,
    release: () => release(),
    tool: {
      name,
      description: `Test tool ${name} that holds until released.`,
      parameters: { type: 'object', properties: {}, additionalProperties: true },
      concurrencySafe: safe,
      async run(args) {
        if (args.fail === true) throw new GatewayError('EXECUTION_FAILED', { message: 'asked to fail' });
        held.runs += 1;
        started();
        const timer = new AbortController();
        await Promise.race([released, sleep(HOLD_MAX_MS, undefined, { signal: timer.signal }).catch(() => undefined)]);
        timer.abort();
        return { text: `${name} ran`, data: { token: randomUUID() } };
      },
    } satisfies Tool,
  };
  return held;
}

describe('two gateways on one Redis share their state', () => {
  it('a breaker opened through A is absent from B’s GET /tools, and B answers CIRCUIT_OPEN without running the tool', async () => {
    const counter = { runs: 0 };
    r = await replicas([faultyTool('Flaky', { counter })]);
    expect(await toolNames(r.b.app)).toContain('Flaky');

    for (const id of ['f1', 'f2', 'f3']) {
      const { body } = await execute(r.a.app, [call(id, 'Flaky', { mode: 'fail' })]);
      expect(body.results[0].error.code).toBe('EXECUTION_FAILED');
    }

    const names = await toolNames(r.b.app);
    expect(names).not.toContain('Flaky');
    expect(names).toContain('Read');
    const { body } = await execute(r.b.app, [call('f4', 'Flaky', { mode: 'ok' })]);
    expect(body.results[0].error).toMatchObject({ code: 'CIRCUIT_OPEN', retryable: true });
    expect(body.results[0].error.retry_after_ms).toBeGreaterThan(0);
    expect(counter.runs).toBe(3);

    // Half open: listed again on both, as docs/api.md says.
    r.clock.advance(RECOVERY_MS);
    expect(await toolNames(r.b.app)).toContain('Flaky');
    expect(await toolNames(r.a.app)).toContain('Flaky');
  });

  it('Read via A, the file changes, Edit via B in the same session: CONFLICT and the file untouched', async () => {
    r = await replicas([]);
    const file = join(r.workspace, 'notes.txt');
    const session = { 'x-session-id': 'agent-1' };
    await writeFile(file, 'hello world\n');

    const read = await execute(r.a.app, [call('r1', 'Read', { path: 'notes.txt' })], session);
    expect(read.body.results[0].status).toBe('success');
    await writeFile(file, 'hello world, changed by someone else\n');

    const edit = await execute(r.b.app, [call('e1', 'Edit', { path: 'notes.txt', old_string: 'hello', new_string: 'bye' })], session);
    expect(edit.body.results[0].error).toMatchObject({ code: 'CONFLICT', retryable: false });
    expect(await readFile(file, 'utf8')).toBe('hello world, changed by someone else\n');

    // The lock B injected was A's Read: after a fresh Read through A, B's Edit goes through.
    await execute(r.a.app, [call('r2', 'Read', { path: 'notes.txt' })], session);
    const retried = await execute(r.b.app, [call('e2', 'Edit', { path: 'notes.txt', old_string: 'hello', new_string: 'bye' })], session);
    expect(retried.body.results[0].status).toBe('success');
    expect(await readFile(file, 'utf8')).toBe('bye world, changed by someone else\n');
  });

  it('a Write call id sent to A then to B runs once: B replays A’s result', async () => {
    r = await replicas([]);
    const file = join(r.workspace, 'out.txt');
    const write = [call('w1', 'Write', { path: 'out.txt', content: 'written through A' })];

    const first = (await execute(r.a.app, write)).body.results[0];
    expect(first).toMatchObject({ status: 'success', replayed: false });
    // Had B run the Write again, it would overwrite this.
    await writeFile(file, 'changed after the write');

    const second = (await execute(r.b.app, write)).body.results[0];
    expect(second).toEqual({ ...first, replayed: true });
    expect(await readFile(file, 'utf8')).toBe('changed after the write');
  });

  it('50 concurrent calls to a half-open tool over both gateways: exactly one probe runs', async () => {
    const probe = heldTool('Probe', true);
    r = await replicas([probe.tool]);
    for (const [id, app] of [
      ['x1', r.a.app],
      ['x2', r.b.app],
      ['x3', r.a.app],
    ] as const) {
      expect((await execute(app, [call(id, 'Probe', { fail: true })])).body.results[0].error.code).toBe('EXECUTION_FAILED');
    }
    r.clock.advance(RECOVERY_MS);

    let answered = 0;
    const { a, b } = r;
    const requests = Array.from({ length: 50 }, (_, i) =>
      execute(i % 2 ? a.app : b.app, [call(`p${i}`, 'Probe')]).then((res) => {
        // The probe holds until every other call has been turned away, so none of them can arrive after it closed the breaker.
        if (++answered === 49) probe.release();
        return res.body.results[0];
      }),
    );
    const results = await Promise.all(requests);

    expect(probe.runs).toBe(1);
    expect(results.filter((x) => x.status === 'success')).toHaveLength(1);
    const refused = results.filter((x) => x.error?.code === 'CIRCUIT_OPEN');
    expect(refused).toHaveLength(49);
    for (const x of refused) expect(x.error).toMatchObject({ retryable: true, retry_after_ms: expect.any(Number) });

    // The probe succeeded: closed for both.
    expect((await execute(a.app, [call('after', 'Probe')])).body.results[0].status).toBe('success');
    expect(probe.runs).toBe(2);
  });

  it('a side-effecting call in flight on A: the same call id at B waits for A’s result and it runs once', async () => {
    const deploy = heldTool('Deploy', false);
    r = await replicas([deploy.tool]);
    const body = [call('d1', 'Deploy', { target: 'prod' })];

    const first = execute(r.a.app, body);
    await deploy.firstRun;
    let secondAnswered = false;
    const second = execute(r.b.app, body).then((res) => {
      secondAnswered = true;
      return res;
    });
    await sleep(200);
    expect(secondAnswered).toBe(false);
    deploy.release();

    const [fromA, fromB] = await Promise.all([first, second]);
    expect(deploy.runs).toBe(1);
    expect(fromA.body.results[0]).toMatchObject({ status: 'success', replayed: false });
    expect(fromB.body.results[0]).toEqual({ ...fromA.body.results[0], replayed: true });
  });

  it('an Idempotency-Key replays the whole response across A and B', async () => {
    const counter = { runs: 0 };
    r = await replicas([slowTool('Lookup', { safe: true, ms: 1, counter })]);
    const body = [call('l1', 'Lookup', { q: 'x' })];
    const key = { 'idempotency-key': `req-${randomUUID()}` };

    const first = await execute(r.a.app, body, key);
    expect(first.status).toBe(200);
    const second = await execute(r.b.app, body, key);
    expect(second.status).toBe(200);
    expect(second.body.results).toEqual(first.body.results.map((x: object) => ({ ...x, replayed: true })));
    expect(second.body.messages).toEqual(first.body.messages);
    expect(counter.runs).toBe(1);

    // Lookup is read-only, so the replay above came from the key: without it the call runs again.
    await execute(r.b.app, body);
    expect(counter.runs).toBe(2);

    const other = await execute(r.b.app, [call('l1', 'Lookup', { q: 'y' })], key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('an Idempotency-Key retry at B with regenerated call ids gets A’s results under the new ids; the Write ran once', async () => {
    r = await replicas([]);
    const key = { 'idempotency-key': `req-${randomUUID()}` };
    const args = { path: 'a.txt', content: 'one' };
    const first = await execute(r.a.app, [call('w-first', 'Write', args)], key);
    expect(first.body.results[0]).toMatchObject({ status: 'success', replayed: false });
    await writeFile(join(r.workspace, 'a.txt'), 'changed since');

    const retry = await execute(
      r.b.app,
      [{ id: 'w-retry', name: 'Write', arguments: JSON.stringify({ content: 'one', path: 'a.txt' }) }],
      key,
    );
    expect(retry.body.results).toEqual([{ ...first.body.results[0], tool_call_id: 'w-retry', replayed: true }]);
    expect(retry.body.messages).toEqual([{ ...first.body.messages[0], tool_call_id: 'w-retry' }]);
    expect(await readFile(join(r.workspace, 'a.txt'), 'utf8')).toBe('changed since');

    const other = await execute(r.b.app, [call('w-other', 'Write', { ...args, content: 'two' })], key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('an Idempotency-Key request still running on A: the same request at B waits for A’s response', async () => {
    // Read-only, so call-id replay cannot be what keeps B from running it: only the key can.
    const lookup = heldTool('Lookup', true);
    r = await replicas([lookup.tool]);
    const key = { 'idempotency-key': `req-${randomUUID()}` };
    const body = [call('l1', 'Lookup')];
    const first = execute(r.a.app, body, key);
    await lookup.firstRun;
    const second = execute(r.b.app, body, key);
    await sleep(200);
    lookup.release();

    const [fromA, fromB] = await Promise.all([first, second]);
    expect(lookup.runs).toBe(1);
    expect(fromB.status).toBe(200);
    expect(fromB.body.results).toEqual(fromA.body.results.map((x: object) => ({ ...x, replayed: true })));
  });

  it('a rate limit of N per minute holds across both gateways together', async () => {
    const counter = { runs: 0 };
    r = await replicas([{ ...slowTool('Search', { safe: true, ms: 1, counter }), rateLimit: { perMinute: 5 } }]);
    const { a, b } = r;
    const results = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => (await execute(i % 2 ? a.app : b.app, [call(`s${i}`, 'Search')])).body.results[0]),
    );

    expect(results.filter((x) => x.status === 'success')).toHaveLength(5);
    const limited = results.filter((x) => x.error?.code === 'RATE_LIMITED');
    expect(limited).toHaveLength(7);
    for (const x of limited) expect(x.error.retry_after_ms).toBeGreaterThan(0);
    expect(counter.runs).toBe(5);

    r.clock.advance(60_000);
    expect((await execute(b.app, [call('later', 'Search')])).body.results[0].status).toBe('success');
  });
});
