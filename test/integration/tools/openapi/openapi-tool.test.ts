import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
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
  return { method: sent.method, url: sent.url, headers: sent.headers, body: sent.body === '' ? undefined : (JSON.parse(sent.body) as unknown), result: body.results[0] };
}

const pet = { name: 'Rex', photoUrls: ['https://example.com/rex.png'], status: 'available', category: { id: 1, name: 'dogs' } };
const user = { id: 7, username: 'ann', email: 'ann@example.com' };

// Every one of the 18 tools of each Petstore document: what the call sends.
const PETSTORE_CALLS: Array<[string, Record<string, unknown>, { method: string; url: string; body?: unknown; header?: Record<string, string> }]> = [
  ['addPet', pet, { method: 'POST', url: '/v2/pet', body: pet }],
  ['updatePet', pet, { method: 'PUT', url: '/v2/pet', body: pet }],
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
      expect(sent.headers['content-type']).toBe('application/json');
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

  it.each(['openai', 'openai&strict=true', 'responses', 'anthropic', 'gemini', 'mcp'])('GET /tools?format=%s lists all 666 tools', async (format) => {
    const res = await t.app.inject({ method: 'GET', url: `/tools?format=${format}` });
    expect(res.statusCode).toBe(200);
    const tools = res.json().tools;
    expect(format === 'gemini' ? tools[0].functionDeclarations : tools).toHaveLength(666);
  });
});
