import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tracing } from '../../../src/observability/spans.js';
import { startTracing, tracingSettings } from '../../../src/observability/tracing.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { fixtureEvents, fixtureServer } from '../../helpers/mcp.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.js';
import { bigOutputTool, slowTool } from '../../helpers/tools.js';
import { startServer, type TestServer } from '../http-tools/helpers.js';
import { startMcpHttpUpstream, type McpHttpUpstream } from '../tracing/mcp-http-upstream.js';

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, a span
 * per request and per call (gate outcomes as attributes, never arguments or
 * outputs), an incoming W3C traceparent continued and passed on to HTTP and
 * MCP upstreams, and trace ids in the request's log lines. Exported over
 * real OTLP/HTTP to a loopback collector.
 */
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
/** What must never reach a span: an argument (under a secret-looking key and a plain one) and an output. */
const SECRETS = ['ARG-SECRET-5e2b91', 'ARG-PLAIN-91afc3', 'OUTPUT-SECRET-7c1d0e', 'MCP-ARG-44d1', 'MCP-OUTPUT-44d1'];

let receiver: OtlpReceiver;
let upstream: TestServer;
let tracing: Tracing;
let t: TestApp | undefined;
let mcpHttp: McpHttpUpstream | undefined;
let scratch: string;

beforeEach(async () => {
  receiver = await startOtlpReceiver();
  upstream = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: 'OUTPUT-SECRET-7c1d0e' }));
  });
  const { settings, problems } = tracingSettings({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
    OTEL_SERVICE_NAME: 'toolgate-under-test',
  });
  expect(problems).toEqual([]);
  tracing = (await startTracing(settings))!;
  scratch = await mkdtemp(join(tmpdir(), 'toolgate-trace-'));
});

afterEach(async () => {
  await t?.close();
  await mcpHttp?.close();
  t = mcpHttp = undefined;
  await tracing.shutdown();
  await upstream.close();
  await receiver.close();
  await rm(scratch, { recursive: true, force: true });
});

const lookupTool = (port: number) => ({
  name: 'lookup',
  description: 'A loopback service under test.',
  parameters: { type: 'object', properties: { token: { type: 'string' }, note: { type: 'string' } } },
  http: { method: 'POST', url: `http://127.0.0.1:${port}/lookup`, retries: 0, allow_private_network: true },
});

async function exported(count: number): Promise<ReceivedSpan[]> {
  await tracing.flush();
  const spans = receiver.spans();
  expect(spans.length).toBeGreaterThanOrEqual(count);
  return spans;
}

const byName = (spans: ReceivedSpan[], name: string) => spans.find((s) => s.name === name)!;

describe('a traced POST /execute', () => {
  it("continues the caller's trace: a server span, one child span per call with its gate outcomes, the HTTP upstream as the call span's child", async () => {
    t = await buildTestApp({
      tracing,
      config: { tools: [lookupTool(upstream.port)], policy: { rules: [{ tool: 'Write', decision: 'deny' }] } },
    });
    t.logs.length = 0;
    const response = await execute(
      t.app,
      {
        tool_calls: [
          { id: 'c-lookup', name: 'lookup', arguments: { token: 'ARG-SECRET-5e2b91', note: 'ARG-PLAIN-91afc3' } },
          { id: 'c-write', name: 'Write', arguments: { path: 'x.txt', content: 'ARG-PLAIN-91afc3' } },
          { id: 'c-nope', name: 'Nope', arguments: { token: 'ARG-SECRET-5e2b91' } },
          { id: 'c-json', name: 'LS', arguments: '{"path": "ARG-PLAIN-91afc3"' },
        ],
      },
      { traceparent: TRACEPARENT, tracestate: 'vendor=opaque', 'x-request-id': 'req-traced' },
    );
    expect(response.status).toBe(200);
    expect(response.body.results[0]).toMatchObject({ status: 'success', text: expect.stringContaining('OUTPUT-SECRET-7c1d0e') });

    const spans = await exported(5);
    const server = byName(spans, 'POST /execute');
    expect(server).toMatchObject({
      traceId: TRACE_ID,
      parentSpanId: CALLER_SPAN,
      kind: 2,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/execute',
        'http.response.status_code': 200,
        'toolgate.request_id': 'req-traced',
      },
      resource: { 'service.name': 'toolgate-under-test' },
    });

    const lookup = byName(spans, 'execute_tool lookup');
    const write = byName(spans, 'execute_tool Write');
    const nope = byName(spans, 'execute_tool Nope');
    const json = byName(spans, 'execute_tool LS');
    for (const span of [lookup, write, nope, json]) expect(span).toMatchObject({ traceId: TRACE_ID, parentSpanId: server.spanId, kind: 1 });
    expect(lookup.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'c-lookup',
      'toolgate.status': 'success',
      'toolgate.permission': 'allow',
      'toolgate.breaker': 'closed',
      'toolgate.replayed': false,
      'toolgate.rate_limited': false,
      'toolgate.timeout': false,
      'toolgate.truncated': false,
    });
    expect(lookup.attributes['error.type']).toBeUndefined();
    expect(write.attributes).toMatchObject({
      'toolgate.status': 'error',
      'error.type': 'PERMISSION_DENIED',
      'toolgate.permission': 'deny',
    });
    expect(write.status).toMatchObject({ code: 2, message: 'PERMISSION_DENIED' });
    expect(nope.attributes).toMatchObject({ 'error.type': 'UNKNOWN_TOOL' });
    expect(json.attributes).toMatchObject({ 'error.type': 'INVALID_JSON' });
    // Stopped before the breaker: no breaker state is claimed for them.
    for (const span of [write, nope, json]) expect(span.attributes['toolgate.breaker']).toBeUndefined();

    // The upstream's parent is the call's span, in the caller's trace; the vendor state goes along.
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.headers.traceparent).toBe(`00-${TRACE_ID}-${lookup.spanId}-01`);
    expect(upstream.requests[0]!.headers.tracestate).toBe('vendor=opaque');

    // Never an argument or an output, anywhere in what was exported.
    for (const body of receiver.bodies) for (const secret of SECRETS) expect(body).not.toContain(secret);
    for (const span of spans)
      for (const value of Object.values(span.attributes)) for (const secret of SECRETS) expect(String(value)).not.toContain(secret);

    // Every log line of the request carries the trace and the server span.
    const lines = t.logs.filter((l) => l.request_id === 'req-traced');
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['tool call', 'request completed']));
    for (const line of lines) expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: server.spanId });
  });

  it('without a traceparent, or with a malformed one, the request starts a trace of its own', async () => {
    t = await buildTestApp({ tracing });
    await execute(t.app, [{ id: 'a', name: 'LS', arguments: {} }], { 'x-request-id': 'req-fresh' });
    await execute(t.app, [{ id: 'b', name: 'LS', arguments: {} }], { 'x-request-id': 'req-bad', traceparent: '00-zzzz-not-a-trace-01' });
    const servers = (await exported(4)).filter((s) => s.name === 'POST /execute');
    expect(servers).toHaveLength(2);
    for (const span of servers) {
      expect(span.parentSpanId).toBeUndefined();
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.traceId).not.toBe(TRACE_ID);
    }
    expect(servers[0]!.traceId).not.toBe(servers[1]!.traceId);
  });

  it('a replayed side-effecting call and a rate-limited one say so', async () => {
    t = await buildTestApp({ tracing, config: { tools: [lookupTool(upstream.port)], defaults: { rate_limit: { per_minute: 1 } } } });
    await execute(t.app, [{ id: 'once', name: 'lookup', arguments: {} }]);
    await execute(t.app, [{ id: 'once', name: 'lookup', arguments: {} }]);
    await execute(t.app, [{ id: 'twice', name: 'lookup', arguments: {} }]);
    const calls = (await exported(6)).filter((s) => s.name === 'execute_tool lookup');
    expect(
      calls.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['toolgate.replayed'], s.attributes['toolgate.rate_limited']]),
    ).toEqual([
      ['once', false, false],
      ['once', true, false],
      ['twice', false, true],
    ]);
    expect(upstream.requests).toHaveLength(1);
  });
  it('the breaker as each call met it (closed, open, the half-open probe), a timeout, and a cut and spilled output', async () => {
    let status = 500;
    const failing = await startServer((_req, res) => void res.writeHead(status).end());
    try {
      const flaky = { ...lookupTool(failing.port), name: 'flaky', breaker: { failure_threshold: 1, recovery_ms: 1_000 } };
      t = await buildTestApp({
        tracing,
        tools: [bigOutputTool('Big'), slowTool('Slow', { safe: true, ms: 5_000, timeoutMs: 50 })],
        config: { tools: [flaky] },
      });
      await execute(t.app, [{ id: 'f1', name: 'flaky', arguments: {} }]);
      await execute(t.app, [{ id: 'f2', name: 'flaky', arguments: {} }]);
      t.clock.advance(1_000);
      status = 200;
      await execute(t.app, [{ id: 'f3', name: 'flaky', arguments: {} }]);
      await execute(t.app, [
        { id: 'big', name: 'Big', arguments: { size: 80_000, char: 'OUTPUT-SECRET-7c1d0e' } },
        { id: 'slow', name: 'Slow', arguments: {} },
      ]);
      const spans = await exported(9);
      const call = (id: string) => spans.find((s) => s.attributes['gen_ai.tool.call.id'] === id)!.attributes;
      expect(call('f1')).toMatchObject({ 'toolgate.breaker': 'closed', 'error.type': 'UPSTREAM_ERROR' });
      expect(call('f2')).toMatchObject({ 'toolgate.breaker': 'open', 'error.type': 'CIRCUIT_OPEN' });
      expect(call('f3')).toMatchObject({ 'toolgate.breaker': 'half_open', 'toolgate.status': 'success' });
      expect(call('big')).toMatchObject({
        'toolgate.status': 'partial',
        'toolgate.truncated': true,
        'toolgate.spilled': true,
        'toolgate.output_bytes': 80_000 * 20,
      });
      expect(call('slow')).toMatchObject({ 'toolgate.timeout': true, 'error.type': 'TIMEOUT', 'toolgate.truncated': false });
      for (const body of receiver.bodies) expect(body).not.toContain('OUTPUT-SECRET-7c1d0e');
    } finally {
      await failing.close();
    }
  });
});

describe('traced calls of upstream MCP servers', () => {
  it("stdio: the call span's traceparent travels in params._meta (SEP-414)", async () => {
    const log = join(scratch, 'fixture.log');
    t = await buildTestApp({ tracing, builtins: false, config: { mcp_servers: [fixtureServer(log)] } });
    const response = await execute(t.app, [{ id: 'm1', name: 'fx_echo', arguments: { text: 'MCP-ARG-44d1' } }], {
      traceparent: TRACEPARENT,
    });
    expect(response.body.results[0]).toMatchObject({ status: 'success', text: 'MCP-ARG-44d1' });
    const span = byName(await exported(2), 'execute_tool fx_echo');
    expect(span.attributes).toMatchObject({ 'toolgate.mcp_server': 'fx', 'toolgate.status': 'success' });
    const called = (await fixtureEvents(log)).find((e) => e.event === 'called')!;
    expect(called.meta).toEqual({ traceparent: `00-${TRACE_ID}-${span.spanId}-01` });
    for (const body of receiver.bodies) for (const secret of SECRETS) expect(body).not.toContain(secret);
  });

  it('Streamable HTTP: the traceparent header and params._meta both name the call span', async () => {
    mcpHttp = await startMcpHttpUpstream('MCP-OUTPUT-44d1');
    t = await buildTestApp({
      tracing,
      builtins: false,
      config: {
        mcp_servers: [
          { name: 'web', url: `${mcpHttp.origin}/mcp`, allow_private_network: true, prefix: 'web_', connect_timeout_ms: 10_000 },
        ],
      },
    });
    const response = await execute(t.app, [{ id: 'h1', name: 'web_answer', arguments: { q: 'MCP-ARG-44d1' } }], {
      traceparent: TRACEPARENT,
      tracestate: 'vendor=opaque',
    });
    expect(response.body.results[0]).toMatchObject({ status: 'success', text: 'MCP-OUTPUT-44d1' });
    const span = byName(await exported(2), 'execute_tool web_answer');
    const expected = `00-${TRACE_ID}-${span.spanId}-01`;
    expect(mcpHttp.calls).toEqual([
      { header: expected, tracestate: 'vendor=opaque', meta: { traceparent: expected, tracestate: 'vendor=opaque' } },
    ]);
    for (const body of receiver.bodies) for (const secret of SECRETS) expect(body).not.toContain(secret);
  });
});
