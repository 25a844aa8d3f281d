import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { echoBashTool } from '../../../helpers/bash.js';

/**
 * Bash (docs/bash.md) and approvals (docs/approvals.md) through the whole app: a Bash command classified ASK
 * opens an approval bound to (tenant, session, tool, canonical command); an
 * approval admits the call once, a denial makes it PERMISSION_DENIED.
 */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function setUp(rules: unknown[] = []) {
  const runs: string[] = [];
  t = await buildTestApp({ builtins: false, tools: [echoBashTool(runs)], config: { policy: { rules } } });
  const bash = async (id: string, command: string, session = 's') => {
    const { body } = await execute(t!.app, { session_id: session, tool_calls: [{ id, name: 'Bash', arguments: { command } }] });
    return body.results[0] as Record<string, any>;
  };
  const decide = (id: string, decision: 'approve' | 'deny') =>
    t!.app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision } });
  const pending = async () => (await t!.app.inject({ method: 'GET', url: '/approvals' })).json().approvals as unknown[];
  return { runs, bash, decide, pending };
}

describe('Bash through the permission gate and the approvals', () => {
  it('ALLOW runs at once; DENY and an unparseable command are PERMISSION_DENIED and open no request', async () => {
    const { runs, bash, pending } = await setUp();
    expect((await bash('a', 'git status | head -3')).status).toBe('success');
    const denied = await bash('b', "'r''m' -rf /");
    expect(denied.error).toMatchObject({ code: 'PERMISSION_DENIED', retryable: false });
    expect(denied.error.message).toContain('rm -rf /: rm deletes files');
    expect((await bash('c', 'echo $(')).error.code).toBe('PERMISSION_DENIED');
    expect(runs).toEqual(['git status | head -3']);
    expect(await pending()).toHaveLength(0);
  });

  it('ASK returns APPROVAL_REQUIRED; once approved the same call runs exactly once, under another call id', async () => {
    const { runs, bash, decide } = await setUp();
    const first = await bash('a', 'mv draft.md notes.md');
    expect(first.error).toMatchObject({ code: 'APPROVAL_REQUIRED', retryable: true });
    const id = first.error.details.approval_id as string;
    expect((await bash('b', 'mv draft.md notes.md')).error.details.approval_id).toBe(id);
    expect(runs).toEqual([]);
    expect((await decide(id, 'approve')).statusCode).toBe(200);
    expect((await bash('c', 'mv draft.md notes.md')).status).toBe('success');
    expect(runs).toEqual(['mv draft.md notes.md']);
    const next = await bash('d', 'mv draft.md notes.md');
    expect(next.error.code).toBe('APPROVAL_REQUIRED');
    expect(next.error.details.approval_id).not.toBe(id);
    expect(runs).toHaveLength(1);
  });

  it('another spelling of the same canonical command is the same request, and the approval admits it', async () => {
    const { runs, bash, decide, pending } = await setUp();
    const first = await bash('a', 'mv draft.md notes.md');
    const respelled = await bash('b', `'m'"v"  draft.md   \\notes.md`);
    expect(respelled.error.details.approval_id).toBe(first.error.details.approval_id);
    expect(await pending()).toHaveLength(1);
    const other = await bash('c', 'mv draft.md other.md');
    expect(other.error.details.approval_id).not.toBe(first.error.details.approval_id);
    await decide(first.error.details.approval_id, 'approve');
    expect((await bash('d', `'m'"v"  draft.md   \\notes.md`)).status).toBe('success');
    expect((await bash('e', 'mv draft.md notes.md')).error.code).toBe('APPROVAL_REQUIRED');
    expect(runs).toEqual([`'m'"v"  draft.md   \\notes.md`]);
  });

  it('the request is bound to the session', async () => {
    const { runs, bash, decide } = await setUp();
    const first = await bash('a', 'npm install', 's1');
    await decide(first.error.details.approval_id, 'approve');
    expect((await bash('b', 'npm install', 's2')).error.code).toBe('APPROVAL_REQUIRED');
    expect(runs).toEqual([]);
  });

  it('a denied request makes the call PERMISSION_DENIED', async () => {
    const { runs, bash, decide } = await setUp();
    const first = await bash('a', 'git push origin main');
    await decide(first.error.details.approval_id, 'deny');
    const after = await bash('b', 'git push origin main');
    expect(after.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { approval_id: first.error.details.approval_id } });
    expect(runs).toEqual([]);
  });

  it('policy rules in the config widen and narrow per deployment', async () => {
    const { runs, bash } = await setUp([
      { tool: 'Bash', when: { command: '^npm test$' }, decision: 'allow' },
      { tool: 'Bash', when: { command: '^git push' }, decision: 'deny' },
    ]);
    expect((await bash('a', 'npm test')).status).toBe('success');
    expect((await bash('b', 'npm test && npm publish')).error.code).toBe('APPROVAL_REQUIRED');
    expect((await bash('c', '"git" push origin')).error.code).toBe('PERMISSION_DENIED');
    expect(runs).toEqual(['npm test']);
  });
});
