import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const calls = [{ id: 'c1', name: 'LS', arguments: {} }];

/** Async mode says what it needs, and the synchronous path refuses async-only fields. */
describe('async mode on a gateway without Redis', () => {
  it('"mode":"async" answers 400 saying it needs REDIS_URL, and runs nothing', async () => {
    t = await buildTestApp();
    const { status, body } = await execute(t.app, {
      mode: 'async',
      tool_calls: [{ id: 'w1', name: 'Write', arguments: { path: 'x.txt', content: 'x' } }],
    });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('mode "async" needs Redis') });
    expect(body.error.message).toContain('REDIS_URL');
    expect(t.logs.filter((l) => l.msg === 'tool call')).toEqual([]);
  });

  it('a mode other than sync or async is 400', async () => {
    t = await buildTestApp();
    const { status, body } = await execute(t.app, { mode: 'background', tool_calls: calls });
    expect(status).toBe(400);
    expect(body.error.message).toBe('mode must be "sync" or "async".');
  });

  it('callback_url on a synchronous request is 400, not silently ignored', async () => {
    t = await buildTestApp();
    const { status, body } = await execute(t.app, { callback_url: 'https://example.com/hook', tool_calls: calls });
    expect(status).toBe(400);
    expect(body.error.message).toContain('callback_url is for "mode":"async"');
  });

  it('"mode":"sync" runs as before', async () => {
    t = await buildTestApp();
    const { status, body } = await execute(t.app, { mode: 'sync', tool_calls: calls });
    expect(status).toBe(200);
    expect(body.results[0].status).toBe('success');
  });

  it('GET /executions/{id} is 404: there are none', async () => {
    t = await buildTestApp();
    const response = await t.app.inject({ method: 'GET', url: `/executions/exec_${'0'.repeat(32)}` });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('NOT_FOUND');
  });
});
