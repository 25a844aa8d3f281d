import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RedisNode } from '../../src/state/redis/index.js';
import { clusterSlot } from './cluster-slot.js';
import { freePort } from './redis-global-setup.js';
import { accepts, waitFor } from './redis.js';

// Real Sentinel and Cluster topologies on loopback ports, one per test file
// that needs one, with the timeouts lowered so that a failover takes seconds.

const BINARIES = { server: 'redis-server', sentinel: 'redis-sentinel', cli: 'redis-cli' } as const;
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
const STARTUP_MS = 20_000;

/** A set of redis-server and redis-sentinel processes in one temp directory, all killed by stop(). */
class Processes {
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
async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

// No delay before a replica's first sync: by default a primary waits 5 s for more replicas, and one killed in that window leaves no replica to promote.
const SERVER_ARGS = (port: number) => [
  ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '.', '--logfile', 'redis.log'],
  ...['--repl-diskless-sync-delay', '0'],
];

async function withClient<T>(port: number, use: (redis: Redis) => Promise<T>, options: { commandTimeout?: number } = {}): Promise<T> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, ...options });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

const infoField = (info: string, field: string) => new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();

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
      const topology = new SentinelTopology(processes, sentinelPorts.map((port) => ({ host: '127.0.0.1', port })), [primary!, replica!]);
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
      await waitFor('the replica to sync', () => withClient(replica!, async (r) => infoField(await r.info('replication'), 'master_link_status') === 'up'), STARTUP_MS);
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
    return withClient(this.sentinels[0]!.port, async (s) => Number(((await s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name)) as string[])[1]));
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
        await s.call('SENTINEL', 'SET', this.name, 'down-after-milliseconds', String(DOWN_AFTER_MS), 'failover-timeout', String(FAILOVER_TIMEOUT_MS));
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
        return port !== old && (await withClient(port, async (r) => infoField(await r.info('replication'), 'role') === 'master').catch(() => false));
      },
      timeoutMs,
    );
    return port;
  }

  stop(): Promise<void> {
    return this.processes.stop();
  }
}

/** Three masters, each with one replica, made by `redis-cli --cluster create`. */
export class ClusterTopology {
  private constructor(
    private readonly processes: Processes,
    readonly nodes: RedisNode[],
  ) {}

  static async start(): Promise<ClusterTopology> {
    const processes = new Processes();
    try {
      const ports = await freePorts(12);
      const nodes = ports.slice(0, 6).map((port) => ({ host: '127.0.0.1', port }));
      await Promise.all(
        nodes.map(({ port }, i) =>
          processes.start(BINARIES.server, port, [
            ...SERVER_ARGS(port),
            '--cluster-enabled', 'yes',
            // Its own bus port: the default, port + 10000, may be taken or past 65535.
            '--cluster-port', String(ports[6 + i]),
            '--cluster-config-file', 'nodes.conf',
            '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
          ]),
        ),
      );
      const created = spawnSync(BINARIES.cli, ['--cluster', 'create', ...nodes.map((n) => `${n.host}:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'], {
        encoding: 'utf8',
        timeout: STARTUP_MS,
      });
      if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
      const topology = new ClusterTopology(processes, nodes);
      await waitFor(
        'every node to see the cluster ok, and three replicas in sync',
        async () => {
          const states = await Promise.all(nodes.map((n) => withClient(n.port, (r) => r.cluster('INFO')).catch(() => '')));
          const links = await Promise.all(nodes.map((n) => withClient(n.port, (r) => r.info('replication')).catch(() => '')));
          const synced = links.filter((info) => infoField(info, 'master_link_status') === 'up').length;
          return states.every((info) => infoField(info, 'cluster_state') === 'ok') && synced === 3;
        },
        STARTUP_MS,
      );
      return topology;
    } catch (error) {
      await processes.stop();
      throw error;
    }
  }

  /** The port of the master that owns the slot of `key`, as the cluster says now (asking any live node in `nodes`). */
  async ownerOf(key: string, ask: RedisNode[] = this.nodes): Promise<number> {
    return (await this.ownersOf([key], ask))[0]!;
  }

  /** The ports of the masters that own the slots of `keys`, in their order, from one live node's view. */
  async ownersOf(keys: string[], ask: RedisNode[] = this.nodes): Promise<number[]> {
    for (const node of ask) {
      const owners = await withClient(node.port, async (r) => {
        const ranges = await r.cluster('SLOTS');
        const slots = await Promise.all(keys.map((key) => r.cluster('KEYSLOT', key) as Promise<number>));
        return slots.map((slot) => ranges.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1]);
      }).catch(() => undefined);
      if (owners?.every((owner) => owner !== undefined)) return owners as number[];
    }
    throw new Error('no cluster node answered');
  }

  /**
   * A new key prefix (`label-<uuid>`) for which `fits` holds of the masters
   * owning the keys `keysOf` names under it: a test that kills or hangs a
   * master picks which of toolgate's slots (keys.ts) are on it.
   */
  async prefixWhere(label: string, keysOf: (prefix: string) => string[], fits: (owners: number[]) => boolean): Promise<string> {
    const ranges = await withClient(this.nodes[0]!.port, (r) => r.cluster('SLOTS'));
    const owner = (key: string) => ranges.find(([from, to]) => clusterSlot(key) >= from && clusterSlot(key) <= to)![2]![1];
    for (let i = 0; i < 1_000; i++) {
      const prefix = `${label}-${randomUUID()}`;
      if (fits(keysOf(prefix).map(owner))) return prefix;
    }
    throw new Error(`no prefix found whose keys' masters fit (${label})`);
  }

  async killOwnerOf(key: string): Promise<number> {
    const port = await this.ownerOf(key);
    await this.processes.kill(port);
    return port;
  }

  /** SIGSTOP the node, and return once it has stopped: a fresh connection's PING goes unanswered. */
  async hang(port: number): Promise<void> {
    this.processes.signal(port, 'SIGSTOP');
    const answers = () => withClient(port, (r) => r.ping(), { commandTimeout: 200 }).then(() => true, () => false);
    await waitFor(`the node on ${port} to stop answering`, async () => !(await answers()));
  }

  kill(port: number): Promise<void> {
    return this.processes.kill(port);
  }

  /** The port of the replica of `master`, as another node's CLUSTER NODES says. */
  async replicaOf(master: number): Promise<number> {
    const lines = await withClient(this.nodes.find((n) => n.port !== master)!.port, async (r) => ((await r.cluster('NODES')) as string).split('\n'));
    const masterId = lines.find((line) => line.includes(`:${master}@`))!.split(' ')[0];
    return Number(/:(\d+)@/.exec(lines.find((line) => line.includes(`slave ${masterId}`))!)![1]);
  }

  /**
   * `CLUSTER FAILOVER TAKEOVER`: the replica becomes the master of its slots at once, without a vote.
   * A replica whose master has not answered for the node timeout may have taken over already, by itself.
   */
  async takeOver(replica: number): Promise<void> {
    await withClient(replica, async (r) => {
      const refused = await r.cluster('FAILOVER', 'TAKEOVER').then(() => undefined, (error: unknown) => error);
      if (refused && infoField(await r.info('replication'), 'role') !== 'master') throw refused;
    });
  }

  /** Until a live node names a master other than `old` for `key`'s slot and the cluster is ok again. */
  async failedOver(key: string, old: number, timeoutMs = 30_000): Promise<number> {
    const alive = this.nodes.filter((n) => n.port !== old);
    let port = old;
    await waitFor(
      "the dead master's replica to take over",
      async () => {
        port = await this.ownerOf(key, alive).catch(() => old);
        return port !== old && (await withClient(port, async (r) => infoField(await r.cluster('INFO'), 'cluster_state') === 'ok').catch(() => false));
      },
      timeoutMs,
    );
    return port;
  }

  stop(): Promise<void> {
    return this.processes.stop();
  }
}
