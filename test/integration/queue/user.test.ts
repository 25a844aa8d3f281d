import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileAuditStore } from '../../../src/audit/file-store.js';
import type { AuditTrail } from '../../../src/audit/index.js';
import { execute } from '../../helpers/app.js';
import { asyncGateway, type AsyncGateway } from '../../helpers/async.js';
import { forUser, ON_BEHALF_KEYS, PLAIN_KEY, whoTool } from '../../helpers/users.js';
import { openTrail } from '../../suites/audit-store.suite.js';

/**
 * On Redis: a queued batch keeps the user it was submitted for, so the worker's run is theirs (the tool, the log line, the audit
 * record); a limit with `per: user` gives each user of a key a bucket of their own across the fleet.
 */

let g: AsyncGateway | undefined;
let trail: AuditTrail | undefined;
let dir: string | undefined;
afterEach(async () => {
  await g?.close();
  await trail?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  g = trail = dir = undefined;
});

const admin = { authorization: `Bearer ${PLAIN_KEY}` };

describe('the user of a queued batch and of a shared rate limit', () => {
  it("a worker runs an async batch as its user's: the tool sees them, the log line and the audit record name them", async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-audit-user-'));
    trail = await openTrail(createFileAuditStore({ dir, rotateBytes: 1 << 20 }));
    g = await asyncGateway({ config: { keys: ON_BEHALF_KEYS }, tools: [whoTool()], audit: trail });
    const submitted = await g.submit({ session_id: 'q1', tool_calls: [{ id: 'c1', name: 'Who', arguments: {} }] }, forUser('alice'));
    expect(submitted.status).toBe(202);
    g.startWorkers();
    const done = await g.until(submitted.body.execution_id, ['completed', 'failed'], forUser('alice'));
    expect(done.results[0]).toMatchObject({ status: 'success', text: 'for alice run 1' });
    expect(g.logs.find((l) => l.msg === 'tool call' && l.session_id === 'q1')).toMatchObject({ user: 'alice' });
    const audit = await g.app.inject({ method: 'GET', url: '/audit?user=alice', headers: admin });
    expect(audit.json().records).toEqual([expect.objectContaining({ call_id: 'c1', user: 'alice', key_id: 'backend', request_id: '' })]);
  });

  it('per: user on Redis: two users of one key have separate budgets, and a call for no user takes from the key', async () => {
    const limited = { ...whoTool(), concurrencySafe: true, rateLimit: { perMinute: 1, per: 'user' as const } };
    g = await asyncGateway({ config: { keys: ON_BEHALF_KEYS }, tools: [limited] });
    const run = async (user?: string) => {
      const calls = [0, 1].map((i) => ({ id: `${user ?? 'own'}${i}`, name: 'Who', arguments: {} }));
      const { body } = await execute(g!.app, calls, forUser(user));
      return body.results.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status);
    };
    expect(await run('alice')).toEqual(['success', 'RATE_LIMITED']);
    expect(await run('bob')).toEqual(['success', 'RATE_LIMITED']);
    expect(await run()).toEqual(['success', 'RATE_LIMITED']);
  });
});
