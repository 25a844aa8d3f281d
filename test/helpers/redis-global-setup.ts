import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

const INSTALL_HINT =
  'No Redis for the tests: set REDIS_URL to a loopback Redis, or install redis-server ' +
  '(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assertLoopback(url: string): void {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!(host === 'localhost' || host === '::1' || host.startsWith('127.'))) {
    throw new Error(`REDIS_URL must point at a loopback address for the tests, got ${host}`);
  }
}

let child: ChildProcess | undefined;
let dir: string | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binary = process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (process.env.REDIS_URL) {
    assertLoopback(process.env.REDIS_URL);
    project.provide('redisUrl', process.env.REDIS_URL);
    project.provide('redisBinary', probe.status === 0 ? binary : '');
    return async () => {};
  }
  if (probe.error || probe.status !== 0) throw new Error(INSTALL_HINT);
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'toolgate-redis-'));
  child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  await waitForPort(port, 10_000);
  project.provide('redisUrl', `redis://127.0.0.1:${port}`);
  project.provide('redisBinary', binary);
  return async () => {
    child?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
