import { Cluster, type ChainableCommander, type Redis } from 'ioredis';
import { StateUnavailableError } from '../state-store.js';
import { openRedis, reconnectDelay, type RedisClient, type RedisTopology } from './topology.js';

const CONNECTING = new Set(['wait', 'connecting', 'connect']);

export type RedisConnectionOptions = (
  | { url: string; topology?: never; client?: never }
  | { topology: RedisTopology; url?: never; client?: never }
  | { client: RedisClient; url?: never; topology?: never }
) & {
  /** Bound on opening a connection, and so on a call's wait for one. Default 500. */
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
};

/** No command is queued while disconnected or resent; every failure leaves as StateUnavailableError. */
export class RedisConnection {
  readonly client: RedisClient;
  private readonly cluster: Cluster | undefined;
  private readonly owned: boolean;
  private readonly connectTimeoutMs: number;
  private lastError: unknown;
  private corked = false;
  private readyWait: Promise<boolean> | undefined;
  private nodesWait: Promise<unknown> | undefined;

  constructor(options: RedisConnectionOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 500;
    this.owned = options.client === undefined;
    this.client =
      options.client ??
      openRedis(options.topology ?? { kind: 'single', url: options.url! }, {
        connectTimeout: this.connectTimeoutMs,
        commandTimeout: options.commandTimeoutMs ?? 500,
        // A command reported as failed must never run later.
        enableOfflineQueue: false,
        autoResendUnfulfilledCommands: false,
        maxRetriesPerRequest: 0,
        retryStrategy: reconnectDelay,
      });
    this.cluster = this.client instanceof Cluster ? this.client : undefined;
    if (this.owned) this.client.on('error', (error: unknown) => (this.lastError = error));
  }

  async exec(pipeline: ChainableCommander): Promise<unknown[]> {
    const replies = await this.run(() => pipeline.exec());
    return (replies ?? []).map(([error, reply]) => {
      if (error) throw new StateUnavailableError(undefined, { cause: error });
      return reply;
    });
  }

  async run<T>(operation: () => Promise<T>): Promise<T> {
    try {
      await this.connected();
      this.corkTurn();
      return await operation();
    } catch (error) {
      throw error instanceof StateUnavailableError ? error : new StateUnavailableError(undefined, { cause: error });
    }
  }

  /**
   * The commands of one event-loop turn leave in one socket write per node,
   * each still answered on its own: corked at the turn's first command,
   * uncorked in its check phase. On a Cluster every master is corked.
   */
  private corkTurn(): void {
    if (this.corked) return;
    const streams = this.cluster ? this.cluster.nodes('master').map((node) => node.stream) : [(this.client as Redis).stream];
    const held = streams.filter((stream) => stream?.writable);
    if (held.length === 0) return;
    // Scheduled first, so nothing in between can leave a socket corked for good.
    setImmediate(() => {
      this.corked = false;
      for (const stream of held) stream.uncork();
    });
    this.corked = true;
    for (const stream of held) stream.cork();
  }

  /** Closes the connection the store opened; a `client` passed in stays its owner's. */
  async close(): Promise<void> {
    if (!this.owned) return;
    await this.client.quit().catch(() => this.client.disconnect());
  }

  /** A call during a connection attempt waits for it (at most the connect timeout); between attempts it fails at once. */
  private async connected(): Promise<void> {
    const client = this.client;
    if (client.status === 'ready') return this.cluster && this.mastersOpened(this.cluster);
    if (!CONNECTING.has(client.status)) throw new StateUnavailableError('Redis not connected', { cause: this.lastError });
    this.readyWait ??= new Promise<boolean>((resolve) => {
      const done = (ready: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady).off('close', onClose);
        this.readyWait = undefined;
        resolve(ready);
      };
      const onReady = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(done, this.connectTimeoutMs, false);
      client.once('ready', onReady).once('close', onClose);
      if (client.status === 'wait') client.connect().catch(() => undefined);
    });
    if (!(await this.readyWait)) throw new StateUnavailableError('Redis not connected', { cause: this.lastError });
    if (this.cluster) await this.mastersOpened(this.cluster);
  }

  /** Without an offline queue a Cluster refuses commands to a master still connecting, so new masters are connected first. */
  private async mastersOpened(cluster: Cluster): Promise<void> {
    if (this.nodesWait === undefined) {
      const fresh = cluster.nodes('master').filter((node) => node.status === 'wait');
      if (fresh.length === 0) return;
      this.nodesWait = Promise.all(fresh.map((node) => node.connect().catch(() => undefined))).finally(() => (this.nodesWait = undefined));
    }
    await this.nodesWait;
  }
}
