import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { FAKE_SECRETS } from '../../../helpers/fake-secrets.js';
import { fixtureEvents, fixtureServer, waitFor } from '../../../helpers/mcp.js';

/**
 * Upstream MCP tools (docs/mcp.md) with our own stdio fixture server (test/helpers/mcp-fixture-server.mjs): the cases a
 * published server cannot be made to show — a crash mid-call, a slow call and its cancellation, a tool
 * list that changes, schemas and names the gateway must refuse.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-mcp-fx-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let n = 0;
const logFile = () => join(dir, `events-${++n}.jsonl`);
const call = (name: string, args: Record<string, unknown> = {}, id = `call_${Math.random().toString(36).slice(2)}`) => ({
  session_id: 's1',
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const resultOf = async (t: TestApp, name: string, args: Record<string, unknown> = {}, id?: string) =>
  (await execute(t.app, call(name, args, id))).body.results[0];
const circuitOf = async (t: TestApp, name: string) => (await t.app.inject({ url: `/tools/${name}` })).json()['x-toolgate'];

let apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.map((t) => t.close()));
  apps = [];
});
async function gateway(server: Record<string, unknown>, config: Record<string, unknown> = {}): Promise<TestApp> {
  const t = await buildTestApp({ builtins: false, config: { mcp_servers: [server], ...config } });
  apps.push(t);
  return t;
}

describe('an upstream MCP server behind every gate', () => {
  it('lists prefix + name with the upstream description and schema; concurrency_safe follows readOnlyHint unless overridden', async () => {
    const t = await gateway(fixtureServer(logFile(), { tools: { slow: { concurrency_safe: true } } }));
    const listed = (await t.app.inject({ url: '/tools?format=anthropic' })).json().tools;
    expect(listed.map((x: any) => x.name)).toEqual(['fx_add_tool', 'fx_crash', 'fx_echo', 'fx_fail', 'fx_slow']);
    expect(listed.find((x: any) => x.name === 'fx_echo')).toEqual({
      name: 'fx_echo',
      description: 'Echo the text back.',
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect((await circuitOf(t, 'fx_echo')).concurrency_safe).toBe(true);
    expect((await circuitOf(t, 'fx_crash')).concurrency_safe).toBe(false);
    expect((await circuitOf(t, 'fx_slow')).concurrency_safe).toBe(true);
  });

  it('GET /tools/{name} names the server, the upstream name and whether it is connected', async () => {
    const t = await gateway(fixtureServer(logFile()));
    expect((await circuitOf(t, 'fx_echo')).mcp_server).toEqual({ name: 'fx', tool: 'echo', connected: true });
  });

  it('runs a call and answers with the text; arguments the schema refuses never reach the server', async () => {
    const log = logFile();
    const t = await gateway(fixtureServer(log));
    expect(await resultOf(t, 'fx_echo', { text: 'hello' })).toMatchObject({ status: 'success', text: 'hello' });
    expect(await resultOf(t, 'fx_echo', { text: 42 })).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect((await fixtureEvents(log)).filter((e) => e.event === 'called')).toHaveLength(1);
    expect(t.logs.find((l) => l.msg === 'tool call')).toMatchObject({ tool: 'fx_echo', mcp_server: 'fx', status: 'success' });
  });

  it('policy, approval and rate limit apply as to any tool', async () => {
    const t = await gateway(
      fixtureServer(logFile(), { tools: { fail: { requires_approval: true }, echo: { rate_limit: { per_minute: 1 } } } }),
      {
        policy: { rules: [{ tool: 'fx_echo', when: { text: '^secret' }, decision: 'deny' }] },
      },
    );
    expect(await resultOf(t, 'fx_echo', { text: 'secret plans' })).toMatchObject({ error: { code: 'PERMISSION_DENIED' } });
    expect(await resultOf(t, 'fx_fail')).toMatchObject({ error: { code: 'APPROVAL_REQUIRED' } });
    await resultOf(t, 'fx_echo', { text: 'one' });
    expect(await resultOf(t, 'fx_echo', { text: 'two' })).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('a side-effecting call is replayed by call id, not run twice', async () => {
    const log = logFile();
    const t = await gateway(fixtureServer(log));
    await resultOf(t, 'fx_slow', { ms: 1 }, 'call_same');
    expect(await resultOf(t, 'fx_slow', { ms: 1 }, 'call_same')).toMatchObject({ status: 'success', replayed: true });
    expect((await fixtureEvents(log)).filter((e) => e.event === 'called')).toHaveLength(1);
  });

  it('an isError result is UPSTREAM_ERROR with the tool text, not retryable, never counted by the breaker', async () => {
    const t = await gateway(fixtureServer(logFile(), { breaker: { failure_threshold: 2 } }));
    for (let i = 0; i < 3; i++) {
      expect(await resultOf(t, 'fx_fail')).toMatchObject({
        status: 'error',
        error: {
          code: 'UPSTREAM_ERROR',
          retryable: false,
          message: 'the fixture tool failed on purpose',
          details: { server: 'fx', reason: 'tool_error' },
        },
      });
    }
    expect((await circuitOf(t, 'fx_fail')).circuit).toMatchObject({ state: 'closed', failures: 0 });
  });
});

describe('timeouts and cancellation', () => {
  it('a call past its timeout is TIMEOUT, counted by the breaker, and the server gets notifications/cancelled for it', async () => {
    const log = logFile();
    const t = await gateway(fixtureServer(log, { timeout_ms: 300 }));
    expect(await resultOf(t, 'fx_slow', { ms: 10_000 })).toMatchObject({ status: 'error', error: { code: 'TIMEOUT', retryable: true } });
    const called = (await fixtureEvents(log)).find((e) => e.event === 'called')!;
    const cancelled = await waitFor(async () => (await fixtureEvents(log)).find((e) => e.event === 'cancelled'), 'notifications/cancelled');
    expect(cancelled.request_id).toBe(called.request_id);
    expect((await circuitOf(t, 'fx_slow')).circuit.failures).toBe(1);
  });
});

describe('a stdio server that exits', () => {
  it('a crash mid-call is UPSTREAM_ERROR (counted); its tools answer UPSTREAM_ERROR retryable while it restarts, then work again', async () => {
    const log = logFile();
    const t = await gateway(fixtureServer(log));
    expect(await resultOf(t, 'fx_crash')).toMatchObject({
      error: { code: 'UPSTREAM_ERROR', retryable: true, details: { server: 'fx', reason: 'crash' } },
    });
    expect((await circuitOf(t, 'fx_crash')).circuit.failures).toBe(1);
    expect(await resultOf(t, 'fx_echo', { text: 'x' })).toMatchObject({
      error: { code: 'UPSTREAM_ERROR', retryable: true, details: { reason: 'down' } },
    });
    expect((await circuitOf(t, 'fx_echo')).mcp_server.connected).toBe(false);
    await waitFor(async () => (await circuitOf(t, 'fx_echo')).mcp_server.connected, 'the restart');
    expect(await resultOf(t, 'fx_echo', { text: 'back' })).toMatchObject({ status: 'success', text: 'back' });
    const pids = new Set((await fixtureEvents(log)).filter((e) => e.event === 'started').map((e) => e.pid));
    expect(pids.size).toBe(2);
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/toolgate_mcp_server_reconnects_total\{server="fx"\} [1-9]/);
    expect(metrics).toContain('toolgate_mcp_server_up{server="fx"} 1');
  });

  it('its stderr reaches the log, a line an entry, under the server name', async () => {
    const t = await gateway(fixtureServer(logFile()));
    await waitFor(() => t.logs.find((l) => l.msg === 'MCP server stderr'), 'a stderr line');
    expect(t.logs.find((l) => l.msg === 'MCP server stderr')).toMatchObject({
      mcp_server: 'fx',
      stderr: expect.stringMatching(/^fixture \d+ up$/),
    });
  });

  it('a credential the server prints on stderr is redacted in the log line, whatever guardrails.secrets says', async () => {
    const token = FAKE_SECRETS.find((s) => s.kind === 'github_token')!.secret;
    const server = fixtureServer(logFile());
    const t = await gateway(
      { ...server, env: { ...(server.env as object), FIXTURE_STDERR: `auth failed for ${token}` } },
      { guardrails: { secrets: 'off' } },
    );
    const line = await waitFor(() => t.logs.find((l) => l.msg === 'MCP server stderr' && String(l.stderr).startsWith('auth')), 'the line');
    expect(line.stderr).toBe('auth failed for [REDACTED:github_token]');
    expect(JSON.stringify(t.logs)).not.toContain(token);
  });
});

describe('a tool list that changes', () => {
  it('notifications/tools/list_changed updates GET /tools and its ETag without a restart', async () => {
    const t = await gateway(fixtureServer(logFile()));
    const before = await t.app.inject({ url: '/tools' });
    await resultOf(t, 'fx_add_tool');
    const after = await waitFor(async () => {
      const response = await t.app.inject({ url: '/tools' });
      return response.json().tools.some((x: any) => x.function.name === 'fx_added') && response;
    }, 'fx_added in GET /tools');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await t.app.inject({ url: '/tools', headers: { 'if-none-match': before.headers.etag as string } })).statusCode).toBe(200);
    expect(await resultOf(t, 'fx_added')).toMatchObject({ status: 'success', text: 'the added tool ran' });
  });

  it('a periodic refresh finds a change the server never announced', async () => {
    const t = await gateway(fixtureServer(logFile(), { refresh_ms: 200 }));
    await resultOf(t, 'fx_add_tool', { notify: false });
    await waitFor(async () => (await t.app.inject({ url: '/tools/fx_added' })).statusCode === 200, 'the refresh');
  });
});

describe('start-up', () => {
  it('a schema ajv rejects is reported and that tool left out; the rest are served', async () => {
    const t = await gateway(fixtureServer(logFile(), {}, ['bad_schema']));
    expect((await t.app.inject({ url: '/tools/fx_bad_schema' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/tools/fx_echo' })).statusCode).toBe(200);
    expect(t.logs.find((l) => l.msg === 'MCP server tool left out: its schema does not compile')).toMatchObject({
      mcp_server: 'fx',
      problem: expect.stringContaining('fx_bad_schema'),
    });
  });

  it('a name no provider accepts, or one another tool holds, stops start-up naming it', async () => {
    const started = buildTestApp({ config: { mcp_servers: [fixtureServer(logFile(), { prefix: '' }, ['bad_name', 'Read'])] } });
    await expect(started).rejects.toThrow(
      /mcp_servers\.fx: tool "bad name!": not a name every provider accepts[\s\S]*mcp_servers\.fx: tool Read: another tool has this name/,
    );
  });

  it('a server down at start-up does not stop the gateway', async () => {
    const t = await gateway({ name: 'gone', command: '/nonexistent/mcp-server', connect_timeout_ms: 300 });
    expect((await t.app.inject({ url: '/tools' })).json().tools).toEqual([]);
    expect(t.logs.find((l) => l.msg === 'MCP server not up at start-up: its tools join when it answers')).toMatchObject({
      mcp_server: 'gone',
    });
  });
});
