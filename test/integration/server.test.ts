import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis-global-setup.js';
import { fixtureEvents, FIXTURE_SERVER, waitFor } from '../helpers/mcp.js';
import { accepts } from '../helpers/redis.js';

// Start-up under tsx on a loaded two-core machine can take several seconds.
const START_MS = 45_000;
const TEST_MS = 120_000;
const EXIT_MS = 30_000;
const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const BUILTINS = ['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write'];

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What the "toolgate ready" log line reports. */
interface Ready {
  address: string;
  metrics: string;
  tools: string[];
  state: string;
  spill: string;
  workspace: string;
  keys: number;
}

interface Gateway {
  child: ChildProcess;
  /** Parsed JSON log lines from stdout so far. */
  logs: Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<Exit>;
  /** The ready line; rejects if the process exits first. */
  ready: Promise<Ready>;
}

const children: ChildProcess[] = [];
let scratch: string;
let upstream: Server | undefined;

beforeEach(async () => {
  scratch = realpathSync(await mkdtemp(join(tmpdir(), 'toolgate-server-')));
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  upstream?.closeAllConnections();
  await new Promise((resolve) => (upstream ? upstream.close(resolve) : resolve(undefined)));
  upstream = undefined;
  await rm(scratch, { recursive: true, force: true });
});

/** `toolgate serve` as a child process with only `env` (plus what node itself needs) in its environment. */
function startGateway(env: Record<string, string>, cwd = scratch): Gateway {
  const base = Object.fromEntries(['PATH', 'HOME', 'TMPDIR'].flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
  const child = spawn(process.execPath, ['--import', TSX, CLI, 'serve'], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let pending = '';
  let onReady: (ready: Ready) => void = () => {};
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<Ready>((resolve, reject) => {
    onReady = resolve;
    void exited.then((exit) => reject(new Error(`gateway exited (${JSON.stringify(exit)}) before it was ready:\n${stderr}`)));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines.filter((l) => l.startsWith('{'))) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.msg === 'toolgate ready') onReady(entry as unknown as Ready);
    }
  });
  const timed = withTimeout(ready, START_MS, 'gateway start');
  // Tests that expect a refusal never await it.
  timed.catch(() => {});
  return { child, logs, stderr: () => stderr, exited, ready: timed };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function portOf(address: string): number {
  return Number(new URL(address).port);
}

/**
 * For a gateway that must refuse to start: probe its port until it exits,
 * killing it the moment the port answers. Resolves to whether it ever did.
 */
async function watchRefusal(port: number, gateway: Gateway): Promise<{ everListened: boolean; exit: Exit }> {
  let exit: Exit | undefined;
  void gateway.exited.then((e) => (exit = e));
  let everListened = false;
  // Refusing comes after loading every module, which is most of a start-up.
  const deadline = Date.now() + START_MS;
  while (!exit && Date.now() < deadline) {
    if (await accepts(port)) {
      everListened = true;
      gateway.child.kill('SIGKILL');
    }
    await sleep(25);
  }
  if (!exit) throw new Error(`gateway still running after ${START_MS} ms:\n${gateway.stderr()}`);
  return { everListened: everListened || (await accepts(port)), exit };
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Reply {
  status: number;
  body: string;
  json(): any;
}

/** One request on a fresh connection (no pooled sockets between tests). */
function call(port: number, method: string, path: string, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, method, path, agent: false, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, json: () => JSON.parse(text) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function writeConfig(text: string): Promise<string> {
  const path = join(scratch, 'toolgate.yaml');
  await writeFile(path, text);
  return path;
}

/** The isolated deployment values most tests run with: free port, temp workspace and spill directory. */
function isolated(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    TOOLGATE_WORKSPACE: join(scratch, 'ws'),
    TOOLGATE_SPILL_URL: pathToFileURL(join(scratch, 'spill')).href,
    ...extra,
  };
}

describe('npm start works with no set-up', { timeout: TEST_MS }, () => {
  it('serves the built-ins on loopback, creates ./workspace, spills under ./data and says what it runs on', async () => {
    const gateway = startGateway({ PORT: '0' });
    const ready = await gateway.ready;
    expect(new URL(ready.address).hostname).toBe('127.0.0.1');
    expect(ready).toMatchObject({ tools: BUILTINS, state: 'memory', workspace: join(scratch, 'workspace'), keys: 0 });
    expect(statSync(join(scratch, 'workspace')).isDirectory()).toBe(true);
    expect(statSync(join(scratch, 'data', 'spill')).isDirectory()).toBe(true);

    const tools = await call(portOf(ready.address), 'GET', '/tools');
    expect(tools.status).toBe(200);
    expect(tools.json().tools.map((t: any) => t.function.name)).toEqual(BUILTINS);

    // An output over the 50 KB call budget is cut, and the whole of it lands in ./data/spill.
    await writeFile(join(scratch, 'workspace', 'big.txt'), 'x'.repeat(80).concat('\n').repeat(1_000));
    const executed = await call(portOf(ready.address), 'POST', '/execute', [{ id: 'c1', name: 'Read', arguments: { path: 'big.txt' } }]);
    expect(executed.status).toBe(200);
    const result = executed.json().results[0];
    expect(result.truncated.uri).toMatch(new RegExp(`^${pathToFileURL(join(scratch, 'data', 'spill')).href}/`));
    expect(existsSync(fileURLToPath(result.truncated.uri))).toBe(true);

    const warnings = gateway.logs.filter((l) => l.level === 40).map((l) => String(l.msg));
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/state is in memory.*only replica/),
        expect.stringMatching(/no API keys.*loopback 127\.0\.0\.1/),
      ]),
    );
  });
});

describe('a bad configuration stops start-up before the port opens', { timeout: TEST_MS }, () => {
  it('lists every problem of the file and the environment on stderr and exits non-zero without listening', async () => {
    const port = await freePort();
    const config = await writeConfig(`
colour: blue
log_level: verbose
limits: {concurrency: many}
tools:
  - {name: dup, description: d, parameters: {type: object}, http: {method: GET, url: "https://example.com"}}
  - {name: dup, description: d, parameters: {type: object}, http: {method: GET, url: "https://example.com"}}
policy:
  rules:
    - {tool: Read, when: {path: "(unclosed"}, decision: deny}
`);
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config, METRICS_PORT: 'abc' }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const stderr = gateway.stderr();
    for (const problem of [
      'invalid configuration:',
      'METRICS_PORT: must be a whole number, got "abc"',
      '(top level): unknown setting "colour"',
      'log_level: must be one of',
      'limits.concurrency: must be integer',
      'tools: the name "dup" is declared twice',
      'policy.rules.0.when.path: not a valid regular expression',
    ]) {
      expect(stderr).toContain(problem);
    }
    expect(existsSync(join(scratch, 'ws'))).toBe(false);
  });

  it('lists the problems found while building tools and stores together: a missing ${VAR}, an unknown built-in, an unwritable spill directory', async () => {
    const port = await freePort();
    const notADirectory = join(scratch, 'a-file');
    await writeFile(notADirectory, '');
    const config = await writeConfig(`
builtins:
  Reed: {enabled: false}
tools:
  - name: weather
    description: Current weather.
    parameters: {type: object}
    http: {method: GET, url: "https://api.example.com/w", headers: {authorization: "Bearer \${TOOLGATE_TEST_WEATHER_TOKEN}"}}
`);
    const gateway = startGateway(
      isolated({ PORT: String(port), TOOLGATE_CONFIG: config, TOOLGATE_SPILL_URL: pathToFileURL(join(notADirectory, 'spill')).href }),
    );
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const stderr = gateway.stderr();
    expect(stderr).toMatch(/tools\.weather: .*\$\{TOOLGATE_TEST_WEATHER_TOKEN\}.*not set/);
    expect(stderr).toMatch(/builtins\.Reed: no built-in tool has this name/);
    expect(stderr).toMatch(/spill\.url file:\/\/.*a-file\/spill: ENOTDIR/);
  });

  it('lists the problems of every stage in one run: schema, regex, unknown built-in, missing ${VAR}, rules on an unknown tool and an unknown argument', async () => {
    const port = await freePort();
    const config = await writeConfig(`
builtins:
  Reed: {enabled: false}
  Edit: {enabled: false}
tools:
  - {name: broken, description: d, parameters: {type: object}, http: {method: FETCH, url: "https://example.com"}}
  - name: weather
    description: Current weather.
    parameters: {type: object, properties: {city: {type: string}}}
    http: {method: GET, url: "https://api.example.com/w", headers: {authorization: "Bearer \${TOOLGATE_TEST_WEATHER_TOKEN}"}}
policy:
  rules:
    - {tool: Write, when: {path: "(unclosed"}, decision: deny}
    - {tool: Wirte, decision: deny}
    - {tool: weather, when: {town: "^Paris$"}, decision: deny}
    - {tool: broken, decision: deny}
    - {tool: Edit, when: {path: "^infra/"}, decision: deny}
`);
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const listed = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('  - '))
      .map((line) => line.slice(4));
    expect(listed).toEqual([
      expect.stringMatching(/^tools\.0\.http\.method: must be one of "GET"/),
      expect.stringMatching(
        /^policy\.rules\.0\.when\.path: not a valid regular expression \("\(unclosed"\): missing closing "\)"; close every group/,
      ),
      expect.stringMatching(/^builtins\.Reed: no built-in tool has this name; use one of Read, .*Noop/),
      expect.stringMatching(
        /^tools\.weather: .*\$\{TOOLGATE_TEST_WEATHER_TOKEN\}, which is not set in the environment; set TOOLGATE_TEST_WEATHER_TOKEN/,
      ),
      expect.stringMatching(/^policy\.rules\.1\.tool: "Wirte" names no tool and matches none as a glob; use one of Read, Write,/),
      'policy.rules.2.when.town: weather has no argument "town"; use one of its arguments (city)',
    ]);
    // A configuration with problems creates nothing.
    expect(existsSync(join(scratch, 'ws'))).toBe(false);
  });

  it('refuses HOST=0.0.0.0 with no keys in validation, never binding', async () => {
    const port = await freePort();
    const gateway = startGateway(isolated({ HOST: '0.0.0.0', PORT: String(port) }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(gateway.logs.some((l) => l.msg === 'toolgate ready')).toBe(false);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    expect(gateway.stderr()).toMatch(/0\.0\.0\.0 is not a loopback address and no API keys.*allow_unauthenticated/);
  });
});

describe('a spill directory that breaks after start-up makes the gateway not ready, not down', { timeout: TEST_MS }, () => {
  it('is reported by /readyz while the process keeps serving', async () => {
    const gateway = startGateway(isolated());
    const port = portOf((await gateway.ready).address);
    expect((await call(port, 'GET', '/readyz')).status).toBe(200);
    await rm(join(scratch, 'spill'), { recursive: true });
    await writeFile(join(scratch, 'spill'), 'not a directory');
    const ready = await call(port, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'not_ready', failed: ['spill_store'] });
    expect((await call(port, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('METRICS_PORT puts the metrics on their own port', { timeout: TEST_MS }, () => {
  it('METRICS_PORT moves /metrics off the API port, and the metrics port serves nothing else', async () => {
    const gateway = startGateway(isolated({ METRICS_PORT: '0' }));
    const ready = await gateway.ready;
    const api = portOf(ready.address);
    const metrics = portOf(ready.metrics);
    expect(metrics).not.toBe(api);
    expect((await call(api, 'GET', '/metrics')).status).toBe(404);
    expect((await call(api, 'GET', '/healthz')).status).toBe(200);
    const scraped = await call(metrics, 'GET', '/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('toolgate_');
    expect((await call(metrics, 'GET', '/tools')).status).toBe(404);
  });

  it('without METRICS_PORT /metrics is on the API port; the ready line says where everything is', async () => {
    const gateway = startGateway(isolated());
    const ready = await gateway.ready;
    expect(ready.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready).toMatchObject({
      metrics: `${ready.address}/metrics`,
      tools: BUILTINS,
      state: 'memory',
      spill: pathToFileURL(join(scratch, 'spill')).href,
      workspace: join(scratch, 'ws'),
      keys: 0,
    });
    expect((await call(portOf(ready.address), 'GET', '/metrics')).status).toBe(200);
  });
});

describe('graceful shutdown', { timeout: TEST_MS }, () => {
  /** A loopback upstream that holds each request until the test releases it. */
  async function heldUpstream(): Promise<{ port: number; arrived: Promise<void>; release(): void }> {
    let arrive: () => void = () => {};
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const held: ServerResponse[] = [];
    upstream = createServer((_req: IncomingMessage, res: ServerResponse) => {
      held.push(res);
      arrive();
    });
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    if (!address || typeof address === 'string') throw new Error('no upstream address');
    const release = () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":42}');
    };
    return { port: address.port, arrived, release };
  }

  async function gatewayWithSlowTool(upstreamPort: number): Promise<{ gateway: Gateway; port: number }> {
    const config = await writeConfig(`
tools:
  - name: slow_lookup
    description: Answers when the upstream does.
    parameters: {type: object}
    http: {method: GET, url: "http://127.0.0.1:${upstreamPort}/slow", allow_private_network: true}
    timeout_ms: 60000
`);
    const gateway = startGateway(isolated({ TOOLGATE_CONFIG: config }));
    const ready = await gateway.ready;
    expect(ready.tools).toContain('slow_lookup');
    return { gateway, port: portOf(ready.address) };
  }

  /** Send a call of the slow tool and wait until it is at the upstream; the reply is wrapped so awaiting this does not await it. */
  async function inFlight(port: number, upstreamArrived: Promise<void>): Promise<{ reply: Promise<Reply> }> {
    const reply = call(port, 'POST', '/execute', [{ id: 'slow-1', name: 'slow_lookup', arguments: {} }]);
    reply.catch(() => {});
    await withTimeout(upstreamArrived, 15_000, 'the tool call reaching the upstream');
    return { reply };
  }

  async function expectDrainedAndExited(gateway: Gateway, port: number, reply: Promise<Reply>, release: () => void): Promise<void> {
    await until('new connections refused', async () => !(await accepts(port)));
    release();
    const response = await withTimeout(reply, 15_000, 'the in-flight request');
    expect(response.status).toBe(200);
    expect(response.json().results[0]).toMatchObject({ tool_call_id: 'slow-1', status: 'success', data: { answer: 42 } });
    expect(await withTimeout(gateway.exited, EXIT_MS, 'gateway exit')).toEqual({ code: 0, signal: null });
    expect(gateway.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['stopped']));
  }

  it('SIGTERM: the in-flight request completes with its result, new connections are refused, exit 0', async () => {
    const slow = await heldUpstream();
    const { gateway, port } = await gatewayWithSlowTool(slow.port);
    const { reply } = await inFlight(port, slow.arrived);
    gateway.child.kill('SIGTERM');
    await expectDrainedAndExited(gateway, port, reply, slow.release);
  });

  it('SIGINT delivered twice at once (Ctrl-C under npm start) is one graceful stop, exit 0', async () => {
    const slow = await heldUpstream();
    const { gateway, port } = await gatewayWithSlowTool(slow.port);
    const { reply } = await inFlight(port, slow.arrived);
    gateway.child.kill('SIGINT');
    gateway.child.kill('SIGINT');
    await expectDrainedAndExited(gateway, port, reply, slow.release);
  });

  it('a second signal later in the drain exits at once with 1', async () => {
    const slow = await heldUpstream();
    const { gateway, port } = await gatewayWithSlowTool(slow.port);
    const { reply } = await inFlight(port, slow.arrived);
    gateway.child.kill('SIGTERM');
    await until('new connections refused', async () => !(await accepts(port)));
    await sleep(1_500);
    expect(gateway.child.exitCode).toBeNull();
    gateway.child.kill('SIGTERM');
    expect(await withTimeout(gateway.exited, EXIT_MS, 'gateway exit')).toEqual({ code: 1, signal: null });
    await expect(reply).rejects.toThrow();
    expect(gateway.logs.map((l) => l.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^second signal/)]));
  });
});

describe('upstream MCP servers under `toolgate serve`', { timeout: TEST_MS }, () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('start before the port opens, show in the ready line, and SIGTERM ends their processes', async () => {
    const events = join(scratch, 'fixture.jsonl');
    const config = join(scratch, 'toolgate.yaml');
    const server = {
      name: 'fx',
      command: process.execPath,
      args: [FIXTURE_SERVER],
      env: { FIXTURE_LOG: events, FIXTURE_LINGER: '1' },
      prefix: 'fx_',
    };
    // A rule on an upstream tool is checked against the tools the server listed, not refused as unknown.
    await writeFile(
      config,
      JSON.stringify({ mcp_servers: [server], policy: { rules: [{ tool: 'fx_echo', when: { text: '^rm ' }, decision: 'deny' }] } }),
    );
    const gateway = startGateway({ TOOLGATE_CONFIG: config, PORT: '0' });
    const ready = await gateway.ready;
    expect(ready.tools).toEqual(expect.arrayContaining([...BUILTINS, 'fx_echo', 'fx_slow']));
    expect((ready as unknown as { mcp_servers: unknown }).mcp_servers).toEqual([{ name: 'fx', connected: true }]);
    const pid = (await fixtureEvents(events)).find((e) => e.event === 'started')!.pid as number;
    expect(alive(pid)).toBe(true);
    try {
      gateway.child.kill('SIGTERM');
      expect(await withTimeout(gateway.exited, EXIT_MS, 'gateway exit')).toEqual({ code: 0, signal: null });
      // The fixture lingers after its stdin closes: only the gateway's shutdown ends it.
      await waitFor(() => !alive(pid), 'the MCP server process to end', 5_000);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('a policy rule on a tool the server does not list, or on an argument its tool lacks, stops start-up and ends the server', async () => {
    const port = await freePort();
    const events = join(scratch, 'fixture.jsonl');
    const config = join(scratch, 'toolgate.yaml');
    const server = { name: 'fx', command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: events }, prefix: 'fx_' };
    const rules = [
      { tool: 'fx_nope', decision: 'deny' },
      { tool: 'fx_echo', when: { txt: 'x' }, decision: 'deny' },
    ];
    await writeFile(config, JSON.stringify({ mcp_servers: [server], policy: { rules } }));
    const gateway = startGateway({ TOOLGATE_CONFIG: config, PORT: String(port) });
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    expect(gateway.stderr()).toMatch(/policy\.rules\.0\.tool: "fx_nope" names no tool/);
    expect(gateway.stderr()).toMatch(/policy\.rules\.1\.when\.txt: fx_echo has no argument "txt"/);
    const pid = (await fixtureEvents(events)).find((e) => e.event === 'started')!.pid as number;
    await waitFor(() => !alive(pid), 'the MCP server process to end', 5_000);
  });
});
