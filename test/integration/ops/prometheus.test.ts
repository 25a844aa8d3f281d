import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { alertRules, dashboardQueries, OPS_FILES, withRateInterval } from '../../helpers/ops.js';
import { OwnRedis } from '../../helpers/redis.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { startServer, type TestServer } from '../http-tools/helpers.js';
import {
  promtool,
  renderPrometheusConfig,
  requireBinary,
  startPrometheus,
  toolgate,
  type Proc,
  type PrometheusApi,
  type Sample,
} from './stack.js';

/**
 * The dashboard and the alert rules are proven against Prometheus,
 * not drawn. Two gateways and a worker run as processes on one Redis, as in
 * docker-compose.yml; Prometheus (Debian's) scrapes them with the
 * repository's prometheus.yml and alerts.yml, only the targets and intervals
 * replaced; traffic opens a breaker, hits a rate limit, leaves an approval
 * pending, spills an output on one replica and fails to on the other, and
 * queues async batches faster than the worker runs them. Then every query of
 * every panel, and every alert expression, must return data. The two alerts
 * about an outage (the state store, a replica) are made to fire at the end by
 * stopping Redis and killing the worker.
 */

const INTERVAL = '1s';
// $__rate_interval as the test sets it: spans all of the test's traffic.
const RATE_INTERVAL = '5m';
const SLOW_MS = 6_000;
/** Slow async batches queued at once: with one worker running one at a time, the backlog stays over the alert's 10 for a minute. */
const BACKLOG = 20;
const POLL_MS = 30_000;
const OUTAGE_ALERTS = ['ToolgateStateStoreUnavailable', 'ToolgateReplicaDown'];
/** The panel query that counts state-store failures: zero until the outage at the end, checked there. */
const OUTAGE_QUERY = 'Spill failures and state-store failures / B';

let scratch: string;
let redis: OwnRedis | undefined;
let upstream: TestServer | undefined;
const procs: Proc[] = [];
let prometheus: PrometheusApi;
let gateways: string[] = [];
/** The scrape targets (host:port) of replicas a and b. */
let metricsOf: { a: string; b: string };
let promtoolBin: string;

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

async function execute(origin: string, body: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${origin}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** Results of one batch through the given gateway, as error codes ('' for none). */
async function codes(origin: string, calls: ReturnType<typeof call>[]): Promise<string[]> {
  const body = await execute(origin, { session_id: 'ops', tool_calls: calls });
  return (body.results as Array<{ error?: { code: string } }>).map((r) => r.error?.code ?? '');
}

/**
 * Polls an instant query until it returns a sample with a finite value (NaN
 * from an empty histogram is no data), non-zero too when `nonZero`.
 */
async function data(expr: string, options: { nonZero?: boolean; ms?: number } = {}): Promise<Sample[]> {
  const deadline = Date.now() + (options.ms ?? POLL_MS);
  const shows = (value: number) => Number.isFinite(value) && (!options.nonZero || value !== 0);
  for (;;) {
    const result = await prometheus.query(expr);
    if (result.some((s) => shows(Number(s.value[1])))) return result;
    if (Date.now() > deadline) return [];
    await sleep(500);
  }
}

async function startStack(): Promise<void> {
  const prometheusBin = requireBinary('prometheus');
  promtoolBin = requireBinary('promtool');
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-ops-'));
  redis = await OwnRedis.start(inject('redisBinary') || 'redis-server');
  upstream = await startServer((req, res) => {
    const answer = (status: number, body: string) => void res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    if (req.url === '/fail') answer(500, 'failing on purpose');
    else if (req.url === '/big') answer(200, 'x'.repeat(120_000));
    else if (req.url === '/slow') setTimeout(() => answer(200, 'slow answer'), SLOW_MS);
    else answer(200, 'ok');
  });
  const tool = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    description: `GET ${path} on the test's upstream.`,
    parameters: { type: 'object', properties: {} },
    http: { method: 'GET', url: `${upstream!.origin}${path}`, allow_private_network: true, retries: 0 },
    ...extra,
  });
  await writeFile(
    join(scratch, 'config.yaml'),
    stringify({
      tools: [tool('flaky', '/fail'), tool('big', '/big'), tool('slow', '/slow', { timeout_ms: SLOW_MS * 3 })],
      builtins: { LS: { rate_limit: { per_minute: 2 } } },
      policy: { rules: [{ tool: 'Write', decision: 'ask' }] },
      async: { concurrency: 1, callback_secret: 'ops-test-callback-secret-0123456789', callback_allow_private_network: true },
    }),
  );
  const workspace = join(scratch, 'workspace');
  await mkdir(workspace);
  await writeFile(join(workspace, 'hello.txt'), 'hello\n');
  const common = {
    REDIS_URL: redis.url,
    TOOLGATE_REDIS_PREFIX: `ops-${randomUUID()}`,
    TOOLGATE_CONFIG: join(scratch, 'config.yaml'),
    TOOLGATE_WORKSPACE: workspace,
    HOST: '127.0.0.1',
  };
  const ports = { a: await freePort(), am: await freePort(), b: await freePort(), bm: await freePort(), wm: await freePort() };
  const spill = (name: string) => `file://${join(scratch, `spill-${name}`)}`;
  procs.push(
    toolgate('gateway a', 'serve', scratch, {
      ...common,
      PORT: String(ports.a),
      METRICS_PORT: String(ports.am),
      TOOLGATE_SPILL_URL: spill('a'),
    }),
    toolgate('gateway b', 'serve', scratch, {
      ...common,
      PORT: String(ports.b),
      METRICS_PORT: String(ports.bm),
      TOOLGATE_SPILL_URL: spill('b'),
    }),
    toolgate('worker', 'worker', scratch, { ...common, METRICS_PORT: String(ports.wm), TOOLGATE_SPILL_URL: spill('w') }),
  );
  await Promise.all([procs[0]!.listening(ports.a), procs[1]!.listening(ports.b), procs[2]!.listening(ports.wm)]);
  gateways = [`http://127.0.0.1:${ports.a}`, `http://127.0.0.1:${ports.b}`];

  metricsOf = { a: `127.0.0.1:${ports.am}`, b: `127.0.0.1:${ports.bm}` };
  const targets = { toolgate: [metricsOf.a, metricsOf.b], 'toolgate-worker': [`127.0.0.1:${ports.wm}`] };
  const configPath = await renderPrometheusConfig(scratch, targets, INTERVAL);
  promtool(promtoolBin, ['check', 'config', configPath]);
  const started = await startPrometheus(prometheusBin, configPath, join(scratch, 'tsdb'));
  procs.push(started.proc);
  prometheus = started.api;
  // Every counter scraped at zero before the traffic, so increase() and rate() see it grow.
  const deadline = Date.now() + POLL_MS;
  while ((await prometheus.targets()).filter((t) => t.health === 'up').length < 3) {
    if (Date.now() > deadline) throw new Error(`targets not up: ${JSON.stringify(await prometheus.targets())}`);
    await sleep(250);
  }
}

/** Until Prometheus has scraped a series of `expr`: an event after that one is seen as a rise, by rate() too. */
async function scraped(expr: string): Promise<void> {
  const deadline = Date.now() + POLL_MS;
  while ((await prometheus.query(expr)).length === 0) {
    if (Date.now() > deadline) throw new Error(`Prometheus never scraped ${expr}`);
    await sleep(200);
  }
}

/**
 * The traffic the panels and alerts need. rate() reads a labelled series
 * from its second sample on, and the first event of a kind creates its
 * series (docs/operations.md#reading-the-dashboard): so each kind the
 * panels rate happens again, on the same replica, once Prometheus has
 * scraped the first.
 */
async function driveTraffic(): Promise<void> {
  const [a, b] = gateways as [string, string];
  expect(await codes(a, [call('ls1', 'LS'), call('f1', 'flaky')])).toEqual(['', 'UPSTREAM_ERROR']);
  expect(await codes(b, [call('w1', 'Write', { path: 'x.txt', content: 'x' })])).toEqual(['APPROVAL_REQUIRED']);
  const kept = await execute(a, { tool_calls: [call('big1', 'big')] });
  expect(kept.results[0].truncated.url).toMatch(/^\/outputs\//);
  // Replica b's spill directory becomes a file: its next oversized output cannot be stored.
  await rm(join(scratch, 'spill-b'), { recursive: true, force: true });
  await writeFile(join(scratch, 'spill-b'), '');
  const lost = await execute(b, { tool_calls: [call('big2', 'big')] });
  expect(lost.results[0].truncated).toMatchObject({ url: null, spill_error: expect.any(String) });
  expect(await codes(a, [call('ls2', 'LS'), call('ls3', 'LS')])).toContain('RATE_LIMITED');
  // One batch with a callback, then a backlog of slow ones the single worker takes one at a time.
  const queued = await execute(a, {
    mode: 'async',
    tool_calls: [call('r1', 'Read', { path: 'hello.txt' })],
    callback_url: `${upstream!.origin}/hook`,
  });
  expect(queued.status).toBe('queued');
  for (let i = 0; i < BACKLOG; i++) await execute(gateways[i % 2]!, { mode: 'async', tool_calls: [call(`s${i}`, 'slow')] });

  await scraped(`toolgate_tool_calls_total{instance="${metricsOf.a}",code="RATE_LIMITED"}`);
  await scraped(`toolgate_tool_calls_total{instance="${metricsOf.a}",code="UPSTREAM_ERROR"}`);
  await scraped(`toolgate_tool_calls_total{instance="${metricsOf.b}",code="APPROVAL_REQUIRED"}`);
  expect(await codes(b, [call('f2', 'flaky')])).toEqual(['UPSTREAM_ERROR']);
  // The third failure in a row, on the other replica: the shared breaker opens for both.
  expect(await codes(a, [call('f3', 'flaky')])).toEqual(['UPSTREAM_ERROR']);
  expect(await codes(a, [call('ls4', 'LS')])).toEqual(['RATE_LIMITED']);
  expect(await codes(b, [call('w2', 'Write', { path: 'z.txt', content: 'z' })])).toEqual(['APPROVAL_REQUIRED']);
  expect(await codes(b, [call('f4', 'flaky')])).toEqual(['CIRCUIT_OPEN']);
  expect(await codes(a, [call('f5', 'flaky'), call('r2', 'Read', { path: 'hello.txt' })])).toEqual(['CIRCUIT_OPEN', '']);
  const deadline = Date.now() + POLL_MS;
  while (!upstream!.requests.some((r) => r.url === '/hook')) {
    if (Date.now() > deadline) throw new Error('the worker never delivered the callback');
    await sleep(200);
  }
}

beforeAll(async () => {
  await startStack();
  await driveTraffic();
}, 180_000);

afterAll(async () => {
  for (const proc of procs.splice(0).reverse()) await proc.kill();
  await redis?.stop();
  await upstream?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the repository's Prometheus files, against live gateways and a worker", () => {
  it("promtool accepts the repository's config and rule files", () => {
    expect(promtool(promtoolBin, ['check', 'config', OPS_FILES.prometheus.pathname])).toContain('SUCCESS');
    expect(promtool(promtoolBin, ['check', 'rules', OPS_FILES.alerts.pathname])).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('every alert about the traffic returns data, and Prometheus evaluates every rule without error', async () => {
    const rules = await alertRules();
    const missing: string[] = [];
    for (const rule of rules.filter((r) => !OUTAGE_ALERTS.includes(r.alert))) {
      if ((await data(rule.expr)).length === 0) missing.push(rule.alert);
    }
    expect(missing).toEqual([]);
    const loaded = await prometheus.rules();
    expect(loaded.map((r) => r.name).sort()).toEqual(rules.map((r) => r.alert).sort());
    for (const rule of loaded) expect(rule, rule.name).toMatchObject({ health: 'ok' });
    // Prometheus itself evaluated them: each is pending (waiting out its `for`) or firing.
    const expected = rules
      .filter((r) => !OUTAGE_ALERTS.includes(r.alert))
      .map((r) => r.alert)
      .sort();
    const active = async () =>
      (await prometheus.rules())
        .filter((r) => r.state !== 'inactive')
        .map((r) => r.name)
        .sort();
    const deadline = Date.now() + POLL_MS;
    while (JSON.stringify(await active()) !== JSON.stringify(expected) && Date.now() < deadline) await sleep(500);
    expect(await active()).toEqual(expected);
  }, 120_000);

  it("the breaker the traffic opened is open (2) in every process's gauge, and the spill failure is on replica b only", async () => {
    const open = await data('toolgate_breaker_state{tool="flaky"}');
    expect(open.map((s) => s.value[1])).toEqual(['2', '2', '2']);
    const failures = await data('toolgate_spill_failures_total{job="toolgate"}');
    const byReplica = Object.fromEntries(failures.map((s) => [s.metric.instance, Number(s.value[1])]));
    expect(byReplica[metricsOf.a]).toBe(0);
    expect(byReplica[metricsOf.b]).toBeGreaterThanOrEqual(1);
  });

  it('every query of every dashboard panel shows the traffic: a value, and not zero', async () => {
    const missing: string[] = [];
    for (const query of (await dashboardQueries()).filter((q) => q.name !== OUTAGE_QUERY)) {
      if ((await data(withRateInterval(query.expr, RATE_INTERVAL), { nonZero: true })).length === 0)
        missing.push(`${query.name}: ${query.expr}`);
    }
    expect(missing).toEqual([]);
  }, 240_000);

  it('with Redis stopped and the worker killed, the state-store and replica-down alerts return data', async () => {
    await procs.find((p) => p.name === 'worker')!.kill();
    await redis!.stop();
    const rules = await alertRules();
    for (const name of OUTAGE_ALERTS) {
      const rule = rules.find((r) => r.alert === name)!;
      expect(await data(rule.expr), name).not.toEqual([]);
    }
    // The pending-approvals gauge is NaN (unknown) now, and Prometheus takes prom-client's "Nan" for it.
    const deadline = Date.now() + POLL_MS;
    const unknown = async () => (await prometheus.query('toolgate_approvals_pending{job="toolgate"}')).map((s) => s.value[1]);
    while (!(await unknown()).includes('NaN') && Date.now() < deadline) await sleep(500);
    expect(await unknown()).toContain('NaN');
    const down = await data('up == 0');
    expect(down.map((s) => s.metric.job)).toEqual(['toolgate-worker']);
    // A call that needs state (Write takes a lock) finds the store away, and the panel counts it.
    expect(await codes(gateways[0]!, [call('w2', 'Write', { path: 'y.txt', content: 'y' })])).toEqual(['STATE_UNAVAILABLE']);
    const query = (await dashboardQueries()).find((q) => q.name === OUTAGE_QUERY)!;
    expect(query.expr).toContain('toolgate_state_unavailable_total');
    expect(await data(withRateInterval(query.expr, RATE_INTERVAL), { nonZero: true })).not.toEqual([]);
  }, 90_000);
});
