import { Cluster, type ChainableCommander, type Redis } from 'ioredis';
import { StateUnavailableError } from '../state-store.js';
import { openRedis, reconnectDelay, type RedisClient, type RedisTopology } from './topology.js';

/** ioredis states in which a connection attempt is under way (`wait`: a lazy client not yet asked to connect). */
const CONNECTING = new Set(['wait', 'connecting', 'connect']);

export type RedisConnectionOptions = (
  | { url: string; topology?: never; client?: never }
  | { topology: RedisTopology; url?: never; client?: never }
  /** A client of the caller's: its socket is corked for a turn like the store's own (see `corkTurn`), its other options are its owner's. */
  | { client: RedisClient; url?: never; topology?: never }
) & {
  /** Bound on opening a connection, and so on how long a call waits for one before StateUnavailableError. Default 500. */
  connectTimeoutMs?: number;
  /** Bound on one command of a connection the store opens (a given `client` keeps its own). Default 500. */
  commandTimeoutMs?: number;
};

/**
 * The store's client and its rule for commands: none is queued while
 * disconnected, none is resent, and every failure leaves here as
 * StateUnavailableError. The same on one node, through Sentinel, or on a Cluster.
 */
export class RedisConnection {
  readonly client: RedisClient;
  /** The client when it is a Cluster, whose masters are opened before a command; undefined on one node, which skips that step. */
  private readonly cluster: Cluster | undefined;
  private readonly owned: boolean;
  private readonly connectTimeoutMs: number;
  private lastError: unknown;
  /** Whether this turn's commands are being held for one write (see `corkTurn`). */
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
        // A command reported as failed must never run later: no queue while disconnected,
        // no resending of commands that were in flight when the connection dropped,
        // and those are failed as soon as it drops rather than after some reconnects.
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
   * The commands of one event-loop turn (the admits and settles of the
   * requests that arrived together) leave in one socket write per node, each
   * still answered, or failed, on its own: the sockets are corked at the
   * turn's first command and uncorked in its check phase, after the poll
   * phase has delivered every request that was ready. ioredis's
   * auto-pipelining batches the same way but keeps one batch in flight at a
   * time, so under load each command waited for the previous batch's round
   * trip, lived through young-generation collections and was promoted:
   * scavenges three times as long, the old space growing 20 MiB a second
   * (docs/performance.md, "Redis commands that outlived the young generation").
   * On a Cluster every master is corked, used this turn or not: cheaper than
   * finding which ones a turn's commands go to.
   */
  private corkTurn(): void {
    if (this.corked) return;
    const streams = this.cluster ? this.cluster.nodes('master').map((node) => node.stream) : [(this.client as Redis).stream];
    const held = streams.filter((stream) => stream?.writable);
    if (held.length === 0) return;
    // The uncork is scheduled before anything is corked: nothing in between can leave a socket corked for good.
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

  /**
   * Commands are never queued while disconnected. A call made while a
   * connection attempt is under way (at start-up, or a reconnect) waits for
   * that attempt, at most the connect timeout, instead of failing needlessly;
   * between attempts it fails at once. Concurrent callers share one wait.
   */
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

  /**
   * A Cluster opens a master's connection at its first command and, with no
   * offline queue, refuses every other command for that master until it is
   * open: of a batch's scripts for two slots of one master, the second would
   * fail. So the masters never connected yet (at start-up, or one that took
   * over) are connected first, concurrent callers sharing one wait, each
   * bounded by the connect timeout.
   */
  private async mastersOpened(cluster: Cluster): Promise<void> {
    if (this.nodesWait === undefined) {
      const fresh = cluster.nodes('master').filter((node) => node.status === 'wait');
      if (fresh.length === 0) return;
      this.nodesWait = Promise.all(fresh.map((node) => node.connect().catch(() => undefined))).finally(() => (this.nodesWait = undefined));
    }
    await this.nodesWait;
  }
}
