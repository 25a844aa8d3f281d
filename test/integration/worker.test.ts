import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServerResponse } from 'node:http';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/redis-global-setup.js';
import { asyncGateway, type AsyncGateway } from '../helpers/async.js';
import { createTestDispatchers, startServer, type TestServer } from './http-tools/helpers.js';

// Start-up under tsx on a loaded two-core machine can take several seconds.
const START_MS = 45_000;
const TEST_MS = 150_000;
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

interface Proc {
  child: ChildProcess;
  logs: Array<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line whose msg is `msg`; rejects if the process exits first. */
  line(msg: string, ms?: number): Promise<Record<string, unknown>>;
}

const children: ChildProcess[] = [];
let scratch: string;
type Upstream = TestServer & { count(step: string): number };
let upstream: Upstream | undefined;
let g: AsyncGateway | undefined;
/** Responses the upstream holds open; answered (or dropped) when the test ends. */
const held: ServerResponse[] = [];

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-workers-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const res of held.splice(0)) res.destroy();
  await g?.close();
  g = undefined;
  await upstream?.close();
  upstream = undefined;
  await rm(scratch, { recursive: true, force: true });
});

/** `toolgate <command>` as a child process, on this test's config file, Redis prefix and workspace. */
function start(command: string[], gateway: AsyncGateway, extraEnv: Record<string, string> = {}): Proc {
  const base = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
  const env = {
    ...base,
    REDIS_URL: inject('redisUrl'),
    TOOLGATE_REDIS_PREFIX: gateway.prefix,
    TOOLGATE_CONFIG: join(scratch, 'config.yaml'),
    TOOLGATE_WORKSPACE: gateway.workspace,
    TOOLGATE_SPILL_URL: `file://${join(scratch, 'spill')}`,
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['--import', TSX, CLI, ...command], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  let pending = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines.filter((l) => l.startsWith('{'))) logs.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = async (msg: string, ms = START_MS) => {
    const deadline = Date.now() + ms;
    let gone = false;
    void exited.then(() => (gone = true));
    for (;;) {
      const found = logs.find((l) => l.msg === msg);
      if (found) return found;
      if (gone) throw new Error(`process exited before logging "${msg}":\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`no "${msg}" within ${ms} ms:\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return { child, logs, exited, line };
}

/** The upstream of the side-effecting tool: counts each step it receives; `hold` steps hang the first time, `slow` ones answer late. */
async function startUpstream(): Promise<Upstream> {
  const server = await startServer((req, res) => {
    const step = (req.url ?? '/').slice(1);
    const seen = server.requests.filter((r) => r.url === req.url).length;
    if (step.startsWith('hold') && seen === 1) {
      held.push(res);
      return;
    }
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ step, seen }));
    };
    if (step.startsWith('slow')) setTimeout(answer, 700);
    else answer();
  });
  return Object.assign(server, { count: (step: string) => server.requests.filter((r) => r.url === `/${step}`).length });
}

/** The gateway and its workers share this config: the side-effecting HTTP tool, short worker locks. */
async function setUp(extra: Record<string, unknown> = {}): Promise<AsyncGateway> {
  upstream = await startUpstream();
  const config = {
    tools: [
      {
        name: 'side_effect',
        description: 'Posts one step to the upstream, which counts it.',
        parameters: { type: 'object', properties: { step: { type: 'string' } }, required: ['step'] },
        http: { method: 'POST', url: `${upstream.origin}/{step}`, allow_private_network: true, retries: 0 },
        timeout_ms: 1_500,
      },
    ],
    ...extra,
    async: { lock_ms: 1_000, ...(extra.async as object | undefined) },
  };
  await writeFile(join(scratch, 'config.yaml'), stringify(config));
  g = await asyncGateway({ config, dispatchers: createTestDispatchers() });
  return g;
}

const step = (id: string, name: string) => ({ id, name: 'side_effect', arguments: { step: name } });

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Workers: `toolgate worker` processes; one killed mid-job loses nothing and runs nothing twice. */
describe('toolgate worker processes', { timeout: TEST_MS }, () => {
  it('a worker SIGKILLed mid-batch: another worker finishes it; completed calls are replayed, never run again, the rest run', async () => {
    const gateway = await setUp();
    const first = start(['worker'], gateway);
    await first.line('toolgate worker ready');
    const { body } = await gateway.submit({
      session_id: 'crash',
      tool_calls: [step('c1', 's1'), step('c2', 's2'), step('c3', 'hold'), step('c4', 's3')],
    });
    await until('the held call reaches the upstream', () => upstream!.count('hold') === 1);
    expect((await gateway.read(body.execution_id)).body.status).toBe('running');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(upstream!.count('s1')).toBe(1);
    expect(upstream!.count('s3')).toBe(0);

    const second = start(['worker'], gateway);
    const done = await gateway.until(body.execution_id, ['completed', 'failed'], {}, 60_000);
    expect(done.status).toBe('completed');
    const [s1, s2, hold, s3] = done.results;
    expect(s1).toMatchObject({ tool_call_id: 'c1', status: 'success', replayed: true });
    expect(s2).toMatchObject({ tool_call_id: 'c2', status: 'success', replayed: true });
    expect(s3).toMatchObject({ tool_call_id: 'c4', status: 'success', replayed: false });
    // Each completed side-effecting call reached the upstream exactly once.
    expect([upstream!.count('s1'), upstream!.count('s2'), upstream!.count('s3')]).toEqual([1, 1, 1]);
    // The call cut off by the kill never completed: its replay lease still held it (TIMEOUT, retryable), or it had
    // expired and the call ran once more, to completion.
    if (hold.status === 'success') expect(upstream!.count('hold')).toBe(2);
    else expect(hold.error).toMatchObject({ code: 'TIMEOUT', retryable: true });
    // One line per state change: the hand-over too, logged by the worker that found the job stalled.
    const changes = second.logs.filter((l) => l.execution_id === body.execution_id && String(l.msg).startsWith('execution '));
    expect(changes.map((l) => String(l.msg).split(':')[0])).toEqual(['execution stalled', 'execution running', 'execution completed']);
    expect(changes[1]).toMatchObject({ recovered: true });
  });

  it('SIGTERM: the worker finishes the batch it holds, takes no new one, and exits 0', async () => {
    const gateway = await setUp();
    const worker = start(['worker', '--concurrency', '1'], gateway);
    await worker.line('toolgate worker ready');
    const held = await gateway.submit({ tool_calls: [step('c1', 'slow')] });
    await until('the slow call reaches the upstream', () => upstream!.count('slow') === 1);
    worker.child.kill('SIGTERM');
    await worker.line('worker stopping: finishing the batches it holds, taking no new one');
    const later = await gateway.submit({ tool_calls: [step('c2', 'after')] });
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect((await gateway.read(held.body.execution_id)).body).toMatchObject({ status: 'completed', results: [{ status: 'success' }] });
    expect((await gateway.read(later.body.execution_id)).body.status).toBe('queued');
    expect(upstream!.count('after')).toBe(0);
    expect(worker.logs.map((l) => l.msg)).toContain('worker stopped');
  });

  it('toolgate worker without REDIS_URL refuses to start and says why', async () => {
    const gateway = await setUp();
    const worker = start(['worker'], gateway, { REDIS_URL: '' });
    let stderr = '';
    worker.child.stderr!.on('data', (chunk: string) => (stderr += chunk));
    expect((await worker.exited).code).toBe(2);
    expect(stderr).toContain('REDIS_URL: toolgate worker takes its batches from the Redis queue');
  });

  it('async.inline_workers: the server runs batches itself', async () => {
    const gateway = await setUp({ async: { inline_workers: 1 } });
    const port = await freePort();
    const server = start(['serve'], gateway, { PORT: String(port) });
    await server.line('toolgate ready');
    const origin = `http://127.0.0.1:${port}`;
    const submitted = await fetch(`${origin}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'async', tool_calls: [step('c1', 'inline')] }),
    });
    expect(submitted.status).toBe(202);
    const { status_url } = (await submitted.json()) as { status_url: string };
    let body: Record<string, any> = {};
    for (const deadline = Date.now() + 30_000; body.status !== 'completed' && Date.now() < deadline;) {
      body = (await (await fetch(`${origin}${status_url}`)).json()) as Record<string, any>;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(body).toMatchObject({ status: 'completed', results: [{ status: 'success', replayed: false }] });
    expect(upstream!.count('inline')).toBe(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
