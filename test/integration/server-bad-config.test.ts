import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis-global-setup.js';
import { isolated, scratch, startGateway, TEST_MS, watchRefusal, writeConfig, useGatewayScratch } from './server-harness.js';

useGatewayScratch();

describe('a bad configuration stops start-up before the port opens', { timeout: TEST_MS }, () => {
  it('lists every problem of the file and the environment on stderr and exits non-zero without listening', async () => {
    const port = await freePort();
    const config = await writeConfig(`
colour: blue
log_level: verbose
limits: {concurrency: many}
tools:
  - {name: dup, description: d, parameters: {type: object}, http: {method: GET, url: "https://example.com"}}
  - {name: dup, description: d, parameters: {type: object}, http: {method: GET, url: "https://example.com"}}
policy:
  rules:
    - {tool: Read, when: {path: "(unclosed"}, decision: deny}
`);
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config, METRICS_PORT: 'abc' }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const stderr = gateway.stderr();
    for (const problem of [
      'invalid configuration:',
      'METRICS_PORT: must be a whole number, got "abc"',
      '(top level): unknown setting "colour"',
      'log_level: must be one of',
      'limits.concurrency: must be integer',
      'tools: the name "dup" is declared twice',
      'policy.rules.0.when.path: not a valid regular expression',
    ]) {
      expect(stderr).toContain(problem);
    }
    expect(existsSync(join(scratch, 'ws'))).toBe(false);
  });

  it('lists the problems found while building tools and stores together: a missing ${VAR}, an unknown built-in, an unwritable spill directory', async () => {
    const port = await freePort();
    const notADirectory = join(scratch, 'a-file');
    await writeFile(notADirectory, '');
    const config = await writeConfig(`
builtins:
  Reed: {enabled: false}
tools:
  - name: weather
    description: Current weather.
    parameters: {type: object}
    http: {method: GET, url: "https://api.example.com/w", headers: {authorization: "Bearer \${TOOLGATE_TEST_WEATHER_TOKEN}"}}
`);
    const gateway = startGateway(
      isolated({ PORT: String(port), TOOLGATE_CONFIG: config, TOOLGATE_SPILL_URL: pathToFileURL(join(notADirectory, 'spill')).href }),
    );
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const stderr = gateway.stderr();
    expect(stderr).toMatch(/tools\.weather: .*\$\{TOOLGATE_TEST_WEATHER_TOKEN\}.*not set/);
    expect(stderr).toMatch(/builtins\.Reed: no built-in tool has this name/);
    expect(stderr).toMatch(/spill\.url file:\/\/.*a-file\/spill: ENOTDIR/);
  });

  it('lists the problems of every stage in one run: schema, regex, unknown built-in, missing ${VAR}, rules on an unknown tool and an unknown argument', async () => {
    const port = await freePort();
    const config = await writeConfig(`
builtins:
  Reed: {enabled: false}
  Edit: {enabled: false}
tools:
  - {name: broken, description: d, parameters: {type: object}, http: {method: FETCH, url: "https://example.com"}}
  - name: weather
    description: Current weather.
    parameters: {type: object, properties: {city: {type: string}}}
    http: {method: GET, url: "https://api.example.com/w", headers: {authorization: "Bearer \${TOOLGATE_TEST_WEATHER_TOKEN}"}}
policy:
  rules:
    - {tool: Write, when: {path: "(unclosed"}, decision: deny}
    - {tool: Wirte, decision: deny}
    - {tool: weather, when: {town: "^Paris$"}, decision: deny}
    - {tool: broken, decision: deny}
    - {tool: Edit, when: {path: "^infra/"}, decision: deny}
`);
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    const listed = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('  - '))
      .map((line) => line.slice(4));
    expect(listed).toEqual([
      expect.stringMatching(/^tools\.0\.http\.method: must be one of "GET"/),
      expect.stringMatching(
        /^policy\.rules\.0\.when\.path: not a valid regular expression \("\(unclosed"\): missing closing "\)"; close every group/,
      ),
      expect.stringMatching(/^builtins\.Reed: no built-in tool has this name; use one of Read, .*Noop/),
      expect.stringMatching(
        /^tools\.weather: .*\$\{TOOLGATE_TEST_WEATHER_TOKEN\}, which is not set in the environment; set TOOLGATE_TEST_WEATHER_TOKEN/,
      ),
      expect.stringMatching(/^policy\.rules\.1\.tool: "Wirte" names no tool and matches none as a glob; use one of Read, Write,/),
      'policy.rules.2.when.town: weather has no argument "town"; use one of its arguments (city)',
    ]);
    // A configuration with problems creates nothing.
    expect(existsSync(join(scratch, 'ws'))).toBe(false);
  });

  it('refuses HOST=0.0.0.0 with no keys in validation, never binding', async () => {
    const port = await freePort();
    const gateway = startGateway(isolated({ HOST: '0.0.0.0', PORT: String(port) }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(gateway.logs.some((l) => l.msg === 'toolgate ready')).toBe(false);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    expect(gateway.stderr()).toMatch(/0\.0\.0\.0 is not a loopback address and no API keys.*allow_unauthenticated/);
  });
  it("refuses tenants' workspace roots that overlap or nest, naming both tenants, and makes no folder", async () => {
    const port = await freePort();
    const sha = (c: string) => c.repeat(64);
    const config = await writeConfig(`
keys:
  - {id: a, sha256: ${sha('a')}, tenant: acme, scopes: [execute]}
  - {id: b, sha256: ${sha('b')}, tenant: globex, scopes: [execute]}
tenants:
  acme: {workspace: ${join(scratch, 'ws')}}
`);
    const gateway = startGateway(isolated({ PORT: String(port), TOOLGATE_CONFIG: config }));
    const { everListened, exit } = await watchRefusal(port, gateway);
    expect(everListened).toBe(false);
    expect(exit.code).toBe(2);
    expect(gateway.stderr()).toMatch(
      /tenants: the workspace roots of tenants "acme" \(.*\/ws\) and "globex" \(.*\/ws\/globex\) nest \(.*\/ws\/globex is inside .*\/ws\)/,
    );
    expect(existsSync(join(scratch, 'ws'))).toBe(false);
  });
});
