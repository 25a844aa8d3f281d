import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, freePort, startEverythingHttp, stop, waitFor } from '../../../helpers/mcp.js';

/**
 * Upstream MCP tools (docs/mcp.md) against MCP servers nobody here wrote, started from node_modules: the reference
 * filesystem server (stdio) and the everything server (stdio and Streamable HTTP).
 */

const call = (name: string, args: Record<string, unknown> = {}) => ({
  session_id: 's1',
  tool_calls: [
    { id: `call_${Math.random().toString(36).slice(2)}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
  ],
});
const resultOf = async (t: TestApp, name: string, args: Record<string, unknown> = {}) =>
  (await execute(t.app, call(name, args))).body.results[0];

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('@modelcontextprotocol/server-filesystem over stdio', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'toolgate-mcp-files-'));
    await writeFile(join(root, 'notes.txt'), 'alpha\nbeta\n');
    await writeFile(join(root, 'pixel.png'), PNG);
    // The docs/mcp.md block, with the published server run from node_modules instead of through npx.
    t = await buildTestApp({
      builtins: false,
      config: {
        mcp_servers: [{ name: 'files', command: process.execPath, args: [FILESYSTEM_SERVER, root], prefix: 'files_' }],
        policy: { rules: [{ tool: 'files_write_file', decision: 'ask' }] },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves its tools under the prefix, read-only ones concurrency-safe', async () => {
    const names = (await t.app.inject({ url: '/tools' })).json().tools.map((x: any) => x.function.name);
    expect(names).toEqual(
      expect.arrayContaining(['files_read_text_file', 'files_write_file', 'files_list_directory', 'files_read_media_file']),
    );
    expect(names.every((name: string) => name.startsWith('files_'))).toBe(true);
    const info = async (name: string) => (await t.app.inject({ url: `/tools/${name}` })).json()['x-toolgate'];
    expect(await info('files_read_text_file')).toMatchObject({
      concurrency_safe: true,
      mcp_server: { name: 'files', tool: 'read_text_file', connected: true },
    });
    expect((await info('files_write_file')).concurrency_safe).toBe(false);
  });

  it('reads a file: its text in text, the structuredContent in data', async () => {
    const result = await resultOf(t, 'files_read_text_file', { path: join(root, 'notes.txt') });
    expect(result).toMatchObject({ status: 'success', text: 'alpha\nbeta\n', data: { content: 'alpha\nbeta\n' } });
  });

  it('validates arguments against its inputSchema before the server sees them', async () => {
    expect(await resultOf(t, 'files_read_text_file', {})).toMatchObject({ error: { code: 'INVALID_ARGS' } });
  });

  it('policy applies: a write needs approval and writes nothing until then', async () => {
    expect(await resultOf(t, 'files_write_file', { path: join(root, 'new.txt'), content: 'x' })).toMatchObject({
      error: { code: 'APPROVAL_REQUIRED' },
    });
    await expect(readFile(join(root, 'new.txt'))).rejects.toThrow();
  });

  it("the server's own refusal (a path outside its root) is UPSTREAM_ERROR, not counted", async () => {
    const result = await resultOf(t, 'files_read_text_file', { path: '/etc/hostname' });
    expect(result).toMatchObject({ status: 'error', error: { code: 'UPSTREAM_ERROR', retryable: false, details: { server: 'files' } } });
    expect((await t.app.inject({ url: '/tools/files_read_text_file' })).json()['x-toolgate'].circuit.failures).toBe(0);
  });

  it('an image comes back as a content block with its base64, never in text; the base64 structuredContent repeats is left out of data', async () => {
    const result = await resultOf(t, 'files_read_media_file', { path: join(root, 'pixel.png') });
    expect(result.status).toBe('success');
    expect(result.content).toEqual([{ type: 'image', mime_type: 'image/png', data: PNG.toString('base64') }]);
    expect(result.text).not.toContain(PNG.toString('base64'));
    expect(JSON.stringify(result.data ?? {})).not.toContain(PNG.toString('base64'));
  });
});

describe('@modelcontextprotocol/server-everything over stdio', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      builtins: false,
      env: { GREETING_SOURCE: 'from the gateway env' },
      config: {
        mcp_servers: [
          {
            name: 'every',
            command: process.execPath,
            args: [EVERYTHING_SERVER, 'stdio'],
            env: { GREETING: '${GREETING_SOURCE}' },
            prefix: 'ev_',
          },
        ],
      },
    });
  });
  afterAll(() => t.close());

  it("the child gets only the env the config lists (and a fixed PATH), never the gateway's own", async () => {
    const result = await resultOf(t, 'ev_get-env');
    const env = JSON.parse(result.text) as Record<string, string>;
    expect(env.GREETING).toBe('from the gateway env');
    expect(env.PATH).toBeDefined();
    // The test process (the gateway here) has HOME and vitest's variables; none of them reach the server.
    for (const name of ['HOME', 'USER', 'SHELL', 'VITEST', 'NODE_OPTIONS', 'GREETING_SOURCE']) expect(env[name], name).toBeUndefined();
  });

  it('structuredContent becomes data', async () => {
    const result = await resultOf(t, 'ev_get-structured-content', { location: 'Chicago' });
    expect(result).toMatchObject({ status: 'success', data: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 } });
  });

  it('text blocks are joined into text; content keeps the image between them, each text block as a text part in its place', async () => {
    const result = await resultOf(t, 'ev_get-tiny-image');
    expect(result.text).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(result.content).toEqual([
      { type: 'text', bytes: 31 },
      { type: 'image', mime_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) },
      { type: 'text', bytes: 32 },
    ]);
  });

  it('over /mcp, its blocks reach an MCP client as the server gave them: text, image, text', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ev_get-tiny-image', arguments: {} } },
    });
    const { content } = response.json().result;
    expect(content.map((b: { type: string }) => b.type)).toEqual(['text', 'image', 'text']);
    expect(content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
    expect(content[2]).toEqual({ type: 'text', text: 'The image above is the MCP logo.' });
  });

  it('an embedded resource is a content block too', async () => {
    const result = await resultOf(t, 'ev_get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    expect(result.status).toBe('success');
    expect(result.content).toEqual([
      expect.objectContaining({ type: 'text' }),
      expect.objectContaining({ type: 'resource', uri: expect.stringContaining('1'), text: expect.any(String) }),
      expect.objectContaining({ type: 'text' }),
    ]);
  });
});

describe('@modelcontextprotocol/server-everything over Streamable HTTP', () => {
  let server: ChildProcess;
  let port: number;
  let t: TestApp;
  beforeAll(async () => {
    port = await freePort();
    server = await startEverythingHttp(port);
    t = await buildTestApp({
      builtins: false,
      config: {
        mcp_servers: [
          { name: 'web', url: `http://127.0.0.1:${port}/mcp`, allow_private_network: true, prefix: 'web_', headers: { 'x-test': 'yes' } },
        ],
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await stop(server);
  });

  it('serves its tools and runs them', async () => {
    expect(await resultOf(t, 'web_echo', { message: 'over http' })).toMatchObject({ status: 'success', text: 'Echo: over http' });
    expect(await resultOf(t, 'web_get-sum', { a: 2, b: 3 })).toMatchObject({ status: 'success', text: expect.stringContaining('5') });
  });

  it('reconnects after the server went away and came back', async () => {
    await stop(server);
    expect(await resultOf(t, 'web_echo', { message: 'x' })).toMatchObject({ error: { code: 'UPSTREAM_ERROR', retryable: true } });
    expect((await t.app.inject({ url: '/tools/web_echo' })).json()['x-toolgate'].mcp_server.connected).toBe(false);
    server = await startEverythingHttp(port);
    await waitFor(
      async () => (await t.app.inject({ url: '/tools/web_echo' })).json()['x-toolgate'].mcp_server.connected,
      'the reconnect',
      20_000,
    );
    expect(await resultOf(t, 'web_echo', { message: 'again' })).toMatchObject({ status: 'success', text: 'Echo: again' });
  }, 30_000);

  it('goes through the SSRF guard of HTTP tools: a loopback server without allow_private_network is refused', async () => {
    const guarded = await buildTestApp({
      builtins: false,
      config: { mcp_servers: [{ name: 'web', url: `http://127.0.0.1:${port}/mcp`, prefix: 'web_', connect_timeout_ms: 1_000 }] },
    });
    try {
      expect((await guarded.app.inject({ url: '/tools' })).json().tools).toEqual([]);
      expect(guarded.logs.find((l) => l.msg === 'MCP server not connected; retrying')).toMatchObject({ mcp_server: 'web' });
    } finally {
      await guarded.close();
    }
  });

  it('a server down at start-up joins when it answers', async () => {
    const later = await freePort();
    const waiting = await buildTestApp({
      builtins: false,
      config: {
        mcp_servers: [
          { name: 'late', url: `http://127.0.0.1:${later}/mcp`, allow_private_network: true, prefix: 'late_', connect_timeout_ms: 300 },
        ],
      },
    });
    let lateServer: ChildProcess | undefined;
    try {
      expect((await waiting.app.inject({ url: '/tools' })).json().tools).toEqual([]);
      lateServer = await startEverythingHttp(later);
      await waitFor(
        async () => (await waiting.app.inject({ url: '/tools/late_echo' })).statusCode === 200,
        "the late server's tools",
        20_000,
      );
    } finally {
      await waiting.close();
      if (lateServer) await stop(lateServer);
    }
  });
});
