import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../helpers/app.js';
import { post, rpc } from './mcp-rpc.js';
import { BACKEND_KEY, forUser, ON_BEHALF_KEYS, OPS_KEY, PLAIN_KEY, whoTool } from '../../helpers/users.js';

/** x-toolgate-user: only a key with the on_behalf scope may name a user; the call is then that user's, on every route. */

const call = [{ id: 'c1', name: 'Who', arguments: {} }];

describe('x-toolgate-user', () => {
  let t: TestApp;
  const runs = { count: 0 };
  beforeAll(async () => {
    t = await buildTestApp({ builtins: false, tools: [whoTool(runs)], config: { keys: ON_BEHALF_KEYS } });
  });
  afterAll(() => t.close());

  it("from an on_behalf key: the call is the user's, as the tool, the log line and /mcp see it", async () => {
    const { status, body } = await execute(t.app, { session_id: 'a', tool_calls: call }, forUser('alice@example.com'));
    expect(status).toBe(200);
    expect(body.results[0].text).toMatch(/^for alice@example\.com run/);
    const line = t.logs.find((l) => l.msg === 'tool call' && l.session_id === 'a');
    expect(line).toMatchObject({ user: 'alice@example.com', tool: 'Who' });
    expect(t.logs.find((l) => l.msg === 'request completed' && l.user === 'alice@example.com')).toBeDefined();

    const mcp = await post(t, rpc('tools/call', { name: 'Who', arguments: {} }), forUser('bob'));
    expect(mcp.json().result.content[0].text).toMatch(/^for bob run/);
  });

  it("without the header the call is the key's own, and no log line names a user", async () => {
    const { body } = await execute(t.app, { session_id: 'own', tool_calls: call }, forUser());
    expect(body.results[0].text).toMatch(/^for \(the key\) run/);
    expect(t.logs.find((l) => l.msg === 'tool call' && l.session_id === 'own')).not.toHaveProperty('user');
  });

  it('from a key without on_behalf: 403 FORBIDDEN naming the scope, on every route that needs a key, and nothing runs', async () => {
    const headers = { authorization: `Bearer ${PLAIN_KEY}`, 'x-toolgate-user': 'alice' };
    const before = runs.count;
    const refused = [
      await t.app.inject({ method: 'POST', url: '/execute', payload: call, headers }),
      await t.app.inject({ method: 'GET', url: '/tools', headers }),
      await t.app.inject({ method: 'GET', url: '/approvals', headers: { ...headers, authorization: `Bearer ${OPS_KEY}` } }),
      await post(t, rpc('tools/call', { name: 'Who', arguments: {} }), headers),
    ];
    for (const res of refused) {
      expect(res.statusCode).toBe(403);
      const error = res.json().error as { code: string; message: string; data?: { code: string } };
      expect(error.data?.code ?? error.code).toBe('FORBIDDEN');
      expect(error.message).toContain('"on_behalf" scope');
    }
    expect(runs.count).toBe(before);
  });

  it('a bad value is 400 with a clear message: empty, too long, control characters, non-ASCII, sent twice', async () => {
    const bad: Array<[string, string]> = [
      ['', 'printable'],
      ['x'.repeat(257), '1 to 256'],
      ['a\tb', 'control'],
      ['al\x7fice', 'control'],
      ['jos\xe9', 'ASCII'],
    ];
    for (const [value, says] of bad) {
      const res = await t.app.inject({ method: 'POST', url: '/execute', payload: call, headers: forUser(value) });
      expect(res.statusCode, JSON.stringify(value)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(says) });
    }
    const twice = await t.app.inject({
      method: 'POST',
      url: '/execute',
      payload: call,
      headers: { authorization: `Bearer ${BACKEND_KEY}`, 'x-toolgate-user': ['alice', 'bob'] },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error.message).toContain('sent once');
    expect((await execute(t.app, call, forUser('x'.repeat(256)))).status).toBe(200);
  });

  it('a keyless loopback gateway has no key with on_behalf: the header is refused there too', async () => {
    const local = await buildTestApp({ builtins: false, tools: [whoTool()] });
    try {
      const res = await local.app.inject({ method: 'POST', url: '/execute', payload: call, headers: { 'x-toolgate-user': 'alice' } });
      expect(res.statusCode).toBe(403);
    } finally {
      await local.close();
    }
  });
});
