import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTool } from '../../../src/tools/http/index.js';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { createTestDispatchers, expectTripwireQuiet, startServer, type TestServer } from './helpers.js';
import { createEnvCredentials } from '../../../src/tools/credentials.js';

/**
 * What an HTTP tool sends, and where, is the operator's, through
 * POST /execute against real loopback servers: arguments its schema does not
 * declare are refused, never forwarded; the configured headers, literal or
 * `${VAR}`, never follow a redirect to another origin.
 */
let home: TestServer;
let away: TestServer;
let t: TestApp | undefined;

beforeAll(async () => {
  home = await startServer((req, res, recorded) => {
    if (req.url?.startsWith('/found')) res.writeHead(302, { location: `${away.origin}/landing` }).end();
    else if (req.url?.startsWith('/moved')) res.writeHead(307, { location: `${away.origin}/landing` }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: recorded.url, body: recorded.body }));
  });
  away = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('away');
  });
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  expectTripwireQuiet();
});
afterAll(() => Promise.all([home.close(), away.close()]));

const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function tool(name: string, method: string, url: string, parameters: Record<string, unknown> = CITY, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: 'A loopback service under test.',
    parameters,
    http: { method, url, allow_private_network: true, retries: 0, ...extra },
  };
}

async function app(tools: Array<Record<string, unknown>>) {
  t = await buildTestApp({
    builtins: false,
    config: { tools },
    dispatchers: createTestDispatchers(),
    env: { UPSTREAM_KEY: 'env-key-0123456789' },
  });
  return t;
}

describe('arguments a tool does not declare', () => {
  it('are INVALID_ARGS for GET (query) and POST (body); nothing reaches the upstream', async () => {
    const { app: server } = await app([tool('weather', 'GET', `${home.origin}/w`), tool('report', 'POST', `${home.origin}/r`)]);
    const before = home.requests.length;
    const { body } = await execute(server, [
      { id: 'g', name: 'weather', arguments: { city: 'Oslo', api_key: 'mine', admin: true } },
      { id: 'p', name: 'report', arguments: { city: 'Oslo', role: 'admin' } },
    ]);
    expect(body.results[0].error).toMatchObject({
      code: 'INVALID_ARGS',
      details: {
        errors: [
          { path: '/', message: 'unknown property "api_key"' },
          { path: '/', message: 'unknown property "admin"' },
        ],
      },
    });
    expect(body.results[1].error).toMatchObject({
      code: 'INVALID_ARGS',
      details: { errors: [{ path: '/', message: 'unknown property "role"' }] },
    });
    expect(home.requests.length).toBe(before);
    const ok = await execute(server, [{ id: 'g2', name: 'weather', arguments: { city: 'Oslo' } }]);
    expect(ok.body.results[0]).toMatchObject({ status: 'success', data: { url: '/w?city=Oslo' } });
    // The listed schema says so, so a model knows before it calls.
    const listed = (await server.inject({ method: 'GET', url: '/tools' })).json().tools;
    expect(listed[0].function.parameters.additionalProperties).toBe(false);
  });

  it('are forwarded only when the schema says additionalProperties: true (or a schema they match)', async () => {
    const open = { ...CITY, additionalProperties: true };
    const typed = { ...CITY, additionalProperties: { type: 'integer' } };
    const { app: server } = await app([tool('open', 'GET', `${home.origin}/o`, open), tool('typed', 'POST', `${home.origin}/t`, typed)]);
    const { body } = await execute(server, [
      { id: 'o', name: 'open', arguments: { city: 'Oslo', units: 'metric' } },
      { id: 't', name: 'typed', arguments: { city: 'Oslo', days: 3 } },
      { id: 'x', name: 'typed', arguments: { city: 'Oslo', days: 'three' } },
    ]);
    expect(body.results[0]).toMatchObject({ status: 'success', data: { url: '/o?city=Oslo&units=metric' } });
    expect(body.results[1]).toMatchObject({ status: 'success', data: { body: '{"city":"Oslo","days":3}' } });
    expect(body.results[2].error.code).toBe('INVALID_ARGS');
  });

  it('are INVALID_ARGS inside a declared object too (GET and POST), at any depth; a free-form object stays open', async () => {
    const nested = {
      type: 'object',
      properties: {
        opts: { type: 'object', properties: { a: { type: 'string' } } },
        rows: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } } } },
        extra: { type: 'object' },
      },
    };
    const { app: server } = await app([tool('nget', 'GET', `${home.origin}/n`, nested), tool('npost', 'POST', `${home.origin}/n`, nested)]);
    const before = home.requests.length;
    const { body } = await execute(server, [
      { id: 'g', name: 'nget', arguments: { opts: { a: 'ok', b: 'smuggled' } } },
      { id: 'p', name: 'npost', arguments: { opts: { a: 'ok', b: 'smuggled' } } },
      { id: 'r', name: 'npost', arguments: { rows: [{ n: 1, admin: true }] } },
    ]);
    for (const result of body.results) expect(result.error.code).toBe('INVALID_ARGS');
    expect(body.results[0].error.details.errors).toEqual([expect.objectContaining({ path: '/opts', message: 'unknown property "b"' })]);
    expect(body.results[2].error.details.errors).toEqual([
      expect.objectContaining({ path: '/rows/0', message: 'unknown property "admin"' }),
    ]);
    expect(home.requests.length).toBe(before);
    const ok = await execute(server, [{ id: 'o', name: 'npost', arguments: { opts: { a: 'ok' }, extra: { any: 1 } } }]);
    expect(ok.body.results[0]).toMatchObject({ status: 'success', data: { body: '{"opts":{"a":"ok"},"extra":{"any":1}}' } });
    const listed = (await server.inject({ method: 'GET', url: '/tools' })).json().tools;
    expect(listed[0].function.parameters.properties.opts.additionalProperties).toBe(false);
  });

  it('a nested property declared only inside allOf/anyOf/oneOf is a start-up problem naming where', () => {
    const parameters = {
      type: 'object',
      properties: { opts: { type: 'object', properties: { a: { type: 'string' } }, oneOf: [{ properties: { z: {} } }] } },
    };
    expect(() =>
      createHttpTool(tool('w', 'GET', `${home.origin}/w`, parameters) as never, {
        dispatchers: createTestDispatchers(),
        credentials: createEnvCredentials({}),
      }),
    ).toThrow(/parameters\.opts declare "z" only inside allOf\/anyOf\/oneOf/);
  });

  it('a property declared only inside allOf/anyOf/oneOf is a start-up problem naming it', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, anyOf: [{ properties: { zip: { type: 'string' } } }] };
    expect(() =>
      createHttpTool(tool('w', 'GET', `${home.origin}/w`, parameters) as never, {
        dispatchers: createTestDispatchers(),
        credentials: createEnvCredentials({}),
      }),
    ).toThrow(
      /parameters declare "zip" only inside allOf\/anyOf\/oneOf; list them under properties too, or set additionalProperties: true/,
    );
  });
});

describe('a redirect to another origin', () => {
  it('carries none of the configured headers, literal or ${VAR}', async () => {
    const headers = { 'x-api-key': 'literal-key-0123456789', authorization: 'Bearer ${UPSTREAM_KEY}', accept: 'application/json' };
    const { app: server } = await app([tool('moved', 'POST', `${home.origin}/moved`, CITY, { headers, follow_redirects: 1 })]);
    const { body } = await execute(server, [{ id: 'm', name: 'moved', arguments: { city: 'Oslo' } }]);
    expect(body.results[0]).toMatchObject({ status: 'success', text: 'away' });
    expect(home.requests.at(-1)!.headers).toMatchObject({
      'x-api-key': 'literal-key-0123456789',
      authorization: 'Bearer env-key-0123456789',
    });
    const landed = away.requests.at(-1)!;
    expect(landed).toMatchObject({ method: 'POST', url: '/landing', body: '{"city":"Oslo"}' });
    expect(landed.headers['x-api-key']).toBeUndefined();
    expect(landed.headers.authorization).toBeUndefined();
    expect(landed.headers.accept).not.toBe('application/json');
    expect(landed.headers['content-type']).toBe('application/json');
  });

  it.each(['tracestate', 'traceparent', 'content-type'])(
    'carries no configured %s either, ${VAR} or literal, on a GET with no body',
    async (name) => {
      const headers = { [name]: 'v-${UPSTREAM_KEY}', 'x-literal': 'literal-key-0123456789' };
      const { app: server } = await app([tool('found', 'GET', `${home.origin}/found`, CITY, { headers, follow_redirects: 1 })]);
      const { body } = await execute(server, [{ id: 'f', name: 'found', arguments: { city: 'Oslo' } }]);
      expect(body.results[0]).toMatchObject({ status: 'success', text: 'away' });
      expect(home.requests.at(-1)!.headers[name]).toBe('v-env-key-0123456789');
      const landed = away.requests.at(-1)!;
      expect(JSON.stringify(landed.headers)).not.toContain('env-key-0123456789');
      expect(landed.headers[name]).toBeUndefined();
      expect(landed.headers['x-literal']).toBeUndefined();
    },
  );

  it("carries the body's own type, not a configured content-type, with the body it still sends", async () => {
    const headers = { 'content-type': 'application/json; key=${UPSTREAM_KEY}', tracestate: 'vendor=${UPSTREAM_KEY}' };
    const { app: server } = await app([tool('moved', 'POST', `${home.origin}/moved`, CITY, { headers, follow_redirects: 1 })]);
    const { body } = await execute(server, [{ id: 'm', name: 'moved', arguments: { city: 'Oslo' } }]);
    expect(body.results[0]).toMatchObject({ status: 'success', text: 'away' });
    // At the tool's origin the operator's content-type replaces the body's.
    expect(home.requests.at(-1)!.headers['content-type']).toBe('application/json; key=env-key-0123456789');
    const landed = away.requests.at(-1)!;
    expect(landed).toMatchObject({ method: 'POST', body: '{"city":"Oslo"}' });
    expect(landed.headers['content-type']).toBe('application/json');
    expect(landed.headers.tracestate).toBeUndefined();
  });
});
