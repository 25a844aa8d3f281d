import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import type { ManualClock } from '../../../src/shared/clock.js';
import { as, fleet, KEY, KEYS, one } from './fleet.js';

/**
 * approvals.history_count is "decided requests kept per tenant at most"
 * (docs/approvals.md): one tenant deciding many requests never pushes another
 * tenant's decisions out of GET /approvals?status=decided and GET
 * /approvals/{id}. The memory store counted every tenant's decisions
 * together, so globex's decisions made acme's 404.
 */

const CONFIG = { approvals: { history_count: 2 }, builtins: { Write: { requires_approval: true } } };

async function askAndDecide(app: FastifyInstance, key: string, adminKey: string, path: string): Promise<string> {
  const asked = await one(app, key, 'Write', { path, content: 'x\n' });
  const id = asked.error.details.approval_id as string;
  const decided = await app.inject({ method: 'POST', url: `/approvals/${id}`, headers: as(adminKey), payload: { decision: 'deny' } });
  expect(decided.statusCode).toBe(200);
  return id;
}

async function keptFor(app: FastifyInstance, adminKey: string, id: string) {
  const one = await app.inject({ method: 'GET', url: `/approvals/${id}`, headers: as(adminKey) });
  const listed = await app.inject({ method: 'GET', url: '/approvals?status=decided', headers: as(adminKey) });
  return { status: one.statusCode, listed: listed.json().approvals.map((a: { id: string }) => a.id) };
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("one tenant's decisions never push another's out of the decided history", () => {
  const gateways: Array<[string, () => Promise<[FastifyInstance, FastifyInstance, ManualClock]>]> = [
    [
      'memory state, one gateway',
      async () => {
        t = await buildTestApp({ config: { keys: KEYS, ...CONFIG } });
        return [t.app, t.app, t.clock];
      },
    ],
    [
      'Redis, two replicas',
      async () => {
        const f = await fleet([], CONFIG);
        return [f.a, f.b, f.clock];
      },
    ],
  ];
  for (const [name, start] of gateways) {
    it(`${name}: globex deciding past the count leaves acme's decision listed and readable`, async () => {
      const [a, b, clock] = await start();
      const acme = await askAndDecide(a, KEY.acme, KEY.acmeAdmin, 'a.txt');
      const globex: string[] = [];
      for (const path of ['g1.txt', 'g2.txt', 'g3.txt']) {
        clock.advance(1_000);
        globex.push(await askAndDecide(b, KEY.globex, KEY.globexAdmin, path));
      }

      expect(await keptFor(b, KEY.acmeAdmin, acme)).toEqual({ status: 200, listed: [acme] });
      // Each tenant's own count still holds: globex keeps its two most recent.
      expect((await keptFor(a, KEY.globexAdmin, globex[2]!)).listed).toEqual([globex[2], globex[1]]);
    });
  }
});
