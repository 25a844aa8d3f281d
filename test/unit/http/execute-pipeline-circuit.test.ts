import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { faultyTool } from '../../helpers/tools.js';
import { call } from './execute-pipeline-call.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('circuit breaker: open after failures, one probe after recovery, on a fake clock', () => {
  it('3 failures open it: CIRCUIT_OPEN, hidden from GET /tools; after recovery one probe closes it', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F', { safe: true })] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'fail' })]);
    const open = await execute(t.app, [call('x', 'F', { mode: 'ok' })]);
    expect(open.body.results[0].error).toMatchObject({ code: 'CIRCUIT_OPEN', retryable: true, retry_after_ms: 300_000 });
    const listed = await t.app.inject({ method: 'GET', url: '/tools' });
    expect(listed.json().tools).toEqual([]);
    t.clock.advance(300_000);
    const listedAgain = await t.app.inject({ method: 'GET', url: '/tools' });
    expect(listedAgain.json().tools).toHaveLength(1);
    const probe = await execute(t.app, [call('p', 'F', { mode: 'ok' }), call('q', 'F', { mode: 'ok' })]);
    expect(probe.body.results[0].status).toBe('success');
    expect(probe.body.results[1].error.code).toBe('CIRCUIT_OPEN');
    const closed = await execute(t.app, [call('z', 'F', { mode: 'ok' })]);
    expect(closed.body.results[0].status).toBe('success');
  });

  it('a failed probe reopens it with the timer restarted', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F')] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'fail' })]);
    t.clock.advance(300_000);
    await execute(t.app, [call('p', 'F', { mode: 'fail' })]);
    t.clock.advance(299_000);
    const still = await execute(t.app, [call('x', 'F', { mode: 'ok' })]);
    expect(still.body.results[0].error.code).toBe('CIRCUIT_OPEN');
    expect(still.body.results[0].error.retry_after_ms).toBe(1_000);
  });

  it('caller mistakes never trip it', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F')] });
    for (let i = 0; i < 5; i++) await execute(t.app, [call(`n${i}`, 'F', { mode: 'not_found' })]);
    for (let i = 0; i < 5; i++) await execute(t.app, [call(`i${i}`, 'F', { mode: 'bogus' })]);
    const { body } = await execute(t.app, [call('ok', 'F', { mode: 'ok' })]);
    expect(body.results[0].status).toBe('success');
  });

  it('POST /circuits/{tool}/reset forces it closed', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('F')] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'F', { mode: 'fail' })]);
    const circuits = await t.app.inject({ method: 'GET', url: '/circuits' });
    expect(circuits.json().circuits).toEqual([{ tool: 'F', state: 'open', failures: 3, reopens_at: t.clock.now() + 300_000 }]);
    const reset = await t.app.inject({ method: 'POST', url: '/circuits/F/reset' });
    expect(reset.json()).toMatchObject({ tool: 'F', state: 'closed', failures: 0 });
    const { body } = await execute(t.app, [call('ok', 'F', { mode: 'ok' })]);
    expect(body.results[0].status).toBe('success');
  });
});
