import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { slowTool } from '../../helpers/tools.js';

/**
 * Hostile-input sweep: `timeout_ms` on POST /execute lowers each call's
 * timeout. A TIMEOUT the caller forced that way says nothing
 * about the tool's health, yet it counted as a breaker failure: with shared
 * breakers (the default) one request of one tenant, `{"timeout_ms":1}` and
 * three calls, opened the tool's circuit for every tenant for
 * `recovery_ms` (5 minutes by default).
 */
const ATTACKER = 'attacker-key';
const VICTIM = 'victim-key';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('a timeout the caller chose does not trip a shared breaker', () => {
  let t: TestApp;
  afterEach(async () => t.close());

  const post = (key: string, body: unknown) =>
    t.app.inject({ method: 'POST', url: '/execute', headers: { authorization: `Bearer ${key}` }, payload: body as object });

  it('three calls cut by timeout_ms leave the circuit closed for another tenant', async () => {
    t = await buildTestApp({
      tools: [slowTool('Slow', { safe: true, ms: 200, timeoutMs: 5_000 })],
      config: {
        keys: [
          { id: 'a', sha256: sha256(ATTACKER), tenant: 'evil', scopes: ['execute'] },
          { id: 'v', sha256: sha256(VICTIM), tenant: 'victim', scopes: ['execute', 'admin'] },
        ],
      },
    });
    const cut = await post(ATTACKER, { timeout_ms: 1, tool_calls: [1, 2, 3].map((i) => ({ id: `c${i}`, name: 'Slow', arguments: {} })) });
    expect(cut.json().results.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);

    const circuits = await t.app.inject({ method: 'GET', url: '/circuits', headers: { authorization: `Bearer ${VICTIM}` } });
    expect(circuits.json().circuits.find((c: { tool: string }) => c.tool === 'Slow')).toMatchObject({ state: 'closed', failures: 0 });
    const victim = await post(VICTIM, [{ id: 'v1', name: 'Slow', arguments: {} }]);
    expect(victim.json().results[0].status).toBe('success');
  });

  it("a timeout within the tool's own limit still counts", async () => {
    t = await buildTestApp({ tools: [slowTool('Slow', { safe: true, ms: 500, timeoutMs: 20 })] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/execute',
      payload: [1, 2, 3].map((i) => ({ id: `c${i}`, name: 'Slow', arguments: {} })),
    });
    expect(res.json().results.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);
    const next = await t.app.inject({ method: 'POST', url: '/execute', payload: [{ id: 'n', name: 'Slow', arguments: {} }] });
    expect(next.json().results[0].error.code).toBe('CIRCUIT_OPEN');
  });

  it('a timeout_ms at or above the tool timeout changes nothing: its timeouts count', async () => {
    t = await buildTestApp({ tools: [slowTool('Slow', { safe: true, ms: 500, timeoutMs: 20 })] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/execute',
      payload: { timeout_ms: 60_000, tool_calls: [1, 2, 3].map((i) => ({ id: `c${i}`, name: 'Slow', arguments: {} })) },
    });
    expect(res.json().results.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);
    const next = await t.app.inject({ method: 'POST', url: '/execute', payload: [{ id: 'n', name: 'Slow', arguments: {} }] });
    expect(next.json().results[0].error.code).toBe('CIRCUIT_OPEN');
  });
});
