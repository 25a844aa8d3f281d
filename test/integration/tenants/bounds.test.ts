import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/tools/tool.js';
import { execute } from '../../helpers/app.js';
import { as, fleet, KEY, one } from './fleet.js';

/**
 * The per-tenant bounds (docs/auth.md, "Tenant isolation"), through the public API of two replicas on
 * one real Redis: pending approvals per tenant (APPROVAL_LIMIT, retryable,
 * counted in the state store so the fleet shares it) and requests in flight
 * per key (429 RATE_LIMITED with Retry-After, each replica's own count).
 */

const APPROVAL_TTL_MS = 3_600_000;

async function decide(app: FastifyInstance, adminKey: string, id: string) {
  const res = await app.inject({ method: 'POST', url: `/approvals/${id}`, headers: as(adminKey), payload: { decision: 'deny' } });
  expect(res.statusCode).toBe(200);
}

describe('pending approvals per tenant (approvals.max_pending_per_tenant)', () => {
  it('past the bound a call that asks is APPROVAL_LIMIT on any replica, opens nothing, and another tenant is not held back', async () => {
    const f = await fleet([], { approvals: { max_pending_per_tenant: 3 }, builtins: { Write: { requires_approval: true } } });
    const ask = (app: FastifyInstance, key: string, path: string) => one(app, key, 'Write', { path, content: 'x\n' });
    const ids: string[] = [];
    for (const [i, app] of [f.a, f.b, f.a].entries()) {
      const asked = await ask(app, KEY.acme, `f${i}.txt`);
      expect(asked.error.code).toBe('APPROVAL_REQUIRED');
      ids.push(asked.error.details.approval_id);
    }
    f.clock.advance(1_000);
    for (const app of [f.a, f.b]) {
      const refused = await ask(app, KEY.acme, 'one-more.txt');
      expect(refused.error).toMatchObject({
        code: 'APPROVAL_LIMIT',
        retryable: true,
        retry_after_ms: APPROVAL_TTL_MS - 1_000,
        details: { max_pending: 3 },
      });
    }
    // Asking again about a request already pending is no new request: it is answered as before.
    expect((await ask(f.b, KEY.acme, 'f0.txt')).error).toMatchObject({ code: 'APPROVAL_REQUIRED', details: { approval_id: ids[0] } });
    expect((await ask(f.b, KEY.globex, 'g.txt')).error.code).toBe('APPROVAL_REQUIRED');
    const listed = await f.b.inject({ method: 'GET', url: '/approvals', headers: as(KEY.acmeAdmin) });
    expect(
      listed
        .json()
        .approvals.map((a: { id: string }) => a.id)
        .sort(),
    ).toEqual([...ids].sort());

    // A decision frees a place, on every replica.
    await decide(f.b, KEY.acmeAdmin, ids[1]!);
    expect((await ask(f.a, KEY.acme, 'one-more.txt')).error.code).toBe('APPROVAL_REQUIRED');
    expect((await ask(f.b, KEY.acme, 'two-more.txt')).error.code).toBe('APPROVAL_LIMIT');
    // So does an expiry.
    f.clock.advance(APPROVAL_TTL_MS);
    expect((await ask(f.b, KEY.acme, 'two-more.txt')).error.code).toBe('APPROVAL_REQUIRED');
  });
});

/** A tool whose calls wait until the test releases them, so the test decides what is in flight. */
function heldTool(): { tool: Tool; started: () => number; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let runs = 0;
  return {
    tool: {
      name: 'Held',
      description: 'Waits until released.',
      parameters: { type: 'object', properties: {} },
      concurrencySafe: true,
      async run() {
        runs += 1;
        await released;
        return { text: 'done' };
      },
    },
    started: () => runs,
    release,
  };
}

describe('requests in flight per key (limits.inflight_per_key)', () => {
  it("past the bound that key's next request is 429 with Retry-After; other keys and the other replica still answer", async () => {
    const held = heldTool();
    const f = await fleet([held.tool], { limits: { inflight_per_key: 2 } });
    const body = { tool_calls: [{ id: 'h', name: 'Held', arguments: {} }] };
    const waiting = [execute(f.a, body, as(KEY.acme)), execute(f.a, body, as(KEY.acme))];
    while (held.started() < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    const refused = await f.a.inject({ method: 'POST', url: '/execute', payload: body, headers: as(KEY.acme) });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('limits.inflight_per_key') });
    expect(held.started()).toBe(2);

    // Another key on the same replica, and the same key on another replica (the count is each replica's own).
    const others = [execute(f.a, body, as(KEY.globex)), execute(f.b, body, as(KEY.acme))];
    while (held.started() < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    held.release();
    for (const answer of await Promise.all([...waiting, ...others])) expect(answer.body.results[0].status).toBe('success');
    expect((await execute(f.a, body, as(KEY.acme))).status).toBe(200);
  });
});
