import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis-global-setup.js';
import { fixtureEvents, FIXTURE_SERVER, waitFor } from '../helpers/mcp.js';
import { BUILTINS, EXIT_MS, scratch, startGateway, TEST_MS, watchRefusal, withTimeout, useGatewayScratch } from './server-harness.js';

useGatewayScratch();

describe('upstream MCP servers under `toolgate serve`', { timeout: TEST_MS }, () => {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('start before the port opens, show in the ready line, and SIGTERM ends their processes', async () => {
    const events = join(scratch, 'fixture.jsonl');
    const config = join(scratch, 'toolgate.yaml');
    const server = {
      name: 'fx',
      command: process.execPath,
      args: [FIXTURE_SERVER],
      env: { FIXTURE_LOG: events, FIXTURE_LINGER: '1' },
      prefix: 'fx_',
    };
    // A rule on an upstream tool is checked against the tools the server listed, not refused as unknown; one on its resources too.
    const rules = [
      { tool: 'fx_echo', when: { text: '^rm ' }, decision: 'deny' },
      { tool: 'fx_resources', when: { uri: '^fx\\+file:///private/' }, decision: 'deny' },
    ];
    await writeFile(config, JSON.stringify({ mcp_servers: [server], policy: { rules } }));
    const gateway = startGateway({ TOOLGATE_CONFIG: config, PORT: '0' });
    const ready = await gateway.ready;
    expect(ready.tools).toEqual(expect.arrayContaining([...BUILTINS, 'fx_echo', 'fx_slow']));
    expect((ready as unknown as { mcp_servers: unknown }).mcp_servers).toEqual([{ name: 'fx', connected: true }]);
    const pid = (await fixtureEvents(events)).find((e) => e.event === 'started')!.pid as number;
    expect(alive(pid)).toBe(true);
    try {
      gateway.child.kill('SIGTERM');
      expect(await withTimeout(gateway.exited, EXIT_MS, 'gateway exit')).toEqual({ code: 0, signal: null });
      // The fixture lingers after its stdin closes: only the gateway's shutdown ends it.
      await waitFor(() => !alive(pid), 'the MCP server process to end', 5_000);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('a policy rule on a tool the server does not list, or on an argument its tool lacks, stops start-up and ends the server', async () => {
    const port = await freePort();
    const events = join(scratch, 'fixture.jsonl');
    const config = join(scratch, 'toolgate.yaml');
    const server = { name: 'fx', command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: events }, prefix: 'fx_' };
    const rules = [
      { tool: 'fx_nope', decision: 'deny' },
      { tool: 'fx_echo', when: { txt: 'x' }, decision: 'deny' },
      { tool: 'fx_resources', when: { path: 'x' }, decision: 'deny' },
    ];
    await writeFile(config, JSON.stringify({ mcp_servers: [server], policy: { rules } }));
    const gateway = startGateway({ TOOLGATE_CONFIG: config, PORT: String(port) });
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    expect(gateway.stderr()).toMatch(/policy\.rules\.0\.tool: "fx_nope" names no tool/);
    expect(gateway.stderr()).toMatch(/policy\.rules\.1\.when\.txt: fx_echo has no argument "txt"/);
    expect(gateway.stderr()).toMatch(/policy\.rules\.2\.when\.path: fx_resources has no argument "path"/);
    const pid = (await fixtureEvents(events)).find((e) => e.event === 'started')!.pid as number;
    await waitFor(() => !alive(pid), 'the MCP server process to end', 5_000);
  });
});
