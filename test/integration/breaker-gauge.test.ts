import { createHash, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { configFrom } from '../../src/config/load.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/memory/index.js';
import { createRedisStateStore } from '../../src/state/redis/index.js';
import type { StateStore } from '../../src/state/state-store.js';
import { buildTestApp, execute, type TestApp } from '../helpers/app.js';
import { faultyTool } from '../helpers/tools.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const KEY = { acme: 'tg_acme-exec', globex: 'tg_globex-exec' };
const KEYS = [
  { id: 'acme', sha256: sha256(KEY.acme), tenant: 'acme', scopes: ['execute'] },
  { id: 'globex', sha256: sha256(KEY.globex), tenant: 'globex', scopes: ['execute'] },
];
const STATE = configFrom().state;

const STORES: Record<string, (clock: ManualClock) => StateStore> = {
  memory: (clock) => createMemoryStateStore({ clock }),
  redis: (clock) =>
    createRedisStateStore({
      url: inject('redisUrl'),
      keyPrefix: `gauge-${randomUUID()}`,
      clock,
      connectTimeoutMs: STATE.connect_timeout_ms,
      commandTimeoutMs: STATE.command_timeout_ms,
    }),
};

let t: TestApp | undefined;
let state: StateStore | undefined;
afterEach(async () => {
  await t?.close();
  await state?.close();
  t = state = undefined;
});

/** The `toolgate_breaker_state` lines of a scrape. */
async function gauge(app: TestApp): Promise<string[]> {
  const text = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
  return text.split('\n').filter((line) => line.startsWith('toolgate_breaker_state{'));
}

describe.each(Object.keys(STORES))('toolgate_breaker_state reports the breakers that exist (%s store)', (store) => {
  async function gateway(config: Record<string, unknown>, tripAs?: string): Promise<TestApp> {
    const clock = new ManualClock();
    state = STORES[store]!(clock);
    await state.ping();
    t = await buildTestApp({ state, clock, builtins: false, tools: [faultyTool('zeta'), faultyTool('eta')], config });
    const headers: Record<string, string> = tripAs === undefined ? {} : { authorization: `Bearer ${tripAs}` };
    for (let i = 0; i < 3; i++) await execute(t.app, [{ id: `f${i}`, name: 'zeta', arguments: { mode: 'fail' } }], headers);
    return t;
  }

  it('by default: per tenant, the tripping tenant open and the other closed', async () => {
    const app = await gateway({ keys: KEYS }, KEY.acme);
    expect((await gauge(app)).sort()).toEqual([
      'toolgate_breaker_state{tool="eta",tenant="acme"} 0',
      'toolgate_breaker_state{tool="eta",tenant="globex"} 0',
      'toolgate_breaker_state{tool="zeta",tenant="acme"} 2',
      'toolgate_breaker_state{tool="zeta",tenant="globex"} 0',
    ]);
  });

  it("with no keys: the local caller's breakers", async () => {
    const app = await gateway({});
    expect((await gauge(app)).sort()).toEqual([
      'toolgate_breaker_state{tool="eta",tenant="local"} 0',
      'toolgate_breaker_state{tool="zeta",tenant="local"} 2',
    ]);
  });

  it('with per_tenant_breakers: false: one series per tool, no tenant label', async () => {
    const app = await gateway({ keys: KEYS, defaults: { per_tenant_breakers: false } }, KEY.globex);
    expect((await gauge(app)).sort()).toEqual(['toolgate_breaker_state{tool="eta"} 0', 'toolgate_breaker_state{tool="zeta"} 2']);
  });
});
