import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { slowTool } from '../../../helpers/tools.js';

/**
 * An ASK creates an approval request bound to (tenant, session,
 * tool, canonical arguments hash); once approved the same call (same tool and
 * arguments, any call id) from that session runs once; requests expire (1 h).
 */

const HOUR = 3_600_000;
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function setUp(counter = { runs: 0 }) {
  t = await buildTestApp({
    builtins: false,
    tools: [slowTool('Deploy', { safe: false, ms: 1, counter }), slowTool('Other', { safe: false, ms: 1 })],
    config: {
      policy: {
        rules: [
          { tool: 'Deploy', decision: 'ask' },
          { tool: 'Other', decision: 'ask' },
        ],
      },
    },
  });
  return t;
}

async function ask(app: TestApp['app'], session: string, id: string, args: Record<string, unknown>, name = 'Deploy') {
  const { body } = await execute(app, { session_id: session, tool_calls: [call(id, name, args)] });
  return body.results[0];
}

async function decide(app: TestApp['app'], id: string, decision: 'approve' | 'deny') {
  return app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision } });
}

async function pending(app: TestApp['app']): Promise<Array<Record<string, any>>> {
  return (await app.inject({ method: 'GET', url: '/approvals' })).json().approvals;
}

describe('approvals: bound to the session, the tool and its arguments', () => {
  it('are bound to the session: an approval in one session admits nothing in another', async () => {
    const counter = { runs: 0 };
    const { app } = await setUp(counter);
    const first = await ask(app, 's1', 'a', { env: 'prod' });
    expect(first.error).toMatchObject({ code: 'APPROVAL_REQUIRED', retryable: true });
    await decide(app, first.error.details.approval_id, 'approve');
    const other = await ask(app, 's2', 'b', { env: 'prod' });
    expect(other.error.code).toBe('APPROVAL_REQUIRED');
    expect(other.error.details.approval_id).not.toBe(first.error.details.approval_id);
    expect(counter.runs).toBe(0);
    expect((await ask(app, 's1', 'c', { env: 'prod' })).status).toBe('success');
    expect(counter.runs).toBe(1);
  });

  it('are bound to the tool and the arguments: other arguments or another tool make a new request', async () => {
    const { app } = await setUp();
    const first = await ask(app, 's', 'a', { env: 'prod' });
    await decide(app, first.error.details.approval_id, 'approve');
    const otherArgs = await ask(app, 's', 'b', { env: 'staging' });
    expect(otherArgs.error.code).toBe('APPROVAL_REQUIRED');
    const otherTool = await ask(app, 's', 'c', { env: 'prod' }, 'Other');
    expect(otherTool.error.code).toBe('APPROVAL_REQUIRED');
    expect(new Set([first, otherArgs, otherTool].map((r) => r.error.details.approval_id)).size).toBe(3);
  });

  it('the arguments are compared canonically: the same call with keys in another order is the same call', async () => {
    const counter = { runs: 0 };
    const { app } = await setUp(counter);
    const first = await ask(app, 's', 'a', { env: 'prod', opts: { force: false, region: 'eu' } });
    const again = await ask(app, 's', 'b', { opts: { region: 'eu', force: false }, env: 'prod' });
    expect(again.error.details.approval_id).toBe(first.error.details.approval_id);
    expect(await pending(app)).toHaveLength(1);
    await decide(app, first.error.details.approval_id, 'approve');
    expect((await ask(app, 's', 'c', { opts: { force: false, region: 'eu' }, env: 'prod' })).status).toBe('success');
    expect(counter.runs).toBe(1);
  });

  it('an approved call runs once, under any call id; the next identical call asks again', async () => {
    const counter = { runs: 0 };
    const { app } = await setUp(counter);
    const first = await ask(app, 's', 'a', { env: 'prod' });
    await decide(app, first.error.details.approval_id, 'approve');
    expect((await ask(app, 's', 'new-id', { env: 'prod' })).status).toBe('success');
    const next = await ask(app, 's', 'another-id', { env: 'prod' });
    expect(next.error.code).toBe('APPROVAL_REQUIRED');
    expect(next.error.details.approval_id).not.toBe(first.error.details.approval_id);
    expect(counter.runs).toBe(1);
  });

  it('a denied request makes the call PERMISSION_DENIED (not retryable) under any call id', async () => {
    const counter = { runs: 0 };
    const { app } = await setUp(counter);
    const first = await ask(app, 's', 'a', { env: 'prod' });
    expect((await decide(app, first.error.details.approval_id, 'deny')).statusCode).toBe(200);
    for (const id of ['b', 'c']) {
      const denied = await ask(app, 's', id, { env: 'prod' });
      expect(denied.error).toMatchObject({ code: 'PERMISSION_DENIED', retryable: false });
    }
    expect(counter.runs).toBe(0);
  });

  it('a request expires after 1 h by default: unlisted, undecidable, and the call asks anew', async () => {
    const { app, clock } = await setUp();
    const first = await ask(app, 's', 'a', { env: 'prod' });
    const id = first.error.details.approval_id as string;
    const [listed] = await pending(app);
    expect(listed).toMatchObject({ id, session_id: 's', tool: 'Deploy', status: 'pending' });
    expect(listed!.expires_at - listed!.created_at).toBe(HOUR);
    clock.advance(HOUR - 1);
    expect((await pending(app)).map((a) => a.id)).toEqual([id]);
    clock.advance(1);
    expect(await pending(app)).toEqual([]);
    expect((await decide(app, id, 'approve')).statusCode).toBe(404);
    const anew = await ask(app, 's', 'b', { env: 'prod' });
    expect(anew.error.code).toBe('APPROVAL_REQUIRED');
    expect(anew.error.details.approval_id).not.toBe(id);
  });

  it('an approval not used within the hour expires too', async () => {
    const counter = { runs: 0 };
    const { app, clock } = await setUp(counter);
    const first = await ask(app, 's', 'a', { env: 'prod' });
    clock.advance(HOUR / 2);
    await decide(app, first.error.details.approval_id, 'approve');
    clock.advance(HOUR / 2);
    expect((await ask(app, 's', 'b', { env: 'prod' })).error.code).toBe('APPROVAL_REQUIRED');
    expect(counter.runs).toBe(0);
  });
});

describe('POST /approvals/{id} bodies: approve or deny, nothing else', () => {
  it('a decision other than approve or deny is one message saying so', async () => {
    const app = (await setUp()).app;
    const res = await app.inject({ method: 'POST', url: '/approvals/x', payload: { decision: 'maybe' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      code: 'BAD_REQUEST',
      message: 'The body is invalid: decision must be approve or deny.',
      details: { errors: [{ path: '/decision', message: 'must be approve or deny' }] },
    });
  });

  it('an extra field is refused with 400 naming it, not ignored, and the call stays pending', async () => {
    const app = (await setUp()).app;
    const asked = await ask(app, 's', 'c1', { env: 'prod' });
    const id = asked.error.details.approval_id as string;
    const res = await app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision: 'approve', reasn: 'typo' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('The body is invalid: it has an unknown field "reasn".');
    expect((await pending(app)).map((a) => a.id)).toEqual([id]);
  });
});
