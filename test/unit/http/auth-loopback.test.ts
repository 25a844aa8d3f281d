import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

describe('no keys configured: the loopback default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('binds 127.0.0.1 by default and serves the local caller with every scope, no header needed', async () => {
    expect(t.config.host).toBe('127.0.0.1');
    expect(t.config.keys).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: '/tools' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/circuits', headers: { authorization: 'Bearer whatever' } })).statusCode).toBe(200);
    const { body } = await execute(t.app, [{ id: '1', name: 'LS', arguments: { path: '.' } }]);
    expect(body.results[0].status).toBe('success');
  });

  it('answers only requests addressed to a loopback name, so a DNS-rebinding page cannot drive it', async () => {
    for (const host of ['localhost:8080', '127.0.0.1:8080', '127.0.0.2', '[::1]:8080', 'localhost']) {
      const res = await t.app.inject({ method: 'GET', url: '/tools', headers: { host } });
      expect(res.statusCode, host).toBe(200);
    }
    for (const host of ['evil.example:8080', '127.0.0.1.evil.example', 'localhost.evil.example', '10.0.0.5:8080']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/execute',
        headers: { host },
        payload: [{ id: '1', name: 'LS', arguments: {} }],
      });
      expect(res.statusCode, host).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    expect((await t.app.inject({ method: 'GET', url: '/healthz', headers: { host: 'evil.example' } })).statusCode).toBe(200);
  });

  it('allow_unauthenticated opens the keyless gateway to any Host, as its operator asked', async () => {
    const open = await buildTestApp({ config: { host: '0.0.0.0', allow_unauthenticated: true } });
    try {
      expect((await open.app.inject({ method: 'GET', url: '/tools', headers: { host: 'gateway.internal:8080' } })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});
