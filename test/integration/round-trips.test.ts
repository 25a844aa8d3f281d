import { createHash, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis/index.js';
import { buildTestApp, execute, type TestApp } from '../helpers/app.js';
import { countSocketWrites, OwnRedis, redisServerBinary } from '../helpers/redis.js';

const TOKEN = 'tg_round_trips_test_key';
/** With keys configured every request also asks the store about failed logins; a deployment with Redis has keys. */
const KEYS = [{ id: 'agent', sha256: createHash('sha256').update(TOKEN).digest('hex'), tenant: 'acme', scopes: ['execute'] }];
const AUTH = { authorization: `Bearer ${TOKEN}` };

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });
const reads = (n: number) => Array.from({ length: n }, (_, i) => call(`read-${i}`, 'Read', { path: `f${i}.txt` }));
const edit = (path: string, from: string, to: string) => call(`edit-${randomUUID()}`, 'Edit', { path, old_string: from, new_string: to });

const LUA_CLIENT = '?:0';
/** Taking and releasing a file's write lock. */
const FILE_LOCK = 2;

/**
 * Counts round trips on the gateway's one Redis connection: every write to
 * its socket is one request sent before waiting for the answer. The
 * connection sends the commands of one event-loop turn in one write, and
 * ioredis writes a pipeline in one go, so either counts once, as it costs
 * once. The server's slow log (threshold 0) lists the commands sent, to show
 * that no other connection carried any and what each round trip was.
 */
class RoundTrips {
  private readonly writes: { count: number };

  constructor(
    client: Redis,
    private readonly admin: Redis,
  ) {
    this.writes = countSocketWrites(client);
  }

  async during(work: () => Promise<void>): Promise<{ roundTrips: number; commands: string[] }> {
    await this.admin.slowlog('RESET');
    this.writes.count = 0;
    await work();
    const roundTrips = this.writes.count;
    const log = (await this.admin.slowlog('GET', 10_000)) as [number, number, number, string[], string, string][];
    // Commands a script runs are logged too, from the server's own Lua client.
    const sent = log.filter((e) => e[4] !== LUA_CLIENT && e[5] !== 'admin');
    expect(
      sent.filter((e) => e[5] !== 'gateway'),
      'commands on a connection that was not counted',
    ).toEqual([]);
    const commands = sent.map((e) => String(e[3][0]).toLowerCase());
    return { roundTrips, commands };
  }
}

/**
 * Single node: one admit and one settle script per batch. The Cluster layout
 * (sharded, measured here on one node) with the shared breakers: a batch
 * whose calls need nothing of the tenant's is admitted by the breakers'
 * script alone, an unsafe call is admitted in two (breakers, then tenant),
 * and settling sends both scripts in one write (docs/replicas.md).
 */
const LAYOUTS = [
  { layout: 'single node', sharded: false, perUnsafeCall: 2, defaults: {} },
  { layout: 'Cluster layout, shared breakers', sharded: true, perUnsafeCall: 3, defaults: { per_tenant_breakers: false } },
];

describe.each(LAYOUTS)(
  'Redis round trips per request (house style: a number we track), $layout',
  ({ sharded, perUnsafeCall, defaults }) => {
    let server: OwnRedis;
    let client: Redis;
    let admin: Redis;
    let store: RedisStateStore;
    let t: TestApp;
    let counter: RoundTrips;

    beforeAll(async () => {
      server = await OwnRedis.start(redisServerBinary());
      admin = new Redis(server.url, { connectionName: 'admin' });
      await admin.config('SET', 'slowlog-log-slower-than', '0');
      await admin.config('SET', 'slowlog-max-len', '10000');
      // A client of the test's own, named so its commands can be told apart; the store's connection
      // rule (one write per event-loop turn) applies to a given client as to its own.
      client = new Redis(server.url, { connectionName: 'gateway' });
      await client.ping();
      store = createRedisStateStore({ client, keyPrefix: `round-trips-${randomUUID()}`, sharded });
      t = await buildTestApp({ state: store, config: { keys: KEYS, defaults } });
      // The key is tenant acme's: its calls work in acme's folder of the workspace.
      const ws = join(t.workspace, 'acme');
      await mkdir(ws, { recursive: true });
      await Promise.all(Array.from({ length: 10 }, (_, i) => writeFile(join(ws, `f${i}.txt`), `file ${i}\n`)));
      await writeFile(join(ws, 'a.txt'), 'one\n');
      await writeFile(join(ws, 'b.txt'), 'two\n');
      await writeFile(join(ws, 'warm.txt'), 'cold\n');
      // A fresh server knows none of the scripts: the first use of each costs one more round trip (NOSCRIPT, then EVAL).
      const warmUp = await execute(t.app, [call('warm-up', 'Read', { path: 'warm.txt' }), edit('warm.txt', 'cold', 'warm')], {
        ...AUTH,
        'idempotency-key': 'warm-up',
      });
      expect(warmUp.body.results.map((r: { status: string }) => r.status)).toEqual(['success', 'success']);
      counter = new RoundTrips(client, admin);
    });

    afterAll(async () => {
      await t?.close();
      await store?.close();
      client?.disconnect();
      admin?.disconnect();
      await server?.stop();
    });

    const post = (body: unknown, headers: Record<string, string> = {}) =>
      counter.during(async () => {
        const res = await execute(t.app, body, { ...AUTH, ...headers });
        expect(res.status).toBe(200);
        for (const r of res.body.results) expect(r.status, JSON.stringify(r.error)).toBe('success');
      });

    it('POST /execute with 10 read-only calls: at most 3 (auth check, one admit, one settle)', async () => {
      const measured = await post(reads(10));
      expect(measured.roundTrips).toBeLessThanOrEqual(3);
      // No pipelines here: the server saw one command per write the counter saw, but for the
      // settle of the Cluster layout, whose two scripts (the locks' and the breakers' slot) share a write.
      expect(measured.commands.length).toBe(measured.roundTrips + (sharded ? 1 : 0));
    });

    // A write's file lock is taken once its temp file is written, after admission, and released after the rename, before settling
    // (docs/replicas.md, "The write lock"): two round trips of its own per Write or Edit, one script each.
    it(`[10 reads, Edit, Edit]: at most 3 + ${perUnsafeCall} per unsafe call + ${FILE_LOCK} per write (its file lock)`, async () => {
      const measured = await post([...reads(10), edit('a.txt', 'one', 'ONE'), edit('b.txt', 'two', 'TWO')]);
      expect(measured.roundTrips).toBeLessThanOrEqual(3 + (perUnsafeCall + FILE_LOCK) * 2);
      if (!sharded) expect(measured.commands.length).toBe(measured.roundTrips);
    });

    it('an Idempotency-Key adds 2 (claim and complete)', async () => {
      const measured = await post(reads(10), { 'idempotency-key': `k-${randomUUID()}` });
      expect(measured.roundTrips).toBeLessThanOrEqual(3 + 2);
    });

    it('GET /tools: the breakers of every tool in one pipelined round trip (and the auth check)', async () => {
      const measured = await counter.during(async () => {
        expect((await t.app.inject({ method: 'GET', url: '/tools', headers: AUTH })).statusCode).toBe(200);
      });
      expect(measured.roundTrips).toBe(2);
      // One HMGET per tool went in that one pipeline.
      expect(measured.commands.filter((c) => c === 'hmget')).toHaveLength(6);
    });
  },
);
