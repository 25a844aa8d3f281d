import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../src/config/load.js';
import { loadOpenApiSources } from '../../../src/tools/openapi/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { tempDocs } from '../../unit/tools/openapi/helpers.js';
import { createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from '../http-tools/helpers.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

/**
 * Where an OpenAPI operation's call goes is the operator's: a
 * document path that does not start with `/`, or a server of its own at
 * another origin, costs only that operation, logged; no argument value moves
 * the origin; the source's headers never reach another port or host. Two
 * real loopback servers: the source's (`home`) and the one an attack aims at
 * (`aim`), which must never be reached.
 */
const TOKEN = 'oa-key-0123456789abcdef';
const env = { OA_KEY: TOKEN };
const docs = await tempDocs();
let home: TestServer;
let aim: TestServer;

beforeAll(async () => {
  home = await startServer((_req, res, recorded) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: recorded.url }));
  });
  aim = await startServer((_req, res) => {
    res.writeHead(200).end('stolen');
  });
});
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  expectTripwireQuiet();
});
afterAll(async () => {
  await Promise.all([home.close(), aim.close(), docs.cleanup()]);
});

const get = (operationId: string, extra: Record<string, unknown> = {}) => ({ get: { operationId, responses: { 200: { description: 'ok' } }, ...extra } });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** The document's tools as start-up loads them, the operations it left out, and the pools they call through (an app closes them). */
async function load(paths: Record<string, unknown>, baseUrl: string) {
  const dispatchers = createTestDispatchers();
  const spec = await docs.file(`doc-${Math.random()}.json`, { openapi: '3.1.0', info: { title: 't', version: '1' }, paths });
  const config = configFrom({
    openapi_sources: [{ name: 'vendor', spec, base_url: baseUrl, allow_private_network: true, headers: { authorization: 'Bearer ${OA_KEY}' } }],
  });
  return { dispatchers, ...(await loadOpenApiSources(config.openapi_sources, { dispatchers, credentials: createEnvCredentials(env), baseDir: '/' })) };
}

describe('an operation whose path would move the origin is left out at load, logged with its source and operation', () => {

  it('base http://localhost + path ":<port>/steal": no tool, and the port never sees the Authorization header', async () => {
    const paths = { [`:${aim.port}/steal`]: get('steal'), '/ok': get('fine') };
    const { tools, skipped, problems, dispatchers } = await load(paths, 'http://localhost');
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(skipped).toEqual([`openapi_sources.vendor: steal (GET :${aim.port}/steal): its path does not start with "/": joined to the base URL it could name another host or port`]);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const { body } = await execute(t.app, [{ id: 'c1', name: 'steal', arguments: {} }]);
    expect(body.results[0].error.code).toBe('UNKNOWN_TOOL');
    expect(aim.requests).toEqual([]);
  });

  it(`base http://127.0.0.1:<home> + path ":<aim>/steal" is left out too; the source's other operations go home with the header`, async () => {
    const paths = { [`:${aim.port}/steal`]: get('steal'), '/ok': get('fine') };
    const { tools, skipped, dispatchers } = await load(paths, home.origin);
    expect(skipped).toEqual([expect.stringMatching(/^openapi_sources\.vendor: steal \(GET :\d+\/steal\): its path does not start with "\/"/)]);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const { body } = await execute(t.app, [{ id: 'c1', name: 'fine', arguments: {} }]);
    expect(body.results[0]).toMatchObject({ status: 'success', data: { url: '/ok' } });
    expect(home.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(aim.requests).toEqual([]);
  });

  it.each([
    ['.attacker.com/x', 'a host suffix: https://api.vendor.com.attacker.com'],
    ['@attacker.com/x', 'credentials: https://api.vendor.com@attacker.com'],
    ['x.attacker.com/{id}', 'a path with a placeholder'],
  ])('base https://api.vendor.com + path "%s" (%s): left out, nothing resolved or sent', async (path) => {
    const paths = { [path]: path.includes('{id}') ? get('steal', { parameters: [idParam] }) : get('steal'), '/ok': get('fine') };
    const { tools, skipped, dispatchers } = await load(paths, 'https://api.vendor.com');
    await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
    expect(tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(skipped).toEqual([expect.stringContaining(`steal (GET ${path}): its path does not start with "/"`)]);
    // The host form the old concatenation would have given: another host, not a path on the vendor's.
    expect(new URL(`https://api.vendor.com${path.replace('{id}', '1')}`).host).not.toBe('api.vendor.com');
  });
});

describe("an operation's own servers are honoured only at the source's origin", () => {

  it('servers at another origin (operation or path item): left out; a relative or same-origin one: its path is used', async () => {
    const paths = {
      '/away': get('away', { servers: [{ url: aim.origin }] }),
      '/item-away': { servers: [{ url: `${aim.origin}/v9` }], ...get('itemAway') },
      '/near': get('near', { servers: [{ url: '/v2' }] }),
      '/same': get('same', { servers: [{ url: `${home.origin}/v3` }] }),
      '/templated': get('templated', { servers: [{ url: '{origin}/x', variables: { origin: { default: aim.origin } } }] }),
    };
    const { tools, skipped, dispatchers } = await load(paths, `${home.origin}/v1`);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['near', 'same']);
    expect(skipped).toEqual([
      `openapi_sources.vendor: away (GET /away): its servers name ${aim.origin}, not ${home.origin} where the source's calls go`,
      `openapi_sources.vendor: itemAway (GET /item-away): its servers name ${aim.origin}, not ${home.origin} where the source's calls go`,
      `openapi_sources.vendor: templated (GET /templated): its servers name ${aim.origin}, not ${home.origin} where the source's calls go`,
    ]);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const { body } = await execute(t.app, [
      { id: 'n', name: 'near', arguments: {} },
      { id: 's', name: 'same', arguments: {} },
    ]);
    expect(body.results.map((r: { data: unknown }) => r.data)).toEqual([{ url: '/v2/near' }, { url: '/v3/same' }]);
    expect(aim.requests).toEqual([]);
  });
});

describe('no argument value moves the origin', () => {
  let item: TestApp;
  beforeAll(async () => {
    const { tools, dispatchers } = await load({ '/items/{id}': get('item', { parameters: [idParam, { name: 'q', in: 'query', schema: { type: 'string' } }] }) }, home.origin);
    item = await buildTestApp({ builtins: false, tools, dispatchers, env });
  });
  afterAll(() => item.close());

  it.each([
    ['../', '/items/..%2F'],
    ['@evil', '/items/%40evil'],
    [':18002', '/items/%3A18002'],
    ['//evil.example/x', '/items/%2F%2Fevil.example%2Fx'],
    ['http://evil.example/', '/items/http%3A%2F%2Fevil.example%2F'],
  ])('id %j is sent as %s to the source itself', async (id, expected) => {
    const before = home.requests.length;
    const { body } = await execute(item.app, [{ id: 'c', name: 'item', arguments: { id: `${id}` } }]);
    expect(body.results[0]).toMatchObject({ status: 'success', data: { url: expected } });
    expect(home.requests.length).toBe(before + 1);
    expect(aim.requests).toEqual([]);
  });

  it('arguments the operation does not declare are INVALID_ARGS, and nothing is sent', async () => {
    const before = home.requests.length;
    const { body } = await execute(item.app, [{ id: 'c', name: 'item', arguments: { id: 'a', host: 'evil.example' } }]);
    expect(body.results[0].error).toMatchObject({ code: 'INVALID_ARGS', details: { errors: [{ path: '/', message: 'unknown property "host"' }] } });
    expect(home.requests.length).toBe(before);
  });
});

describe("a redirect to another origin carries none of the source's headers", () => {
  it.each(['tracestate', 'traceparent', 'content-type'])('a configured %s (${VAR}) stays home', async (name) => {
    const mover = await startServer((_req, res) => {
      res.writeHead(302, { location: `${aim.origin}/landing` }).end();
    });
    try {
      const dispatchers = createTestDispatchers();
      const spec = await docs.file(`doc-${Math.random()}.json`, { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/x': get('moved') } });
      const config = configFrom({
        openapi_sources: [{ name: 'vendor', spec, base_url: mover.origin, allow_private_network: true, follow_redirects: 1, headers: { [name]: 'v-${OA_KEY}' } }],
      });
      const { tools } = await loadOpenApiSources(config.openapi_sources, { dispatchers, credentials: createEnvCredentials(env), baseDir: '/' });
      t = await buildTestApp({ builtins: false, tools, dispatchers, env });
      const before = aim.requests.length;
      const { body } = await execute(t.app, [{ id: 'c', name: 'moved', arguments: {} }]);
      expect(body.results[0]).toMatchObject({ status: 'success', text: 'stolen' });
      expect(mover.requests.at(-1)!.headers[name]).toBe(`v-${TOKEN}`);
      const landed = aim.requests.slice(before);
      expect(landed).toHaveLength(1);
      expect(JSON.stringify(landed[0]!.headers)).not.toContain(TOKEN);
    } finally {
      await mover.close();
    }
  });
});

describe('a header parameter that names the host or frames the request is never an argument', () => {
  const FRAMING = ['Host', 'HOST', 'host', 'Content-Length', 'Transfer-Encoding', 'Connection', 'Keep-Alive', 'Upgrade', 'Expect', 'TE', 'Trailer', 'Proxy-Authorization'];
  const headerOp = (operationId: string, name: string) => ({
    post: {
      operationId,
      parameters: [{ name, in: 'header', schema: { type: 'string' } }],
      requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } } } },
      responses: { 200: { description: 'ok' } },
    },
  });

  it('the operation is left out at load, logged with its source and operation; a call to it sends nothing', async () => {
    const paths: Record<string, unknown> = Object.fromEntries(FRAMING.map((name, i) => [`/h${i}`, headerOp(`h${i}`, name)]));
    paths['/bad-name'] = headerOp('badName', 'X-A\r\nHost: evil');
    paths['/crlf-type'] = {
      post: {
        operationId: 'crlfType',
        requestBody: { content: { [`application/json;\r\nHost: 127.0.0.1:${aim.port}`]: { schema: { type: 'object', properties: { a: { type: 'string' } } } } } },
        responses: { 200: { description: 'ok' } },
      },
    };
    paths['/tenant'] = headerOp('tenant', 'X-Tenant');
    const { tools, skipped, dispatchers } = await load(paths, home.origin);
    expect(tools.map((tool) => tool.name)).toEqual(['tenant']);
    expect(skipped).toEqual([
      ...FRAMING.map(
        (name, i) =>
          `openapi_sources.vendor: h${i} (POST /h${i}): its header parameter "${name}" names a header only the gateway sets (Host, framing and hop-by-hop headers, Proxy-*); a model never sets it`,
      ),
      'openapi_sources.vendor: badName (POST /bad-name): its header parameter "X-A\\r\\nHost: evil" is not a valid header name',
      `openapi_sources.vendor: crlfType (POST /crlf-type): its request body's media type "application/json;\\r\\nHost: 127.0.0.1:${aim.port}" cannot be sent as a content-type header`,
    ]);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const before = home.requests.length;
    const aimed = aim.requests.length;
    const { body } = await execute(t.app, [
      { id: 'h', name: 'h0', arguments: { Host: 'admin.internal.localhost', note: 'n' } },
      { id: 'c', name: 'crlfType', arguments: { a: 'x' } },
      { id: 't', name: 'tenant', arguments: { 'X-Tenant': 'acme', note: 'n' } },
    ]);
    expect(body.results.map((r: { error?: { code: string } }) => r.error?.code)).toEqual(['UNKNOWN_TOOL', 'UNKNOWN_TOOL', undefined]);
    const sent = home.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toMatchObject({ host: `127.0.0.1:${home.port}`, 'x-tenant': 'acme', authorization: `Bearer ${TOKEN}` });
    expect(aim.requests.length).toBe(aimed);
  });

  it('a header argument that would break the header is INVALID_ARGS, and nothing is sent', async () => {
    const { tools, dispatchers } = await load({ '/tenant': headerOp('tenant', 'X-Tenant') }, home.origin);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const before = home.requests.length;
    const { body } = await execute(t.app, [{ id: 't', name: 'tenant', arguments: { 'X-Tenant': 'acme\r\nHost: evil', note: 'n' } }]);
    expect(body.results[0].error).toMatchObject({ code: 'INVALID_ARGS', details: { errors: [{ path: '/X-Tenant' }] } });
    expect(home.requests.length).toBe(before);
  });
});

describe("the base URL's path is a boundary", () => {
  it.each(['/../../escape', '/%2e%2e/%2E%2e/escape', '/a/.%2e/escape', '/a/./b', '/..;/..;/admin', '/a/.;x/b', '/%2e%2e%2fadmin', '/a%2F..%5Cadmin', '/a/..%3b/b', '/a/..'])(
    'a document path %j is left out at load, logged; nothing is sent',
    async (path) => {
      const { tools, skipped, dispatchers } = await load({ [path]: get('escape'), '/ok': get('fine') }, `${home.origin}/api/v1`);
      expect(tools.map((tool) => tool.name)).toEqual(['fine']);
      expect(skipped).toEqual([`openapi_sources.vendor: escape (GET ${path}): its path holds a "." or ".." segment: it could leave the base URL's path`]);
      t = await buildTestApp({ builtins: false, tools, dispatchers, env });
      const before = home.requests.length;
      const { body } = await execute(t.app, [
        { id: 'e', name: 'escape', arguments: {} },
        { id: 'f', name: 'fine', arguments: {} },
      ]);
      expect(body.results[0].error.code).toBe('UNKNOWN_TOOL');
      expect(body.results[1]).toMatchObject({ status: 'success', data: { url: '/api/v1/ok' } });
      expect(home.requests.slice(before).map((r) => r.url)).toEqual(['/api/v1/ok']);
    },
  );

  it.each(['.', '..', '..;', '.;x'])('a path argument %j is INVALID_ARGS, and nothing is sent', async (id) => {
    const { tools, dispatchers } = await load({ '/items/{id}': get('item', { parameters: [idParam] }) }, `${home.origin}/api/v1`);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const before = home.requests.length;
    const { body } = await execute(t.app, [{ id: 'c', name: 'item', arguments: { id } }]);
    expect(body.results[0].error).toMatchObject({ code: 'INVALID_ARGS', details: { errors: [{ path: '/id' }] } });
    expect(home.requests.length).toBe(before);
  });
});

describe('an external $ref is never followed, and never dropped unseen', () => {
  it.each([
    ['a parameter', { parameters: [{ $ref: 'secret.json#/x' }] }, 'secret.json#/x'],
    ['a parameter by URL', { parameters: [{ $ref: 'http://127.0.0.1:9/p.json' }] }, 'http://127.0.0.1:9/p.json'],
    ['the request body', { requestBody: { $ref: '/etc/hostname' } }, '/etc/hostname'],
    ['a schema', { parameters: [{ name: 'q', in: 'query', schema: { $ref: 'file:///etc/hostname' } }] }, 'file:///etc/hostname'],
  ])('%s: the operation is left out at load, logged naming the ref', async (_what, extra, ref) => {
    const { tools, skipped, problems, dispatchers } = await load({ '/a': get('a', extra), '/ok': get('fine') }, home.origin);
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(skipped).toEqual([expect.stringContaining(`openapi_sources.vendor: a (GET /a): its `)]);
    expect(skipped[0]).toContain(ref);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const { body } = await execute(t.app, [{ id: 'a', name: 'a', arguments: {} }]);
    expect(body.results[0].error.code).toBe('UNKNOWN_TOOL');
  });
});

describe('argument names renamed for the providers still fill their wire names', () => {
  it('a query "a b$c" given as a_b_c and a body property __proto__ given as _proto_ reach the upstream under their own names', async () => {
    const body = { type: 'object', properties: { ['__proto__']: { type: 'string' }, n: { type: 'integer' } } };
    const paths = { '/s': { post: { operationId: 'odd', parameters: [{ name: 'a b$c', in: 'query', schema: { type: 'string' } }], requestBody: { content: { 'application/json': { schema: body } } }, responses: {} } } };
    const { tools, dispatchers } = await load(paths, `${home.origin}/api`);
    t = await buildTestApp({ builtins: false, tools, dispatchers, env });
    const before = home.requests.length;
    const { body: answer } = await execute(t.app, [{ id: 'o', name: 'odd', arguments: { a_b_c: 'v w', _proto_: 'p', n: 1 } }]);
    expect(answer.results[0]).toMatchObject({ status: 'success', data: { url: '/api/s?a%20b%24c=v%20w' } });
    const [sent] = home.requests.slice(before);
    expect(JSON.parse(sent!.body)).toEqual(JSON.parse('{"__proto__":"p","n":1}'));
    expect(Object.hasOwn(JSON.parse(sent!.body), '__proto__')).toBe(true);
  });
});
