import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { faultyTool } from '../helpers/tools.js';

/** /mcp: the official MCP TypeScript SDK client drives the gateway over a real socket. */

type TextContent = Array<{ type: string; text: string; _meta?: Record<string, unknown> }>;

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as TextContent).map((c) => c.text).join('\n');
}

/** The serialized payload a failed call carries in its text. */
function errorOf(result: Awaited<ReturnType<Client['callTool']>>): { code: string; retryable: boolean } {
  expect(result.isError).toBe(true);
  return JSON.parse((result.content as TextContent)[0]!.text).error;
}

describe('MCP SDK client against /mcp', () => {
  let t: TestApp;
  let client: Client;
  let transport: StreamableHTTPClientTransport;

  beforeAll(async () => {
    t = await buildTestApp({ tools: [faultyTool('flaky')] });
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    transport = new StreamableHTTPClientTransport(new URL('/mcp', address));
    client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('connects: the newest revision is negotiated and a session id is issued', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'toolgate' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
  });

  it('listTools: every tool with its input schema and read-only hint', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write', 'flaky']);
    const read = tools.find((tool) => tool.name === 'Read')!;
    expect(read.inputSchema).toMatchObject({ type: 'object', properties: { path: expect.any(Object) } });
    expect(read.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((tool) => tool.name === 'Write')!.annotations?.readOnlyHint).toBe(false);
  });

  it("callTool Read returns the numbered lines, the file stamp on the text block's _meta, no structuredContent", async () => {
    await writeFile(join(t.workspace, 'notes.txt'), 'first line\nsecond line\n');
    const result = await client.callTool({ name: 'Read', arguments: { path: 'notes.txt' } });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toMatch(/1\tfirst line\n\s+2\tsecond line/);
    expect((result.content as TextContent)[0]!._meta).toEqual({
      'toolgate/data': expect.objectContaining({ file_size_bytes: 23, file_mtime_ms: expect.any(Number) }),
    });
    expect(result).not.toHaveProperty('structuredContent');
    expect(result).not.toHaveProperty('_meta');
  });

  it('Write then Read: the file is on disk and reads back', async () => {
    const written = await client.callTool({ name: 'Write', arguments: { path: 'dir/new.txt', content: 'hello from MCP\n' } });
    expect(written.isError).toBe(false);
    expect(await readFile(join(t.workspace, 'dir/new.txt'), 'utf8')).toBe('hello from MCP\n');
    expect(textOf(await client.callTool({ name: 'Read', arguments: { path: 'dir/new.txt' } }))).toContain('hello from MCP');
  });

  it('invalid arguments come back as an isError result with the error code visible', async () => {
    const result = await client.callTool({ name: 'Read', arguments: { path: 42 } });
    expect(errorOf(result)).toMatchObject({ code: 'INVALID_ARGS', retryable: false });
    expect(textOf(result)).toContain('INVALID_ARGS');
  });

  it('an unknown tool is a protocol error (-32602), as the MCP spec says', async () => {
    const call = client.callTool({ name: 'Nope', arguments: {} });
    await expect(call).rejects.toBeInstanceOf(McpError);
    await expect(call).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('Edit after the file changed behind the gateway is CONFLICT; a fresh Read lets it through', async () => {
    const path = join(t.workspace, 'config.ini');
    await writeFile(path, 'mode = slow\n');
    await client.callTool({ name: 'Read', arguments: { path: 'config.ini' } });
    await writeFile(path, 'mode = slow\n# edited by someone else\n');
    const edit = { name: 'Edit', arguments: { path: 'config.ini', old_string: 'slow', new_string: 'fast' } };
    expect(errorOf(await client.callTool(edit))).toMatchObject({ code: 'CONFLICT' });
    expect(await readFile(path, 'utf8')).toBe('mode = slow\n# edited by someone else\n');
    await client.callTool({ name: 'Read', arguments: { path: 'config.ini' } });
    expect((await client.callTool(edit)).isError).toBe(false);
    expect(await readFile(path, 'utf8')).toBe('mode = fast\n# edited by someone else\n');
  });

  it('a tool whose breaker opened disappears from tools/list, and calls to it are CIRCUIT_OPEN', async () => {
    for (let i = 0; i < 3; i++) {
      expect(errorOf(await client.callTool({ name: 'flaky', arguments: { mode: 'fail' } })).code).toBe('EXECUTION_FAILED');
    }
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).not.toContain('flaky');
    expect(errorOf(await client.callTool({ name: 'flaky', arguments: { mode: 'ok' } }))).toMatchObject({
      code: 'CIRCUIT_OPEN',
      retryable: true,
    });
  });

  it('terminating the session ends its GET streams and is accepted (204)', async () => {
    await expect(transport.terminateSession()).resolves.toBeUndefined();
  });
});

describe('MCP SDK client with an API key', () => {
  let t: TestApp;
  let address: string;
  beforeAll(async () => {
    const sha256 = createHash('sha256').update('reader-key').digest('hex');
    t = await buildTestApp({ config: { keys: [{ id: 'reader', sha256, tenant: 'acme', scopes: ['execute'], tools: ['Read', 'LS'] }] } });
    address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  it("the key goes in requestInit headers; the client sees only the key's tools", async () => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', address), {
      requestInit: { headers: { Authorization: 'Bearer reader-key' } },
    });
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['LS', 'Read']);
    await client.close();
  });

  it('without the key, connecting fails with 401', async () => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL('/mcp', address)))).rejects.toMatchObject({ code: 401 });
  });
});
