import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { largeOpenApiCatalog, largeOpenApiSource } from '../../helpers/catalog.js';
import { LARGE_OPENAPI_QUERIES } from '../../fixtures/openapi/queries.js';
import { createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from '../http-tools/helpers.js';

/**
 * Done when search returns the expected tools for a table of
 * queries over the large fixture: rows of the pinned table
 * (test/fixtures/openapi/queries.ts), asked through GET /tools?q= of an app
 * whose `openapi_sources` entry imports the fixture, and what an agent does
 * next — call the tool it found — against a loopback upstream.
 */
let server: TestServer;
let t: TestApp;
beforeAll(async () => {
  server = await startServer((_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"state":"success"}');
  });
  const source = largeOpenApiSource({ base_url: `${server.origin}/api/v3`, allow_private_network: true });
  const dispatchers = createTestDispatchers();
  t = await buildTestApp({ builtins: false, tools: await largeOpenApiCatalog(source, dispatchers), dispatchers, config: { openapi_sources: [source] } });
});
afterAll(async () => {
  await t.close();
  await server.close();
});
afterEach(expectTripwireQuiet);

const E2E_QUERIES = ['suspending a user', 'listGlobalWebhooks', 'get_license_information', 'pre receive environment download status', 'create a commit status', 'self-hosted runner registration token', 'weather'];
const rows = LARGE_OPENAPI_QUERIES.filter(([query]) => E2E_QUERIES.includes(query));

describe('GET /tools?q= over the large OpenAPI fixture (672 tools)', () => {
  it('asks the rows it names', () => {
    expect(rows.map(([query]) => query)).toEqual(E2E_QUERIES);
  });

  it.each(rows)('%j, format=anthropic, finds %s within the first %i', async (query, expected, within) => {
    const limit = Math.max(within, 1);
    const res = await t.app.inject({ method: 'GET', url: `/tools?q=${encodeURIComponent(query)}&limit=${limit}&format=anthropic` });
    expect(res.statusCode).toBe(200);
    const tools = res.json().tools as Array<{ name: string; description: string; input_schema: { type: string } }>;
    if (expected === null) {
      expect(tools).toEqual([]);
      return;
    }
    expect(tools.length).toBeLessThanOrEqual(limit);
    expect(tools.map((x) => x.name)).toContain(expected);
    expect(tools[0]!.input_schema.type).toBe('object');
  });

  it('the tool found first is callable: POST /execute sends its operation upstream', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/tools?q=create+a+commit+status&limit=1&format=anthropic' });
    const [found] = res.json().tools as Array<{ name: string; input_schema: { required: string[] } }>;
    expect(found!.name).toBe('gh_repos_create-commit-status');
    expect(found!.input_schema.required).toEqual(expect.arrayContaining(['owner', 'repo', 'sha', 'state']));
    const before = server.requests.length;
    const args = { owner: 'octo', repo: 'hello', sha: 'abc123', state: 'success', context: 'ci' };
    const { status, body } = await execute(t.app, [{ id: `call_${randomUUID()}`, name: found!.name, arguments: args }]);
    expect(status).toBe(200);
    expect(body.results[0].status).toBe('success');
    expect(server.requests.length).toBe(before + 1);
    const sent = server.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/api/v3/repos/octo/hello/statuses/abc123');
    expect(JSON.parse(sent.body)).toEqual({ state: 'success', context: 'ci' });
  });
});
