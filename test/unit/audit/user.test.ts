import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import type { AuditTrail } from '../../../src/audit/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { openTrail } from '../../suites/audit-store.suite.js';
import { forUser, ON_BEHALF_KEYS, PLAIN_KEY, whoTool } from '../../helpers/users.js';

/**
 * The user travels with the call: the approval it asks for names them and is theirs alone (another user's same call asks anew), and every
 * audit record of it (the call, the decision) carries `user`, which GET /audit?user= filters on.
 */

describe('the user in approvals and the audit trail', () => {
  let dir: string;
  let trail: AuditTrail;
  let t: TestApp;
  const admin = { authorization: `Bearer ${PLAIN_KEY}` };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-user-'));
    trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 1 << 20 }));
    t = await buildTestApp({
      audit: trail,
      builtins: false,
      tools: [{ ...whoTool(), requiresApproval: true }],
      config: { keys: ON_BEHALF_KEYS },
    });
  });
  afterAll(async () => {
    await t.close();
    await trail.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const who = (id: string, user?: string) =>
    execute(t.app, { session_id: 's1', tool_calls: [{ id, name: 'Who', arguments: {} }] }, forUser(user));
  const records = async (query: string) =>
    (await t.app.inject({ method: 'GET', url: `/audit${query}`, headers: admin })).json().records as Array<Record<string, unknown>>;

  it("an approval names its user; approving alice's call admits hers, never bob's same call; the trail says whose each was", async () => {
    const askedA = (await who('a1', 'alice')).body.results[0].error;
    const askedB = (await who('b1', 'bob')).body.results[0].error;
    expect(askedA.code).toBe('APPROVAL_REQUIRED');
    expect(askedB.code).toBe('APPROVAL_REQUIRED');
    const [forAlice, forBob] = [askedA.details.approval_id, askedB.details.approval_id];
    expect(forBob).not.toBe(forAlice);

    const pending = (await t.app.inject({ method: 'GET', url: '/approvals', headers: admin })).json().approvals;
    expect(Object.fromEntries(pending.map((a: { id: string; user?: string }) => [a.id, a.user]))).toEqual({
      [forAlice]: 'alice',
      [forBob]: 'bob',
    });
    const decided = await t.app.inject({ method: 'POST', url: `/approvals/${forAlice}`, payload: { decision: 'approve' }, headers: admin });
    expect(decided.json()).toMatchObject({ user: 'alice', status: 'approved' });
    expect(t.logs.find((l) => l.msg === 'approval decided')).toMatchObject({ approval_id: forAlice, user: 'alice', key_id: 'plain' });

    expect((await who('b2', 'bob')).body.results[0].error).toMatchObject({ code: 'APPROVAL_REQUIRED', details: { approval_id: forBob } });
    expect((await who('a2', 'alice')).body.results[0]).toMatchObject({ status: 'success', text: expect.stringMatching(/^for alice/) });
    await who('k1');

    const alice = await records('?user=alice');
    expect(alice.map((r) => r.call_id ?? r.kind)).toEqual(['a2', 'approval', 'a1']);
    expect(alice.every((r) => r.user === 'alice')).toBe(true);
    expect(alice.find((r) => r.kind === 'approval')).toMatchObject({ approval_id: forAlice, decided_by: 'plain', key_id: 'plain' });
    expect((await records('?user=bob')).map((r) => r.call_id)).toEqual(['b2', 'b1']);
    const own = (await records('')).find((r) => r.call_id === 'k1');
    expect(own).toMatchObject({ key_id: 'backend', decision: 'ask' });
    expect(own).not.toHaveProperty('user');
    expect((await t.app.inject({ method: 'GET', url: `/audit?user=${'x'.repeat(257)}`, headers: admin })).statusCode).toBe(400);
  });
});
