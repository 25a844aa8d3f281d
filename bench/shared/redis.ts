import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

export interface BenchRedis {
  url: string;
  /**
   * What Redis ran while `work` ran: the commands clients other than the
   * bench's own sent, by name, and how many commands Lua scripts ran inside
   * them. The slow log with a zero threshold records both; a script's
   * commands carry no client address ("?:0"). The /execute path sends no
   * pipelines, so each command sent is one round trip.
   */
  commandsDuring(work: () => Promise<void>): Promise<RedisCommands>;
  stop(): Promise<void>;
}

export interface RedisCommands {
  sent: Record<string, number>;
  inScripts: number;
}

const ADMIN_NAME = 'bench-admin';
const SLOWLOG_MAX = 100_000;
const SCRIPT_ADDRESS = '?:0';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** A redis-server of the bench's own on a free loopback port, no persistence; undefined when there is no binary. */
export async function startRedis(binary = process.env.REDIS_SERVER_BIN ?? 'redis-server'): Promise<BenchRedis | undefined> {
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return undefined;
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-bench-redis-'));
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  await waitForPort(port, 10_000);
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url, { connectionName: ADMIN_NAME });
  return {
    url,
    async commandsDuring(work) {
      await admin.config('SET', 'slowlog-max-len', String(SLOWLOG_MAX));
      await admin.config('SET', 'slowlog-log-slower-than', '0');
      await admin.slowlog('RESET');
      try {
        await work();
      } finally {
        await admin.config('SET', 'slowlog-log-slower-than', '10000');
      }
      const log = (await admin.slowlog('GET', SLOWLOG_MAX)) as [number, number, number, string[], string, string][];
      await admin.slowlog('RESET');
      const counts: RedisCommands = { sent: {}, inScripts: 0 };
      for (const [, , , args, address, name] of log) {
        if (name === ADMIN_NAME) continue;
        if (address === SCRIPT_ADDRESS) {
          counts.inScripts++;
          continue;
        }
        const command = (args[0] ?? '?').toLowerCase();
        counts.sent[command] = (counts.sent[command] ?? 0) + 1;
      }
      return counts;
    },
    async stop() {
      admin.disconnect();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
