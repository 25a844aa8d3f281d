import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { buildConnector } from 'undici';
import type { ToolConfig } from '../../../src/config/schema.js';
import { GatewayError } from '../../../src/protocol/errors.js';
import { isSpillFailure, type SpillOutcome } from '../../../src/spill/spill-store.js';
import { createHttpDispatchers, type HttpDispatcherOptions, type HttpDispatchers } from '../../../src/tools/http/index.js';
import type { ConnectorFactory } from '../../../src/tools/http/ssrf.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';
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
  /** The bytes of a spill this stand-in took (it never fails one). */
  read(record: SpillOutcome): Promise<Buffer>;
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
    read: (record) => (isSpillFailure(record) ? Promise.reject(new Error('not spilled')) : readFile(new URL(record.uri))),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** What the pipeline hands a tool: the signal aborts at the deadline; `env` answers the tool's credentials. */
export function callContext(timeoutMs: number, spill?: ToolContext['spill'], env: NodeJS.ProcessEnv = {}): ToolContext {
  const signal = AbortSignal.timeout(timeoutMs);
  return {
    signal,
    get aborted() {
      return signal.aborted;
    },
    deadline: Date.now() + timeoutMs,
    imageBytes: 5_242_880,
    fileLocks: { acquire: () => Promise.reject(new Error('HTTP tools take no file locks')) },
    get workspace(): never {
      throw new Error('an HTTP tool touches no workspace');
    },
    caller: { tenant: 'acme', keyId: 'key-1', user: undefined },
    credentials: createEnvCredentials(env).for('test_tool'),
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

/*
 * The tripwire: the network edge of every HTTP pool in these tests.
 *
 * These tests name addresses outside loopback (10.0.0.1, 169.254.169.254 …)
 * and expect the SSRF guard to refuse them. This machine must never send a
 * packet outside loopback, so a test may not rely on the guard for that: a
 * broken guard must fail the test, not reach the address. The dispatchers
 * below therefore take their last connect step and their name resolution from
 * here instead of the network:
 * - host names resolve in memory, never through DNS (`localhost` only, to the
 *   addresses the test chose); any other name is refused before any lookup,
 *   so even a code path that bypassed the injected lookup could only ask
 *   /etc/hosts about `localhost`;
 * - a socket is opened only to 127.0.0.0/8 or ::1 — a literal target or a
 *   resolved address anywhere else is refused with `TRIPWIRE: …` before any
 *   socket exists.
 * Every refusal is recorded; `expectTripwireQuiet` (run after each test)
 * fails the test that set it off.
 */

const IPV6_LOOPBACK = new net.BlockList();
IPV6_LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8 or ::1, strictly (not 0.0.0.0, not ::ffff:127.0.0.1, not a name). */
export function isLoopback(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return address.split('.')[0] === '127';
  return family === 6 && IPV6_LOOPBACK.check(address, 'ipv6');
}

/** The only host name a test may use; /etc/hosts answers it should anything ever ask the system. */
const TEST_HOSTNAME = 'localhost';

/** Every tripwire refusal in this test file not yet reported by `expectTripwireQuiet`. */
const tripped: string[] = [];

export interface Tripwire {
  /** In-memory resolver: `localhost` to the configured addresses, every other name ENOTFOUND. */
  lookup: LookupFunction;
  /** The final connect step: refuses anything outside loopback, then delegates to the real connector. */
  buildConnector: ConnectorFactory;
  /** What it refused, e.g. `TRIPWIRE: would have connected to 10.0.0.1`. */
  fired: string[];
  /** The loopback addresses and names it let through to the real connector. */
  passed: string[];
}

export interface TripwireOptions {
  /** What `localhost` resolves to. Default ['127.0.0.1']. Outside loopback it is the guard's to refuse, and the tripwire's. */
  localhost?: string[];
  /** The real connector factory behind the tripwire; a test of the tripwire itself passes one that opens nothing. */
  build?: ConnectorFactory;
}

export function createTripwire(options: TripwireOptions = {}): Tripwire {
  const localhost = (options.localhost ?? ['127.0.0.1']).map((address) => ({ address, family: net.isIP(address) }));
  const build = options.build ?? buildConnector;
  const fired: string[] = [];
  const passed: string[] = [];
  const trip = (what: string): Error => {
    const message = `TRIPWIRE: would have ${what}`;
    fired.push(message);
    tripped.push(message);
    return Object.assign(new Error(message), { code: 'TOOLGATE_TEST_TRIPWIRE' });
  };

  const lookup: LookupFunction = (hostname, opts, callback) => {
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : (opts.family ?? 0);
    const addresses = hostname === TEST_HOSTNAME ? localhost.filter((a) => family === 0 || a.family === family) : [];
    process.nextTick(() => {
      const [first] = addresses;
      if (!first) callback(Object.assign(new Error(`test resolver: no address for ${hostname}`), { code: 'ENOTFOUND', hostname }), '', 0);
      else if (opts.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };

  const buildTripwired: ConnectorFactory = (buildOptions) => {
    // `lookup` is the guard's checking lookup in the guarded pool, the injected resolver (or ours) in the open one.
    const inner = (buildOptions as { lookup?: LookupFunction }).lookup ?? lookup;
    const checkedLookup: LookupFunction = (hostname, opts, callback) => {
      if (hostname !== TEST_HOSTNAME) {
        const refusal = trip(`resolved ${hostname}`);
        process.nextTick(() => callback(refusal, '', 0));
        return;
      }
      inner(hostname, opts, (err, address, family) => {
        if (err) {
          callback(err, '', 0);
          return;
        }
        const outside = (Array.isArray(address) ? address.map((a) => a.address) : [address]).find((a) => !isLoopback(a));
        if (outside !== undefined) callback(trip(`connected to ${outside} (${hostname})`), '', 0);
        else if (Array.isArray(address)) callback(null, address);
        else callback(null, address, family);
      });
    };
    const connect = build({ ...buildOptions, lookup: checkedLookup });
    return (target, callback) => {
      const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
      const allowed = net.isIP(host) === 0 ? host === TEST_HOSTNAME : isLoopback(host);
      if (!allowed || target.socketPath || target.httpSocket) {
        const refusal = trip(`connected to ${host}`);
        process.nextTick(() => callback(refusal, null));
        return;
      }
      passed.push(host);
      connect(target, callback);
    };
  };

  return { lookup, buildConnector: buildTripwired, fired, passed };
}

/** The HTTP pools for a test: resolution and connections only through a tripwire (`localhost` as in `createTripwire`). */
export function createTestDispatchers(
  options: Omit<HttpDispatcherOptions, 'lookup' | 'buildConnector'> & TripwireOptions = {},
): HttpDispatchers & { tripwire: Tripwire } {
  const { localhost, build, ...rest } = options;
  const tripwire = createTripwire({ localhost, build });
  return { ...createHttpDispatchers({ ...rest, lookup: tripwire.lookup, buildConnector: tripwire.buildConnector }), tripwire };
}

/** Fails (and resets) when any tripwire in this file fired since the last check; run it after each test. */
export function expectTripwireQuiet(): void {
  const fired = tripped.splice(0);
  if (fired.length > 0) throw new Error(`a test tried to leave loopback:\n${fired.join('\n')}`);
}

/**
 * Throws unless both pools of `pools` really open their connections through its tripwire: run it
 * before any test that names an address outside loopback, so that a pool wired around the tripwire
 * (a regression in dispatcher.ts or ssrf.ts) stops the file instead of reaching that address. It
 * asks only for `localhost` on the given loopback port, so it is itself safe either way.
 */
export async function expectWiredThroughTripwire(pools: ReturnType<typeof createTestDispatchers>, port: number): Promise<void> {
  const through: string[] = [];
  for (const [name, dispatcher] of Object.entries({ guarded: pools.guarded, open: pools.open })) {
    const before = pools.tripwire.passed.length;
    // The guarded pool refuses localhost once resolved; what matters is that the tripwire saw the attempt.
    const response = await dispatcher.request({ origin: `http://localhost:${port}`, path: '/', method: 'GET' }).catch(() => undefined);
    await response?.body.dump();
    if (pools.tripwire.passed.length > before) through.push(name);
  }
  if (through.length !== 2) {
    throw new Error(`only [${through.join(', ')}] of the guarded and open pools connect through the tripwire; refusing to run`);
  }
}
