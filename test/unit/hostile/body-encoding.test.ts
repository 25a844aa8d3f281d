import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/**
 * Hostile-input sweep: representations the gateway cannot read. fastify
 * ignores Content-Encoding and the charset parameter and parses every body
 * as UTF-8 JSON: a gzipped body was a 400 "not valid JSON", a plain body
 * labelled gzip was run as if unlabelled, a UTF-16 body a 400. The body is
 * not application/json as the gateway reads it: 415, before
 * the body is read.
 */
describe('bodies in an encoding or charset the gateway does not read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  const post = (payload: string | Buffer, headers: Record<string, string>, url = '/execute') =>
    t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });

  it.each([
    ['a gzipped body', gzipSync('[]'), { 'content-encoding': 'gzip' }],
    ['a plain body labelled gzip', '[]', { 'content-encoding': 'gzip' }],
    ['a plain body labelled br', '[]', { 'content-encoding': 'br' }],
    ['a UTF-16 body', Buffer.from('[]', 'utf16le'), { 'content-type': 'application/json; charset=utf-16' }],
    ['a latin-1 label', '[]', { 'content-type': 'application/json; charset=ISO-8859-1' }],
  ])('%s is 415 UNSUPPORTED_MEDIA_TYPE', async (_label, payload, headers) => {
    const res = await post(payload, headers);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('/mcp refuses it the same way', async () => {
    const res = await post(gzipSync('{"jsonrpc":"2.0","id":1,"method":"ping"}'), { 'content-encoding': 'gzip' }, '/mcp');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'UNSUPPORTED_MEDIA_TYPE' } } });
  });

  it.each([
    ['identity encoding', { 'content-encoding': 'identity' }],
    ['charset=utf-8', { 'content-type': 'application/json; charset=utf-8' }],
    ['charset="UTF-8"', { 'content-type': 'application/json; charset="UTF-8"' }],
    ['charset=utf8', { 'content-type': 'application/json;charset=utf8' }],
  ])('%s is read as usual', async (_label, headers) => {
    const res = await post('[]', headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ results: [], messages: [] });
  });
});
