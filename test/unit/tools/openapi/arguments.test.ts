import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doc, load, tempDocs } from './helpers.js';

let docs: Awaited<ReturnType<typeof tempDocs>>;
beforeAll(async () => {
  docs = await tempDocs();
});
afterAll(() => docs.cleanup());

async function toolOf(paths: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const { tools, skipped, problems } = await load([{ name: 's', spec: await docs.file('doc.json', doc(paths, extra)) }]);
  expect([...skipped, ...problems]).toEqual([]);
  return tools[0]!;
}

describe('argument names: the first location to claim a name keeps it (path, query, header, body); later ones get their location as a prefix', () => {
  it('id in the path, the query, a header and the body', async () => {
    const tool = await toolOf({
      '/items/{id}': {
        put: {
          operationId: 'putItem',
          parameters: [
            { name: 'id', in: 'header', schema: { type: 'string' } },
            { name: 'id', in: 'query', schema: { type: 'integer' } },
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id', 'name'] } } } },
          responses: {},
        },
      },
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, query_id: { type: 'integer' }, header_id: { type: 'string' }, body_id: { type: 'string' }, name: { type: 'string' } },
      required: ['id', 'body_id', 'name'],
      additionalProperties: false,
    });
  });

  it('a body that is not a plain object is one argument, body (request_body when a parameter holds that name)', async () => {
    const tool = await toolOf({
      '/bulk': {
        post: {
          operationId: 'bulk',
          parameters: [{ name: 'body', in: 'query', schema: { type: 'string' } }],
          requestBody: { content: { 'application/vnd.api+json': { schema: { type: 'array', items: { type: 'string' } } } } },
          responses: {},
        },
      },
    });
    expect(tool.parameters.properties).toEqual({ body: { type: 'string' }, request_body: { type: 'array', items: { type: 'string' }, description: 'The request body (JSON).' } });
    expect(tool.parameters.required).toBeUndefined();
  });

  it('Accept, Content-Type and Authorization header parameters are ignored, as OpenAPI says', async () => {
    const tool = await toolOf({
      '/x': { get: { operationId: 'x', parameters: ['Accept', 'content-type', 'Authorization', 'X-Trace'].map((name) => ({ name, in: 'header', schema: { type: 'string' } })), responses: {} } },
    });
    expect(Object.keys(tool.parameters.properties as object)).toEqual(['X-Trace']);
  });

  it('path-item parameters apply to every operation; the operation redefines one by name and location', async () => {
    const tool = await toolOf({
      '/items/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'shared' }, { name: 'v', in: 'query', schema: { type: 'string' } }],
        get: { operationId: 'get', parameters: [{ name: 'v', in: 'query', schema: { type: 'integer' } }], responses: {} },
      },
    });
    expect(tool.parameters.properties).toEqual({ id: { type: 'string', description: 'shared' }, v: { type: 'integer' } });
  });

  it('the description is the summary, then the description; without either, METHOD /path', async () => {
    const described = await toolOf({ '/a': { get: { operationId: 'a', summary: 'List the a.', description: 'Pages of 30.', responses: {} } } });
    expect(described.description).toBe('List the a.\n\nPages of 30.');
    const bare = await toolOf({ '/a/{id}': { delete: { operationId: 'b', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: {} } } });
    expect(bare.description).toBe('DELETE /a/{id}');
    expect(bare.concurrencySafe).toBe(false);
  });

  it('an external $ref is not followed: that operation is listed, nothing else is read', async () => {
    const path = await docs.file('ext.json', doc({ '/a': { post: { operationId: 'a', requestBody: { content: { 'application/json': { schema: { $ref: './other.json#/Pet' } } } }, responses: {} } }, '/b': { get: { operationId: 'b', responses: {} } } }));
    const { tools, skipped, problems } = await load([{ name: 'e', spec: path }]);
    expect(problems).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['b']);
    expect(skipped).toEqual(['openapi_sources.e: a (POST /a): its $ref "./other.json#/Pet" points outside the document; external references are not followed (bundle the document into one)']);
  });
});

describe('argument names every provider takes as property keys (Anthropic: ^[a-zA-Z0-9_.-]{1,64}$), the wire names kept', () => {
  it('"a b$c" is a_b_c, a 200-character name its first 55 characters and a hash, __proto__ is _proto_', async () => {
    const long = 'x'.repeat(200);
    const tool = await toolOf({
      '/s': {
        post: {
          operationId: 'odd',
          parameters: [
            { name: 'a b$c', in: 'query', schema: { type: 'string' } },
            { name: long, in: 'query', schema: { type: 'string' } },
          ],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { ['__proto__']: { type: 'string' }, 'a b$c': { type: 'integer' } } } } } },
          responses: {},
        },
      },
    });
    const keys = Object.keys(tool.parameters.properties as object);
    expect(keys).toEqual(['a_b_c', `${'x'.repeat(55)}_${keys[1]!.slice(56)}`, '_proto_', 'body_a_b_c']);
    expect(keys[1]).toMatch(/^x{55}_[0-9a-f]{8}$/);
    for (const key of keys) expect(key).toMatch(/^[a-zA-Z0-9_.-]{1,64}$/);
  });
});

describe('more of the real world: form bodies, optional GET bodies, fragment paths, operations without operationId, Swagger 2.0', () => {
  it('a form body is merged like a JSON one; JSON wins where both are offered', async () => {
    const formSchema = { type: 'object', properties: { email: { type: 'string' }, metadata: { type: 'object' } }, required: ['email'] };
    const tool = await toolOf({ '/customers': { post: { operationId: 'PostCustomers', requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: formSchema, encoding: { metadata: { style: 'deepObject', explode: true } } } } }, responses: {} } } });
    expect(tool.parameters).toEqual({ type: 'object', properties: formSchema.properties, required: ['email'], additionalProperties: false });
    const both = await toolOf({ '/x': { post: { operationId: 'x', requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { f: { type: 'string' } } } }, 'application/json': { schema: { type: 'object', properties: { j: { type: 'string' } } } } } }, responses: {} } } });
    expect(Object.keys(both.parameters.properties as object)).toEqual(['j']);
  });

  it('an optional body of a GET is left off (Stripe gives every GET one); a form body that is not an object is left out', async () => {
    const tool = await toolOf({ '/v1/account': { get: { operationId: 'GetAccount', parameters: [{ name: 'expand', in: 'query', schema: { type: 'array', items: { type: 'string' } } }], requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: {} } } } }, responses: {} } } });
    expect(Object.keys(tool.parameters.properties as object)).toEqual(['expand']);
    const path = await docs.file('form.json', doc({ '/x': { post: { operationId: 'x', requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'string' } } } }, responses: {} } } }));
    const { skipped } = await load([{ name: 's', spec: path }]);
    expect(skipped).toEqual(['openapi_sources.s: x (POST /x): its form body is not an object with properties, so it has no fields to send']);
  });

  it('a multipart body of text fields is merged like a form one; one with a file field is left out, naming the fields', async () => {
    const fields = { type: 'object', properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['title'] };
    const note = await toolOf({ '/notes': { post: { operationId: 'note', requestBody: { required: true, content: { 'multipart/form-data': { schema: fields } } }, responses: {} } } });
    expect(note.parameters).toEqual({ type: 'object', properties: fields.properties, required: ['title'], additionalProperties: false });
    const upload = (schema: unknown, encoding?: unknown) => ({ post: { operationId: 'up', requestBody: { content: { 'multipart/form-data': { schema, ...(encoding !== undefined && { encoding }) } } }, responses: {} } });
    const path = await docs.file('multipart.json', doc({
      '/a': upload({ type: 'object', properties: { name: { type: 'string' }, file: { type: 'string', format: 'binary' }, pages: { type: 'array', items: { $ref: '#/components/schemas/Bin' } } } }),
      '/b': upload({ type: 'object', properties: { logo: { type: 'string' } } }, { logo: { contentType: 'image/png' } }),
      '/c': upload({ type: 'object', properties: { doc: { type: 'string', contentMediaType: 'application/pdf' } } }),
    }, { components: { schemas: { Bin: { type: 'string', format: 'binary' } } } }));
    const { skipped } = await load([{ name: 's', spec: path }]);
    expect(skipped).toEqual([
      'openapi_sources.s: up (POST /a): its multipart body has file fields (file, pages); only text fields are sent',
      'openapi_sources.s: up (POST /b): its multipart body has file fields (logo); only text fields are sent',
      'openapi_sources.s: up (POST /c): its multipart body has file fields (doc); only text fields are sent',
    ]);
  });

  it('a fragment path: the parameters it fixes are no arguments (X-Amz-Target, Action, Version)', async () => {
    const target = { name: 'X-Amz-Target', in: 'header', required: true, schema: { type: 'string', enum: ['AWSGlue.GetJob'] } };
    const glue = await toolOf({ '/#X-Amz-Target=AWSGlue.GetJob': { post: { operationId: 'GetJob', parameters: [target], requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { JobName: { type: 'string' } }, required: ['JobName'] } } } }, responses: {} } } });
    expect(glue.parameters).toEqual({ type: 'object', properties: { JobName: { type: 'string' } }, required: ['JobName'], additionalProperties: false });
    const fixedQuery = ['Action', 'Version'].map((name) => ({ name, in: 'query', required: true, schema: { type: 'string' } }));
    const asg = await toolOf({ '/#Action=AttachInstances&Version=2011-01-01': { get: { operationId: 'GET_AttachInstances', parameters: [...fixedQuery, { name: 'InstanceIds', in: 'query', schema: { type: 'array', items: { type: 'string' } } }], responses: {} } } });
    expect(Object.keys(asg.parameters.properties as object)).toEqual(['InstanceIds']);
  });

  it('a fragment that fixes a header to a value no header can hold: that operation is left out', async () => {
    const path = await docs.file('bad-target.json', doc({ '/#X-Amz-Target=a%0D%0Ab': { post: { operationId: 'x', responses: {} } }, '/ok': { get: { operationId: 'ok', responses: {} } } }));
    const { tools, skipped } = await load([{ name: 's', spec: path }]);
    expect(tools.map((t) => t.name)).toEqual(['ok']);
    expect(skipped).toEqual(['openapi_sources.s: x (POST /#X-Amz-Target=a%0D%0Ab): its path fixes the header X-Amz-Target to "a\\r\\nb", which cannot be sent as a header value']);
  });

  it('include matches an operation without operationId by the name it is given (method and path)', async () => {
    const path = await docs.file('anon.json', doc({ '/users/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: {} }, delete: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: {} } } }));
    const { tools } = await load([{ name: 's', spec: path, prefix: 'u_', include: ['get_*'] }]);
    expect(tools.map((t) => t.name)).toEqual(['u_get_users_id']);
  });

  it('Swagger 2.0 is converted on load (swagger2openapi): host and basePath give the server, formData a form body', async () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 't', version: '1' },
      host: 'api.example.com',
      basePath: '/v1',
      schemes: ['https'],
      paths: {
        '/pets/{id}': {
          post: {
            operationId: 'updatePet',
            consumes: ['application/x-www-form-urlencoded'],
            parameters: [{ name: 'id', in: 'path', required: true, type: 'integer' }, { name: 'name', in: 'formData', type: 'string', required: true }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    };
    const { tools, skipped, problems } = await load([{ name: 's', spec: await docs.file('swagger.json', swagger) }]);
    expect([...problems, ...skipped]).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['updatePet']);
    expect(tools[0]!.parameters).toEqual({ type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'], additionalProperties: false });
  });
});
