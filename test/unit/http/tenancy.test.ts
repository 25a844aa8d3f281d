import { createHash } from 'node:crypto';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp, type TestAppOptions } from '../../helpers/app.js';
import { bigOutputTool, faultyTool, slowTool } from '../../helpers/tools.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Two tenants, each with an execute key and an admin key. */
const KEY = {
  acme: 'tg_acme-exec',
  acmeAdmin: 'tg_acme-admin',
  globex: 'tg_globex-exec',
  globexAdmin: 'tg_globex-admin',
  limited: 'tg_acme-limited',
};
const KEYS = [
  { id: 'acme', sha256: sha256(KEY.acme), tenant: 'acme', scopes: ['execute'] },
  { id: 'acme-admin', sha256: sha256(KEY.acmeAdmin), tenant: 'acme', scopes: ['admin'] },
  { id: 'globex', sha256: sha256(KEY.globex), tenant: 'globex', scopes: ['execute'] },
  { id: 'globex-admin', sha256: sha256(KEY.globexAdmin), tenant: 'globex', scopes: ['admin'] },
  { id: 'acme-limited', sha256: sha256(KEY.limited), tenant: 'acme', scopes: ['execute', 'admin'], tools: ['Read', 'get_*'] },
];
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, name, arguments: args });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function app(options: TestAppOptions = {}): Promise<TestApp> {
  t = await buildTestApp({ ...options, config: { keys: KEYS, ...options.config } });
  return t;
}

/** Nothing stateful crosses tenants, even under the same session and call ids. */
describe('tenant isolation', () => {
  it("sessions and the lock cache: another tenant's Read under the same session id lends no lock", async () => {
    const { app: gw, workspace } = await app();
    // The same path in each tenant's own workspace, changed alike after acme's Read.
    const [file, globexFile] = [join(workspace, 'acme', 'a.txt'), join(workspace, 'globex', 'a.txt')];
    for (const f of [file, globexFile]) {
      await mkdir(dirname(f), { recursive: true });
      await writeFile(f, 'one two\n');
    }
    await execute(gw, { session_id: 's1', tool_calls: [call('r', 'Read', { path: 'a.txt' })] }, as(KEY.acme));
    const later = new Date(Date.now() + 5_000);
    for (const f of [file, globexFile]) {
      await writeFile(f, 'one two three\n');
      await utimes(f, later, later);
    }

    const globex = await execute(
      gw,
      { session_id: 's1', tool_calls: [call('e', 'Edit', { path: 'a.txt', old_string: 'one', new_string: '1' })] },
      as(KEY.globex),
    );
    expect(globex.body.results[0].status).toBe('success');
    const acme = await execute(
      gw,
      { session_id: 's1', tool_calls: [call('e', 'Edit', { path: 'a.txt', old_string: 'two', new_string: '2' })] },
      as(KEY.acme),
    );
    expect(acme.body.results[0].error.code).toBe('CONFLICT');
    expect(await readFile(file, 'utf8')).toBe('one two three\n');
    expect(await readFile(globexFile, 'utf8')).toBe('1 two three\n');
  });

  it('call-id replay records: the same session and call id in another tenant runs, and is no mismatch', async () => {
    const counter = { runs: 0 };
    const { app: gw } = await app({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    const body = (v: number) => ({ session_id: 's', tool_calls: [call('same', 'W', { v })] });
    await execute(gw, body(1), as(KEY.acme));
    const globex = await execute(gw, body(1), as(KEY.globex));
    expect(globex.body.results[0]).toMatchObject({ status: 'success', replayed: false });
    expect(counter.runs).toBe(2);
    const acme = await execute(gw, body(1), as(KEY.acme));
    expect(acme.body.results[0].replayed).toBe(true);
    expect(counter.runs).toBe(2);
    const acmeOther = await execute(gw, body(2), as(KEY.acme));
    expect(acmeOther.body.results[0].error.code).toBe('IDEMPOTENCY_MISMATCH');
    const globexOther = await execute(gw, { session_id: 's', tool_calls: [call('other', 'W', { v: 3 })] }, as(KEY.globex));
    expect(globexOther.body.results[0].status).toBe('success');
  });

  it('Idempotency-Key records: the same key in another tenant is a new request', async () => {
    const counter = { runs: 0 };
    const { app: gw } = await app({ tools: [slowTool('W', { safe: false, ms: 1, counter })] });
    const headers = (key: string) => ({ ...as(key), 'idempotency-key': 'k-1' });
    await execute(gw, [{ name: 'W', arguments: { v: 1 } }], headers(KEY.acme));
    const globex = await execute(gw, [{ name: 'W', arguments: { v: 2 } }], headers(KEY.globex));
    expect(globex.status).toBe(200);
    expect(globex.body.results[0].replayed).toBe(false);
    expect(counter.runs).toBe(2);
    const acme = await execute(gw, [{ name: 'W', arguments: { v: 2 } }], headers(KEY.acme));
    expect(acme.body.error.code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it("approvals: another tenant's admin neither sees nor decides them, and an approval admits its own tenant only", async () => {
    const { app: gw, workspace } = await app({ config: { builtins: { Write: { requires_approval: true } } } });
    const write = { session_id: 's', tool_calls: [call('w', 'Write', { path: 'a.txt', content: 'acme' })] };
    const asked = await execute(gw, write, as(KEY.acme));
    const id = asked.body.results[0].error.details.approval_id as string;

    const list = async (key: string) =>
      (await gw.inject({ method: 'GET', url: '/approvals', headers: as(key) })).json().approvals.map((a: { id: string }) => a.id);
    expect(await list(KEY.globexAdmin)).toEqual([]);
    expect(await list(KEY.acmeAdmin)).toEqual([id]);
    const decide = (key: string, approvalId: string) =>
      gw.inject({ method: 'POST', url: `/approvals/${approvalId}`, headers: as(key), payload: { decision: 'approve' } });
    const foreign = await decide(KEY.globexAdmin, id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual((await decide(KEY.globexAdmin, 'no-such-approval')).json());
    expect(await list(KEY.acmeAdmin)).toEqual([id]);

    expect((await decide(KEY.acmeAdmin, id)).statusCode).toBe(200);
    const globex = await execute(gw, write, as(KEY.globex));
    expect(globex.body.results[0].error.code).toBe('APPROVAL_REQUIRED');
    expect(globex.body.results[0].error.details.approval_id).not.toBe(id);
    await expect(readFile(join(workspace, 'globex', 'a.txt'), 'utf8')).rejects.toThrow();
    const acme = await execute(gw, write, as(KEY.acme));
    expect(acme.body.results[0].status).toBe('success');
    expect(await list(KEY.acmeAdmin)).toEqual([]);
    expect(await list(KEY.globexAdmin)).toEqual([globex.body.results[0].error.details.approval_id]);
  });

  it('spilled outputs: another tenant gets 404, exactly as for an id that does not exist', async () => {
    const { app: gw } = await app({ tools: [bigOutputTool('Big')] });
    const { body } = await execute(gw, [call('b', 'Big', { size: 80_000 })], as(KEY.acme));
    const url = body.results[0].truncated.url as string;
    const get = (key: string, path: string) => gw.inject({ method: 'GET', url: path, headers: as(key) });
    expect((await get(KEY.acme, url)).statusCode).toBe(200);
    const foreign = await get(KEY.globex, url);
    const missing = await get(KEY.globex, url.replace(/[^/]{8}$/, 'ffffffff'));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect(foreign.json()).toEqual(missing.json());
    expect((await gw.inject({ method: 'GET', url, headers: { ...as(KEY.globex), range: 'bytes=0-9' } })).statusCode).toBe(404);
  });
});

describe('circuit breakers across tenants', () => {
  const trip = async (gw: TestApp['app'], key: string) => {
    for (let i = 0; i < 3; i++) await execute(gw, [call(`f${i}`, 'zeta', { mode: 'fail' })], as(key));
  };
  const runZeta = async (gw: TestApp['app'], key: string) =>
    (await execute(gw, [call('ok', 'zeta', { mode: 'ok' })], as(key))).body.results[0];
  const circuitOf = async (gw: TestApp['app'], key: string) =>
    (await gw.inject({ method: 'GET', url: '/circuits', headers: as(key) }))
      .json()
      .circuits.find((c: { tool: string }) => c.tool === 'zeta');
  const reset = (gw: TestApp['app'], key: string) => gw.inject({ method: 'POST', url: '/circuits/zeta/reset', headers: as(key) });

  it("with per_tenant_breakers: false a breaker is per tool: one tenant's failures open it for all, any admin sees and resets it", async () => {
    const { app: gw } = await app({ builtins: false, tools: [faultyTool('zeta')], config: { defaults: { per_tenant_breakers: false } } });
    await trip(gw, KEY.acme);
    expect((await runZeta(gw, KEY.globex)).error.code).toBe('CIRCUIT_OPEN');
    expect((await circuitOf(gw, KEY.globexAdmin)).state).toBe('open');
    expect((await reset(gw, KEY.globexAdmin)).json()).toMatchObject({ tool: 'zeta', state: 'closed' });
    expect((await runZeta(gw, KEY.acme)).status).toBe('success');
  });

  it('by default a tenant trips, sees and resets only its own', async () => {
    const { app: gw } = await app({ builtins: false, tools: [faultyTool('zeta')] });
    await trip(gw, KEY.acme);
    expect((await runZeta(gw, KEY.acme)).error.code).toBe('CIRCUIT_OPEN');
    expect((await runZeta(gw, KEY.globex)).status).toBe('success');
    const names = async (key: string) =>
      (await gw.inject({ method: 'GET', url: '/tools', headers: as(key) }))
        .json()
        .tools.map((x: { function: { name: string } }) => x.function.name);
    expect(await names(KEY.acme)).toEqual([]);
    expect(await names(KEY.globex)).toEqual(['zeta']);

    expect(await circuitOf(gw, KEY.acmeAdmin)).toMatchObject({ state: 'open', failures: 3 });
    expect(await circuitOf(gw, KEY.globexAdmin)).toMatchObject({ state: 'closed', failures: 0 });
    expect((await reset(gw, KEY.globexAdmin)).statusCode).toBe(200);
    expect((await runZeta(gw, KEY.acme)).error.code).toBe('CIRCUIT_OPEN');
    expect((await reset(gw, KEY.acmeAdmin)).json()).toMatchObject({ tool: 'zeta', state: 'closed', failures: 0 });
    expect((await runZeta(gw, KEY.acme)).status).toBe('success');
  });

  it('with no keys, the local caller sees and resets the breakers its calls trip', async () => {
    t = await buildTestApp({ builtins: false, tools: [faultyTool('zeta')] });
    for (let i = 0; i < 3; i++) await execute(t.app, [call(`f${i}`, 'zeta', { mode: 'fail' })]);
    const circuits = (await t.app.inject({ method: 'GET', url: '/circuits' })).json().circuits;
    expect(circuits).toEqual([{ tool: 'zeta', state: 'open', failures: 3, reopens_at: t.clock.now() + 300_000 }]);
    expect((await t.app.inject({ method: 'POST', url: '/circuits/zeta/reset' })).json()).toMatchObject({ state: 'closed' });
    expect((await execute(t.app, [call('ok', 'zeta', { mode: 'ok' })])).body.results[0].status).toBe('success');
  });
});

/** A key sees and calls its own tools only, and learns nothing of the others. */
describe('allowed tools', () => {
  const tools = () => [faultyTool('get_weather'), faultyTool('secret_tool', { counter: secretRuns })];
  const secretRuns = { runs: 0 };

  it("GET /tools lists only the key's tools, in every format and with include_unavailable", async () => {
    const { app: gw } = await app({ tools: tools() });
    const get = async (query: string, key = KEY.limited) =>
      (await gw.inject({ method: 'GET', url: `/tools${query}`, headers: as(key) })).json().tools;
    expect((await get('')).map((x: { function: { name: string } }) => x.function.name)).toEqual(['Read', 'get_weather']);
    expect((await get('?format=anthropic')).map((x: { name: string }) => x.name)).toEqual(['Read', 'get_weather']);
    expect((await get('?format=mcp')).map((x: { name: string }) => x.name)).toEqual(['Read', 'get_weather']);
    expect((await get('?format=gemini'))[0].functionDeclarations.map((x: { name: string }) => x.name)).toEqual(['Read', 'get_weather']);
    expect((await get('?include_unavailable=true')).map((x: { function: { name: string } }) => x.function.name)).toEqual([
      'Read',
      'get_weather',
    ]);
    expect((await get('', KEY.acme)).map((x: { function: { name: string } }) => x.function.name)).toEqual([
      'Edit',
      'Glob',
      'Grep',
      'LS',
      'Read',
      'Write',
      'get_weather',
      'secret_tool',
    ]);
  });

  it('GET /tools/{name} of a tool the key may not use is the 404 of a tool that does not exist', async () => {
    const { app: gw } = await app({ tools: tools() });
    const get = (name: string) => gw.inject({ method: 'GET', url: `/tools/${name}`, headers: as(KEY.limited) });
    const forbidden = await get('secret_tool');
    const absent = await get('absent_tool');
    expect(forbidden.statusCode).toBe(404);
    expect(absent.statusCode).toBe(404);
    expect(forbidden.body.replaceAll('secret_tool', 'NAME')).toBe(absent.body.replaceAll('absent_tool', 'NAME'));
    expect((await gw.inject({ method: 'GET', url: '/tools/secret_tool', headers: as(KEY.acme) })).statusCode).toBe(200);
  });

  it('POST /execute of a tool the key may not use is UNKNOWN_TOOL, byte for byte as for one that does not exist, and it never runs', async () => {
    secretRuns.runs = 0;
    const { app: gw } = await app({ tools: tools() });
    // Arguments the real tool would reject: a forbidden tool must stop at lookup, before its schema can tell.
    const run = async (name: string) => execute(gw, [call('c1', name, { mode: 'bogus' })], as(KEY.limited));
    const forbidden = await run('secret_tool');
    const absent = await run('absent_tool');
    expect(forbidden.body.results[0].error).toEqual({
      code: 'UNKNOWN_TOOL',
      message: 'No tool named "secret_tool".',
      retryable: false,
      suggestion: 'Call one of the tools in details.available.',
      details: { available: ['Read', 'get_weather'] },
    });
    const strip = (body: unknown, name: string) =>
      JSON.stringify(body)
        .replace(/"time_ms":\d+/g, '')
        .replaceAll(name, 'NAME');
    expect(strip(forbidden.body, 'secret_tool')).toBe(strip(absent.body, 'absent_tool'));
    expect(secretRuns.runs).toBe(0);
    const allowed = await execute(gw, [call('c1', 'get_weather', { mode: 'ok' })], as(KEY.limited));
    expect(allowed.body.results[0].status).toBe('success');
    const full = await execute(gw, [call('c1', 'secret_tool', { mode: 'ok' })], as(KEY.acme));
    expect(full.body.results[0].status).toBe('success');
  });

  it("admin circuit routes cover the key's own tools only", async () => {
    const { app: gw } = await app({ tools: tools() });
    const circuits = (await gw.inject({ method: 'GET', url: '/circuits', headers: as(KEY.limited) })).json().circuits;
    expect(circuits.map((c: { tool: string }) => c.tool)).toEqual(['Read', 'get_weather']);
    const forbidden = await gw.inject({ method: 'POST', url: '/circuits/secret_tool/reset', headers: as(KEY.limited) });
    const absent = await gw.inject({ method: 'POST', url: '/circuits/absent_tool/reset', headers: as(KEY.limited) });
    expect(forbidden.statusCode).toBe(404);
    expect(forbidden.body.replaceAll('secret_tool', 'NAME')).toBe(absent.body.replaceAll('absent_tool', 'NAME'));
  });
});
