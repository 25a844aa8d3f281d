import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServer } from '../../helpers/mcp.js';
import { freePort } from '../../helpers/redis-global-setup.js';
import { startServer, type TestServer } from '../http-tools/helpers.js';
import {
  call,
  executeAt,
  isolated,
  portOf,
  scratch,
  startGateway,
  TEST_MS,
  until,
  useGatewayScratch,
  watchRefusal,
  writeConfig,
} from '../server-harness.js';

/**
 * A tool schema's `pattern` is the tool author's (an upstream MCP server's, an OpenAPI document's, the config's), and a backtracking
 * engine takes exponential time on `^(a+)+$` against a run of `a` ending in `!`: the gateway runs every pattern on RE2, so such a call
 * is refused at once and every tenant's requests are answered meanwhile. A pattern RE2 cannot run stops start-up for a config tool;
 * an upstream MCP tool is served and the pattern left to the upstream, logged.
 */
useGatewayScratch();

const EVIL = `${'a'.repeat(40)}!`;
const object = (pattern: string) => ({ type: 'object', properties: { q: { type: 'string', pattern } }, required: ['q'] });

let upstream: TestServer;
beforeAll(async () => {
  upstream = await startServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
});
afterAll(() => upstream.close());

describe('catastrophic patterns in tool schemas', { timeout: TEST_MS }, () => {
  it('a call against ^(a+)+$ is INVALID_ARGS at once, for a config tool and an MCP tool, while /healthz answers; an MCP look-ahead is left to the upstream', async () => {
    const log = join(scratch, 'fixture.log');
    const config = await writeConfig(
      JSON.stringify({
        tools: [
          {
            name: 'search',
            description: 'Search.',
            parameters: object('^(a+)+$'),
            http: { method: 'GET', url: `${upstream.origin}/search`, allow_private_network: true },
          },
        ],
        mcp_servers: [fixtureServer(log, {}, ['redos', 'lookahead'])],
      }),
    );
    const gateway = startGateway(isolated({ TOOLGATE_CONFIG: config }));
    const ready = await gateway.ready;
    const port = portOf(ready.address);
    await until('the MCP tools are listed', async () =>
      ((await call(port, 'GET', '/tools?format=mcp')).json() as { tools: Array<{ name: string }> }).tools.some(
        (t) => t.name === 'fx_redos',
      ),
    );

    for (const name of ['search', 'fx_redos']) {
      const started = performance.now();
      const calls = executeAt(ready.address, `redos-${name}`, [{ id: 'c1', name, arguments: { q: EVIL } }]);
      const health = await call(port, 'GET', '/healthz');
      const healthMs = performance.now() - started;
      const [result] = await calls;
      expect(health.status).toBe(200);
      expect(healthMs).toBeLessThan(1000);
      expect(result).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGS' } });
      expect(performance.now() - started).toBeLessThan(2000);
    }
    const [served] = await executeAt(ready.address, 'redos-ok', [{ id: 'c1', name: 'search', arguments: { q: 'aaaa' } }]);
    expect(served).toMatchObject({ status: 'success' });

    // An upstream checks its own schema again: its look-ahead (zod's hostname() writes one) is left to it, and the tool is served.
    const names = ((await call(port, 'GET', '/tools?format=mcp')).json() as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toContain('fx_lookahead');
    expect(gateway.logs.find((l) => l.msg === 'MCP server tool served with patterns the gateway does not check')).toMatchObject({
      problem: 'fx_lookahead: "^(?!admin)" not checked by the gateway (RE2 has no look-around or back-reference); the upstream checks them',
    });
    expect(gateway.logs.find((l) => l.msg === 'MCP server tool left out: its schema does not compile')).toBeUndefined();
  });

  it('a config tool whose pattern RE2 cannot run (a look-ahead) stops start-up, naming the tool and the pattern', async () => {
    const port = await freePort();
    const config = await writeConfig(
      JSON.stringify({
        tools: [
          {
            name: 'guarded',
            description: 'G.',
            parameters: object('^(?!admin)'),
            http: { method: 'GET', url: `${upstream.origin}/g`, allow_private_network: true },
          },
        ],
      }),
    );
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).not.toBe(0);
    expect(gateway.stderr()).toMatch(
      /tool guarded: parameters are not a valid JSON Schema: pattern "\^\(\?!admin\)" is not run by the gateway's linear-time engine \(RE2\)/,
    );
  });
});
