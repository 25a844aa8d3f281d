import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { fixtureEvents, fixtureServer, waitFor } from '../../helpers/mcp.js';

/**
 * /mcp while a call runs (docs/mcp.md): a client that takes a stream hears the upstream's progress
 * and log messages, its notifications/cancelled stops the upstream call, and a call with nothing to
 * tell is answered with JSON as before. The upstream is our stdio fixture server; the client the SDK's.
 */

let dir: string;
let log: string;
let t: TestApp;
let url: URL;
const clients: Client[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-mcp-events-'));
  log = join(dir, 'events.jsonl');
  t = await buildTestApp({ config: { mcp_servers: [fixtureServer(log, {}, ['conformance'])] } });
  await writeFile(join(t.workspace, 'notes.txt'), 'hello\n');
  url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function client(): Promise<Client> {
  const c = new Client({ name: 'events-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(url));
  clients.push(c);
  return c;
}

describe('/mcp streams what an upstream tells during a call', () => {
  it('progress reaches the client under its own progressToken, increasing, before the result', async () => {
    const c = await client();
    const seen: Progress[] = [];
    const result = await c.callTool({ name: 'fx_test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'Progress test completed' }]);
    expect(seen.map((p) => p.progress)).toEqual([0, 50, 100]);
    expect(seen.every((p) => p.total === 100)).toBe(true);
  });

  it('log messages reach the client during the call; initialize declares logging and logging/setLevel answers {}', async () => {
    const c = await client();
    expect(c.getServerCapabilities()?.logging).toEqual({});
    expect(await c.setLoggingLevel('debug')).toEqual({});
    const logs: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await c.callTool({ name: 'fx_test_tool_with_logging', arguments: {} });
    expect(logs).toEqual(
      ['Tool execution started', 'Tool processing data', 'Tool execution completed'].map((data) => ({ level: 'info', data })),
    );
  });

  it("a log message is passed on only when the call is the server's only one in flight: one caller never hears another's call", async () => {
    const slow = execute(t.app, [{ id: 'other', name: 'fx_slow', arguments: { ms: 1500 } }]);
    await waitFor(async () => (await fixtureEvents(log)).some((e) => e.tool === 'slow'), 'the slow call');
    const c = await client();
    const logs: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await c.callTool({ name: 'fx_test_tool_with_logging', arguments: {} });
    expect(logs).toEqual([]);
    expect((await slow).body.results[0].status).toBe('success');
  });

  it('a call with nothing to tell is answered with application/json, as before', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'Read', arguments: { path: 'notes.txt' } } }),
    });
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(((await response.json()) as { result: { content: unknown[] } }).result.content[0]).toMatchObject({ text: '     1\thello' });
  });

  it('notifications/cancelled stops the call: the upstream is told, the call answers nothing, and is logged CANCELLED', async () => {
    const c = await client();
    const slowCalls = async () => (await fixtureEvents(log)).filter((e) => e.tool === 'slow');
    const before = (await slowCalls()).length;
    const abort = new AbortController();
    const call = c.callTool({ name: 'fx_slow', arguments: { ms: 20_000 } }, undefined, { signal: abort.signal });
    const called = await waitFor(async () => (await slowCalls())[before], 'the call to reach the upstream');
    abort.abort('the user changed their mind');
    await expect(call).rejects.toThrow();
    const cancelled = await waitFor(
      async () => (await fixtureEvents(log)).find((e) => e.event === 'cancelled' && e.request_id === called.request_id),
      'the upstream to hear of it',
      5_000,
    );
    expect(cancelled).toBeDefined();
    const line = await waitFor(
      () => t.logs.find((l) => l.msg === 'tool call' && l.tool === 'fx_slow' && l.error_code === 'CANCELLED'),
      'the log line',
    );
    expect(line.duration_ms).toBeLessThan(10_000);
  }, 20_000);
});
