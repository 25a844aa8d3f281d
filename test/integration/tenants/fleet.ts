import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, inject } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { ManualClock } from '../../../src/shared/clock.js';
import { createRedisStateStore } from '../../../src/state/redis/index.js';
import type { StateStore } from '../../../src/state/state-store.js';
import type { Tool } from '../../../src/tools/tool.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

/** Two tenants, each with an execute key and an admin key, and two gateways on one Redis, as a fleet runs. */

const url = inject('redisUrl');
const STATE = configFrom().state;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const KEY = { acme: 'tg_acme', acmeAdmin: 'tg_acme-admin', globex: 'tg_globex', globexAdmin: 'tg_globex-admin' };
export const KEYS = [
  { id: 'acme', sha256: sha256(KEY.acme), tenant: 'acme', scopes: ['execute'] },
  { id: 'acme-admin', sha256: sha256(KEY.acmeAdmin), tenant: 'acme', scopes: ['admin'] },
  { id: 'globex', sha256: sha256(KEY.globex), tenant: 'globex', scopes: ['execute'] },
  { id: 'globex-admin', sha256: sha256(KEY.globexAdmin), tenant: 'globex', scopes: ['admin'] },
];
export const as = (key: string) => ({ authorization: `Bearer ${key}` });

export interface Fleet {
  a: FastifyInstance;
  b: FastifyInstance;
  workspace: string;
  /** Both replicas' clock, as both read the system clock in production. */
  clock: ManualClock;
}

let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/** Two gateways on one Redis prefix and one workspace, with these tools beside the built-ins. */
export async function fleet(tools: Tool[], config: Record<string, unknown> = {}): Promise<Fleet> {
  const keyPrefix = `tenants-${randomUUID()}`;
  const clock = new ManualClock();
  const workspace = await mkdtemp(join(tmpdir(), 'toolgate-ws-'));
  closers.push(() => rm(workspace, { recursive: true, force: true }));
  const options = { url, keyPrefix, clock, connectTimeoutMs: STATE.connect_timeout_ms, commandTimeoutMs: STATE.command_timeout_ms };
  const stores: StateStore[] = [createRedisStateStore(options), createRedisStateStore(options)];
  closers.push(() => Promise.all(stores.map((s) => s.close())));
  await Promise.all(stores.map((s) => s.ping()));
  const apps = (await Promise.all(
    stores.map((state) => buildTestApp({ state, clock, workspace, tools, config: { keys: KEYS, ...config } })),
  )) as [TestApp, TestApp];
  closers.push(() => Promise.all(apps.map((t) => t.close())));
  return { a: apps[0].app, b: apps[1].app, workspace, clock };
}

let calls = 0;
/** One call as `key`, under a call id of its own; its result. */
export async function one(app: FastifyInstance, key: string, name: string, args: Record<string, unknown>) {
  const { body } = await execute(app, { session_id: 's1', tool_calls: [{ id: `c${++calls}`, name, arguments: args }] }, as(key));
  return body.results[0];
}
