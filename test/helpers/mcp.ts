import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The published MCP servers, run from node_modules with the Node that runs the tests. */
export const FILESYSTEM_SERVER = here('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const EVERYTHING_SERVER = here('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** Our own stdio server for crashes, slow calls, cancellation and changing tool lists (see the file). */
export const FIXTURE_SERVER = here('./mcp-fixture-server.mjs');

/** An `mcp_servers` entry that starts the fixture server; `log` receives its events. */
export function fixtureServer(log: string, overrides: Record<string, unknown> = {}, tools: string[] = []): Record<string, unknown> {
  return {
    name: 'fx',
    command: process.execPath,
    args: [FIXTURE_SERVER],
    env: { FIXTURE_LOG: log, FIXTURE_TOOLS: tools.join(',') },
    prefix: 'fx_',
    connect_timeout_ms: 10_000,
    ...overrides,
  };
}

/** The fixture server's events so far. */
export async function fixtureEvents(log: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Poll `check` until it returns a value other than undefined/false, or fail after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** server-everything over Streamable HTTP on `port`, resolved once it listens. */
export async function startEverythingHttp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${seen}`)));
  });
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The SDK's clients of a gateway's /mcp, each connected with its own capabilities and headers, closed together. */
export function sdkClients(url: () => URL) {
  const open: Client[] = [];
  return {
    async connect(options: { capabilities?: ClientCapabilities; headers?: Record<string, string> } = {}): Promise<Client> {
      const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
      await client.connect(new StreamableHTTPClientTransport(url(), { requestInit: { headers: options.headers ?? {} } }));
      open.push(client);
      return client;
    },
    close: async () => void (await Promise.all(open.splice(0).map((client) => client.close()))),
  };
}
