import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { loadOpenApiSources } from '../../../../src/tools/openapi/index.js';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from '../../http-tools/helpers.js';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';

/**
 * The fixtures' operations are callable end to end
 * through the pipeline. Each document's tools are served by an app and
 * called through POST /execute against a loopback server that records the
 * method, path, query, headers and body it was sent.
 */
const FIXTURES = resolve('test/fixtures/openapi');
const TOKEN = 'pet-token-0123456789';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((_req, res, recorded) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: recorded.url }));
  });
});
afterAll(() => server.close());
afterEach(expectTripwireQuiet);

const env = { PET_TOKEN: TOKEN };

async function appFor(sources: Array<Record<string, unknown>>): Promise<TestApp> {
  const dispatchers = createTestDispatchers();
  const config = configFrom({ openapi_sources: sources });
  const { tools, problems } = await loadOpenApiSources(config.openapi_sources, { dispatchers, credentials: createEnvCredentials(env), baseDir: FIXTURES });
  expect(problems).toEqual([]);
  // The upstream echoes each request whole, loginUser's password included: the guardrails would redact it, and these tests pin the request.
  return buildTestApp({ builtins: false, tools, dispatchers, env, config: { guardrails: { secrets: 'off' } } });
}

/** One call through POST /execute; what the upstream received. */
async function call(t: TestApp, name: string, args: Record<string, unknown>) {
  const before = server.requests.length;
  const { status, body } = await execute(t.app, [{ id: `call_${randomUUID()}`, name, arguments: args }]);
  expect(status).toBe(200);
  expect(body.results[0].error).toBeUndefined();
  expect(body.results[0].status).toBe('success');
  expect(server.requests.length).toBe(before + 1);
  const sent = server.requests.at(-1)!;
  return { method: sent.method, url: sent.url, headers: sent.headers, body: sent.body === '' ? undefined : /json/.test(String(sent.headers['content-type'])) ? (JSON.parse(sent.body) as unknown) : sent.body, result: body.results[0] };
}

const pet = { name: 'Rex', photoUrls: ['https://example.com/rex.png'], status: 'available', category: { id: 1, name: 'dogs' } };
const user = { id: 7, username: 'ann', email: 'ann@example.com' };

// Every one of the 19 tools of each Petstore document: what the call sends.
const PETSTORE_CALLS: Array<[string, Record<string, unknown>, { method: string; url: string; body?: unknown; header?: Record<string, string> }]> = [
  ['addPet', pet, { method: 'POST', url: '/v2/pet', body: pet }],
  ['updatePet', pet, { method: 'PUT', url: '/v2/pet', body: pet }],
  ['updatePetWithForm', { petId: 42, name: 'Rex II', status: 'sold' }, { method: 'POST', url: '/v2/pet/42', body: 'name=Rex+II&status=sold' }],
  ['findPetsByStatus', { status: ['available', 'sold'] }, { method: 'GET', url: '/v2/pet/findByStatus?status=available&status=sold' }],
  ['findPetsByTags', { tags: ['a b', 'c&d'] }, { method: 'GET', url: '/v2/pet/findByTags?tags=a%20b&tags=c%26d' }],
  ['getPetById', { petId: 42 }, { method: 'GET', url: '/v2/pet/42' }],
  ['deletePet', { petId: 42, api_key: 'k-1' }, { method: 'DELETE', url: '/v2/pet/42', header: { api_key: 'k-1' } }],
  ['getInventory', {}, { method: 'GET', url: '/v2/store/inventory' }],
  ['placeOrder', { petId: 42, quantity: 2, status: 'placed' }, { method: 'POST', url: '/v2/store/order', body: { petId: 42, quantity: 2, status: 'placed' } }],
  ['getOrderById', { orderId: 3 }, { method: 'GET', url: '/v2/store/order/3' }],
  ['deleteOrder', { orderId: 3 }, { method: 'DELETE', url: '/v2/store/order/3' }],
  ['createUser', user, { method: 'POST', url: '/v2/user', body: user }],
  ['createUsersWithArrayInput', { body: [user] }, { method: 'POST', url: '/v2/user/createWithArray', body: [user] }],
  ['createUsersWithListInput', { body: [user, user] }, { method: 'POST', url: '/v2/user/createWithList', body: [user, user] }],
  ['loginUser', { username: 'ann', password: 'p@ss word' }, { method: 'GET', url: '/v2/user/login?username=ann&password=p%40ss%20word' }],
  ['logoutUser', {}, { method: 'GET', url: '/v2/user/logout' }],
  ['getUserByName', { username: 'ann/../admin' }, { method: 'GET', url: '/v2/user/ann%2F..%2Fadmin' }],
  ['updateUser', { username: 'ann', email: 'ann@example.com' }, { method: 'PUT', url: '/v2/user/ann', body: { email: 'ann@example.com' } }],
  ['deleteUser', { username: 'ann' }, { method: 'DELETE', url: '/v2/user/ann' }],
];

describe.each(['petstore-3.0.json', 'petstore-3.1.json'])('every operation of %s, through POST /execute', (file) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appFor([{ name: 'pets', spec: file, base_url: `${server.origin}/v2`, allow_private_network: true, headers: { authorization: 'Bearer ${PET_TOKEN}' } }]);
  });
  afterAll(() => t.close());

  it.each(PETSTORE_CALLS)('%s', async (name, args, expected) => {
    const sent = await call(t, name, args);
    expect(sent.method).toBe(expected.method);
    expect(sent.url).toBe(expected.url);
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
    if ('body' in expected) {
      expect(sent.body).toEqual(expected.body);
      expect(sent.headers['content-type']).toBe(typeof expected.body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json');
    }
    for (const [header, value] of Object.entries(expected.header ?? {})) expect(sent.headers[header]).toBe(value);
    // The upstream's JSON answer is the result's data; the configured token never reaches the caller.
    expect(sent.result.data).toEqual({ echoed: expected.url });
  });

  it('updateUser: the path username and the body username are two arguments (username, body_username)', async () => {
    const sent = await call(t, 'updateUser', { username: 'ann', body_username: 'anne', email: 'anne@example.com' });
    expect(sent.url).toBe('/v2/user/ann');
    expect(sent.body).toEqual({ username: 'anne', email: 'anne@example.com' });
  });

  it('arguments the schema refuses never reach the upstream', async () => {
    const before = server.requests.length;
    const { body } = await execute(t.app, [{ id: 'c1', name: 'getPetById', arguments: { petId: 'not a number' } }]);
    expect(body.results[0].error.code).toBe('INVALID_ARGS');
    const unknown = await execute(t.app, [{ id: 'c2', name: 'getPetById', arguments: { petId: 1, extra: true } }]);
    expect(unknown.body.results[0].error.code).toBe('INVALID_ARGS');
    expect(server.requests.length).toBe(before);
  });
});

describe('header arguments', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appFor([{ name: 'pets', spec: 'petstore-3.1.json', base_url: `${server.origin}/v2`, allow_private_network: true, headers: { 'X-Fixed': 'yes', api_key: 'configured' } }]);
  });
  afterAll(() => t.close());

  it('a value with a line break is INVALID_ARGS and nothing is sent', async () => {
    const before = server.requests.length;
    const { body } = await execute(t.app, [{ id: `call_${randomUUID()}`, name: 'deletePet', arguments: { petId: 1, api_key: 'k\r\nx-injected: 1' } }]);
    expect(body.results[0].error).toMatchObject({ code: 'INVALID_ARGS', details: { errors: [{ path: '/api_key' }] } });
    expect(server.requests.length).toBe(before);
  });

  it('the source\'s configured headers are sent too, and win over an argument of the same name', async () => {
    const sent = await call(t, 'deletePet', { petId: 1, api_key: 'from-the-model' });
    expect(sent.headers).toMatchObject({ api_key: 'configured', 'x-fixed': 'yes' });
  });
});

describe('the large fixture (GitHub Enterprise Server 3.0): one call per method and parameter kind', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await appFor([{ name: 'github', spec: 'large.json', prefix: 'gh_', base_url: `${server.origin}/api/v3`, allow_private_network: true }]);
  });
  afterAll(() => t.close());

  it.each([
    ['GET, path and query', 'gh_repos_list-commits', { owner: 'octo', repo: 'hello', sha: 'main', per_page: 5 }, 'GET', '/api/v3/repos/octo/hello/commits?sha=main&per_page=5', undefined],
    ['POST, body properties merged', 'gh_pulls_create', { owner: 'octo', repo: 'hello', title: 'Fix', head: 'fix', base: 'main' }, 'POST', '/api/v3/repos/octo/hello/pulls', { title: 'Fix', head: 'fix', base: 'main' }],
    ['PATCH', 'gh_issues_update', { owner: 'octo', repo: 'hello', issue_number: 9, state: 'closed' }, 'PATCH', '/api/v3/repos/octo/hello/issues/9', { state: 'closed' }],
    ['PUT', 'gh_pulls_merge', { owner: 'octo', repo: 'hello', pull_number: 3, merge_method: 'squash' }, 'PUT', '/api/v3/repos/octo/hello/pulls/3/merge', { merge_method: 'squash' }],
    ['DELETE', 'gh_repos_delete', { owner: 'octo', repo: 'hello' }, 'DELETE', '/api/v3/repos/octo/hello', undefined],
    ['a oneOf body as one argument', 'gh_issues_add-labels', { owner: 'octo', repo: 'hello', issue_number: 9, body: { labels: ['bug'] } }, 'POST', '/api/v3/repos/octo/hello/issues/9/labels', { labels: ['bug'] }],
  ])('%s: %s', async (_kind, name, args, method, url, body) => {
    const sent = await call(t, name, args);
    expect(sent.method).toBe(method);
    expect(sent.url).toBe(url);
    expect(sent.body).toEqual(body);
  });

  it.each(['openai', 'openai&strict=true', 'responses', 'anthropic', 'gemini', 'mcp'])('GET /tools?format=%s lists all 672 tools', async (format) => {
    const res = await t.app.inject({ method: 'GET', url: `/tools?format=${format}` });
    expect(res.statusCode).toBe(200);
    const tools = res.json().tools;
    expect(format === 'gemini' ? tools[0].functionDeclarations : tools).toHaveLength(672);
  });
});

describe('fragment paths, form bodies and unnamed operations reach the upstream as their document says, at the source origin only', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-openapi-real-'));
    const target = { name: 'X-Amz-Target', in: 'header', required: true, schema: { type: 'string', enum: ['AWSGlue.GetJob'] } };
    const paths = {
      '/#X-Amz-Target=AWSGlue.GetJob': {
        post: { operationId: 'GetJob', parameters: [target], requestBody: { required: true, content: { 'application/x-amz-json-1.1': { schema: { type: 'object', properties: { JobName: { type: 'string' } } } }, 'application/json': { schema: { type: 'object', properties: { JobName: { type: 'string' } } } } } }, responses: {} },
      },
      '/#Action=AttachInstances&Version=2011-01-01': {
        get: { operationId: 'GET_AttachInstances', parameters: [{ name: 'Action', in: 'query', required: true, schema: { type: 'string' } }, { name: 'AutoScalingGroupName', in: 'query', required: true, schema: { type: 'string' } }], responses: {} },
      },
      '/v1/customers': {
        get: { operationId: 'GetCustomers', parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }], requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: {} } } } }, responses: {} },
        post: {
          operationId: 'PostCustomers',
          requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { email: { type: 'string' }, metadata: { type: 'object', additionalProperties: { type: 'string' } }, expand: { type: 'array', items: { type: 'string' } } } }, encoding: { expand: { style: 'deepObject', explode: true }, metadata: { style: 'deepObject', explode: true } } } } },
          responses: {},
        },
      },
      '/hop?Action=//evil.example.com:1/x#@evil.example.com': { get: { operationId: 'Hop', responses: {} } },
      '/v1/notes/{id}': { delete: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: {} } },
      '/v1/notes': {
        post: { operationId: 'PostNote', requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, meta: { type: 'object' } } } } } }, responses: {} },
      },
      '/moved': { servers: [{ url: 'https://elsewhere.example.com/v2' }], get: { operationId: 'Moved', responses: {} } },
      '/away': { servers: [{ url: 'https://other.example.com' }], get: { operationId: 'Away', responses: {} } },
    };
    const spec = join(dir, 'real.json');
    await writeFile(spec, JSON.stringify({ openapi: '3.0.3', info: { title: 'real', version: '1' }, servers: [{ url: 'https://elsewhere.example.com' }], paths }));
    t = await appFor([{ name: 'real', spec, base_url: `${server.origin}/api`, allow_private_network: true }]);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('AWS JSON protocol: POST to the base path with the X-Amz-Target header the fragment names, the body as JSON', async () => {
    const sent = await call(t, 'GetJob', { JobName: 'nightly' });
    expect([sent.method, sent.url, sent.headers['x-amz-target'], sent.body]).toEqual(['POST', '/api/', 'AWSGlue.GetJob', { JobName: 'nightly' }]);
  });

  it('AWS query protocol: the fragment\'s Action and Version are fixed query parameters, before the arguments', async () => {
    const sent = await call(t, 'GET_AttachInstances', { AutoScalingGroupName: 'web' });
    expect([sent.method, sent.url]).toEqual(['GET', '/api/?Action=AttachInstances&Version=2011-01-01&AutoScalingGroupName=web']);
  });

  it('a GET whose optional form body is left off sends none; a POST sends its form body in bracket notation', async () => {
    const listed = await call(t, 'GetCustomers', { limit: 3 });
    expect([listed.method, listed.url, listed.body, listed.headers['content-type']]).toEqual(['GET', '/api/v1/customers?limit=3', undefined, undefined]);
    const created = await call(t, 'PostCustomers', { email: 'a@example.com', metadata: { order: '7' }, expand: ['invoice'] });
    expect(created.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(decodeURIComponent(created.body as string)).toBe('email=a@example.com&metadata[order]=7&expand[0]=invoice');
  });

  it('a query or fragment naming another host moves nothing: the call goes to the base URL, the text is a query value', async () => {
    const sent = await call(t, 'Hop', {});
    expect([sent.method, sent.url]).toEqual(['GET', '/api/hop?Action=%2F%2Fevil.example.com%3A1%2Fx']);
  });

  it('a multipart body of text fields: one part per field, a list one part per item, an object as JSON', async () => {
    const sent = await call(t, 'PostNote', { title: 'Hi', tags: ['a', 'b'], meta: { k: 1 } });
    const type = String(sent.headers['content-type']);
    const boundary = /^multipart\/form-data; boundary=(\S+)$/.exec(type)![1]!;
    const parts = (sent.body as string).split(`--${boundary}`).slice(1, -1).map((part) => part.slice(2, -2));
    expect([sent.method, sent.url]).toEqual(['POST', '/api/v1/notes']);
    expect(parts).toEqual([
      'Content-Disposition: form-data; name="title"\r\n\r\nHi',
      'Content-Disposition: form-data; name="tags"\r\n\r\na',
      'Content-Disposition: form-data; name="tags"\r\n\r\nb',
      'Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":1}',
    ]);
    expect((sent.body as string).endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it("an operation whose own server is under the document's server moves with base_url; one at another origin is left out", async () => {
    const sent = await call(t, 'Moved', {});
    expect([sent.method, sent.url]).toEqual(['GET', '/api/v2/moved']);
    const { status, body } = await execute(t.app, [{ id: 'call_away', name: 'Away', arguments: {} }]);
    expect(status).toBe(200);
    expect(body.results[0].error.code).toBe('UNKNOWN_TOOL');
  });

  it('an operation without operationId is the tool delete_v1_notes_id', async () => {
    const sent = await call(t, 'delete_v1_notes_id', { id: 'n1' });
    expect([sent.method, sent.url]).toEqual(['DELETE', '/api/v1/notes/n1']);
  });
});
