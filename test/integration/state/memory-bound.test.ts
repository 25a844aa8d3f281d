import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MiB = 1024 * 1024;
const CAP = 16 * MiB;
/** Enough to fill the cap first, so the heap has reached its working size before the RSS is first read. */
const WARM_UP = 300;
const REQUESTS = 2_500;
const CONCURRENCY = 8;

let scratch: string;
let child: ChildProcess | undefined;
let pool: Pool | undefined;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-memory-bound-'));
});

afterEach(async () => {
  await pool?.close();
  pool = undefined;
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await rm(scratch, { recursive: true, force: true });
});

/** `toolgate serve` on a free loopback port with in-memory state; resolves to its address once it is ready. */
async function start(config: string): Promise<string> {
  const configFile = join(scratch, 'toolgate.yaml');
  await writeFile(configFile, config);
  const env = { PATH: process.env.PATH ?? '', PORT: '0', TOOLGATE_CONFIG: configFile, TOOLGATE_WORKSPACE: join(scratch, 'ws') };
  const started = spawn(process.execPath, ['--import', TSX, CLI, 'serve'], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child = started;
  let stderr = '';
  started.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    let pending = '';
    started.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.includes('"toolgate ready"')) resolve((JSON.parse(line) as { address: string }).address);
    });
    started.once('exit', (code) => reject(new Error(`gateway exited (${code}) before it was ready:\n${stderr}`)));
  });
}

async function metric(name: string): Promise<number> {
  const { body } = await pool!.request({ method: 'GET', path: '/metrics' });
  const text = await body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  if (!line) throw new Error(`${name} not in /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** `count` requests with unique Idempotency-Keys, `CONCURRENCY` at a time; each response is read and dropped. */
async function execute(prefix: string, count: number): Promise<void> {
  let next = 0;
  const body = JSON.stringify([{ id: 'c1', name: 'Read', arguments: { path: 'big.txt' } }]);
  const worker = async () => {
    while (next < count) {
      const key = `${prefix}-${next++}`;
      const response = await pool!.request({
        method: 'POST',
        path: '/execute',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${key}: ${response.statusCode} ${text}`);
      // The Read is cut to the 50 KB budget and appears in `results` and in `messages`.
      if (text.length < 100_000) throw new Error(`${key}: a ${text.length}-character response, expected ~100 KB`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

describe('state.memory_max_bytes bounds the in-memory replay records of a real server', () => {
  it('2,500 unique Idempotency-Key responses of ~100 KB grow the RSS by well under 150 MB', { timeout: 300_000 }, async () => {
    const address = await start(`state: {memory_max_bytes: ${CAP}}\nspill: {tenant_quota_bytes: ${8 * MiB}}\n`);
    await mkdir(join(scratch, 'ws'), { recursive: true });
    await writeFile(join(scratch, 'ws', 'big.txt'), `${'x'.repeat(79)}\n`.repeat(1_000));
    pool = new Pool(address, { connections: CONCURRENCY + 1, pipelining: 1 });

    await execute('warm', WARM_UP);
    const before = await metric('toolgate_process_resident_memory_bytes');
    await execute('key', REQUESTS);
    const after = await metric('toolgate_process_resident_memory_bytes');

    // Unbounded, the records alone are 2,500 × ~100 KB: about 330 MB more RSS.
    // Bounded, it grows by the cap plus what the heap keeps of the traffic: 75 to 120 MiB measured here.
    expect((after - before) / MiB).toBeLessThan(150);
    // A record keeps the response's `results` (the Read cut to the 50 KB budget; messages are re-rendered on replay),
    // so no more than CAP / 45 KB of them fit and every other one was evicted.
    expect(await metric('toolgate_state_evictions_total')).toBeGreaterThan(REQUESTS + WARM_UP - CAP / 45_000);
    // Each Read spills ~80 KB; the 8 MiB quota keeps the spill directory small.
    expect(await metric('toolgate_spill_quota_removals_total')).toBeGreaterThan(REQUESTS);
  });
});
