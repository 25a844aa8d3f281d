import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { configFrom } from '../../src/config/load.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createRedisStateStore } from '../../src/state/redis/index.js';
import { buildTestApp, execute, type TestApp } from '../helpers/app.js';
import { echoBashTool } from '../helpers/bash.js';

const url = inject('redisUrl');
const STATE = configFrom().state;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Two gateways on one real Redis (one key prefix), each with its own Bash stand-in: what each replica ran. */
async function twoReplicas() {
  const keyPrefix = `bash-approvals-${randomUUID()}`;
  const clock = new ManualClock();
  const workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
  const options = { url, keyPrefix, clock, connectTimeoutMs: STATE.connect_timeout_ms, commandTimeoutMs: STATE.command_timeout_ms };
  const stores = [createRedisStateStore(options), createRedisStateStore(options)];
  await Promise.all(stores.map((s) => s.ping()));
  const runs: [string[], string[]] = [[], []];
  const apps = (await Promise.all(
    stores.map((state, i) => buildTestApp({ state, clock, workspace, builtins: false, tools: [echoBashTool(runs[i]!)] })),
  )) as [TestApp, TestApp];
  close = async () => {
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(stores.map((s) => s.close()));
    await rm(workspace, { recursive: true, force: true });
  };
  const bash = async (app: TestApp, id: string, command: string) => {
    const { body } = await execute(app.app, { session_id: 's', tool_calls: [{ id, name: 'Bash', arguments: { command } }] });
    return body.results[0] as Record<string, any>;
  };
  const decide = (app: TestApp, id: string, decision: 'approve' | 'deny') =>
    app.app.inject({ method: 'POST', url: `/approvals/${id}`, payload: { decision } });
  return { a: apps[0], b: apps[1], runs, bash, decide };
}

describe('Bash approvals across replicas: one Redis, any replica', () => {
  it('asked on one replica, approved on the other, run once on either, under another spelling', async () => {
    const { a, b, runs, bash, decide } = await twoReplicas();
    const asked = await bash(a, 'a', 'mkdir -p build');
    expect(asked.error.code).toBe('APPROVAL_REQUIRED');
    const id = asked.error.details.approval_id as string;
    expect((await bash(b, 'b', '"mkdir"  -p build')).error.details.approval_id).toBe(id);
    expect((await decide(b, id, 'approve')).statusCode).toBe(200);
    expect((await bash(b, 'c', "mkdir '-p' build")).status).toBe('success');
    expect((await bash(a, 'd', 'mkdir -p build')).error.code).toBe('APPROVAL_REQUIRED');
    expect(runs).toEqual([[], ["mkdir '-p' build"]]);
  });

  it('an approved command sent to both replicas at once runs exactly once', async () => {
    const { a, b, runs, bash, decide } = await twoReplicas();
    const asked = await bash(a, 'a', 'touch done.txt');
    await decide(a, asked.error.details.approval_id, 'approve');
    const results = await Promise.all([bash(a, 'b', 'touch done.txt'), bash(b, 'c', "touch 'done.txt'")]);
    expect(results.map((r) => r.status).sort()).toEqual(['error', 'success']);
    expect(runs.flat()).toHaveLength(1);
  });

  it('denied on one replica is PERMISSION_DENIED on the other', async () => {
    const { a, b, runs, bash, decide } = await twoReplicas();
    const asked = await bash(a, 'a', 'git commit -m wip');
    await decide(a, asked.error.details.approval_id, 'deny');
    expect((await bash(b, 'b', 'git commit -m wip')).error.code).toBe('PERMISSION_DENIED');
    expect(runs).toEqual([[], []]);
  });
});
