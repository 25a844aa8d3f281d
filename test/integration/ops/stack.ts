import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';
import { OPS_FILES } from '../../helpers/ops.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { accepts, waitFor } from '../../helpers/redis.js';

const CLI = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
// Start-up under tsx on a loaded two-core machine can take several seconds.
const START_MS = 60_000;

/** The Debian packages' binaries these tests run, or an error that says how to get them. */
const PACKAGE_OF = { prometheus: 'prometheus', promtool: 'prometheus', haproxy: 'haproxy' } as const;

export function requireBinary(name: keyof typeof PACKAGE_OF): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || path === '') {
    const pkg = PACKAGE_OF[name];
    throw new Error(`${name} not found: install Debian's ${pkg} package (apt-get install ${pkg}; .ci/run does it when missing)`);
  }
  return path;
}

/** A child process whose output is kept for the failure message, killed at the end of the test. */
export class Proc {
  output = '';
  readonly exited: Promise<unknown>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.output = (this.output + chunk).slice(-20_000)));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.output = (this.output + chunk).slice(-20_000)));
    this.exited = once(child, 'exit');
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Until something accepts connections on `port`; fails at once, with the process's output, if it exits first. */
  async listening(port: number): Promise<void> {
    await waitFor(
      `${this.name} on port ${port}`,
      async () => {
        if (!this.running) throw new Error(`${this.name} exited before listening:\n${this.output}`);
        return accepts(port);
      },
      START_MS,
    );
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** `toolgate serve` or `toolgate worker` as deployed: its own process, the given environment on top of PATH and HOME. */
export function toolgate(name: string, command: 'serve' | 'worker', cwd: string, env: Record<string, string>): Proc {
  const base = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
  const child = spawn(process.execPath, ['--import', TSX, CLI, command], {
    cwd,
    env: { ...base, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Proc(name, child);
}

interface ScrapeConfig {
  job_name: string;
  static_configs?: Array<{ targets: string[] }>;
  dns_sd_configs?: unknown[];
}

/**
 * The repository's prometheus.yml with only the targets (loopback ports),
 * the intervals (short, for a test) and the rule file's path replaced.
 */
export async function renderPrometheusConfig(dir: string, targets: Record<string, string[]>, interval: string): Promise<string> {
  const config = parse(await readFile(OPS_FILES.prometheus, 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    scrape_configs: ScrapeConfig[];
  };
  const jobs = config.scrape_configs.map((c) => c.job_name).sort();
  if (JSON.stringify(jobs) !== JSON.stringify(Object.keys(targets).sort())) {
    throw new Error(`prometheus.yml scrapes ${jobs.join(', ')}; the test has targets for ${Object.keys(targets).join(', ')}`);
  }
  config.global = { ...config.global, scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval };
  config.rule_files = config.rule_files.map((file) => fileURLToPath(new URL(file, OPS_FILES.prometheus)));
  for (const job of config.scrape_configs) {
    delete job.dns_sd_configs;
    job.static_configs = [{ targets: targets[job.job_name]! }];
  }
  const path = join(dir, 'prometheus.yml');
  await writeFile(path, stringify(config));
  return path;
}

/** Prometheus on a free loopback port with a temporary storage directory. */
export async function startPrometheus(binary: string, configPath: string, storage: string): Promise<{ proc: Proc; api: PrometheusApi }> {
  const port = await freePort();
  const child = spawn(
    binary,
    [`--config.file=${configPath}`, `--storage.tsdb.path=${storage}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const proc = new Proc('prometheus', child);
  await proc.listening(port);
  const api = new PrometheusApi(`http://127.0.0.1:${port}`);
  await waitFor('prometheus ready', async () => (await fetch(`${api.origin}/-/ready`).catch(() => undefined))?.ok === true, START_MS);
  return { proc, api };
}

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export class PrometheusApi {
  constructor(readonly origin: string) {}

  private async get(path: string): Promise<any> {
    const res = await fetch(`${this.origin}${path}`);
    const body = (await res.json()) as { status: string; data: any; error?: string };
    if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? res.status}`);
    return body.data;
  }

  /** An instant query; throws on a query Prometheus rejects (a typo in an expression fails the test here). */
  async query(expr: string): Promise<Sample[]> {
    const data = await this.get(`/api/v1/query?query=${encodeURIComponent(expr)}`);
    if (data.resultType !== 'vector') throw new Error(`${expr}: a ${data.resultType}, not an instant vector`);
    return data.result as Sample[];
  }

  async targets(): Promise<Array<{ labels: Record<string, string>; health: string; lastError: string }>> {
    return (await this.get('/api/v1/targets')).activeTargets;
  }

  async rules(): Promise<Array<{ name: string; health: string; state: string; lastError?: string }>> {
    const data = await this.get('/api/v1/rules');
    return data.groups.flatMap((g: { rules: unknown[] }) => g.rules);
  }
}

/** Runs promtool; returns its output, throws with it when the check fails. */
export function promtool(binary: string, args: string[]): string {
  const run = spawnSync(binary, args, { encoding: 'utf8' });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`promtool ${args.join(' ')} failed:\n${output}`);
  return output;
}
