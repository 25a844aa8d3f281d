import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFrom, inspectConfig } from '../../../../src/config/load.js';
import { createMetrics } from '../../../../src/observability/metrics.js';
import { prepare } from '../../../../src/startup.js';
import { loadOpenApiSources } from '../../../../src/tools/openapi/index.js';
import { callContext, createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from '../../http-tools/helpers.js';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';

/**
 * A document fetched by URL at start-up goes through the SSRF
 * guard (loopback refused unless allow_private_network), with a timeout and
 * a size cap; base_url wins over the document's servers[0].url, and a
 * relative server URL is resolved against the document's URL.
 */
const dispatchers = createTestDispatchers();
let docs: Map<string, { status?: number; type?: string; body: string } | 'hang'>;
let specServer: TestServer;
let api: TestServer;
let other: TestServer;

const document = (servers: unknown[]) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    servers,
    paths: { '/items/{id}': { get: { operationId: 'getItem', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: {} } } },
  });

beforeAll(async () => {
  docs = new Map();
  specServer = await startServer((_req, res, recorded) => {
    const answer = docs.get(recorded.url.split('?')[0]!);
    if (answer === 'hang') return;
    // The calls of the document with a relative server URL land here too.
    if (recorded.url.startsWith('/v2/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    if (!answer) return void res.writeHead(404).end();
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
  });
  const ok = (_req: unknown, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  api = await startServer(ok);
  other = await startServer(ok);
  docs.set('/relative.json', { body: document([{ url: '/v2' }]) });
  docs.set('/absolute.json', { body: document([{ url: `${other.origin}/elsewhere` }]) });
  docs.set('/spec.yaml', { type: 'application/yaml', body: `openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /ping:\n    get: {operationId: ping, responses: {}}\n` });
  docs.set('/hang.json', 'hang');
  docs.set('/gone.json', { status: 301, body: '' });
});
afterAll(async () => {
  await Promise.all([specServer.close(), api.close(), other.close()]);
  await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
});
afterEach(expectTripwireQuiet);

function load(source: Record<string, unknown>) {
  const config = configFrom({ openapi_sources: [{ name: 'remote', ...source }] });
  return loadOpenApiSources(config.openapi_sources, { dispatchers, credentials: createEnvCredentials({}), baseDir: tmpdir() });
}

describe('a document by URL', () => {
  it('is refused by the SSRF guard on loopback without allow_private_network, before any request', async () => {
    const before = specServer.requests.length;
    const { tools, problems } = await load({ spec: `${specServer.origin}/relative.json` });
    expect(tools).toEqual([]);
    expect(problems).toEqual([
      `openapi_sources.remote: spec ${specServer.origin}/relative.json refused by the SSRF guard: 127.0.0.1 is not a public address; set allow_private_network: true for a document on a private network`,
    ]);
    expect(specServer.requests.length).toBe(before);
  });

  it('with allow_private_network: a relative server URL is resolved against the document URL', async () => {
    const { tools, problems } = await load({ spec: `${specServer.origin}/relative.json`, allow_private_network: true });
    expect(problems).toEqual([]);
    await tools[0]!.run({ id: 'x1' }, callContext(5000));
    expect(specServer.requests.at(-1)!.url).toBe('/v2/items/x1');
  });

  it('base_url wins over the document server URL', async () => {
    const { tools } = await load({ spec: `${specServer.origin}/absolute.json`, allow_private_network: true, base_url: `${api.origin}/api` });
    const [before, otherBefore] = [api.requests.length, other.requests.length];
    await tools[0]!.run({ id: 'x2' }, callContext(5000));
    expect(api.requests.slice(before).map((r) => r.url)).toEqual(['/api/items/x2']);
    expect(other.requests.length).toBe(otherBefore);
    // Without base_url the document's own server URL is used.
    const own = await load({ spec: `${specServer.origin}/absolute.json`, allow_private_network: true });
    await own.tools[0]!.run({ id: 'x3' }, callContext(5000));
    expect(other.requests.at(-1)!.url).toBe('/elsewhere/items/x3');
  });

  it('with headers and no base_url, a document naming another origin as its server is refused: it must not choose where the secrets go', async () => {
    const { tools, problems } = await load({ spec: `${specServer.origin}/absolute.json`, allow_private_network: true, headers: { authorization: 'Bearer t0ken' } });
    expect(tools).toEqual([]);
    expect(problems).toEqual([
      `openapi_sources.remote: the document names ${other.origin} as its server, not ${specServer.origin} where it was fetched; with headers set, give base_url so the document cannot choose where they are sent`,
    ]);
    // Its own origin (a relative server URL), or base_url given, is served.
    expect((await load({ spec: `${specServer.origin}/relative.json`, allow_private_network: true, headers: { authorization: 'Bearer t0ken' } })).problems).toEqual([]);
    const chosen = await load({ spec: `${specServer.origin}/absolute.json`, allow_private_network: true, headers: { authorization: 'Bearer t0ken' }, base_url: api.origin });
    expect(chosen.problems).toEqual([]);
  });

  it('YAML is read as well as JSON', async () => {
    const { tools, problems } = await load({ spec: `${specServer.origin}/spec.yaml`, allow_private_network: true, base_url: api.origin });
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['ping']);
  });

  it.each([
    ['no answer within spec_timeout_ms', { spec: '/hang.json', spec_timeout_ms: 300 }, /no answer within spec_timeout_ms \(300 ms\)/],
    ['over max_spec_bytes', { spec: '/relative.json', max_spec_bytes: 100 }, /the document is larger than max_spec_bytes \(100 bytes\)/],
    ['a redirect', { spec: '/gone.json' }, /the server answered 301; expected 200 with the document \(redirects are not followed\)/],
    ['a 404', { spec: '/missing.json' }, /the server answered 404/],
  ])('%s: a start-up problem', async (_what, source, message) => {
    const { tools, problems } = await load({ ...source, spec: `${specServer.origin}${source.spec}`, allow_private_network: true });
    expect(tools).toEqual([]);
    expect(problems).toEqual([expect.stringMatching(message)]);
  });
});

describe('start-up (prepare) with openapi_sources', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-openapi-start-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function start(sources: unknown[]) {
    const file = join(dir, 'toolgate.yaml');
    await writeFile(file, JSON.stringify({ workspace: join(dir, 'ws'), spill: { url: `file://${join(dir, 'spill')}` }, openapi_sources: sources }));
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const prepared = prepare(inspectConfig({}, file), {}, dispatchers, createMetrics({ processMetrics: false }), logger);
    return { prepared, lines };
  }

  it('serves a document relative to the config file, logging each operation it leaves out', async () => {
    await writeFile(join(dir, 'pets.json'), await readFile('test/fixtures/openapi/petstore-3.1.json'));
    const { prepared, lines } = await start([{ name: 'pets', spec: 'pets.json', base_url: 'https://pets.example.com/v2' }]);
    const { registry, mcp, openapi } = await prepared;
    await openapi.settled;
    expect(registry.list().filter((e) => /Pet/.test(e.name)).map((e) => e.name)).toEqual(['addPet', 'deletePet', 'findPetsByStatus', 'findPetsByTags', 'getPetById', 'updatePet', 'updatePetWithForm']);
    expect(lines.filter((l) => l.msg === 'OpenAPI operation left out; the rest of its document is served').map((l) => l.problem)).toEqual([
      expect.stringMatching(/^openapi_sources\.pets: uploadFile/),
    ]);
    await mcp.close();
  });

  it('does not stop on a document that does not parse, one refused by the guard, or an operation with an unresolvable $ref: each logged', async () => {
    await writeFile(join(dir, 'broken.json'), '{"openapi": "3.1.0", "paths": {');
    await writeFile(
      join(dir, 'dangling.json'),
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/a': { get: { operationId: 'a', parameters: [{ $ref: '#/components/parameters/Gone' }], responses: {} } },
          '/b': { get: { operationId: 'b', responses: {} } },
        },
      }),
    );
    const { prepared, lines } = await start([
      { name: 'broken', spec: 'broken.json', base_url: 'https://a.example.com' },
      { name: 'guarded', spec: `${specServer.origin}/relative.json` },
      { name: 'dangling', spec: 'dangling.json', base_url: 'https://a.example.com' },
    ]);
    const { registry, mcp, openapi } = await prepared;
    await openapi.settled;
    expect(lines.filter((l) => l.msg === 'OpenAPI source refused: none of its operations is served').map((l) => [l.openapi_source, l.problem]).sort()).toEqual([
      ['broken', expect.stringMatching(/^openapi_sources\.broken: spec broken\.json is neither JSON nor YAML/)],
      ['guarded', expect.stringMatching(/^openapi_sources\.guarded: spec .* refused by the SSRF guard/)],
    ]);
    expect(lines.filter((l) => l.msg === 'OpenAPI operation left out; the rest of its document is served')).toEqual([
      expect.objectContaining({ openapi_source: 'dangling', operation: 'a', method: 'GET', path: '/a', reason: 'its $ref "#/components/parameters/Gone" points nowhere in the document' }),
    ]);
    expect(registry.get('b')).toBeDefined();
    expect(registry.get('a')).toBeUndefined();
    await mcp.close();
  });
});
