import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    ['Swagger 2.0', { swagger: '2.0', info: { title: 't', version: '1' }, paths: {} }, /is Swagger 2\.0; only OpenAPI 3\.0 and 3\.1 are read/],
    ['no openapi version', { info: { title: 't', version: '1' }, paths: {} }, /is not an OpenAPI 3\.0 or 3\.1 document \(openapi: null\)/],
    ['OpenAPI 4', { openapi: '4.0.0', info: { title: 't', version: '1' }, paths: {} }, /is not an OpenAPI 3\.0 or 3\.1 document \(openapi: "4\.0\.0"\)/],
    [
      'a $ref that points nowhere',
      doc({ '/items': { post: { operationId: 'add', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } }, responses: {} } }, '/items/{id}': getItem }),
      /could not be dereferenced: .*#\/components\/schemas\/Nope/,
    ],
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
  const path = await docs.file('none.json', doc({ '/anonymous': { get: { responses: {} } } }));
  const { tools, skipped, problems } = await load([{ name: 'none', spec: path }]);
  expect(tools).toEqual([]);
  expect(skipped).toHaveLength(1);
  expect(problems).toEqual(['openapi_sources.none: no operation of the document can be a tool (1 left out, listed in the log)']);
});

describe('an operation that cannot be a tool is listed and left out; the rest of the document is served', () => {
  it('no operationId, a cookie parameter, a body with no JSON media type, a recursive schema, TRACE', async () => {
    const node = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } };
    const path = await docs.file('mixed.json', doc(
      {
        '/items/{id}': getItem,
        '/anonymous': { get: { responses: {} } },
        '/cookie': { get: { operationId: 'withCookie', parameters: [{ name: 'session', in: 'cookie', schema: { type: 'string' } }], responses: {} } },
        '/upload': { post: { operationId: 'upload', requestBody: { content: { 'image/png': { schema: { type: 'string' } } } }, responses: {} } },
        '/tree': { post: { operationId: 'plant', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } }, responses: {} } },
        '/trace': { trace: { operationId: 'traceIt', responses: {} } },
      },
      { components: { schemas: { Node: node } } },
    ));
    const { tools, skipped, problems } = await load([{ name: 'm', spec: path }]);
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['getItem']);
    expect(skipped).toEqual([
      'openapi_sources.m: (no operationId) (GET /anonymous): no operationId to name the tool after',
      'openapi_sources.m: withCookie (GET /cookie): cookie parameters (session) are not supported',
      'openapi_sources.m: upload (POST /upload): its request body is image/png; only application/json and +json bodies are sent',
      'openapi_sources.m: plant (POST /tree): its schema holds a $ref the import cannot inline (#/components/schemas/Node: recursive, or outside the document)',
      'openapi_sources.m: traceIt (TRACE /trace): TRACE is not sent by HTTP tools',
    ]);
  });
});
