import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import type { GatewayOptions } from './gateway.js';
import { drive, type LoadPlan, type Sample } from './load.js';
import { summarizeProfile } from './profile.js';
import { startRedis, type BenchRedis } from './redis.js';
import { markdown, summarize, verdicts, type BenchReport, type Cell, type ScenarioReport } from './report.js';
import { createWorkspace, executeBody, mcpBody, SCENARIOS, type Scenario } from './scenarios.js';
import { startTarget, TARGET_LABELS, type Target, type TargetName } from './targets.js';

const HELP = `npm run bench [-- options]

  --quick               smoke test: 1 s runs, 1 round, 16 connections (under a minute)
  --duration <s>        seconds per timed run (default 3)
  --warmup <s>          seconds of warm-up per scenario and target (default 2)
  --rounds <n>          rounds per cell, targets alternating; the median is reported (default 3)
  --connections <list>  connection counts (default 1,16,64)
  --scenarios <list>    ${SCENARIOS.map((s) => s.id).join(',')} (default all)
  --targets <list>      floor,memory,redis,mcp (default all; redis needs redis-server)
  --log-level <level>   toolgate's log level (default info)
  --profile             instead: CPU-profile the first of --targets (memory, the default, or
                        any other) during one run of the first scenario at the first
                        connection count (default 16) for --duration (default 10) s`;

const RESULTS = fileURLToPath(new URL('results/', import.meta.url));
const ALL_TARGETS: readonly TargetName[] = ['floor', 'memory', 'redis', 'mcp'];
const JSON_HEADERS = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...JSON_HEADERS, accept: 'application/json, text/event-stream' };
/** Before counting Redis commands: longer than any request of a load run takes to finish. */
const QUIET_MS = 2_000;
/** Between runs, so one target's leftover work (GC, closing sockets) does not fall into the next one's run. */
const PAUSE_MS = 300;

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string' },
    scenarios: { type: 'string' },
    targets: { type: 'string' },
    'log-level': { type: 'string', default: 'info' },
    profile: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

const list = (value: string | undefined) => value?.split(',').map((v) => v.trim()).filter(Boolean);
const settings = {
  durationS: Number(flags.duration ?? (flags.profile ? 10 : flags.quick ? 1 : 3)),
  warmupS: Number(flags.warmup ?? (flags.quick ? 0.5 : 2)),
  rounds: Number(flags.rounds ?? (flags.quick ? 1 : 3)),
  connections: (list(flags.connections) ?? (flags.quick || flags.profile ? ['16'] : ['1', '16', '64'])).map(Number),
  logLevel: flags['log-level']!,
  /** Sequential requests whose Redis round trips are counted per scenario. */
  redisSample: flags.quick ? 20 : 50,
};
const scenarios = SCENARIOS.filter((s) => !flags.scenarios || list(flags.scenarios)!.includes(s.id));
const wanted = flags.profile ? (list(flags.targets)?.slice(0, 1) ?? ['memory']) : (list(flags.targets) ?? ALL_TARGETS);
if (scenarios.length === 0 || wanted.some((t) => !ALL_TARGETS.includes(t as TargetName))) {
  console.error(`unknown scenario or target\n\n${HELP}`);
  process.exit(2);
}

const log = (line: string) => console.error(line);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Request numbers per target: they pick the Edit slot and make call ids unique (see scenarios.ts). */
const counters = new Map<TargetName, number>();
const next = (target: TargetName) => {
  const n = counters.get(target) ?? 0;
  counters.set(target, n + 1);
  return n;
};

/** The HTTP requests of one scenario request, for autocannon; bodies that vary per request are built as they go. */
function cycle(target: Target, scenario: Scenario): autocannon.Request[] {
  if (target.protocol === 'execute') {
    const base = { method: 'POST' as const, path: '/execute', headers: JSON_HEADERS };
    if (!scenario.perRequest) return [{ ...base, body: executeBody(scenario, 0, target.name) }];
    return [{ ...base, setupRequest: (req) => ({ ...req, body: executeBody(scenario, next(target.name), target.name) }) }];
  }
  const base = { method: 'POST' as const, path: '/mcp', headers: MCP_HEADERS };
  return scenario.calls(0, target.name).map((call, i) => {
    const varies = mcpBody(call, i + 1) !== mcpBody(scenario.calls(1, target.name)[i]!, i + 1);
    if (!varies) return { ...base, body: mcpBody(call, i + 1) };
    return { ...base, setupRequest: (req) => ({ ...req, body: mcpBody(scenario.calls(next(target.name), target.name)[i]!, i + 1) }) };
  });
}

/** Send one scenario request outside the load run and fail loudly unless every call succeeded. */
async function sendChecked(target: Target, scenario: Scenario): Promise<void> {
  const n = next(target.name);
  if (target.protocol === 'execute') {
    const response = await fetch(`${target.url}/execute`, { method: 'POST', headers: JSON_HEADERS, body: executeBody(scenario, n, target.name) });
    const body = (await response.json()) as { results?: { status: string; text: string }[] };
    const failed = body.results?.find((r) => r.status !== 'success');
    if (response.status !== 200 || body.results?.length !== scenario.callsPerRequest || failed) {
      throw new Error(`${target.name} ${scenario.id}: HTTP ${response.status} ${JSON.stringify(failed ?? body).slice(0, 300)}`);
    }
    return;
  }
  for (const [i, call] of scenario.calls(n, target.name).entries()) {
    const response = await fetch(`${target.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: mcpBody(call, i + 1) });
    const body = (await response.json()) as { result?: { isError?: boolean } };
    if (response.status !== 200 || !body.result || body.result.isError) {
      throw new Error(`${target.name} ${scenario.id}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
  }
}

function plan(target: Target, scenario: Scenario, connections: number, durationS: number): LoadPlan {
  return { url: target.url, connections, durationS, cycle: cycle(target, scenario), callsPerRequest: scenario.callsPerRequest };
}

function machine(): BenchReport['machine'] {
  const cores = cpus();
  return {
    cpus: cores.length,
    cpu: cores[0]?.model.trim() ?? 'unknown',
    node: process.version,
    os: `${osType()} ${release()} ${process.arch}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
}

async function startTargets(names: readonly TargetName[], workspace: string, spillDir: string, redis: BenchRedis | undefined): Promise<Target[]> {
  const targets: Target[] = [];
  for (const name of names) {
    const options: GatewayOptions | { workspace: string } =
      name === 'memory' || name === 'redis'
        ? { workspace, spillDir: join(spillDir, name), logLevel: settings.logLevel, ...(name === 'redis' ? { redisUrl: redis!.url } : {}) }
        : { workspace };
    targets.push(await startTarget(name, options));
    log(`started ${TARGET_LABELS[name]} at ${targets.at(-1)!.url}`);
  }
  return targets;
}

/** Every target, every scenario, every connection count, in rounds with the targets alternating. */
async function benchmark(targets: Target[], redis: BenchRedis | undefined): Promise<BenchReport> {
  const reports: ScenarioReport[] = [];
  for (const scenario of scenarios) {
    for (const target of targets) await sendChecked(target, scenario);
    if (settings.warmupS > 0) {
      for (const target of targets) await drive(plan(target, scenario, Math.max(...settings.connections), settings.warmupS));
    }
    const cells: Cell[] = [];
    for (const connections of settings.connections) {
      const rounds = new Map<TargetName, Sample[]>();
      for (let round = 0; round < settings.rounds; round++) {
        // Each round starts at the next target, so no target always runs right after the same one.
        const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
        for (const target of order) {
          await sleep(PAUSE_MS);
          const sample = await drive(plan(target, scenario, connections, settings.durationS));
          rounds.set(target.name, [...(rounds.get(target.name) ?? []), sample]);
          log(`${scenario.id} ${connections} conn. round ${round + 1}/${settings.rounds} ${target.name}: ${Math.round(sample.requestsPerS)} req/s, p99 ${sample.p99Ms.toFixed(2)} ms`);
        }
      }
      const cell: Cell = { connections, targets: {} };
      for (const target of targets) cell.targets[target.name] = summarize(rounds.get(target.name)!);
      cells.push(cell);
    }
    const report: ScenarioReport = { id: scenario.id, title: scenario.title, callsPerRequest: scenario.callsPerRequest, cells };
    const gateway = targets.find((t) => t.name === 'redis');
    if (redis && gateway) {
      // Requests still in flight when the last load run stopped must finish outside the count.
      await sleep(QUIET_MS);
      const { sent, inScripts } = await redis.commandsDuring(async () => {
        for (let i = 0; i < settings.redisSample; i++) await sendChecked(gateway, scenario);
      });
      const total = Object.values(sent).reduce((a, b) => a + b, 0);
      const sampled = settings.redisSample;
      report.redisCommands = { perRequest: total / sampled, byCommand: sent, inScriptsPerRequest: inScripts / sampled, sampled };
    }
    reports.push(report);
  }
  const targetStats: BenchReport['targetStats'] = {};
  for (const target of targets) targetStats[target.name] = await target.stats();
  return {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { durationS: settings.durationS, warmupS: settings.warmupS, rounds: settings.rounds, connections: settings.connections, logLevel: settings.logLevel, targets: targets.map((t) => t.name) },
    scenarios: reports,
    targetStats,
    verdicts: verdicts(reports),
  };
}

/** `--profile`: V8's CPU profile of one target during one timed run of one scenario, then its hot spots. */
async function profile(target: Target): Promise<void> {
  const scenario = scenarios[0]!;
  const connections = settings.connections[0]!;
  const name = `profile-${target.name}-${scenario.id}`;
  const file = join(RESULTS, `${name}.cpuprofile`);
  await sendChecked(target, scenario);
  if (settings.warmupS > 0) await drive(plan(target, scenario, connections, settings.warmupS));
  await target.profileStart();
  const sample = await drive(plan(target, scenario, connections, settings.durationS));
  await target.profileStop(file);
  log(`${scenario.id} at ${connections} conn. under the profiler: ${Math.round(sample.requestsPerS)} req/s, p99 ${sample.p99Ms.toFixed(2)} ms`);
  const summary = await summarizeProfile(file);
  await writeFile(join(RESULTS, `${name}.txt`), `${summary}\n`);
  console.log(summary);
  log(`\nprofile: ${file} (Chrome DevTools or speedscope open it); summary in ${join(RESULTS, `${name}.txt`)}`);
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'toolgate-bench-'));
  const workspace = join(root, 'workspace');
  const spillDir = join(root, 'spill');
  let redis: BenchRedis | undefined;
  let targets: Target[] = [];
  try {
    await createWorkspace(workspace, wanted);
    await mkdir(RESULTS, { recursive: true });
    let names = wanted as TargetName[];
    if (names.includes('redis')) {
      redis = await startRedis();
      if (!redis) {
        log('no redis-server on PATH (set REDIS_SERVER_BIN): the Redis-store gateway is left out');
        names = names.filter((n) => n !== 'redis');
      }
    }
    targets = await startTargets(names, workspace, spillDir, redis);
    if (flags.profile) {
      if (targets[0]) await profile(targets[0]);
      return;
    }
    const report = await benchmark(targets, redis);
    const text = markdown(report);
    await writeFile(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(RESULTS, 'latest.md'), `${text}\n`);
    console.log(text);
    log(`\nwritten: ${join(RESULTS, 'latest.json')}, ${join(RESULTS, 'latest.md')}`);
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    await redis?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
