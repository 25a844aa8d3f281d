import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../../src/console/route.js';

const STATIC = new URL('../../../src/console/static/', import.meta.url);

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  await app.register(consoleRoutes());
});
afterAll(() => app.close());

describe('GET /console', () => {
  it.each([
    ['/console', 'index.html', 'text/html; charset=utf-8'],
    ['/console/console.js', 'console.js', 'text/javascript; charset=utf-8'],
    ['/console/connections.js', 'connections.js', 'text/javascript; charset=utf-8'],
    ['/console/console.css', 'console.css', 'text/css; charset=utf-8'],
  ])('%s serves static/%s as %s, without a key', async (url, file, type) => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.rawPayload.equals(await readFile(new URL(file, STATIC)))).toBe(true);
  });

  it('runs only its own scripts and styles, talks only to the gateway, and cannot be framed', async () => {
    const res = await app.inject({ method: 'GET', url: '/console' });
    const csp = String(res.headers['content-security-policy']).split('; ');
    expect(csp).toEqual(
      expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]),
    );
    expect(csp.join(' ')).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
  });

  it('serves no other file from beside the page', async () => {
    expect((await app.inject({ method: 'GET', url: '/console/index.html' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/console/../package.json' })).statusCode).toBe(404);
  });
});
