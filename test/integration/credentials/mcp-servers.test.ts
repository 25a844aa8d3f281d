import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFor, connectPerson, startFleet, type Fleet } from './fleet.js';
import { startMcpUpstream, type McpUpstream } from './mcp-upstream.js';

const IDLE_MS = 400;

async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** docs/mcp.md, "Per-person connections": an MCP server over HTTP with auth, one connection per (server, person). */
describe('per-user credentials: MCP servers over HTTP', () => {
  let fleet: Fleet;
  let upstream: McpUpstream;
  beforeAll(async () => {
    fleet = await startFleet({
      extend: async (provider) => {
        upstream = await startMcpUpstream(provider);
        const server = { url: upstream.url, allow_private_network: true, auth: { provider: 'corp' }, connect_timeout_ms: 5_000 };
        return {
          mcp_servers: [
            { ...server, name: 'corpmcp', prefix: 'mcp_', idle_close_ms: IDLE_MS },
            { ...server, name: 'single', prefix: 'one_', max_user_connections: 1 },
          ],
        };
      },
    });
  }, 60_000);
  afterAll(async () => {
    await fleet?.close();
    await upstream?.close();
  });

  const open = (user: string | null) => upstream.sessions.filter((s) => s.user === user && !s.closed);

  const connect = (user: string) => connectPerson(fleet, user);

  it('lists the tools with no one signed in (a connection without a token), and a call without a grant gets the link', async () => {
    expect(open(null).length).toBeGreaterThan(0);
    const noGrant = await callFor(fleet.a, 'mcp_whoami', 'nobody');
    expect(noGrant.error).toMatchObject({ code: 'AUTHORIZATION_REQUIRED', details: { provider: 'corp', reason: 'none' } });
    expect(String(noGrant.error!.details!.authorization_url)).toMatch(new RegExp(`^${fleet.publicUrl}/oauth/authorize/`));
    const keyOwn = await callFor(fleet.a, 'mcp_whoami');
    expect(keyOwn.error).toMatchObject({ code: 'AUTHORIZATION_REQUIRED', details: { user_required: true } });
    // Neither call reached the server as anyone.
    expect(upstream.seen).toEqual([]);
  });

  it('two people: two connections, each call carrying its own person’s token; a connection is reused by its person', async () => {
    await connect('alice');
    await connect('bob');
    const calls = await Promise.all(['alice', 'bob', 'alice', 'bob'].map((user) => callFor(fleet.a, 'mcp_whoami', user)));
    expect(calls.map((c) => c.text)).toEqual(['alice', 'bob', 'alice', 'bob']);
    expect(open('alice')).toHaveLength(1);
    expect(open('bob')).toHaveLength(1);
    expect((await callFor(fleet.a, 'mcp_whoami', 'alice')).text).toBe('alice');
    expect(upstream.sessions.filter((s) => s.user === 'alice')).toHaveLength(1);
    // The token an upstream echoes is redacted by value.
    const echo = await callFor(fleet.a, 'mcp_echo_token', 'bob');
    expect(echo.text).toBe('bob:[REDACTED]');
  }, 60_000);

  it('a connection idle for idle_close_ms is closed (its session ended at the server); the next call opens another', async () => {
    await until('idle connections closed', () => open('alice').length === 0 && open('bob').length === 0, IDLE_MS * 10);
    expect((await callFor(fleet.a, 'mcp_whoami', 'alice')).text).toBe('alice');
    expect(open('alice')).toHaveLength(1);
    expect(upstream.sessions.filter((s) => s.user === 'alice')).toHaveLength(2);
  }, 30_000);

  it('within max_user_connections: a new person closes the least recently used idle connection; all busy answers OVERLOADED', async () => {
    const single = () => upstream.sessions.filter((s) => s.user !== null && !s.closed);
    const before = single().length;
    expect((await callFor(fleet.a, 'one_whoami', 'alice')).text).toBe('alice');
    expect((await callFor(fleet.a, 'one_whoami', 'bob')).text).toBe('bob');
    // alice's connection to `single` was closed for bob's: one more open than before, not two.
    await until("alice's connection to single closed", () => single().length === before + 1);

    const arrived = upstream.seen.length;
    const held = callFor(fleet.a, 'one_hold', 'bob');
    await until('the held call to arrive', () => upstream.seen.length > arrived);
    const refused = await callFor(fleet.a, 'one_whoami', 'alice');
    expect(refused.error).toMatchObject({
      code: 'OVERLOADED',
      retryable: true,
      details: { server: 'single', reason: 'user_connections_full' },
    });
    upstream.releaseHolds();
    expect((await held).text).toBe('bob');
    expect((await callFor(fleet.a, 'one_whoami', 'alice')).text).toBe('alice');
  }, 60_000);

  it('a refreshed token goes on the person’s open connection: the same session, the new token', async () => {
    const sessions = () => upstream.sessions.filter((s) => s.user === 'alice').length;
    const before = sessions();
    const used = new Set(upstream.seen.filter((s) => s.user === 'alice').map((s) => s.token));
    const grant = (await fleet.a.state.grants.getGrant('acme', 'alice', 'corp'))!;
    fleet.clock.set(grant.expiresAt! - 30_000);
    expect((await callFor(fleet.a, 'one_whoami', 'alice')).text).toBe('alice');
    const last = upstream.seen.at(-1)!;
    expect(last.user).toBe('alice');
    expect(used.has(last.token)).toBe(false);
    expect(sessions()).toBe(before);
  }, 30_000);
});
