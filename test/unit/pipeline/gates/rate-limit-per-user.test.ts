import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { slowTool } from '../../../helpers/tools.js';
import { BACKEND_KEY, forUser } from '../../../helpers/users.js';

/** `rate_limit: {per: user}`: each user of a key has a bucket of their own; a call for no user counts against the key's. */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const backend = (rateLimit?: object) => [
  {
    id: 'backend',
    sha256: sha256(BACKEND_KEY),
    tenant: 'acme',
    scopes: ['execute', 'on_behalf'],
    ...(rateLimit && { rate_limit: rateLimit }),
  },
];

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const calls = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, name: 'T', arguments: {} }));
const statuses = (body: any) => body.results.map((r: any) => (r.status === 'error' ? r.error.code : r.status));
const run = async (n: number, user?: string) => statuses((await execute(t!.app, calls(n, user ?? 'own'), forUser(user))).body);

describe('rate limits per user', () => {
  it("a tool's per: user: two users of one key have separate budgets; a call for no user uses the key's", async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [{ ...slowTool('T', { safe: true, ms: 1 }), rateLimit: { perMinute: 2, per: 'user' } }],
      config: { keys: backend() },
    });
    expect(await run(3, 'alice')).toEqual(['success', 'success', 'RATE_LIMITED']);
    expect(await run(2, 'bob')).toEqual(['success', 'success']);
    expect(await run(3)).toEqual(['success', 'success', 'RATE_LIMITED']);
  });

  it("a key's rate_limit with per: user, from the config, overrides the tool's the same way", async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [slowTool('T', { safe: true, ms: 1 })],
      config: { keys: backend({ per_minute: 1, per: 'user' }) },
    });
    expect(await run(2, 'alice')).toEqual(['success', 'RATE_LIMITED']);
    expect(await run(2, 'bob')).toEqual(['success', 'RATE_LIMITED']);
    expect(await run(2)).toEqual(['success', 'RATE_LIMITED']);
  });

  it('per: key (the default): every user of a key shares its one bucket', async () => {
    t = await buildTestApp({
      builtins: false,
      tools: [slowTool('T', { safe: true, ms: 1 })],
      config: { keys: backend({ per_minute: 2, per: 'key' }) },
    });
    expect(await run(1, 'alice')).toEqual(['success']);
    expect(await run(1, 'bob')).toEqual(['success']);
    expect(await run(1)).toEqual(['RATE_LIMITED']);
  });
});
