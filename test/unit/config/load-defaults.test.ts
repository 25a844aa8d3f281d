import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { file, HTTP_TOOL, problemsOf, useConfigDir } from './load-fixtures.js';

useConfigDir();

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
