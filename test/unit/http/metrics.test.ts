import { afterEach, describe, expect, it } from 'vitest';
import { StateUnavailableError } from '../../../src/state/state-store.js';
import { createMemoryStateStore } from '../../../src/state/memory/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { slowTool } from '../../helpers/tools.js';

/** The gauges /metrics reads at scrape time for the dashboard and the alerts (docs/operations.md). */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function scrape(app: TestApp, prefix: string): Promise<string[]> {
  const text = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
  return text.split('\n').filter((line) => line.startsWith(prefix));
}

describe('toolgate_store_up: what /readyz sees, as a gauge', () => {
  it('is 1 for both stores while they answer', async () => {
    t = await buildTestApp();
    expect((await scrape(t, 'toolgate_store_up{')).sort()).toEqual([
      'toolgate_store_up{store="spill"} 1',
      'toolgate_store_up{store="state"} 1',
    ]);
  });

  it('is 0 for the state store that refuses, 1 for the spill store that answers', async () => {
    const state = createMemoryStateStore();
    state.ping = async () => {
      throw new StateUnavailableError();
    };
    t = await buildTestApp({ state });
    expect((await scrape(t, 'toolgate_store_up{')).sort()).toEqual([
      'toolgate_store_up{store="spill"} 1',
      'toolgate_store_up{store="state"} 0',
    ]);
    await state.close();
  });

  it('is 0 for a store that hangs, and the scrape still answers within the ping bound (1 s)', async () => {
    t = await buildTestApp();
    t.spill.ping = () => new Promise(() => undefined);
    const started = Date.now();
    expect(await scrape(t, 'toolgate_store_up{store="spill"}')).toEqual(['toolgate_store_up{store="spill"} 0']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('toolgate_approvals_pending: approval requests waiting for a decision', () => {
  const call = (id: string, args: Record<string, unknown>) => ({ session_id: 's', tool_calls: [{ id, name: 'Deploy', arguments: args }] });

  it('counts pending requests, and a decided one no longer', async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [slowTool('Deploy', { safe: false, ms: 1 })],
      config: { policy: { rules: [{ tool: 'Deploy', decision: 'ask' }] } },
    });
    expect(await scrape(t, 'toolgate_approvals_pending ')).toEqual(['toolgate_approvals_pending 0']);
    const first = (await execute(t.app, call('a', { env: 'prod' }))).body.results[0];
    await execute(t.app, call('b', { env: 'staging' }));
    expect(await scrape(t, 'toolgate_approvals_pending ')).toEqual(['toolgate_approvals_pending 2']);
    await t.app.inject({ method: 'POST', url: `/approvals/${first.error.details.approval_id}`, payload: { decision: 'approve' } });
    expect(await scrape(t, 'toolgate_approvals_pending ')).toEqual(['toolgate_approvals_pending 1']);
  });

  it('is NaN (unknown) while the state store cannot list them, not 0 and not the stale count', async () => {
    const state = createMemoryStateStore();
    t = await buildTestApp({
      state,
      builtins: false,
      tools: [slowTool('Deploy', { safe: false, ms: 1 })],
      config: { policy: { rules: [{ tool: 'Deploy', decision: 'ask' }] } },
    });
    await execute(t.app, call('a', {}));
    expect(await scrape(t, 'toolgate_approvals_pending ')).toEqual(['toolgate_approvals_pending 1']);
    state.countPendingApprovals = async () => {
      throw new StateUnavailableError();
    };
    // prom-client writes "Nan"; Prometheus parses the value case-insensitively (Go's ParseFloat).
    expect(await scrape(t, 'toolgate_approvals_pending ')).toEqual(['toolgate_approvals_pending Nan']);
    await state.close();
  });
});
