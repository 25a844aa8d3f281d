import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { bigOutputTool, faultyTool, slowTool } from '../../helpers/tools.js';
import { expectRpcError, post, rpc } from './mcp-rpc.js';

/**
 * POST/GET /mcp: MCP Streamable HTTP, stateless, JSON responses (an SSE answer only while a call streams upstream progress or logs:
 * test/integration/content/mcp-events.test.ts).
 */

const counter = { runs: 0 };

describe('/mcp protocol', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      tools: [faultyTool('flaky'), slowTool('Side', { safe: false, ms: 1, counter }), bigOutputTool('Big')],
      config: { limits: { calls_per_batch: 3 } },
    });
  });
  afterAll(() => t.close());

  it('initialize echoes a revision it speaks, offers the newest otherwise, and issues a session id', async () => {
    for (const [asked, answered] of [
      ['2025-06-18', '2025-06-18'],
      ['2025-03-26', '2025-03-26'],
      ['2025-11-25', '2025-11-25'],
      ['2024-11-05', '2025-11-25'],
      ['1999-01-01', '2025-11-25'],
    ]) {
      const res = await post(t, rpc('initialize', { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['mcp-session-id']).toMatch(/^[\x21-\x7e]+$/);
      expect(res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: answered, capabilities: { tools: {} }, serverInfo: { name: 'toolgate' } },
      });
    }
    const missing = await post(t, rpc('initialize', { capabilities: {} }));
    expect(missing.json().error.code).toBe(-32602);
  });

  it('notifications and responses get 202 with no body', async () => {
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
      { jsonrpc: '2.0', id: 9, result: {} },
    ]) {
      const res = await post(t, message);
      expect(res.statusCode).toBe(202);
      expect(res.body).toBe('');
    }
  });

  it('ping answers {}; an unknown method is -32601 in a 200', async () => {
    expect((await post(t, rpc('ping', undefined, 'p'))).json()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    const res = await post(t, rpc('resources/list', {}, 7));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
  });

  it('a body that is not JSON is a -32700 parse error with a null id, not the envelope error', async () => {
    for (const body of ['{"jsonrpc": "2.0",', '', '{"__proto__": {"x": 1}}']) {
      const res = await post(t, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('a message that is not JSON-RPC is a -32600 invalid request in a 400', async () => {
    for (const [message, id] of [
      [{ id: 1, method: 'ping' }, 1],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null],
      [42, null],
      [{ jsonrpc: '2.0', id: 2, method: 'ping', params: [1] }, 2],
    ] as const) {
      const res = await post(t, message);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    }
  });

  it('every method but GET, POST and DELETE is a 405 JSON-RPC error with Allow: GET, POST, DELETE', async () => {
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'TRACE'] as const) {
      const res = await t.app.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream' } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, POST, DELETE');
      expect(res.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: `Method not allowed: /mcp takes GET, POST and DELETE, not ${method}.` },
      });
    }
  });

  it('GET and DELETE need the Mcp-Session-Id initialize issued (400 without it); DELETE of one is 204', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toBe(`${method} /mcp needs the Mcp-Session-Id header that initialize issued.`);
    }
    const ended = await t.app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': 'a-session' } });
    expect(ended.statusCode).toBe(204);
  });

  it('an unsupported MCP-Protocol-Version header is a 400 JSON-RPC error; initialize still negotiates', async () => {
    const res = await post(t, rpc('tools/list'), { 'mcp-protocol-version': '2099-01-01' });
    const error = expectRpcError(res, 400, 'BAD_REQUEST');
    expect(error.message).toBe('Unsupported MCP-Protocol-Version "2099-01-01".');
    expect(error.data).toEqual({ code: 'BAD_REQUEST', details: { supported: ['2025-11-25', '2025-06-18', '2025-03-26'] } });
    expect((await post(t, rpc('tools/list'), { 'mcp-protocol-version': '2025-06-18' })).statusCode).toBe(200);
    const init = await post(t, rpc('initialize', { protocolVersion: '2099-01-01' }), { 'mcp-protocol-version': '2099-01-01' });
    expect(init.json().result.protocolVersion).toBe('2025-11-25');
  });

  it('batches: answered in order under 2025-03-26 (or no header), refused from 2025-06-18 on', async () => {
    const batch = [rpc('ping', undefined, 'a'), { jsonrpc: '2.0', method: 'notifications/initialized' }, rpc('nope', {}, 'b')];
    for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }] as Array<Record<string, string>>) {
      const res = await post(t, batch, headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([
        { jsonrpc: '2.0', id: 'a', result: {} },
        expect.objectContaining({ id: 'b', error: expect.objectContaining({ code: -32601 }) }),
      ]);
    }
    expect((await post(t, [{ jsonrpc: '2.0', method: 'notifications/initialized' }])).statusCode).toBe(202);
    const inBatch = await post(t, [rpc('initialize', { protocolVersion: '2025-03-26' })]);
    expect(inBatch.json()[0].error.code).toBe(-32600);
    for (const [body, headers] of [
      [batch, { 'mcp-protocol-version': '2025-06-18' }],
      [[], {}],
      [[...batch, rpc('ping')], {}],
    ] as const) {
      const res = await post(t, body, headers);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });

  it('tools/list: MCP schemas with annotations; a cursor is invalid since none is ever issued', async () => {
    const tools = (await post(t, rpc('tools/list'))).json().result.tools;
    expect(tools.map((x: { name: string }) => x.name)).toEqual(['Big', 'Edit', 'Glob', 'Grep', 'LS', 'Read', 'Side', 'Write', 'flaky']);
    expect(tools.find((x: { name: string }) => x.name === 'Read')).toMatchObject({
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
    expect((await post(t, rpc('tools/list', { cursor: 'abc' }))).json().error.code).toBe(-32602);
  });

  it('tools/call: an unknown tool and a malformed request are protocol errors (-32602)', async () => {
    const unknown = (await post(t, rpc('tools/call', { name: 'Nope', arguments: {} }))).json();
    expect(unknown.error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: Nope',
      data: { code: 'UNKNOWN_TOOL', details: { available: expect.arrayContaining(['Read']) } },
    });
    for (const params of [{ arguments: {} }, { name: 'Read', arguments: 'path=a' }]) {
      expect((await post(t, rpc('tools/call', params))).json().error.code).toBe(-32602);
    }
  });

  it('tools/call: a tool error is an isError result carrying the serialized payload, and nothing else', async () => {
    const res = (await post(t, rpc('tools/call', { name: 'Read', arguments: { path: 7 } }))).json();
    expect(res.result).toEqual({ content: [{ type: 'text', text: expect.any(String) }], isError: true });
    const payload = JSON.parse(res.result.content[0].text);
    expect(payload).toMatchObject({
      status: 'error',
      error: { code: 'INVALID_ARGS', retryable: false, details: { errors: expect.any(Array) } },
    });
    const failed = (await post(t, rpc('tools/call', { name: 'flaky', arguments: { mode: 'fail' } }))).json();
    expect(JSON.parse(failed.result.content[0].text).error.code).toBe('EXECUTION_FAILED');
  });

  it("tools/call: the text, data on its block's _meta (no structuredContent: no outputSchema), and where a cut output is whole", async () => {
    await writeFile(join(t.workspace, 'a.txt'), 'one\ntwo\n');
    const read = (await post(t, rpc('tools/call', { name: 'Read', arguments: { path: 'a.txt' } }))).json().result;
    expect(read).toEqual({
      content: [
        { type: 'text', text: expect.stringContaining('two'), _meta: { 'toolgate/data': expect.objectContaining({ file_size_bytes: 8 }) } },
      ],
      isError: false,
    });
    const tools = (await post(t, rpc('tools/list'))).json().result.tools;
    expect(tools.filter((x: Record<string, unknown>) => 'outputSchema' in x)).toEqual([]);
    const big = (await post(t, rpc('tools/call', { name: 'Big', arguments: { size: 80_000 } }))).json().result;
    expect(big.isError).toBe(false);
    expect(JSON.parse(big.content[1].text)).toMatchObject({
      status: 'partial',
      truncated: { original_bytes: expect.any(Number), url: expect.stringMatching(/^\/outputs\//) },
    });
  });

  it('a request id names a call for replay only within its Mcp-Session-Id', async () => {
    const call = rpc('tools/call', { name: 'Side', arguments: { n: 1 } }, 5);
    const before = counter.runs;
    await post(t, call, { 'mcp-session-id': 's1' });
    await post(t, call, { 'mcp-session-id': 's1' });
    expect(counter.runs - before).toBe(1);
    await post(t, call, { 'mcp-session-id': 's2' });
    await post(t, call);
    await post(t, call);
    expect(counter.runs - before).toBe(4);
  });

  it('a malformed Mcp-Session-Id or an over-long x-session-id is a 400 JSON-RPC error', async () => {
    const malformed: Array<Record<string, string>> = [
      { 'mcp-session-id': 'has space' },
      { 'mcp-session-id': 'x'.repeat(257) },
      { 'x-session-id': 'x'.repeat(257) },
    ];
    for (const headers of malformed) {
      expectRpcError(await post(t, rpc('ping'), headers), 400, 'BAD_REQUEST');
    }
  });

  it('the Read→Edit lock belongs to the session: Mcp-Session-Id unless x-session-id is set', async () => {
    const path = join(t.workspace, 'lock.txt');
    await writeFile(path, 'alpha\n');
    const edit = (headers: Record<string, string>) =>
      post(t, rpc('tools/call', { name: 'Edit', arguments: { path: 'lock.txt', old_string: 'alpha', new_string: 'beta' } }), headers);
    await post(t, rpc('tools/call', { name: 'Read', arguments: { path: 'lock.txt' } }), {
      'mcp-session-id': 'reader',
      'x-session-id': 'conv',
    });
    await writeFile(path, 'alpha changed behind the gateway\n');
    await utimes(path, new Date(), new Date(Date.now() + 5_000));
    const stale = (await edit({ 'mcp-session-id': 'other', 'x-session-id': 'conv' })).json().result;
    expect(JSON.parse(stale.content[0].text).error.code).toBe('CONFLICT');
    expect((await edit({ 'mcp-session-id': 'reader' })).json().result.isError).toBe(false);
    expect(await readFile(path, 'utf8')).toBe('beta changed behind the gateway\n');
  });

  it('rules of every route: x-request-id, body limit, JSON only; their refusals are JSON-RPC errors here', async () => {
    const big = await post(t, JSON.stringify(rpc('ping', { pad: 'x'.repeat(t.config.limits.body_bytes) })));
    expectRpcError(big, 413, 'PAYLOAD_TOO_LARGE');
    const text = await t.app.inject({ method: 'POST', url: '/mcp', payload: 'ping', headers: { 'content-type': 'text/plain' } });
    expectRpcError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectRpcError(await post(t, rpc('ping'), { 'content-encoding': 'gzip' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await post(t, rpc('ping'), { 'x-request-id': 'mcp-trace' })).headers['x-request-id']).toBe('mcp-trace');
  });

  it('without API keys, a browser page from a non-loopback origin is refused (DNS rebinding)', async () => {
    expectRpcError(await post(t, rpc('ping'), { origin: 'http://attacker.example' }), 403, 'FORBIDDEN');
    expect((await post(t, rpc('ping'), { origin: 'null' })).statusCode).toBe(403);
    expect((await post(t, rpc('ping'), { origin: 'http://localhost:6274' })).statusCode).toBe(200);
  });
});
