/**
 * What one Redis shard carries (docs/replicas.md, "Sharding and capacity"):
 *
 * 1. Redis commands per request, through the app on a redis-server of its
 *    own: the commands clients sent, and the commands the scripts ran inside
 *    Redis (the slow log at threshold 0, bench/redis.ts), for a one-call and a
 *    ten-call no-op batch, single node and in the Cluster layout (shared
 *    breakers, and per-tenant breakers).
 * 2. Requests/s one redis-server sustains: driver processes run the store's
 *    admit + settle of a one-call batch at high concurrency for a few seconds;
 *    Redis's own CPU (INFO cpu) says how busy that kept it, and INFO
 *    commandstats the microseconds each script cost inside Redis. Node drivers
 *    on a shared machine rarely keep Redis busy, so then redis-benchmark (C,
 *    pipelined) replays the exact EVALSHA commands of one such request, as
 *    the store sent them (MONITOR), until Redis is the bottleneck.
 *
 *   npx tsx bench/redis-capacity.ts [--seconds 5] [--rounds 3] [--drivers 2] [--concurrency 128]
 */
import { fork, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { buildApp } from '../src/app.js';
import { configFrom } from '../src/config/load.js';
import { createLogger } from '../src/observability/logger.js';
import { createRegistry, registryDefaults } from '../src/registry/registry.js';
import { systemClock } from '../src/shared/clock.js';
import { createSpillStore } from '../src/spill/index.js';
import { scopeOf } from '../src/state/breaker-scope.js';
import { createRedisStateStore } from '../src/state/redis/index.js';
import { createHttpDispatchers } from '../src/tools/http/index.js';
import { loadTools } from '../src/tools/index.js';
import { startRedis, type BenchRedis } from './shared/redis.js';
import { executeBody, SCENARIOS } from './shared/scenarios.js';
import { createEnvCredentials } from '../src/tools/credentials.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    drivers: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '128' },
    requests: { type: 'string', default: '200' },
    driver: { type: 'string' },
    lane: { type: 'string', default: '0' },
  },
});

const BREAKER = { failureThreshold: 3, recoveryMs: 300_000 };
const TENANTS = 64;

/**
 * A driver process: once the parent says go, admit + settle of one-call
 * batches, `concurrency` at a time, for `seconds`; then tells how many.
 */
async function drive(url: string, seconds: number, concurrency: number, id: string): Promise<void> {
  const store = createRedisStateStore({ url, keyPrefix: 'capacity', commandTimeoutMs: 5000, connectTimeoutMs: 5000 });
  await store.ping();
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    process.send?.({ ready: true });
  });
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const loop = async (lane: number) => {
    const tenant = `t${lane % TENANTS}`;
    const scope = scopeOf('Noop', tenant);
    for (let n = 0; Date.now() < deadline; n++) {
      const call = { tenant, sessionId: `${id}-${lane}`, callId: `c${n}`, tool: 'Noop' };
      const [answer] = await store.admit([{ ...call, breaker: { scope, ...BREAKER } }], Date.now());
      if (answer?.outcome !== 'admitted') throw new Error(`not admitted: ${JSON.stringify(answer)}`);
      await store.settle([{ ...call, breaker: { scope, ...BREAKER, outcome: 'success', probe: false } }], Date.now());
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, lane) => loop(lane)));
  process.send?.({ done });
  await store.close();
}

async function redisCpu(admin: Redis): Promise<number> {
  const info = await admin.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

/** Part 2: one round of `drivers` processes against one server, timed from when all are connected; requests/s and how busy Redis was. */
async function throughput(url: string, seconds: number, drivers: number, concurrency: number) {
  const admin = new Redis(url);
  const children = Array.from({ length: drivers }, (_, i) =>
    fork(new URL(import.meta.url), [
      '--driver',
      url,
      '--seconds',
      String(seconds),
      '--concurrency',
      String(concurrency),
      '--lane',
      String(i),
    ]),
  );
  const next = (child: ReturnType<typeof fork>) =>
    new Promise<{ ready?: boolean; done?: number }>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`driver exited ${code}`)));
    });
  await Promise.all(children.map(next));
  const finished = children.map(next);
  const cpuBefore = await redisCpu(admin);
  const started = performance.now();
  for (const child of children) child.send('go');
  const counts = await Promise.all(finished);
  const wall = (performance.now() - started) / 1000;
  const cpu = (await redisCpu(admin)) - cpuBefore;
  admin.disconnect();
  const requests = counts.reduce((sum, m) => sum + (m.done ?? 0), 0);
  return { rps: requests / wall, redisBusy: cpu / wall };
}

/** Part 1: the app as `toolgate serve` wires it, with an API key (so each request checks failed logins too). */
async function commandsPerRequest(redis: BenchRedis, requests: number, sharded: boolean, perTenantBreakers: boolean) {
  const workspace = await mkdtemp(join(tmpdir(), 'toolgate-capacity-'));
  const token = 'tg_capacity_bench_key';
  const config = configFrom({
    workspace,
    log_level: 'silent',
    builtins: { Noop: { enabled: true } },
    spill: { url: pathToFileURL(join(workspace, '.spill')).href },
    state: { redis_url: redis.url },
    keys: [{ id: 'bench', sha256: createHash('sha256').update(token).digest('hex'), tenant: 'acme', scopes: ['execute'] }],
    defaults: { per_tenant_breakers: perTenantBreakers },
  });
  const dispatchers = createHttpDispatchers();
  const registry = createRegistry(
    loadTools(config, { workspace, credentials: createEnvCredentials({}), dispatchers }),
    registryDefaults(config),
  );
  const spill = createSpillStore(config.spill.url, { ttlMs: config.spill.ttl_ms, clock: systemClock });
  const state = createRedisStateStore({ url: redis.url, keyPrefix: `cpr-${sharded}-${perTenantBreakers}`, sharded });
  const app = await buildApp({ state, spill, registry, clock: systemClock, logger: createLogger(config.log_level) }, config);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const out: Record<string, { sent: Record<string, number>; inScripts: number; cpuUs: number }> = {};
  const admin = new Redis(redis.url);
  try {
    for (const id of ['noop', 'noop10']) {
      const scenario = SCENARIOS.find((s) => s.id === id)!;
      const post = async (n: number) => {
        const res = await app.inject({ method: 'POST', url: '/execute', headers, payload: executeBody(scenario, n, 'redis') });
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
      };
      await post(-1); // loads the scripts: a fresh server answers NOSCRIPT once per script
      const counted = await redis.commandsDuring(async () => {
        for (let n = 0; n < requests; n++) await post(n);
      });
      // Again without the slow log, which costs Redis CPU of its own: Redis's CPU per request, one request at a time.
      const before = await redisCpu(admin);
      for (let n = 0; n < requests; n++) await post(n);
      const cpuUs = (((await redisCpu(admin)) - before) / requests) * 1e6;
      out[id] = {
        sent: Object.fromEntries(Object.entries(counted.sent).map(([name, count]) => [name, count / requests])),
        inScripts: counted.inScripts / requests,
        cpuUs: Math.round(cpuUs * 10) / 10,
      };
    }
  } finally {
    await app.close();
    await state.close();
    await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
    await rm(workspace, { recursive: true, force: true });
    admin.disconnect();
  }
  return out;
}

/** The commands one request of `calls` no-op calls sends (failed-login check, admit, settle), as the server saw them. */
async function oneRequest(url: string, calls: number): Promise<string[][]> {
  const client = new Redis(url);
  // Ready and quiet before MONITOR starts: a command in the same read as its OK fails ioredis's queue (see test/integration/state/redis/slots.test.ts).
  await client.ping();
  const monitor = await client.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_time: string, argv: string[], source: string) => {
    if (source !== 'lua') seen.push(argv);
  });
  const store = createRedisStateStore({ url, keyPrefix: 'replay' });
  const now = Date.now();
  const scope = scopeOf('Noop', 'acme');
  const batch = Array.from({ length: calls }, (_, i) => ({ tenant: 'acme', sessionId: 's', callId: `c${i}`, tool: 'Noop' }));
  for (let i = 0; i < 2; i++) {
    // Twice: the first loads the scripts (NOSCRIPT, EVAL); the second is what every request sends.
    if (i === 1) seen.length = 0;
    await store.hit('auth-failures:127.0.0.1', 10, 60_000, now, 0);
    await store.admit(
      batch.map((call) => ({ ...call, breaker: { scope, ...BREAKER } })),
      now,
    );
    await store.settle(
      batch.map((call) => ({ ...call, breaker: { scope, ...BREAKER, outcome: 'success' as const, probe: false } })),
      now,
    );
  }
  await store.ping();
  await new Promise((resolve) => setTimeout(resolve, 200));
  monitor.disconnect();
  client.disconnect();
  await store.close();
  return seen.filter((argv) => argv[0]?.toLowerCase() === 'evalsha');
}

/** redis-benchmark's requests/s for one command, pipelined from many connections, and Redis's CPU seconds per command. */
async function benchmark(url: string, argv: string[], requests: number): Promise<{ rate: number; cpu: number }> {
  const { port } = new URL(url);
  const admin = new Redis(url);
  const before = await redisCpu(admin);
  const run = spawnSync('redis-benchmark', ['-h', '127.0.0.1', '-p', port, '-n', String(requests), '-c', '50', '-P', '16', '-q', ...argv], {
    encoding: 'utf8',
  });
  if (run.error || run.status !== 0) throw new Error(`redis-benchmark failed: ${run.error?.message ?? run.stderr}`);
  // `-q` prints `<command>: <n> requests per second, p50=…` (progress lines end in a carriage return).
  const rates = [...run.stdout.matchAll(/([0-9.]+) requests per second/g)];
  const cpu = ((await redisCpu(admin)) - before) / requests;
  admin.disconnect();
  return { rate: Number(rates.at(-1)?.[1]), cpu };
}

if (args.driver) {
  await drive(args.driver, Number(args.seconds), Number(args.concurrency), String(args.lane));
} else {
  const redis = await startRedis();
  if (!redis) throw new Error('redis-server not found (set REDIS_SERVER_BIN)');
  try {
    for (const [label, sharded, perTenant] of [
      ['single node', false, false],
      ['Cluster layout, shared breakers', true, false],
      ['Cluster layout, per-tenant breakers', true, true],
    ] as const) {
      console.log(
        `commands per request, ${label}:`,
        JSON.stringify(await commandsPerRequest(redis, Number(args.requests), sharded, perTenant)),
      );
    }
    const admin = new Redis(redis.url);
    for (let round = 1; round <= Number(args.rounds); round++) {
      await admin.config('RESETSTAT');
      const { rps, redisBusy } = await throughput(redis.url, Number(args.seconds), Number(args.drivers), Number(args.concurrency));
      const usec = /^cmdstat_evalsha:.*usec_per_call=([0-9.]+)/m.exec(await admin.info('commandstats'))?.[1];
      console.log(
        `round ${round}: ${rps.toFixed(0)} one-call requests/s (admit + settle), redis-server CPU ${(redisBusy * 100).toFixed(0)}%, ${usec} µs per EVALSHA inside Redis`,
      );
    }
    admin.disconnect();
    const n = Number(args.requests) * 500;
    for (const [calls, round] of [1, 10].flatMap((c) => Array.from({ length: Number(args.rounds) }, (_, r) => [c, r + 1] as const))) {
      const commands = await oneRequest(redis.url, calls);
      const runs = [];
      for (const argv of commands) runs.push(await benchmark(redis.url, argv, n));
      // One request is one of each: its time on the server is the sum of theirs.
      const perRequest = 1 / runs.reduce((sum, r) => sum + 1 / r.rate, 0);
      const cpu = runs.reduce((sum, r) => sum + r.cpu, 0);
      console.log(
        `redis-benchmark, ${calls}-call batch, round ${round}: ${runs.map((r) => r.rate.toFixed(0)).join(' + ')} EVALSHA/s → ${perRequest.toFixed(0)} requests/s measured; ` +
          `Redis CPU ${runs.map((r) => (r.cpu * 1e6).toFixed(1)).join(' + ')} µs = ${(cpu * 1e6).toFixed(1)} µs per request → ${(1 / cpu).toFixed(0)} requests/s on a fully busy core`,
      );
    }
  } finally {
    await redis.stop();
  }
}
