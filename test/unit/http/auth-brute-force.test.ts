import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../src/state/memory/index.js';
import { StateUnavailableError, type StateStore } from '../../../src/state/state-store.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { ADMIN_KEY, bearer, EXEC_KEY, KEYS } from './auth-keys.js';

describe('brute-force limit per client address: 429 with Retry-After', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const fromAddress = (app: TestApp['app'], remoteAddress: string, key: string) =>
    app.inject({ method: 'GET', url: '/tools', remoteAddress, headers: bearer(key) });

  it('past the limit every attempt from the address is 429, the right key included, until the window passes', async () => {
    t = await buildTestApp({ config: { keys: KEYS, auth: { failures_per_minute: 3 } } });
    for (let i = 0; i < 3; i++) expect((await fromAddress(t.app, '10.0.0.1', `wrong-${i}`)).statusCode).toBe(401);
    const over = await fromAddress(t.app, '10.0.0.1', 'wrong-3');
    expect(over.statusCode).toBe(429);
    expect(over.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(over.headers['retry-after']).toBe('60');

    const right = await fromAddress(t.app, '10.0.0.1', EXEC_KEY);
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toBe('60');

    expect((await fromAddress(t.app, '10.0.0.2', EXEC_KEY)).statusCode).toBe(200);
    expect((await fromAddress(t.app, '10.0.0.2', 'wrong')).statusCode).toBe(401);

    t.clock.advance(59_000);
    const late = await fromAddress(t.app, '10.0.0.1', EXEC_KEY);
    expect(late.statusCode).toBe(429);
    expect(late.headers['retry-after']).toBe('1');
    t.clock.advance(1_000);
    expect((await fromAddress(t.app, '10.0.0.1', EXEC_KEY)).statusCode).toBe(200);
  });

  it('the limit counts failures, not requests: right keys and scope refusals do not use it up', async () => {
    t = await buildTestApp({ config: { keys: KEYS, auth: { failures_per_minute: 2 } } });
    for (let i = 0; i < 5; i++) {
      expect((await fromAddress(t.app, '10.0.0.1', EXEC_KEY)).statusCode).toBe(200);
      expect((await fromAddress(t.app, '10.0.0.1', ADMIN_KEY)).statusCode).toBe(403);
    }
    expect((await fromAddress(t.app, '10.0.0.1', 'wrong')).statusCode).toBe(401);
    expect((await fromAddress(t.app, '10.0.0.1', 'wrong')).statusCode).toBe(401);
    expect((await fromAddress(t.app, '10.0.0.1', 'wrong')).statusCode).toBe(429);
  });

  it('the count is kept in the state store, so replicas sharing it share the limit', async () => {
    const state = createMemoryStateStore();
    t = await buildTestApp({ state, config: { keys: KEYS, auth: { failures_per_minute: 2 } } });
    const other = await buildTestApp({ state, clock: t.clock, config: { keys: KEYS, auth: { failures_per_minute: 2 } } });
    try {
      expect((await fromAddress(t.app, '10.0.0.1', 'wrong')).statusCode).toBe(401);
      expect((await fromAddress(other.app, '10.0.0.1', 'wrong')).statusCode).toBe(401);
      expect((await fromAddress(t.app, '10.0.0.1', EXEC_KEY)).statusCode).toBe(200);
      expect((await fromAddress(other.app, '10.0.0.1', 'wrong')).statusCode).toBe(429);
      expect((await fromAddress(t.app, '10.0.0.1', EXEC_KEY)).statusCode).toBe(429);
    } finally {
      await other.close();
      await state.close();
    }
  });

  it('with the state store down keys are still checked, without the limit', async () => {
    const memory = createMemoryStateStore();
    const down: StateStore = new Proxy(memory, {
      get(target, prop, receiver) {
        if (prop === 'hit') return async () => Promise.reject(new StateUnavailableError());
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    t = await buildTestApp({ state: down, config: { keys: KEYS, auth: { failures_per_minute: 1 } } });
    try {
      for (let i = 0; i < 3; i++) expect((await fromAddress(t.app, '10.0.0.1', 'wrong')).statusCode).toBe(401);
      expect((await fromAddress(t.app, '10.0.0.1', EXEC_KEY)).statusCode).toBe(200);
    } finally {
      await memory.close();
    }
  });
});
