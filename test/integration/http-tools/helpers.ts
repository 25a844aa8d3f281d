import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ToolConfig } from '../../../src/config/schema.js';
import { GatewayError } from '../../../src/protocol/errors.js';
import type { SpillRecord } from '../../../src/spill/spill-store.js';
import type { ToolContext } from '../../../src/tools/tool.js';

export interface RecordedRequest {
  method: string;
  /** The request target exactly as it arrived on the wire. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A real HTTP server on loopback; the handler sees the request with its body already read. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void>,
): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      void handler(req, res, recorded);
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TempSpill {
  spill: ToolContext['spill'];
  /** Chunks the tool handed over, in order, by size only. */
  chunkSizes: number[];
  read(record: SpillRecord): Promise<Buffer>;
  cleanup(): Promise<void>;
}

/** A stand-in for the spill store: streams each output to a file in a temp dir and hashes it on the way. */
export async function createTempSpill(): Promise<TempSpill> {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-http-spill-'));
  const chunkSizes: number[] = [];
  return {
    chunkSizes,
    spill: async (content) => {
      const id = randomUUID();
      const path = join(dir, id);
      const out = createWriteStream(path);
      const hash = createHash('sha256');
      let bytes = 0;
      const source = typeof content === 'string' || Buffer.isBuffer(content) ? [Buffer.from(content)] : content;
      for await (const chunk of source) {
        chunkSizes.push(chunk.length);
        hash.update(chunk);
        bytes += chunk.length;
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
      out.end();
      await finished(out);
      return { id, uri: `file://${path}`, bytes, sha256: hash.digest('hex') };
    },
    read: (record) => readFile(new URL(record.uri)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** What the pipeline hands a tool: the signal aborts at the deadline. */
export function callContext(timeoutMs: number, spill?: ToolContext['spill']): ToolContext {
  return {
    signal: AbortSignal.timeout(timeoutMs),
    deadline: Date.now() + timeoutMs,
    tenant: 'acme',
    sessionId: 'session-1',
    callId: `call_${randomUUID()}`,
    spill: spill ?? (() => Promise.reject(new Error('this test expects no spill'))),
  };
}

/** A config entry for an HTTP tool; parameters accept any argument. */
export function httpToolConfig(http: ToolConfig['http'], overrides: Partial<ToolConfig> = {}): ToolConfig {
  const properties = Object.fromEntries([...http.url.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, {}]));
  return {
    name: 'test_tool',
    description: 'A tool under test.',
    parameters: { type: 'object', properties } as ToolConfig['parameters'],
    http,
    ...overrides,
  };
}

/** Run `fn` and return the GatewayError it throws (failing on success or on any other error). */
export async function failure(fn: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a failure, got success');
}
