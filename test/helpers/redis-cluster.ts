import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { RedisNode } from '../../src/state/redis/index.js';
import { clusterSlot } from './cluster-slot.js';
import { waitFor } from './redis.js';
import { BINARIES, freePorts, infoField, NODE_TIMEOUT_MS, Processes, SERVER_ARGS, STARTUP_MS, withClient } from './redis-topologies.js';

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
            '--cluster-enabled',
            'yes',
            // Its own bus port: the default, port + 10000, may be taken or past 65535.
            '--cluster-port',
            String(ports[6 + i]),
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            String(NODE_TIMEOUT_MS),
          ]),
        ),
      );
      const created = spawnSync(
        BINARIES.cli,
        ['--cluster', 'create', ...nodes.map((n) => `${n.host}:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
        {
          encoding: 'utf8',
          timeout: STARTUP_MS,
        },
      );
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
    const answers = () =>
      withClient(port, (r) => r.ping(), { commandTimeout: 200 }).then(
        () => true,
        () => false,
      );
    await waitFor(`the node on ${port} to stop answering`, async () => !(await answers()));
  }

  kill(port: number): Promise<void> {
    return this.processes.kill(port);
  }

  /**
   * The port of the replica of `master`, as another node's CLUSTER NODES says: waited for, since that node learns who replicates whom
   * by gossip, which may not have reached it yet on a cluster just started.
   */
  async replicaOf(master: number): Promise<number> {
    let port: number | undefined;
    await waitFor(`a node to know the replica of ${master}`, async () => {
      const lines = await withClient(this.nodes.find((n) => n.port !== master)!.port, async (r) =>
        ((await r.cluster('NODES')) as string).split('\n'),
      );
      const masterId = lines.find((line) => line.includes(`:${master}@`))?.split(' ')[0];
      const replica = masterId && lines.find((line) => line.includes(`slave ${masterId}`));
      port = replica ? Number(/:(\d+)@/.exec(replica)?.[1]) : undefined;
      return port !== undefined && Number.isInteger(port);
    });
    return port!;
  }

  /**
   * `CLUSTER FAILOVER TAKEOVER`: the replica becomes the master of its slots at once, without a vote.
   * A replica whose master has not answered for the node timeout may have taken over already, by itself.
   */
  async takeOver(replica: number): Promise<void> {
    await withClient(replica, async (r) => {
      const refused = await r.cluster('FAILOVER', 'TAKEOVER').then(
        () => undefined,
        (error: unknown) => error,
      );
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
        return (
          port !== old &&
          (await withClient(port, async (r) => infoField(await r.cluster('INFO'), 'cluster_state') === 'ok').catch(() => false))
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
