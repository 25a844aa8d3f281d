import Fastify from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { routes } from '../../../src/http/routes.js';

describe('routes: a group whose handlers are typed from their TypeBox schemas', () => {
  const group = routes((app) => {
    app.get('/double/:n', { schema: { params: Type.Object({ n: Type.Integer({ maximum: 100 }) }) } }, async (request) => ({
      doubled: request.params.n * 2,
    }));
  });

  it('serves the typed value: the path parameter arrives as the integer its schema says', async () => {
    const app = Fastify();
    await app.register(group);
    const res = await app.inject({ method: 'GET', url: '/double/21' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ doubled: 42 });
  });

  it("validates with fastify's ajv, as the OpenAPI document describes, not with TypeBox's own compiler", async () => {
    const app = Fastify();
    await app.register(group);
    const res = await app.inject({ method: 'GET', url: '/double/101' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('params/n must be <= 100');
  });
});
