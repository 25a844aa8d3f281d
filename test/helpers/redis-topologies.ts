import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RedisNode } from '../../src/state/redis/index.js';
import { freePort } from './redis-global-setup.js';
import { accepts, waitFor } from './redis.js';

// Real Sentinel and Cluster topologies on loopback ports, one per test file
// that needs one, with the timeouts lowered so that a failover takes seconds.
// The Cluster is in redis-cluster.ts, on the processes and clients here.

export const BINARIES = { server: 'redis-server', sentinel: 'redis-sentinel', cli: 'redis-cli' } as const;
const INSTALL_HINT = 'Debian/Ubuntu: apt-get install redis-server redis-sentinel redis-tools; macOS: brew install redis';

/** Why these topologies cannot start here (a binary missing), or undefined when they can. */
export function topologiesMissing(): string | undefined {
  const missing = Object.values(BINARIES).filter((binary) => spawnSync(binary, ['--version']).status !== 0);
  return missing.length === 0 ? undefined : `${missing.join(', ')} not found: ${INSTALL_HINT}`;
}

/** Sentinel: a node is down after this long unanswered; the failover itself is bounded by FAILOVER_TIMEOUT_MS. */
export const DOWN_AFTER_MS = 1_000;
const FAILOVER_TIMEOUT_MS = 5_000;
/** Cluster: a master is failed after this long unanswered, and its replica then takes over. */
export const NODE_TIMEOUT_MS = 1_000;
export const STARTUP_MS = 20_000;

/** A set of redis-server and redis-sentinel processes in one temp directory, all killed by stop(). */
export class Processes {
  readonly dir = mkdtempSync(join(tmpdir(), 'toolgate-topology-'));
  private readonly children = new Map<number, ChildProcess>();

  async start(binary: string, port: number, args: string[]): Promise<void> {
    const dir = join(this.dir, String(port));
    mkdirSync(dir, { recursive: true });
    const child = spawn(binary, args, { cwd: dir, stdio: 'ignore' });
    this.children.set(port, child);
    await waitFor(`${binary} on ${port}`, () => accepts(port), STARTUP_MS);
  }

  /** SIGKILL: the process dies mid-write, as a crashed host would. */
  async kill(port: number): Promise<void> {
    const child = this.children.get(port);
    this.children.delete(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  }

  /** SIGSTOP: the process keeps its sockets open and answers nothing, as a hung host would. */
  signal(port: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.children.get(port)?.kill(signal);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.children.keys()].map((port) => this.kill(port)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `n` distinct free loopback ports. */
export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

// No delay before a replica's first sync: by default a primary waits 5 s for more replicas, and one killed in that window leaves no replica
// to promote.
export const SERVER_ARGS = (port: number) => [
  ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '.', '--logfile', 'redis.log'],
  ...['--repl-diskless-sync-delay', '0'],
];

export async function withClient<T>(
  port: number,
  use: (redis: Redis) => Promise<T>,
  options: { commandTimeout?: number } = {},
): Promise<T> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...options });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

export const infoField = (info: string, field: string) => new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();

/** A primary, one replica and three sentinels (quorum 2) monitoring them as `name`. */
export class SentinelTopology {
  readonly name = 'toolgate-test';
  private constructor(
    private readonly processes: Processes,
    readonly sentinels: RedisNode[],
    readonly dataPorts: number[],
  ) {}

  static async start(): Promise<SentinelTopology> {
    const processes = new Processes();
    try {
      const [primary, replica, ...sentinelPorts] = await freePorts(5);
      await processes.start(BINARIES.server, primary!, SERVER_ARGS(primary!));
      await processes.start(BINARIES.server, replica!, [...SERVER_ARGS(replica!), '--replicaof', '127.0.0.1', String(primary)]);
      const topology = new SentinelTopology(
        processes,
        sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
        [primary!, replica!],
      );
      for (const port of sentinelPorts) {
        const conf = join(processes.dir, `sentinel-${port}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            `sentinel monitor ${topology.name} 127.0.0.1 ${primary} 2`,
            `sentinel down-after-milliseconds ${topology.name} ${DOWN_AFTER_MS}`,
            `sentinel failover-timeout ${topology.name} ${FAILOVER_TIMEOUT_MS}`,
            '',
          ].join('\n'),
        );
        await processes.start(BINARIES.sentinel, port, [conf]);
      }
      // Ready once the replica is in sync and every sentinel knows the replica and the two other sentinels.
      await waitFor(
        'the replica to sync',
        () => withClient(replica!, async (r) => infoField(await r.info('replication'), 'master_link_status') === 'up'),
        STARTUP_MS,
      );
      await waitFor(
        'the sentinels to know each other and the replica',
        async () => {
          const known = await Promise.all(
            sentinelPorts.map((port) =>
              withClient(port, async (s) => {
                const peers = (await s.call('SENTINEL', 'SENTINELS', topology.name)) as unknown[];
                const replicas = (await s.call('SENTINEL', 'REPLICAS', topology.name)) as unknown[];
                return peers.length === 2 && replicas.length === 1;
              }).catch(() => false),
            ),
          );
          return known.every(Boolean);
        },
        STARTUP_MS,
      );
      return topology;
    } catch (error) {
      await processes.stop();
      throw error;
    }
  }

  /** The port of the primary, as the sentinels name it now. */
  primaryPort(): Promise<number> {
    return withClient(this.sentinels[0]!.port, async (s) =>
      Number(((await s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name)) as string[])[1]),
    );
  }

  async killPrimary(): Promise<number> {
    const port = await this.primaryPort();
    await this.processes.kill(port);
    return port;
  }

  /**
   * An operator's switch, with no failover to kill anyone's connections: the
   * replica made primary, the sentinels told to monitor it instead, then the
   * old primary made its replica. A client still connected to the old one
   * gets READONLY for every write. Returns the new primary's port.
   */
  async switchByHand(): Promise<number> {
    const old = await this.primaryPort();
    const replica = this.dataPorts.find((port) => port !== old)!;
    await withClient(replica, (r) => r.replicaof('NO', 'ONE'));
    for (const { port } of this.sentinels) {
      await withClient(port, async (s) => {
        await s.call('SENTINEL', 'REMOVE', this.name);
        await s.call('SENTINEL', 'MONITOR', this.name, '127.0.0.1', String(replica), '2');
        await s.call(
          'SENTINEL',
          'SET',
          this.name,
          'down-after-milliseconds',
          String(DOWN_AFTER_MS),
          'failover-timeout',
          String(FAILOVER_TIMEOUT_MS),
        );
      });
    }
    await withClient(old, (r) => r.replicaof('127.0.0.1', String(replica)));
    return replica;
  }

  /** Until the sentinels name a primary other than `old` and it answers as one. */
  async promoted(old: number, timeoutMs = 30_000): Promise<number> {
    let port = old;
    await waitFor(
      'a replica to be promoted',
      async () => {
        port = await this.primaryPort().catch(() => old);
        return (
          port !== old &&
          (await withClient(port, async (r) => infoField(await r.info('replication'), 'role') === 'master').catch(() => false))
        );
      },
      timeoutMs,
    );
    return port;
  }

  stop(): Promise<void> {
    return this.processes.stop();
  }
}
