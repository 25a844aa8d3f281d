import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { freePort } from './redis-global-setup.js';

/** Whether something accepts TCP connections on 127.0.0.1:port right now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The redis-server binary, for a test that starts servers of its own (to
 * stop, restart or count them). With REDIS_URL set and no binary, such a
 * test fails with the install hint rather than skip: without it the
 * proof it gives is missing.
 */
export function redisServerBinary(): string {
  const binary = inject('redisBinary');
  if (!binary) {
    throw new Error(
      'This test starts redis-servers of its own, and found no redis-server (REDIS_SERVER_BIN, or on PATH): install it ' +
        '(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).',
    );
  }
  return binary;
}

/**
 * A redis-server of the test's own on a loopback port that stays the same
 * across stop and start, so a client can reconnect to it by itself; and whose
 * settings (the slow log) the test may change without touching the shared one.
 */
export class OwnRedis {
  private child: ChildProcess | undefined;

  private constructor(
    private readonly binary: string,
    readonly port: number,
  ) {}

  static async start(binary: string): Promise<OwnRedis> {
    const server = new OwnRedis(binary, await freePort());
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(this.binary, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let attempt = 0; !(await accepts(this.port)); attempt++) {
      if (attempt > 200) throw new Error(`redis-server did not listen on ${this.port}`);
      await sleep(25);
    }
  }

  /** Returns once the process is gone and the port refuses connections. */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await once(child, 'exit');
  }
}

/** Polls `check` until it holds; throws with `what` once `timeoutMs` passes. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Counts what a client's socket hands to the kernel from now on: one `_write`
 * or `_writev` is one write system call, however many commands it carries
 * (the store's connection corks its socket for an event-loop turn).
 */
export function countSocketWrites(client: Redis): { count: number } {
  const counter = { count: 0 };
  const stream = client.stream as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  for (const name of ['_write', '_writev'] as const) {
    const original = stream[name].bind(stream);
    stream[name] = (...args: unknown[]) => {
      counter.count += 1;
      original(...args);
    };
  }
  return counter;
}
