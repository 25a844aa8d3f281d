import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refFanOut, yamlAliasBomb } from '../../fixtures/openapi/hostile.js';
import { startServer, type TestServer } from '../http-tools/helpers.js';
import { call, executeAt, isolated, portOf, startGateway, TEST_MS, until, useGatewayScratch, writeConfig } from '../server-harness.js';

/**
 * A real gateway (`toolgate serve`) with OpenAPI sources on a loopback server: documents load after the port opens, each in a bounded
 * worker, so /healthz and the other tools answer while a slow or huge one loads; a document over a bound is refused, naming it, and a
 * partly bad one serves its good operations.
 */
useGatewayScratch();

const REFUSED = 'OpenAPI source refused: none of its operations is served';
const LOADED = 'OpenAPI source loaded: its tools are served';
const LEFT_OUT = 'OpenAPI operation left out; the rest of its document is served';
const get = (operationId: string) => ({ get: { operationId, responses: {} } });
const post = (operationId: string, schema: unknown) => ({ post: { operationId, requestBody: { content: { 'application/json': { schema } } }, responses: {} } });
const partly = {
  openapi: '3.0.3',
  info: { title: 'partly bad', version: '1' },
  paths: {
    '/ok': get('p_ok'),
    '/arn': post('p_arn', { type: 'object', properties: { arn: { type: 'string', pattern: '^[A-Za-z0-9\\:\\-\\_\\.\\@]+$' } } }),
    '/when': post('p_when', { type: 'object', properties: { when: { type: 'date' } } }),
    '/tree': post('p_tree', { $ref: '#/components/schemas/Node' }),
  },
  components: { schemas: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } } },
};

let docs: TestServer;
const held: ServerResponse[] = [];
beforeAll(async () => {
  const bomb = yamlAliasBomb(50);
  docs = await startServer((_req, res, recorded) => {
    const answer = (type: string, body: string) => void res.writeHead(200, { 'content-type': type }).end(body);
    if (recorded.url === '/slow.json') return void held.push(res.writeHead(200, { 'content-type': 'application/json' }));
    if (recorded.url === '/bomb.yaml') return answer('application/yaml', bomb);
    if (recorded.url === '/huge.json') return answer('application/json', JSON.stringify({ ...partly, 'x-pad': 'z'.repeat(8192) }));
    if (recorded.url === '/partly.json') return answer('application/json', JSON.stringify(partly));
    if (recorded.url === '/laughs.json') return answer('application/json', JSON.stringify(refFanOut(30, 10)));
    res.writeHead(404).end();
  });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await docs.close();
});

describe('OpenAPI documents load beside a serving gateway', { timeout: TEST_MS }, () => {
  it('/healthz and the built-in tools answer while documents load; each bad one is refused naming its bound; good operations are tools', async () => {
    const at = (path: string) => `${docs.origin}${path}`;
    const source = (name: string, spec: string, extra: Record<string, unknown> = {}) => ({ name, spec: at(spec), allow_private_network: true, base_url: 'https://api.example.com', ...extra });
    const config = await writeConfig(
      JSON.stringify({
        openapi_sources: [
          source('slow', '/slow.json', { spec_timeout_ms: 10_000 }),
          source('bomb', '/bomb.yaml', { max_spec_bytes: 64 * 1024 * 1024, spec_memory_mb: 128, spec_timeout_ms: 60_000 }),
          source('huge', '/huge.json', { max_spec_bytes: 4096 }),
          source('partly', '/partly.json'),
          source('laughs', '/laughs.json'),
        ],
      }),
    );
    const gateway = startGateway(isolated({ TOOLGATE_CONFIG: config }));
    const ready = await gateway.ready;
    const port = portOf(ready.address);
    const logged = (msg: string, name: string) => gateway.logs.find((l) => l.msg === msg && l.openapi_source === name);

    // The slow document is still being fetched: the gateway serves meanwhile.
    await until('the slow document is being fetched', async () => held.length === 1);
    expect((await call(port, 'GET', '/healthz')).status).toBe(200);
    const builtins = (await call(port, 'GET', '/tools?format=mcp')).json() as { tools: Array<{ name: string }> };
    expect(builtins.tools.map((t) => t.name)).toContain('Read');
    expect(logged(REFUSED, 'slow')).toBeUndefined();

    // While the 50 MB of YAML aliases is parsed in its worker, /healthz keeps answering promptly.
    const latencies: number[] = [];
    while (!logged(REFUSED, 'bomb')) {
      const started = performance.now();
      expect((await call(port, 'GET', '/healthz')).status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (latencies.length > 600) throw new Error('the YAML alias bomb was never refused');
    }
    expect(latencies.length).toBeGreaterThan(0);
    expect(Math.max(...latencies)).toBeLessThan(2000);

    await until('every source is served or refused', async () => ['slow', 'bomb', 'huge', 'partly', 'laughs'].every((n) => logged(REFUSED, n) ?? logged(LOADED, n)), 30_000);
    expect(logged(REFUSED, 'slow')).toMatchObject({ bound: 'spec_timeout_ms', problem: `openapi_sources.slow: spec ${at('/slow.json')} no answer within spec_timeout_ms (10000 ms)` });
    expect(logged(REFUSED, 'bomb')).toMatchObject({ bound: 'spec_memory_mb', problem: `openapi_sources.bomb: spec ${at('/bomb.yaml')} needs more than spec_memory_mb (128 MB) to be read; the load was stopped` });
    expect(logged(REFUSED, 'huge')).toMatchObject({ bound: 'max_spec_bytes', problem: `openapi_sources.huge: spec ${at('/huge.json')} the document is larger than max_spec_bytes (4096 bytes)` });
    expect(logged(LOADED, 'partly')).toMatchObject({ tools: 3, left_out: 1 });
    expect(gateway.logs.filter((l) => l.msg === LEFT_OUT)).toEqual([
      expect.objectContaining({ openapi_source: 'partly', operation: 'p_when', method: 'POST', path: '/when', reason: 'its schema is not valid JSON Schema at /properties/when/type: must be equal to one of the allowed values' }),
    ]);
    expect(gateway.logs.find((l) => l.msg === 'OpenAPI operation served with its schema changed')).toMatchObject({ openapi_source: 'partly', operation: 'p_arn', notes: [expect.stringMatching(/^pattern .* rewritten as "\^\[A-Za-z0-9:\\\\-_\\\\.@\]\+\$"/)] });

    const catalog = (await call(port, 'GET', '/tools?format=mcp')).json() as { tools: Array<{ name: string; inputSchema: Record<string, unknown> }> };
    const names = catalog.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['Read', 'p_ok', 'p_arn', 'p_tree', 'laugh', 'ping']));
    expect(names).not.toContain('p_when');
    expect(Object.keys(catalog.tools.find((t) => t.name === 'laugh')!.inputSchema.$defs as object)).toHaveLength(30);
    // The recursive body validates through its $defs (compiled on this first call), refused before any request is sent.
    const [refused] = await executeAt(ready.address, 'bounded-load', [{ id: 'c1', name: 'p_tree', arguments: { children: [{ children: 'not a list' }] } }]);
    expect(refused).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
    expect(gateway.stderr()).not.toMatch(/unknown format|ignored/);
  });
});
