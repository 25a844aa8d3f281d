import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { forUser, ON_BEHALF_KEYS, whoTool } from '../../../helpers/users.js';

/**
 * What a session leaves is one user's: two users of one key, in one session with the same call id or Idempotency-Key, never get each
 * other's result; the same user's retry is replayed.
 */

describe('replay and idempotency per user', () => {
  let t: TestApp;
  const runs = { count: 0 };
  beforeAll(async () => {
    t = await buildTestApp({ builtins: false, tools: [whoTool(runs)], config: { keys: ON_BEHALF_KEYS } });
  });
  afterAll(() => t.close());

  const once = (user?: string, headers: Record<string, string> = {}) =>
    execute(t.app, { session_id: 'shared', tool_calls: [{ id: 'c1', name: 'Who', arguments: {} }] }, { ...forUser(user), ...headers });

  it("a call id of the session runs once per user: alice's retry is replayed, bob's and the key's own run for them", async () => {
    const first = (await once('alice')).body.results[0];
    expect(first).toMatchObject({ text: 'for alice run 1', replayed: false });
    expect((await once('alice')).body.results[0]).toMatchObject({ text: 'for alice run 1', replayed: true });
    expect((await once('bob')).body.results[0]).toMatchObject({ text: 'for bob run 2', replayed: false });
    expect((await once()).body.results[0]).toMatchObject({ text: 'for (the key) run 3', replayed: false });
    expect((await once('bob')).body.results[0]).toMatchObject({ text: 'for bob run 2', replayed: true });
    expect(runs.count).toBe(3);
  });

  it('an Idempotency-Key replays a whole response to the same user only', async () => {
    const key = { 'idempotency-key': 'retry-1' };
    const ask = (user?: string) =>
      execute(
        t.app,
        { session_id: 'idem', tool_calls: [{ id: `n${runs.count}`, name: 'Who', arguments: {} }] },
        { ...forUser(user), ...key },
      );
    const alice = (await ask('alice')).body.results[0].text as string;
    expect(alice).toMatch(/^for alice run/);
    expect((await ask('alice')).body.results[0]).toMatchObject({ text: alice, replayed: true });
    expect((await ask('bob')).body.results[0].text).toMatch(/^for bob run/);
    expect((await ask()).body.results[0].text).toMatch(/^for \(the key\) run/);
  });
});
