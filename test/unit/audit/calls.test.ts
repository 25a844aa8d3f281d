import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import type { AuditTrail } from '../../../src/audit/index.js';
import { verifyChain, type AuditStore } from '../../../src/audit/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { openTrail } from '../../suites/audit-store.suite.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ACME = 'tg_acme_admin_0123456789';
const OTHER = 'tg_other_admin_0123456789';
const KEYS = [
  { id: 'acme-admin', sha256: sha256(ACME), tenant: 'acme', scopes: ['execute', 'admin'] },
  { id: 'other-admin', sha256: sha256(OTHER), tenant: 'other', scopes: ['execute', 'admin'] },
  { id: 'acme-exec', sha256: sha256('tg_acme_exec_0123456789'), tenant: 'acme', scopes: ['execute'] },
];
const as = (key: string) => ({ authorization: `Bearer ${key}` });

describe('every answered call has its audit record', () => {
  let dir: string;
  let store: AuditStore;
  let trail: AuditTrail;
  let t: TestApp;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-'));
    store = createFileAuditStore({ dir, rotateBytes: 1 << 20 });
  });
  afterEach(async () => {
    await t.close();
    await trail.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const records = async (key = ACME, query = '') =>
    (await t.app.inject({ method: 'GET', url: `/audit${query}`, headers: as(key) })).json().records as Array<Record<string, unknown>>;

  it('with who decided: the policy (and its rule), or the operator who approved; GET /audit gives the tenant its own, newest first', async () => {
    trail = await openTrail(store);
    t = await buildTestApp({
      audit: trail,
      config: {
        keys: KEYS,
        policy: { rules: [{ tool: 'Read', when: { path: 'secret' }, decision: 'deny' }] },
        builtins: { Edit: { requires_approval: true } },
      },
    });
    const { body } = await execute(
      t.app,
      {
        session_id: 's1',
        tool_calls: [
          { id: 'w1', name: 'Write', arguments: { path: 'a.txt', content: 'one\n' } },
          { id: 'r1', name: 'Read', arguments: { path: 'a.txt' } },
          { id: 'r2', name: 'Read', arguments: { path: 'secret.txt' } },
          { id: 'x1', name: 'Nope', arguments: {} },
          { id: 'e1', name: 'Edit', arguments: { path: 'a.txt', old_string: 'one', new_string: 'two' } },
        ],
      },
      as(ACME),
    );
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success', 'error', 'error', 'error']);
    const approval = body.results[4].error.details.approval_id as string;
    await t.app.inject({ method: 'POST', url: `/approvals/${approval}`, payload: { decision: 'approve' }, headers: as(ACME) });
    await execute(
      t.app,
      { session_id: 's1', tool_calls: [{ id: 'e2', name: 'Edit', arguments: { path: 'a.txt', old_string: 'one', new_string: 'two' } }] },
      as(ACME),
    );
    writeFileSync(join(t.workspace, 'out.txt'), 'OUTPUT-ONLY-TEXT\n');
    await execute(t.app, { session_id: 's9', tool_calls: [{ id: 'o1', name: 'Read', arguments: { path: 'out.txt' } }] }, as(OTHER));

    const all = await records();
    expect(all.find((r) => r.kind === 'approval')).toMatchObject({
      tenant: 'acme',
      key_id: 'acme-admin',
      session_id: 's1',
      tool: 'Edit',
      approval_id: approval,
      decision: 'approved',
      decided_by: 'acme-admin',
    });
    const mine = all.filter((r) => r.kind === 'call');
    expect(mine.map((r) => r.call_id)).toEqual(['e2', 'e1', 'x1', 'r2', 'r1', 'w1']);
    const by = Object.fromEntries(mine.map((r) => [r.call_id, r]));
    expect(by.w1).toMatchObject({
      kind: 'call',
      tenant: 'acme',
      key_id: 'acme-admin',
      session_id: 's1',
      tool: 'Write',
      decision: 'allow',
      policy_reason: 'no rule matched',
      status: 'success',
    });
    expect(by.w1!.result_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(by.w1!.request_id).toBeTruthy();
    expect(by.r2).toMatchObject({ decision: 'deny', policy_reason: 'policy rule 0', error_code: 'PERMISSION_DENIED' });
    expect(by.x1).toMatchObject({ decision: null, error_code: 'UNKNOWN_TOOL', arguments: {} });
    expect(by.e1).toMatchObject({ decision: 'ask', approval_id: approval, error_code: 'APPROVAL_REQUIRED' });
    expect(by.e2).toMatchObject({ decision: 'approved', approval_id: approval, decided_by: 'acme-admin', status: 'success' });
    // Outputs never enter the trail: only their hashes.
    expect(JSON.stringify(await records(OTHER))).not.toContain('OUTPUT-ONLY-TEXT');
    expect((await records(OTHER)).map((r) => r.call_id)).toEqual(['o1']);
    expect((await records(ACME, '?tool=Read&limit=1')).map((r) => r.call_id)).toEqual(['r2']);
    expect((await t.app.inject({ method: 'GET', url: '/audit', headers: as('tg_acme_exec_0123456789') })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/audit?limit=1001', headers: as(ACME) })).statusCode).toBe(400);
    await trail.flush();
    expect(await verifyChain(store, 'r1')).toEqual({ chain: 'r1', records: 8 });
  });

  it('a call a person denied names who denied it, as one they approved does', async () => {
    trail = await openTrail(store);
    t = await buildTestApp({ audit: trail, config: { keys: KEYS, builtins: { Write: { requires_approval: true } } } });
    const write = (id: string, path: string) => ({
      session_id: 's1',
      tool_calls: [{ id, name: 'Write', arguments: { path, content: 'x' } }],
    });
    const asked = await execute(t.app, write('w1', 'no.txt'), as(ACME));
    const approval = asked.body.results[0].error.details.approval_id as string;
    const decided = await t.app.inject({
      method: 'POST',
      url: `/approvals/${approval}`,
      payload: { decision: 'deny', reason: 'not today' },
      headers: as(ACME),
    });
    expect(decided.json()).toMatchObject({ status: 'denied', decided_by: 'acme-admin' });
    const { body } = await execute(t.app, write('w2', 'no.txt'), as('tg_acme_exec_0123456789'));
    expect(body.results[0].error).toMatchObject({ code: 'PERMISSION_DENIED', details: { approval_id: approval } });
    const all = await records();
    expect(all.find((r) => r.kind === 'approval')).toMatchObject({
      approval_id: approval,
      decision: 'denied',
      decided_by: 'acme-admin',
      reason: 'not today',
    });
    expect(all.find((r) => r.call_id === 'w2')).toMatchObject({
      key_id: 'acme-exec',
      decision: 'denied',
      approval_id: approval,
      decided_by: 'acme-admin',
      error_code: 'PERMISSION_DENIED',
    });
    expect(all.find((r) => r.call_id === 'w1')).toMatchObject({ decision: 'ask', approval_id: approval, error_code: 'APPROVAL_REQUIRED' });
    expect(all.find((r) => r.call_id === 'w1')!.decided_by).toBeUndefined();
  });

  it('while the trail cannot be written: side-effecting calls answer AUDIT_UNAVAILABLE and do not run, reads go on, counted; /readyz names the audit store', async () => {
    trail = await openTrail(store);
    t = await buildTestApp({ audit: trail });
    const append = store.append.bind(store);
    let failing = true;
    store.append = (lines, first, durable) =>
      failing ? Promise.reject(new Error('ENOSPC: no space left on device')) : append(lines, first, durable);
    // The first side-effecting call finds the outage: it has run, but its result is withheld.
    const first = await execute(t.app, { tool_calls: [{ id: 'w1', name: 'Write', arguments: { path: 'a.txt', content: 'x' } }] });
    expect(first.body.results[0].error).toMatchObject({ code: 'AUDIT_UNAVAILABLE', retryable: true });
    const { body } = await execute(t.app, {
      tool_calls: [
        { id: 'w2', name: 'Write', arguments: { path: 'b.txt', content: 'x' } },
        { id: 'r1', name: 'Read', arguments: { path: 'a.txt' } },
      ],
    });
    expect(body.results[0].error).toMatchObject({ code: 'AUDIT_UNAVAILABLE', message: expect.stringMatching(/so Write was not run/) });
    expect(existsSync(join(t.workspace, 'b.txt'))).toBe(false);
    expect(body.results[1].status).toBe('success');
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().failed).toContain('audit_store');
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/toolgate_audit_unrecorded_total\{kind="refused"\} 1/);
    expect(metrics).toMatch(/toolgate_audit_unrecorded_total\{kind="read_only"\} 1/);
    failing = false;
    await trail.flush();
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const replayed = await execute(t.app, { tool_calls: [{ id: 'w1', name: 'Write', arguments: { path: 'a.txt', content: 'x' } }] });
    expect(replayed.body.results[0]).toMatchObject({ status: 'success', replayed: true });
  });
});
