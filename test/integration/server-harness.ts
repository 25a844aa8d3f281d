import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect } from 'vitest';
import { accepts } from '../helpers/redis.js';

/** `toolgate serve` as a child process, for the server-*.test.ts files: start it, watch it refuse, call it. */

// Start-up under tsx on a loaded two-core machine can take several seconds.
export const START_MS = 45_000;
export const TEST_MS = 120_000;
export const EXIT_MS = 30_000;
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
export const BUILTINS = ['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write'];

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What the "toolgate ready" log line reports. */
export interface Ready {
  address: string;
  metrics: string;
  tools: string[];
  state: string;
  spill: string;
  workspace: string;
  keys: number;
}

export interface Gateway {
  child: ChildProcess;
  /** Parsed JSON log lines from stdout so far. */
  logs: Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<Exit>;
  /** The ready line; rejects if the process exits first. */
  ready: Promise<Ready>;
}

const children: ChildProcess[] = [];

/** The scratch directory of the current test, made by useGatewayScratch. */
export let scratch: string;

/** A fresh scratch directory for each test of the calling file; every gateway a test started is killed after it. */
export function useGatewayScratch(): void {
  beforeEach(async () => {
    scratch = realpathSync(await mkdtemp(join(tmpdir(), 'toolgate-server-')));
  });

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(scratch, { recursive: true, force: true });
  });
}

/** `toolgate serve` as a child process with only `env` (plus what node itself needs) in its environment. */
export function startGateway(env: Record<string, string>, cwd = scratch): Gateway {
  const base = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
  const child = spawn(process.execPath, ['--import', TSX, CLI, 'serve'], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let pending = '';
  let onReady: (ready: Ready) => void = () => {};
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<Ready>((resolve, reject) => {
    onReady = resolve;
    void exited.then((exit) => reject(new Error(`gateway exited (${JSON.stringify(exit)}) before it was ready:\n${stderr}`)));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines.filter((l) => l.startsWith('{'))) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'toolgate ready') onReady(entry as unknown as Ready);
    }
  });
  const timed = withTimeout(ready, START_MS, 'gateway start');
  // Tests that expect a refusal never await it.
  timed.catch(() => {});
  return { child, logs, stderr: () => stderr, exited, ready: timed };
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export function portOf(address: string): number {
  return Number(new URL(address).port);
}

/**
 * For a gateway that must refuse to start: probe its port until it exits,
 * killing it the moment the port answers. Resolves to whether it ever did.
 */
export async function watchRefusal(port: number, gateway: Gateway): Promise<{ everListened: boolean; exit: Exit }> {
  let exit: Exit | undefined;
  void gateway.exited.then((e) => (exit = e));
  let everListened = false;
  // Refusing comes after loading every module, which is most of a start-up.
  const deadline = Date.now() + START_MS;
  while (!exit && Date.now() < deadline) {
    if (await accepts(port)) {
      everListened = true;
      gateway.child.kill('SIGKILL');
    }
    await sleep(25);
  }
  if (!exit) throw new Error(`gateway still running after ${START_MS} ms:\n${gateway.stderr()}`);
  return { everListened: everListened || (await accepts(port)), exit };
}

export async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Reply {
  status: number;
  body: string;
  json(): any;
}

/** One request on a fresh connection (no pooled sockets between tests). */
export function call(port: number, method: string, path: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, method, path, agent: false, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, json: () => JSON.parse(text) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface CallResult {
  status: string;
  text?: string;
  error?: { code: string };
}

/** POST /execute of `calls` in `session` at a gateway's address; the batch itself must be answered 200. */
export async function executeAt(address: string, session: string, calls: unknown[]): Promise<CallResult[]> {
  const res = await fetch(`${address}/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-id': session },
    body: JSON.stringify(calls),
  });
  const body = (await res.json()) as { results: CallResult[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.results;
}

export async function writeConfig(text: string): Promise<string> {
  const path = join(scratch, 'toolgate.yaml');
  await writeFile(path, text);
  return path;
}

/** The isolated deployment values most tests run with: free port, temp workspace and spill directory. */
export function isolated(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    TOOLGATE_WORKSPACE: join(scratch, 'ws'),
    TOOLGATE_SPILL_URL: pathToFileURL(join(scratch, 'spill')).href,
    ...extra,
  };
}
