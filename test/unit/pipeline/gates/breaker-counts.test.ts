import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/protocol/errors.js';
import { classifyHttpFailure, statusFailure } from '../../../../src/tools/http/failure.js';
import type { Tool } from '../../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { sleep } from '../../../helpers/tools.js';

/** Gate 9 (what the breaker counts) and the breaker's state machine, through the whole pipeline. */

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });
const live = new AbortController().signal;

/** Every way a tool can fail, each as the gateway's own code makes it. */
const FAILURES: Record<string, () => GatewayError> = {
  invalid_args: () => new GatewayError('INVALID_ARGS', { message: 'bad argument' }),
  not_found: () => new GatewayError('NOT_FOUND'),
  conflict: () => new GatewayError('CONFLICT'),
  permission: () => new GatewayError('PERMISSION_DENIED'),
  upstream_404: () => statusFailure(404, 'no such city'),
  upstream_400: () => statusFailure(400, 'bad request'),
  upstream_302: () => statusFailure(302, ''),
  upstream_429: () => statusFailure(429, 'slow down', 2_000),
  upstream_500: () => statusFailure(500, 'boom'),
  upstream_503: () => statusFailure(503, 'down'),
  upstream_connect: () => classifyHttpFailure(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), live),
  upstream_reset: () => classifyHttpFailure(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), live),
  execution_failed: () => new GatewayError('EXECUTION_FAILED'),
  crash: () => {
    throw new Error('a plain crash');
  },
};

/** A tool that fails as `mode` says, or hangs past its timeout for `timeout`, or succeeds. */
function failing(name: string): Tool {
  return {
    name,
    description: 'Fails on request.',
    parameters: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] },
    concurrencySafe: true,
    timeoutMs: 50,
    async run(args) {
      const mode = String(args.mode);
      if (mode === 'ok') return { text: 'ok' };
      if (mode === 'timeout') return new Promise(() => undefined);
      throw FAILURES[mode]!();
    },
  };
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function circuit(app: TestApp['app'], tool: string) {
  const { circuits } = (await app.inject({ method: 'GET', url: '/circuits' })).json();
  return circuits.find((c: { tool: string }) => c.tool === tool);
}

describe("what trips the breaker: the tool's own malfunctions, never the caller's mistakes", () => {
  it.each(['invalid_args', 'not_found', 'conflict', 'permission', 'upstream_404', 'upstream_400', 'upstream_302', 'upstream_429'])(
    'caller mistakes never trip it: %s five times in a row',
    async (mode) => {
      t = await buildTestApp({ builtins: false, tools: [failing('F')] });
      for (let i = 0; i < 5; i++) {
        const { body } = await execute(t.app, [call(`c${i}`, 'F', { mode })]);
        expect(body.results[0].status).toBe('error');
      }
      expect(await circuit(t.app, 'F')).toMatchObject({ state: 'closed', failures: 0 });
      expect((await execute(t.app, [call('ok', 'F', { mode: 'ok' })])).body.results[0].status).toBe('success');
    },
  );

  it("an operator's denial and a path outside the workspace never trip it either", async () => {
    t = await buildTestApp({ config: { policy: { rules: [{ tool: 'Read', when: { path: 'secret' }, decision: 'deny' }] } } });
    await writeFile(join(t.workspace, 'a.txt'), 'a\n');
    for (let i = 0; i < 4; i++) {
      await execute(t.app, [
        call(`o${i}`, 'Read', { path: '../../etc/passwd' }),
        call(`d${i}`, 'Read', { path: 'secret' }),
        call(`m${i}`, 'Read', { path: 'missing' }),
      ]);
    }
    expect(await circuit(t.app, 'Read')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it.each(['timeout', 'execution_failed', 'crash', 'upstream_500', 'upstream_503', 'upstream_connect', 'upstream_reset'])(
    'tool failures count: 3 consecutive %s open it',
    async (mode) => {
      t = await buildTestApp({ builtins: false, tools: [failing('F')] });
      for (let i = 0; i < 3; i++) await execute(t.app, [call(`c${i}`, 'F', { mode })]);
      expect(await circuit(t.app, 'F')).toMatchObject({ state: 'open', failures: 3 });
      const { body } = await execute(t.app, [call('x', 'F', { mode: 'ok' })]);
      expect(body.results[0].error).toMatchObject({ code: 'CIRCUIT_OPEN', retryable: true, retry_after_ms: 300_000 });
    },
  );

  it('the upstream errors carry a truthful retryable: 4xx no, 429 / 5xx / connect yes', async () => {
    t = await buildTestApp({ builtins: false, tools: [failing('F')] });
    const modes = ['upstream_404', 'upstream_429', 'upstream_500', 'upstream_connect'];
    const { body } = await execute(
      t.app,
      modes.map((mode, i) => call(`c${i}`, 'F', { mode })),
    );
    expect(body.results.map((r: any) => [r.error.code, r.error.retryable])).toEqual([
      ['UPSTREAM_ERROR', false],
      ['RATE_LIMITED', true],
      ['UPSTREAM_ERROR', true],
      ['UPSTREAM_ERROR', true],
    ]);
    expect(body.results[0].error.details.status).toBe(404);
    expect(body.results[1].error.retry_after_ms).toBe(2_000);
    expect(body.results[2].error.details.status).toBe(500);
  });

  it('only consecutive failures count: a success in between starts the count again', async () => {
    t = await buildTestApp({ builtins: false, tools: [failing('F')] });
    for (const mode of ['execution_failed', 'execution_failed', 'ok', 'execution_failed', 'execution_failed']) {
      await execute(t.app, [call(`c-${Math.random()}`, 'F', { mode })]);
    }
    expect(await circuit(t.app, 'F')).toMatchObject({ state: 'closed', failures: 2 });
  });
});

describe('the breaker settings a tool declares or inherits', () => {
  it("defaults.breaker is inherited; a tool's own failure_threshold and recovery_ms win", async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [failing('Inherits'), { ...failing('Own'), breaker: { failureThreshold: 2, recoveryMs: 1_000 } }],
      config: { defaults: { breaker: { failure_threshold: 4, recovery_ms: 60_000 } } },
    });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`i${i}`, 'Inherits', { mode: 'execution_failed' })]);
    expect(await circuit(t.app, 'Inherits')).toMatchObject({ state: 'closed', failures: 3 });
    await execute(t.app, [call('i3', 'Inherits', { mode: 'execution_failed' })]);
    expect(await circuit(t.app, 'Inherits')).toMatchObject({ state: 'open', reopens_at: t.clock.now() + 60_000 });
    for (let i = 0; i < 2; i++) await execute(t.app, [call(`o${i}`, 'Own', { mode: 'execution_failed' })]);
    expect(await circuit(t.app, 'Own')).toMatchObject({ state: 'open', reopens_at: t.clock.now() + 1_000 });
    t.clock.advance(1_000);
    expect(await circuit(t.app, 'Own')).toMatchObject({ state: 'half_open' });
  });
});

/** A tool whose calls block until the test releases them, then fail or succeed as asked. */
function held(name: string) {
  const waiting: Array<() => void> = [];
  const tool: Tool = {
    name,
    description: 'Held until released.',
    parameters: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] },
    concurrencySafe: false,
    async run(args) {
      if (args.mode === 'hold') await new Promise<void>((resolve) => waiting.push(resolve));
      if (args.mode === 'fail') throw new GatewayError('EXECUTION_FAILED');
      return { text: 'ok' };
    },
  };
  return { tool, release: () => waiting.splice(0).forEach((r) => r()), waiting };
}

describe('the breaker state machine: only the probe moves an open breaker', () => {
  it('a success that reports after the breaker opened (admitted while closed) does not close it', async () => {
    const h = held('H');
    t = await buildTestApp({ builtins: false, tools: [h.tool] });
    const late = execute(t.app, [call('late', 'H', { mode: 'hold' })]);
    while (h.waiting.length === 0) await sleep(5);
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'H', { mode: 'fail' })]);
    expect(await circuit(t.app, 'H')).toMatchObject({ state: 'open' });
    h.release();
    expect((await late).body.results[0].status).toBe('success');
    expect(await circuit(t.app, 'H')).toMatchObject({ state: 'open', failures: 3 });
    const refused = await execute(t.app, [call('x', 'H', { mode: 'ok' })]);
    expect(refused.body.results[0].error.code).toBe('CIRCUIT_OPEN');
  });

  it('a late failure does not restart the recovery timer: the breaker half-opens on time', async () => {
    const h = { ...held('H') };
    const slow: Tool = {
      ...h.tool,
      async run(args, ctx) {
        if (args.mode === 'hold') {
          await new Promise<void>((resolve) => h.waiting.push(resolve));
          throw new GatewayError('EXECUTION_FAILED');
        }
        return h.tool.run(args, ctx);
      },
    };
    t = await buildTestApp({ builtins: false, tools: [slow] });
    const late = execute(t.app, [call('late', 'H', { mode: 'hold' })]);
    while (h.waiting.length === 0) await sleep(5);
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'H', { mode: 'fail' })]);
    const opened = await circuit(t.app, 'H');
    expect(opened.state).toBe('open');
    t.clock.advance(100_000);
    h.release();
    await late;
    expect((await circuit(t.app, 'H')).reopens_at).toBe(opened.reopens_at);
    t.clock.advance(200_000);
    expect(await circuit(t.app, 'H')).toMatchObject({ state: 'half_open' });
    const probe = await execute(t.app, [call('p', 'H', { mode: 'ok' })]);
    expect(probe.body.results[0].status).toBe('success');
    expect(await circuit(t.app, 'H')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('half-open: exactly one probe in a batch of many; its failure reopens with the timer restarted', async () => {
    t = await buildTestApp({ builtins: false, tools: [failing('F')] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'execution_failed' })]);
    t.clock.advance(300_000);
    const { body } = await execute(
      t.app,
      Array.from({ length: 6 }, (_, i) => call(`p${i}`, 'F', { mode: 'execution_failed' })),
    );
    expect(body.results.map((r: any) => r.error.code)).toEqual([
      'EXECUTION_FAILED',
      'CIRCUIT_OPEN',
      'CIRCUIT_OPEN',
      'CIRCUIT_OPEN',
      'CIRCUIT_OPEN',
      'CIRCUIT_OPEN',
    ]);
    expect(await circuit(t.app, 'F')).toMatchObject({ state: 'open', reopens_at: t.clock.now() + 300_000 });
  });
});
