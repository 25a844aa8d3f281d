import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3SpillStoreOptions } from '../../src/spill/s3.js';

/** s3rver's fixed credentials: it checks every request's SigV4 signature against them. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const TEST_BUCKET = 'toolgate-test';

/** A store on an S3 server of the tests under a prefix of its own, so tests share the bucket without seeing each other. */
export function s3StoreOptions(
  endpoint: string,
  prefix = `t-${randomBytes(6).toString('hex')}`,
): Omit<S3SpillStoreOptions, 'ttlMs' | 'clock'> {
  return { location: { bucket: TEST_BUCKET, region: 'us-east-1', endpoint }, credentials: S3RVER_CREDENTIALS, prefix, timeoutMs: 5_000 };
}

/**
 * A real S3-compatible server (s3rver, from npm) on a loopback port, its
 * objects in a temp directory. `stop` and `start` keep the port and the
 * objects, so a client can find it again by itself.
 */
export class OwnS3 {
  private server: S3rver | undefined;

  private constructor(
    readonly port: number,
    readonly directory: string,
  ) {}

  static async start(port = 0): Promise<OwnS3> {
    const directory = mkdtempSync(join(tmpdir(), 'toolgate-s3-'));
    const probe = new S3rver({ address: '127.0.0.1', port, directory, silent: true, configureBuckets: [{ name: TEST_BUCKET }] });
    const { port: bound } = await probe.run();
    const own = new OwnS3(bound, directory);
    own.server = probe;
    return own;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = new S3rver({
      address: '127.0.0.1',
      port: this.port,
      directory: this.directory,
      silent: true,
      configureBuckets: [{ name: TEST_BUCKET }],
    });
    await this.server.run();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    // close() alone waits for the clients' keep-alive connections.
    server.httpServer.closeAllConnections();
    await server.close();
  }

  async cleanup(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

export type ProxyMode = 'pass' | 'hang' | 'fail';

/**
 * A loopback TCP proxy in front of a real S3 server, for its failures:
 * `pass` forwards, `hang` accepts and never answers (a slow store), `fail`
 * answers every request 503 (an overloaded one). `stop` refuses connections
 * (an unreachable one). Each change drops the connections open so far.
 */
export class FaultyProxy {
  mode: ProxyMode = 'pass';
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly target: number) {}

  static async start(target: number): Promise<FaultyProxy> {
    const proxy = new FaultyProxy(target);
    await proxy.start();
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  set(mode: ProxyMode): void {
    this.mode = mode;
    this.dropConnections();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port after `stop`. */
  async start(): Promise<void> {
    this.port = await this.listen(this.port);
  }

  private dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private listen(port: number): Promise<number> {
    const server = createServer((client) => {
      this.track(client);
      if (this.mode === 'hang') return;
      if (this.mode === 'fail') {
        client.once('data', () => client.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
        return;
      }
      const upstream = this.track(connect(this.target, '127.0.0.1'));
      client.pipe(upstream).pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    this.server = server;
    return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }
}
