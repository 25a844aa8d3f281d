import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, inspectConfig, loadConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-config-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(text: string): Promise<string> {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(path, text);
  return path;
}

/** The problems loadConfig refuses with; fails the test when it accepts. */
function problemsOf(env: NodeJS.ProcessEnv, path?: string): string[] {
  try {
    loadConfig(env, path);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    for (const problem of problems) expect((err as Error).message).toContain(problem);
    return problems;
  }
  throw new Error('loadConfig accepted the configuration');
}

const HTTP_TOOL = { description: 'A tool.', parameters: { type: 'object' }, http: { method: 'GET', url: 'https://api.example.com/x' } };

describe('defaults with no set-up', () => {
  it('gives the documented limits, address, workspace and spill location', () => {
    const config = loadConfig({});
    expect(config.limits).toMatchObject({
      body_bytes: 1_048_576,
      calls_per_batch: 64,
      arg_chars: 50_000,
      call_budget_bytes: 50 * 1024,
      batch_budget_bytes: 200 * 1024,
      concurrency: 8,
      tool_timeout_ms: 30_000,
    });
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.workspace).toBe('./workspace');
    expect(config.spill.url).toBe('file://./data/spill');
    expect(config.state.redis_url).toBeUndefined();
    expect(config.metrics_port).toBeUndefined();
    expect(config.log_level).toBe('info');
    expect(config.keys).toEqual([]);
    expect(config.tools).toEqual([]);
    expect(config.trust_proxy).toEqual([]);
  });

  it("caps in-memory replay records at 64 MiB and each tenant's spilled bytes at 1 GiB", () => {
    const config = loadConfig({});
    expect(config.state.memory_max_bytes).toBe(64 * 1024 * 1024);
    expect(config.spill.tenant_quota_bytes).toBe(1024 * 1024 * 1024);
  });

  it('reads TOOLGATE_CONFIG when no path is given', async () => {
    const path = await file('port: 9001\n');
    expect(loadConfig({ TOOLGATE_CONFIG: path }).port).toBe(9001);
  });

  it.each([
    ['an empty file', ''],
    ['a file of comments', '# nothing configured yet\n'],
    ['an explicit null document', '~\n'],
  ])('accepts %s as "all defaults"', async (_name, text) => {
    expect(loadConfig({}, await file(text))).toEqual(loadConfig({}));
  });
});

describe('environment variables override deployment values from the file', () => {
  const FILE = `
host: 127.0.0.2
port: 9000
metrics_port: 9100
log_level: debug
workspace: /from/file
state: {redis_url: "redis://file:6379", key_prefix: fromfile}
spill: {url: "file:///from/file"}
`;

  it('every override wins over the file', async () => {
    const config = loadConfig(
      {
        HOST: '127.0.0.3',
        PORT: '9500',
        METRICS_PORT: '9600',
        LOG_LEVEL: 'warn',
        TOOLGATE_WORKSPACE: '/from/env',
        REDIS_URL: 'redis://env:6380',
        TOOLGATE_REDIS_PREFIX: 'fromenv',
        TOOLGATE_SPILL_URL: 'file:///from/env',
      },
      await file(FILE),
    );
    expect(config.host).toBe('127.0.0.3');
    expect(config.port).toBe(9500);
    expect(config.metrics_port).toBe(9600);
    expect(config.log_level).toBe('warn');
    expect(config.workspace).toBe('/from/env');
    expect(config.state.redis_url).toBe('redis://env:6380');
    expect(config.state.key_prefix).toBe('fromenv');
    expect(config.spill.url).toBe('file:///from/env');
  });

  it('an override leaves the rest of its section from the file', async () => {
    const config = loadConfig({ REDIS_URL: 'redis://env:6380' }, await file('state: {key_prefix: fromfile, command_timeout_ms: 750}\n'));
    expect(config.state).toMatchObject({ redis_url: 'redis://env:6380', key_prefix: 'fromfile', command_timeout_ms: 750 });
  });

  it('the file is used where the environment is silent, and an empty variable counts as unset', async () => {
    const config = loadConfig({ PORT: '', HOST: '' }, await file(FILE));
    expect(config.port).toBe(9000);
    expect(config.host).toBe('127.0.0.2');
    expect(config.spill.url).toBe('file:///from/file');
  });

  it('overrides are validated like the file', () => {
    const problems = problemsOf({
      PORT: 'abc',
      METRICS_PORT: '70000',
      LOG_LEVEL: 'loud',
      REDIS_URL: 'http://not-redis',
      TOOLGATE_SPILL_URL: 'ftp://x',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: .*whole number.*"abc"/),
        expect.stringMatching(/^metrics_port: /),
        expect.stringMatching(/^log_level: /),
        expect.stringMatching(/^state\.redis_url: /),
        expect.stringMatching(/^spill\.url: /),
      ]),
    );
  });
});

describe('a bad configuration is refused with every problem listed at once', () => {
  it('lists unknown keys, wrong types in several sections, a bad regex, duplicate tool names and a bad PORT in one error', async () => {
    const path = await file(`
colour: blue
port: "eighty"
limits: {body_bytes: -1, concurrency: many, speed: 3}
state: {command_timeout_ms: 1.5}
tools: ${JSON.stringify([
      { name: 'lookup', ...HTTP_TOOL },
      { name: 'lookup', ...HTTP_TOOL },
    ])}
policy:
  rules:
    - {tool: Read, when: {path: "(unclosed"}, decision: deny}
`);
    const problems = problemsOf({ PORT: 'abc' }, path);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PORT: /),
        expect.stringMatching(/^\(top level\): unknown setting "colour"/),
        expect.stringMatching(/^port: must be integer/),
        expect.stringMatching(/^limits\.body_bytes: /),
        expect.stringMatching(/^limits\.concurrency: must be integer/),
        expect.stringMatching(/^limits: unknown setting "speed"/),
        expect.stringMatching(/^state\.command_timeout_ms: must be integer/),
        expect.stringMatching(/^tools: the name "lookup" is declared twice/),
        expect.stringMatching(/^policy\.rules\.0\.when\.path: not a valid regular expression/),
      ]),
    );
    expect(problems).toHaveLength(9);
  });

  it('names the values a setting takes once, not once per value', async () => {
    const problems = problemsOf(
      {},
      await file(
        `log_level: verbose\ntools: ${JSON.stringify([{ name: 't', ...HTTP_TOOL, http: { method: 'FETCH', url: 'https://x' } }])}\n`,
      ),
    );
    expect(problems).toEqual([
      'log_level: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
      'tools.0.http.method: must be one of "GET", "POST", "PUT", "PATCH", "DELETE"',
    ]);
  });

  it('reports a YAML syntax error together with the environment problems', async () => {
    const problems = problemsOf({ PORT: 'abc' }, await file('tools: [\n  - name: x\nport: 1\n'));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^config file .*config-.*\.yaml: /);
    expect(problems[1]).toMatch(/^PORT: /);
  });

  it('reports a file that cannot be read, and a top level that is not a mapping', async () => {
    expect(problemsOf({}, join(dir, 'missing.yaml'))).toEqual([expect.stringMatching(/missing\.yaml: .*ENOENT/)]);
    expect(problemsOf({}, await file('- a\n- b\n'))).toEqual([expect.stringMatching(/the top level must be a mapping/)]);
  });

  it('refuses duplicate key ids and a batch budget under the call budget', async () => {
    const key = (id: string, hash: string) => ({ id, sha256: hash.repeat(64), tenant: 't', scopes: ['execute'] });
    const path = await file(
      JSON.stringify({ keys: [key('k', 'a'), key('k', 'b')], limits: { call_budget_bytes: 4096, batch_budget_bytes: 2048 } }),
    );
    expect(problemsOf({}, path)).toEqual([
      'keys: the id "k" is used twice',
      'limits.batch_budget_bytes: must be at least limits.call_budget_bytes',
    ]);
  });
});

describe('trust_proxy: addresses and CIDR ranges, checked at start-up', () => {
  const ACCEPTED = ['127.0.0.1', '10.0.0.0/8', '192.168.1.0/24', '::1', 'fd00::/8', '::ffff:10.0.0.0/104'];

  it('refuses what is not an address or a range fastify can match, naming each entry', async () => {
    const path = await file(
      JSON.stringify({
        trust_proxy: ['10.0.0.0/33', 'proxy.internal', '10.0.0.0/0', 'fe80::1%eth0', '::/129', '10.0.0.1/8/8', '10.0.0.0/x', '127.1'],
      }),
    );
    const problems = problemsOf({}, path);
    expect(problems).toHaveLength(8);
    expect(problems[0]).toBe('trust_proxy.0: "10.0.0.0/33" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 127.0.0.1, fd00::/8)');
    problems.forEach((problem, i) => expect(problem).toMatch(new RegExp(`^trust_proxy\\.${i}: .* is not an IP address or CIDR range`)));
  });

  it('every form it accepts is one fastify takes', async () => {
    const config = loadConfig({}, await file(JSON.stringify({ trust_proxy: ACCEPTED })));
    expect(config.trust_proxy).toEqual(ACCEPTED);
    // fastify compiles the list when the instance is built and throws on an entry it cannot parse.
    const { default: Fastify } = await import('fastify');
    for (const entry of ACCEPTED) await Fastify({ trustProxy: [entry] }).close();
  });
});

describe('a problem in one part hides none in another', () => {
  it('checks the patterns of a rule that is broken elsewhere, and of the rules after it', async () => {
    const path = await file(`
policy:
  rules:
    - {tool: Read, when: {path: "[abc"}, decision: maybe}
    - {tool: Read, when: {path: "(?=x)"}, decision: deny}
`);
    expect(problemsOf({}, path)).toEqual([
      'policy.rules.0.decision: must be one of "allow", "ask", "deny"',
      expect.stringMatching(/^policy\.rules\.0\.when\.path: not a valid regular expression \("\[abc"\): missing closing "\]"/),
      expect.stringMatching(/^policy\.rules\.1\.when\.path: .*lookaround\/backreferences are not supported \(RE2\)/),
    ]);
  });

  it('hands the later checks every valid part: a broken tool, builtins entry or value left out, the rest kept', async () => {
    const good = { name: 'good', ...HTTP_TOOL };
    const path = await file(
      JSON.stringify({
        port: 'eighty',
        limits: { concurrency: 4, body_bytes: -1 },
        builtins: { Read: { timeout_ms: 'soon' }, Grep: { timeout_ms: 10_000 } },
        tools: [{ name: 'bad', ...HTTP_TOOL, http: { method: 'FETCH', url: 'https://x' } }, good],
        policy: {
          rules: [
            { tool: 'good', decision: 'sometimes' },
            { tool: 'bad', decision: 'deny' },
          ],
        },
      }),
    );
    const report = inspectConfig({}, path);
    expect(report.problems).toHaveLength(5);
    expect(report.config.port).toBe(8080);
    expect(report.config.limits).toMatchObject({ concurrency: 4, body_bytes: 1_048_576 });
    expect(report.config.builtins).toEqual({ Read: {}, Grep: { timeout_ms: 10_000 }, Bash: expect.objectContaining({ sandbox: 'auto' }) });
    expect(report.config.tools).toEqual([good]);
    expect(report.config.policy.rules).toEqual([{ tool: 'bad', decision: 'deny' }]);
    // As written, so later checks name each rule by its index in the file.
    expect(report.written.rules).toEqual([
      { tool: 'good', decision: 'sometimes' },
      { tool: 'bad', decision: 'deny' },
    ]);
    expect(report.written.tools.map((t: any) => t.name)).toEqual(['bad', 'good']);
  });
});

describe('with no keys the server only binds loopback', () => {
  it.each(['0.0.0.0', '::', '192.168.1.10'])('refuses HOST=%s without keys', (host) => {
    expect(problemsOf({ HOST: host })).toEqual([expect.stringMatching(/not a loopback address and no API keys.*allow_unauthenticated/)]);
  });

  it.each(['127.0.0.1', '127.0.0.5', '::1', 'localhost'])('accepts HOST=%s without keys', (host) => {
    expect(loadConfig({ HOST: host }).host).toBe(host);
  });

  it('accepts a public bind with keys, or with allow_unauthenticated', async () => {
    const keys = await file(JSON.stringify({ keys: [{ id: 'k', sha256: 'a'.repeat(64), tenant: 't', scopes: ['execute'] }] }));
    expect(loadConfig({ HOST: '0.0.0.0' }, keys).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }, await file('allow_unauthenticated: true\n')).host).toBe('0.0.0.0');
  });
});

describe('the loaded configuration is immutable', () => {
  it('is frozen all the way down', async () => {
    const path = await file(
      JSON.stringify({
        tools: [{ name: 'lookup', ...HTTP_TOOL, http: { ...HTTP_TOOL.http, headers: { authorization: 'Bearer x' } } }],
        policy: { rules: [{ tool: 'Read', when: { path: '^src/' }, decision: 'allow' }] },
      }),
    );
    const config = loadConfig({}, path);
    const nested: unknown[] = [
      config,
      config.limits,
      config.state,
      config.spill,
      config.defaults.breaker,
      config.tools,
      config.tools[0],
      config.tools[0]!.http.headers,
      config.tools[0]!.parameters,
      config.policy.rules[0]!.when,
      config.keys,
      config.builtins,
    ];
    for (const value of nested) expect(Object.isFrozen(value)).toBe(true);
    const writable = config as { -readonly [K in keyof Config]: Config[K] };
    expect(() => {
      writable.port = 1;
    }).toThrow(TypeError);
    expect(() => {
      config.limits.body_bytes = 1;
    }).toThrow(TypeError);
    expect(() => (config.tools as unknown[]).push({})).toThrow(TypeError);
  });

  it('each call returns its own object', () => {
    expect(loadConfig({})).not.toBe(loadConfig({}));
  });
});

/** The async settings are checked at start-up like every other. */
describe('async configuration', () => {
  it('defaults: no inline workers, one batch per worker, 24 h and 10,000 finished executions kept, 5 callback retries', () => {
    expect(loadConfig({}).async).toEqual({
      inline_workers: 0,
      concurrency: 1,
      retention_ms: 86_400_000,
      retention_count: 10_000,
      lock_ms: 30_000,
      callback_retries: 5,
      callback_backoff_ms: 1_000,
      callback_timeout_ms: 10_000,
      callback_allow_private_network: false,
    });
  });

  it('callback_secret reads ${VAR} from the environment', async () => {
    const path = await file('async: {callback_secret: "${CB_SECRET}"}\n');
    expect(loadConfig({ CB_SECRET: 'from-the-environment-0123' }, path).async.callback_secret).toBe('from-the-environment-0123');
  });

  it('an unset variable, or a secret shorter than 16 characters, stops start-up', async () => {
    expect(problemsOf({}, await file('async: {callback_secret: "${CB_SECRET}"}\n'))).toEqual([
      'async.callback_secret: uses ${CB_SECRET}, which is not set in the environment',
    ]);
    expect(problemsOf({}, await file('async: {callback_secret: short}\n'))).toEqual([
      'async.callback_secret: must be at least 16 characters (e.g. openssl rand -hex 32)',
    ]);
  });

  it('inline workers without REDIS_URL stop start-up; with it they are accepted', async () => {
    const path = await file('async: {inline_workers: 2}\n');
    expect(problemsOf({}, path)).toEqual([
      'async.inline_workers: async batches are queued in Redis; set REDIS_URL (or REDIS_SENTINELS, REDIS_CLUSTER_NODES), or set inline_workers to 0',
    ]);
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }, path).async.inline_workers).toBe(2);
    expect(loadConfig({ REDIS_SENTINELS: '127.0.0.1:26379', REDIS_SENTINEL_NAME: 'main' }, path).async.inline_workers).toBe(2);
    expect(loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000' }, path).async.inline_workers).toBe(2);
  });
});

describe('mcp_servers', () => {
  it('takes a stdio server and a Streamable HTTP server, with the documented defaults', async () => {
    const config = loadConfig(
      {},
      await file(`
mcp_servers:
  - {name: files, command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", /srv/data], prefix: files_}
  - {name: search, url: "https://mcp.example.com/mcp", headers: {authorization: "Bearer \${T}"}, tools: {web_search: {concurrency_safe: true}}}
`),
    );
    expect(config.mcp_servers).toMatchObject([
      { name: 'files', prefix: 'files_', connect_timeout_ms: 10_000, refresh_ms: 60_000, tools: {} },
      { name: 'search', prefix: '', tools: { web_search: { concurrency_safe: true } } },
    ]);
  });

  it("lists every server that is not exactly one kind, has the other kind's settings, or repeats a name", async () => {
    const problems = problemsOf(
      {},
      await file(`
mcp_servers:
  - {name: both, command: x, url: "http://h/mcp"}
  - {name: neither}
  - {name: mixed, url: "http://h/mcp", env: {A: b}, cwd: /tmp}
  - {name: mixed, command: x, headers: {a: b}}
`),
    );
    expect(problems).toEqual([
      'mcp_servers.both: give either command (a stdio server) or url (a Streamable HTTP server)',
      'mcp_servers.neither: give either command (a stdio server) or url (a Streamable HTTP server)',
      'mcp_servers.mixed: env, cwd do not apply to a Streamable HTTP server (url); remove them',
      'mcp_servers: the name "mixed" is used twice',
      'mcp_servers.mixed: headers does not apply to a stdio server (command); remove it',
    ]);
  });
});
