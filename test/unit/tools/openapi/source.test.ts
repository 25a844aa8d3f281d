import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../../../src/config/load.js';
import { createEnvCredentials } from '../../../../src/tools/credentials.js';
import { createHttpDispatchers } from '../../../../src/tools/http/index.js';
import { loadOpenApiSource } from '../../../../src/tools/openapi/index.js';
import { doc, load, tempDocs } from './helpers.js';

let docs: Awaited<ReturnType<typeof tempDocs>>;
beforeAll(async () => {
  docs = await tempDocs();
});
afterAll(() => docs.cleanup());

const getItem = { get: { operationId: 'getItem', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } };

describe('a document that cannot be read stops start-up; nothing of it is served', () => {
  it.each([
    ['not JSON or YAML', '{ "openapi": "3.1.0", paths: [ }', /spec .*bad\.txt is neither JSON nor YAML/],
    ['Swagger 1.2', { swagger: '1.2', info: { title: 't', version: '1' }, paths: {} }, /is Swagger 1\.2; only Swagger 2\.0 and OpenAPI 3\.0 and 3\.1 are read \(convert it first/],
    [
      'Swagger 2.0 the converter refuses',
      { swagger: '2.0', info: { title: 't', version: '1' }, host: 'api.example.com', paths: { '/p': { get: { parameters: [{ $ref: '#/parameters/nope' }], responses: {} } } } },
      /is Swagger 2\.0 and could not be converted to OpenAPI 3\.0 \(Could not resolve reference #\/components\/parameters\/nope\); convert it first/,
    ],
    ['no openapi version', { info: { title: 't', version: '1' }, paths: {} }, /is not an OpenAPI 3\.0 or 3\.1 document \(openapi: null\)/],
    ['OpenAPI 4', { openapi: '4.0.0', info: { title: 't', version: '1' }, paths: {} }, /is not an OpenAPI 3\.0 or 3\.1 document \(openapi: "4\.0\.0"\)/],
  ])('%s', async (_what, content, message) => {
    const path = await docs.file('bad.txt', content);
    const { tools, problems } = await load([{ name: 'bad', spec: path }]);
    expect(tools).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^openapi_sources\.bad: /);
    expect(problems[0]).toMatch(message);
  });

  it('a file that is not there, a ${VAR} not set, an include that selects nothing: each listed, at once', async () => {
    const path = await docs.file('ok.json', doc({ '/items/{id}': getItem }));
    const { tools, problems } = await load([
      { name: 'missing', spec: 'no-such-file.json' },
      { name: 'secret', spec: path, headers: { authorization: 'Bearer ${NOT_SET_TOKEN}' } },
      { name: 'narrow', spec: path, include: ['nothing*'] },
    ]);
    expect(tools).toEqual([]);
    expect(problems).toEqual([
      expect.stringMatching(/^openapi_sources\.missing: spec no-such-file\.json could not be read: ENOENT/),
      expect.stringMatching(/^openapi_sources\.secret: header "authorization" uses \$\{NOT_SET_TOKEN\}, which is not set/),
      'openapi_sources.narrow: include ["nothing*"] selects no operation of the document',
    ]);
  });

  it('a document larger than max_spec_bytes', async () => {
    const path = await docs.file('big.json', doc({ '/items/{id}': getItem }));
    const { problems } = await load([{ name: 'big', spec: path, max_spec_bytes: 50 }]);
    expect(problems).toEqual([expect.stringMatching(/spec .* the document is larger than max_spec_bytes \(50 bytes\)/)]);
  });

  it('no base_url and no absolute server URL in a file', async () => {
    const path = await docs.file('relative.json', doc({ '/items/{id}': getItem }, { servers: [{ url: '/v1' }] }));
    const { problems } = await load([{ name: 'rel', spec: path }]);
    expect(problems).toEqual(['openapi_sources.rel: the document names no absolute server URL (servers[0].url); set base_url']);
    expect((await load([{ name: 'rel', spec: path, base_url: 'https://api.example.com/v1' }])).problems).toEqual([]);
  });

  it('two operations that become one tool name, or a name another tool has: listed, the source serves nothing', async () => {
    const path = await docs.file('clash.json', doc({ '/a': { get: { operationId: 'get/item', responses: {} } }, '/b': { get: { operationId: 'get_item', responses: {} } } }));
    const clash = await load([{ name: 'c', spec: path }]);
    expect(clash.tools).toEqual([]);
    expect(clash.problems).toEqual(['openapi_sources.c: get_item (GET /b) and get/item (GET /a) both become the tool "get_item"; leave one out with include']);
    const taken = await load([{ name: 'c', spec: path, include: ['get_item'] }], {}, new Set(['get_item']));
    expect(taken.problems).toEqual([expect.stringMatching(/get_item \(GET \/b\) becomes the tool "get_item", a name another tool has; set a prefix/)]);
    const twice = await load([{ name: 'one', spec: path, include: ['get_item'] }, { name: 'two', spec: path, include: ['get_item'] }]);
    expect(twice.problems).toEqual(['openapi_sources.two: the tool "get_item" is also one of one\'s; set a prefix for one of them']);
  });
});

it('a document none of whose operations can be a tool stops start-up too', async () => {
  const path = await docs.file('none.json', doc({ '/trace': { trace: { operationId: 'traceIt', responses: {} } } }));
  const { tools, skipped, problems } = await load([{ name: 'none', spec: path }]);
  expect(tools).toEqual([]);
  expect(skipped).toHaveLength(1);
  expect(problems).toEqual(['openapi_sources.none: no operation of the document can be a tool (1 left out, listed in the log)']);
});

describe('an operation that cannot be a tool is listed and left out; the rest of the document is served', () => {
  it('a cookie parameter, a body neither JSON nor form, a $ref that points nowhere, TRACE; a recursive schema is a tool', async () => {
    const node = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } };
    const path = await docs.file('mixed.json', doc(
      {
        '/items/{id}': getItem,
        '/anonymous': { get: { responses: {} } },
        '/cookie': { get: { operationId: 'withCookie', parameters: [{ name: 'session', in: 'cookie', schema: { type: 'string' } }], responses: {} } },
        '/upload': { post: { operationId: 'upload', requestBody: { content: { 'image/png': { schema: { type: 'string' } } } }, responses: {} } },
        '/tree': { post: { operationId: 'plant', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } }, responses: {} } },
        '/trace': { trace: { operationId: 'traceIt', responses: {} } },
        '/items': { post: { operationId: 'add', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } }, responses: {} } },
      },
      { components: { schemas: { Node: node } } },
    ));
    const { tools, skipped, problems } = await load([{ name: 'm', spec: path }]);
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['getItem', 'get_anonymous', 'plant']);
    expect(skipped).toEqual([
      'openapi_sources.m: withCookie (GET /cookie): cookie parameters (session) are not supported',
      'openapi_sources.m: upload (POST /upload): its request body is image/png; only application/json, +json, application/x-www-form-urlencoded and multipart/form-data bodies are sent',
      'openapi_sources.m: traceIt (TRACE /trace): TRACE is not sent by HTTP tools',
      'openapi_sources.m: add (POST /items): its $ref "#/components/schemas/Nope" points nowhere in the document',
    ]);
    // The recursion stays a reference into the tool's own $defs.
    expect(tools[2]!.parameters).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
      additionalProperties: false,
      $defs: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
    });
  });
});

describe('loadOpenApiSource: every selected operation with its verdict, for whoever prints them', () => {
  it('a tool, or the reason it is left out, and the notes of what was changed to serve it', async () => {
    const path = await docs.file('verdicts.json', doc({
      '/items/{id}': getItem,
      '/when': { get: { operationId: 'when', parameters: [{ name: 'at', in: 'query', schema: { type: 'string', format: 'weird-time' } }], responses: {} } },
      '/cookie': { get: { operationId: 'withCookie', parameters: [{ name: 'session', in: 'cookie', schema: { type: 'string' } }], responses: {} } },
    }));
    const config = configFrom({ openapi_sources: [{ name: 'v', spec: path }] });
    const outcome = await loadOpenApiSource(config.openapi_sources[0]!, { dispatchers: createHttpDispatchers(), credentials: createEnvCredentials({}), baseDir: '/' });
    expect(outcome.verdicts.map((v) => ({ label: v.label, tool: v.tool?.name, reason: v.reason, notes: v.notes }))).toEqual([
      { label: 'getItem (GET /items/{id})', tool: 'getItem', reason: undefined, notes: [] },
      { label: 'when (GET /when)', tool: 'when', reason: undefined, notes: ['unknown format "weird-time" ignored in schema at path "#/properties/at"'] },
      { label: 'withCookie (GET /cookie)', tool: undefined, reason: 'cookie parameters (session) are not supported', notes: [] },
    ]);
  });
});

describe('the left-out reasons docs/openapi.md lists that no other test shows, each costing only its operation', () => {
  const ok = { '/ok': { get: { operationId: 'ok', responses: {} } } };
  const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
  it.each([
    ['a parameter with a content map', { '/c': { get: { operationId: 'c', parameters: [{ name: 'q', in: 'query', content: { 'application/json': { schema: {} } } }], responses: {} } } }, {}, 'parameter "q" has no schema (a content map is not supported)'],
    [
      'argument names that clash even with their location as a prefix',
      { '/n/{id}/{query_id}': { get: { operationId: 'n', parameters: [pathParam('id'), pathParam('query_id'), { name: 'id', in: 'query', schema: { type: 'string' } }], responses: {} } } },
      {},
      'the argument names "id" and "query_id" are both taken; the parameters clash',
    ],
    ['a path placeholder no parameter declares', { '/x/{id}': { get: { operationId: 'x', responses: {} } } }, {}, 'the path names {id}, which no path parameter declares'],
    ['servers of its own that are not a base URL', { '/s': { get: { operationId: 's', servers: [{ url: 'https://api.example.com/v1?x=1' }], responses: {} } } }, {}, 'its servers name https://api.example.com/v1?x=1, which is not a base URL (a query, a fragment or an unfilled {variable})'],
    [
      'a $ref chain that loops',
      { '/l': { get: { operationId: 'l', parameters: [{ $ref: '#/components/parameters/A' }], responses: {} } } },
      { components: { parameters: { A: { $ref: '#/components/parameters/B' }, B: { $ref: '#/components/parameters/A' } } } },
      /^its \$ref "#\/components\/parameters\/[AB]" is a chain of more than 32 references \(a loop\)$/,
    ],
    ['a path item whose $ref points nowhere', { '/gone': { $ref: '#/components/pathItems/Gone' } }, {}, 'its path item $ref "#/components/pathItems/Gone" points nowhere in the document'],
    [
      'a schema of more than 50,000 subschemas written out',
      { '/w': { post: { operationId: 'w', requestBody: { content: { 'application/json': { schema: { type: 'object', properties: Object.fromEntries(Array.from({ length: 50_001 }, (_, i) => [`p${i}`, { type: 'string' }])) } } } }, responses: {} } } },
      {},
      /^its schema has more than 50,?000 subschemas written out \(shared ones should be \$ref-ed\)$/,
    ],
  ])('%s', async (_what, paths, extra, reason) => {
    const path = await docs.file('reason.json', doc({ ...paths, ...ok }, extra));
    const { tools, skipped, problems } = await load([{ name: 'r', spec: path }]);
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['ok']);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.replace(/^openapi_sources\.r: [^:]+\): /, '')).toMatch(typeof reason === 'string' ? new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : reason);
  });
});
