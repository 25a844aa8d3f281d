import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { GatewayOptions } from './targets/gateway.js';
import { startCallers, type BenchCallers } from './shared/callers.js';
import { drive } from './shared/load.js';
import { MANY_TOOLS, manyTools } from './shared/many-tools.js';
import { measurer } from './shared/measure.js';
import { choosePinning, pinRunner, type Pinning } from './shared/pin.js';
import { summarizeAllocations, summarizeProfile } from './shared/profile.js';
import { startRedis, type BenchRedis } from './shared/redis.js';
import { verdicts } from './shared/goals.js';
import { markdown, type BenchReport, type ScenarioReport } from './shared/report.js';
import { checkSameReads, plan, sendChecked } from './shared/requests.js';
import { createWorkspace, SCENARIOS } from './shared/scenarios.js';
import { SEARCH_SCENARIO, searchLoad } from './shared/search-load.js';
import { countSyscalls, SYSCALL_SCENARIOS } from './shared/syscall-counts.js';
import { StraceAttachError, straceMissing } from './shared/syscalls.js';
import { startTarget, TARGET_LABELS, type Target, type TargetName } from './shared/targets.js';

const SCENARIO_IDS = [...SCENARIOS.map((s) => s.id), MANY_TOOLS.id, SEARCH_SCENARIO.id];
/** The scenarios that compare the small registry with the large catalog (the `many-tools` target). */
const LARGE_CATALOG_IDS = [MANY_TOOLS.id, SEARCH_SCENARIO.id];

const HELP = `npm run bench [-- options]

  --quick               smoke test: 1 s runs, 1 round, 16 connections (about a minute and a half)
  --duration <s>        seconds per timed run (default 3)
  --warmup <s>          seconds of warm-up per scenario and target (default 2)
  --rounds <n>          rounds per cell, targets alternating; the median is reported (default 3)
  --connections <list>  connection counts (default 1,16)
  --no-pin              let the servers and the load generator share every CPU (by default each
                        server runs on one CPU and everything else on the others, with taskset)
  --scenarios <list>    ${SCENARIO_IDS.join(',')} (default all)
  --targets <list>      floor,memory,redis,mcp (default all; redis needs redis-server), and, only
                        when named, audit: the memory gateway with its audit trail on (a file store;
                        --targets memory,audit gives the trail's cost), and no-guardrails: the memory
                        gateway with the secret scanner off (--targets memory,no-guardrails its cost),
                        and api-key,jwt: one gateway configuration with an API key and an OAuth issuer (a
                        real authorization server on loopback), called with the key or an access token
  --log-level <level>   toolgate's log level (default info)
  --profile             instead: CPU-profile the first of --targets (memory, the default, or
                        any other) during one run of the first scenario at the first
                        connection count (default 16) for --duration (default 10) s
  --alloc               with --profile: V8's sampling heap profile instead, every allocation
                        counted (collected ones too): bytes per request by stage and function`;

const RESULTS = fileURLToPath(new URL('results/', import.meta.url));
const ALL_TARGETS: readonly TargetName[] = ['floor', 'memory', 'redis', 'mcp'];
/** Targets run only when named: the audit trail's cost is memory against audit, the secret scanner's no-guardrails against memory. */
const NAMED_TARGETS: readonly TargetName[] = [...ALL_TARGETS, 'audit', 'no-guardrails', 'api-key', 'jwt'];
/** Before counting Redis commands: longer than any request of a load run takes to finish. */
const QUIET_MS = 2_000;

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
    alloc: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((v) => v.trim())
    .filter(Boolean);
const settings = {
  durationS: Number(flags.duration ?? (flags.profile ? 10 : flags.quick ? 1 : 3)),
  warmupS: Number(flags.warmup ?? (flags.quick ? 0.5 : 2)),
  rounds: Number(flags.rounds ?? (flags.quick ? 1 : 3)),
  connections: (list(flags.connections) ?? (flags.quick || flags.profile ? ['16'] : ['1', '16'])).map(Number),
  logLevel: flags['log-level']!,
  /** Sequential requests whose Redis round trips are counted per scenario. */
  redisSample: flags.quick ? 20 : 50,
  /** Sequential requests whose system calls are counted per scenario. */
  syscallSample: flags.quick ? 200 : 500,
};
const chosen = list(flags.scenarios) ?? SCENARIO_IDS;
const scenarios = SCENARIOS.filter((s) => chosen.includes(s.id));
const wanted = flags.profile ? (list(flags.targets)?.slice(0, 1) ?? ['memory']) : (list(flags.targets) ?? ALL_TARGETS);
if (
  chosen.length === 0 ||
  chosen.some((id) => !SCENARIO_IDS.includes(id)) ||
  wanted.some((t) => !NAMED_TARGETS.includes(t as TargetName))
) {
  console.error(`unknown scenario or target\n\n${HELP}`);
  process.exit(2);
}

const log = (line: string) => console.error(line);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const measure = measurer(settings, log);

/** Unless --no-pin: each server on one CPU, the runner and everything else it starts on the others. */
const pinChoice = flags['no-pin'] ? undefined : choosePinning();
if (typeof pinChoice === 'string') {
  console.error(`cannot pin: ${pinChoice}`);
  process.exit(2);
}
const pinning: Pinning | undefined = pinChoice;

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

async function startTargets(
  names: readonly TargetName[],
  workspace: string,
  spillDir: string,
  redis: BenchRedis | undefined,
  callers: BenchCallers | undefined,
): Promise<Target[]> {
  const targets: Target[] = [];
  for (const name of names) {
    const gateway: GatewayOptions = { workspace, spillDir: join(spillDir, name), logLevel: settings.logLevel };
    if (name === 'api-key' || name === 'jwt') gateway.callers = callers!.options;
    if (name === 'redis') gateway.redisUrl = redis!.url;
    if (name === 'many-tools') gateway.httpTools = MANY_TOOLS.httpTools;
    if (name === 'audit') gateway.auditDir = join(spillDir, 'audit-trail');
    if (name === 'no-guardrails') gateway.secretsOff = true;
    const options = name === 'floor' || name === 'mcp' ? { workspace } : gateway;
    const target = await startTarget(name, options, pinning?.server);
    if (name === 'api-key' || name === 'jwt') target.headers = callers!.headers[name];
    targets.push(target);
    log(`started ${TARGET_LABELS[name]} at ${targets.at(-1)!.url}${pinning ? ` on CPU ${pinning.server}` : ''}`);
  }
  return targets;
}

/** Every target, every scenario, every connection count, in rounds with the targets alternating; then the many-tools scenario. */
async function benchmark(all: Target[], redis: BenchRedis | undefined): Promise<BenchReport> {
  const targets = all.filter((t) => t.name !== 'many-tools');
  let syscallsSkipped = scenarios.some((s) => SYSCALL_SCENARIOS.includes(s.id)) ? straceMissing() : undefined;
  if (syscallsSkipped) log(`system calls not counted: ${syscallsSkipped}`);
  const reports: ScenarioReport[] = [];
  for (const scenario of scenarios) {
    const texts = new Map<TargetName, string[]>();
    for (const target of targets) texts.set(target.name, await sendChecked(target, scenario));
    checkSameReads(scenario, texts);
    const cells = await measure(targets, scenario.id, (target, connections, durationS) => plan(target, scenario, connections, durationS));
    const report: ScenarioReport = { id: scenario.id, title: scenario.title, callsPerRequest: scenario.callsPerRequest, cells };
    const gateway = targets.find((t) => t.name === 'redis');
    const countSys = SYSCALL_SCENARIOS.includes(scenario.id) && !syscallsSkipped;
    // Requests still in flight when the last load run stopped must finish outside the counts.
    if ((redis && gateway) || countSys) await sleep(QUIET_MS);
    if (redis && gateway) {
      const { sent, inScripts } = await redis.commandsDuring(async () => {
        for (let i = 0; i < settings.redisSample; i++) await sendChecked(gateway, scenario);
      });
      const total = Object.values(sent).reduce((a, b) => a + b, 0);
      const sampled = settings.redisSample;
      report.redisCommands = { perRequest: total / sampled, byCommand: sent, inScriptsPerRequest: inScripts / sampled, sampled };
    }
    if (countSys) {
      try {
        report.syscalls = await countSyscalls(targets, scenario, settings.syscallSample, log);
      } catch (err) {
        if (!(err instanceof StraceAttachError)) throw err;
        syscallsSkipped = err.message;
        log(`system calls not counted: ${syscallsSkipped}`);
      }
    }
    reports.push(report);
  }
  const small = targets.find((t) => t.name === 'memory');
  const many = all.find((t) => t.name === 'many-tools');
  const manyToolsReport = small && many && chosen.includes(MANY_TOOLS.id) ? await manyTools(small, many, measure, log) : undefined;
  const searchReport = small && many && chosen.includes(SEARCH_SCENARIO.id) ? await searchLoad(small, many, measure) : undefined;
  const targetStats: BenchReport['targetStats'] = {};
  for (const target of all) targetStats[target.name] = await target.stats();
  return {
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      durationS: settings.durationS,
      warmupS: settings.warmupS,
      rounds: settings.rounds,
      connections: settings.connections,
      logLevel: settings.logLevel,
      targets: all.map((t) => t.name),
      ...(pinning ? { pinning } : {}),
    },
    scenarios: reports,
    ...(manyToolsReport ? { manyTools: manyToolsReport } : {}),
    ...(searchReport ? { search: searchReport } : {}),
    ...(syscallsSkipped ? { syscallsSkipped } : {}),
    targetStats,
    verdicts: verdicts(reports, manyToolsReport),
  };
}

/** `--profile`: V8's CPU (or, with --alloc, allocation) profile of one target during one timed run of one scenario, then its summary. */
async function profile(target: Target): Promise<void> {
  const scenario = scenarios[0]!;
  const connections = settings.connections[0]!;
  const kind = flags.alloc ? 'heap' : 'cpu';
  const name = `profile-${target.name}-${scenario.id}${flags.alloc ? '-alloc' : ''}`;
  const file = join(RESULTS, `${name}.${flags.alloc ? 'heapprofile' : 'cpuprofile'}`);
  await sendChecked(target, scenario);
  if (settings.warmupS > 0) await drive(plan(target, scenario, connections, settings.warmupS));
  await target.profileStart(kind);
  const sample = await drive(plan(target, scenario, connections, settings.durationS));
  await target.profileStop(kind, file);
  log(
    `${scenario.id} at ${connections} conn. under the profiler: ${Math.round(sample.requestsPerS)} req/s, p99 ${sample.p99Ms.toFixed(2)} ms, ${Math.round(sample.cpuUsPerRequest)} CPU µs/req`,
  );
  const summary = flags.alloc
    ? await summarizeAllocations(file, sample.requests)
    : await summarizeProfile(file, sample.requests, sample.cpuUsPerRequest);
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
  let callers: BenchCallers | undefined;
  if (pinning) pinRunner(pinning);
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
    if (!flags.profile && chosen.some((id) => LARGE_CATALOG_IDS.includes(id))) {
      if (names.includes('memory')) names = [...names, 'many-tools'];
      else log('the many-tools and search scenarios compare with the memory-store gateway, which --targets leaves out: they are skipped');
    }
    if (names.includes('api-key') || names.includes('jwt')) callers = await startCallers();
    targets = await startTargets(names, workspace, spillDir, redis, callers);
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
    await callers?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
