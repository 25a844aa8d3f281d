import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { buildTestApp } from '../../helpers/app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const entry = (id: string, tenant = 'acme', secret = `secret-${id}`) => ({ id, sha256: sha256(secret), tenant, scopes: ['execute'] });

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-keys-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function files(config: unknown, keys?: string, keysName = 'keys.yaml'): Promise<string> {
  const sub = await mkdtemp(join(dir, 'case-'));
  if (keys !== undefined) {
    await mkdir(join(sub, 'secrets'), { recursive: true });
    await writeFile(join(sub, 'secrets', keysName), keys);
  }
  const path = join(sub, 'toolgate.yaml');
  await writeFile(path, stringify(config));
  return path;
}

/** Keys in the config file or in a keys file it points to, validated like the rest. */
describe('keys_file', () => {
  it('its entries join keys; the path is relative to the config file', async () => {
    const path = await files({ keys: [entry('inline')], keys_file: 'secrets/keys.yaml' }, stringify([entry('from-file', 'globex')]));
    const config = loadConfig({}, path);
    expect(config.keys.map((k) => [k.id, k.tenant])).toEqual([
      ['inline', 'acme'],
      ['from-file', 'globex'],
    ]);
    expect(Object.isFrozen(config.keys[1])).toBe(true);
  });

  it('a key from the keys file authenticates', async () => {
    const keysPath = join(dir, 'app-keys.yaml');
    await writeFile(keysPath, stringify([entry('k', 'acme', 'tg_from-the-keys-file')]));
    const t = await buildTestApp({ config: { keys_file: keysPath } });
    try {
      const get = (authorization?: string) =>
        t.app.inject({ method: 'GET', url: '/tools', headers: authorization ? { authorization } : {} });
      expect((await get('Bearer tg_from-the-keys-file')).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('entries are checked with the key schema and reported with their index, next to the other problems', async () => {
    const bad = [
      entry('ok'),
      { ...entry('bad'), sha256: 'not-hex', scopes: ['root'] },
      { id: 'x', tenant: 'acme', scopes: ['execute'], extra: 1 },
    ];
    const path = await files({ port: 'eighty', keys_file: 'secrets/keys.yaml' }, stringify(bad));
    const problems = problemsOf(() => loadConfig({}, path));
    const keysFile = join(path, '..', 'secrets', 'keys.yaml');
    expect(problems).toEqual(
      expect.arrayContaining([
        'port: must be integer',
        `keys_file ${keysFile}: 1.sha256: must match pattern "^[0-9a-f]{64}$"`,
        `keys_file ${keysFile}: 1.scopes.0: must be one of "execute", "admin", "on_behalf"`,
        `keys_file ${keysFile}: 2: must have required property 'sha256'`,
        `keys_file ${keysFile}: 2: unknown setting "extra"; remove it, or use one of id, sha256, tenant, scopes, tools, toolsets, rate_limit`,
      ]),
    );
    expect(problems.filter((p) => p.includes('0.'))).toEqual([]);
  });

  it('a missing file, a file that is not a list, and YAML that does not parse are config problems', async () => {
    const missing = await files({ keys_file: 'secrets/none.yaml' });
    expect(problemsOf(() => loadConfig({}, missing))).toEqual([expect.stringMatching(/^keys_file .*none\.yaml: ENOENT/)]);
    const mapping = await files({ keys_file: 'secrets/keys.yaml' }, stringify({ keys: [entry('a')] }));
    expect(problemsOf(() => loadConfig({}, mapping))).toEqual([
      expect.stringMatching(/keys\.yaml: the top level must be a list of key entries$/),
    ]);
    const broken = await files({ keys_file: 'secrets/keys.yaml' }, '- id: [unclosed\n');
    expect(problemsOf(() => loadConfig({}, broken))).toEqual([expect.stringMatching(/^keys_file .*keys\.yaml: /)]);
  });

  it('an empty keys file holds no keys yet', async () => {
    const path = await files({ keys_file: 'secrets/keys.yaml' }, '');
    expect(loadConfig({}, path).keys).toEqual([]);
  });

  it('ids are unique across the config and the keys file, and one secret cannot be two keys', async () => {
    const path = await files(
      { keys: [entry('dup'), entry('one', 'acme', 'shared')], keys_file: 'secrets/keys.yaml' },
      stringify([entry('dup', 'globex', 'another'), entry('two', 'globex', 'shared')]),
    );
    expect(problemsOf(() => loadConfig({}, path))).toEqual([
      'keys: the id "dup" is used twice',
      'keys: "two" has the same sha256 as "one"',
    ]);
  });
});

/** Without keys the gateway stays on loopback unless told otherwise. */
describe('the safe default at start-up', () => {
  it('no config at all: loopback, no keys', () => {
    const config = loadConfig({}, undefined);
    expect(config.host).toBe('127.0.0.1');
    expect(config.keys).toEqual([]);
    expect(config.allow_unauthenticated).toBe(false);
  });

  it.each(['0.0.0.0', '::', '10.1.2.3', 'gateway.example.com', '127.0.0.1.nip.io'])(
    'HOST=%s with no keys refuses to start, naming host',
    (host) => {
      const problems = problemsOf(() => loadConfig({ HOST: host }, undefined));
      expect(problems).toEqual([
        expect.stringMatching(new RegExp(`^host: ${host.replaceAll('.', '\\.')} is not a loopback address and no API keys are configured`)),
      ]);
    },
  );

  it.each(['127.0.0.1', '127.0.0.53', 'localhost', '::1'])('HOST=%s with no keys starts', (host) => {
    expect(loadConfig({ HOST: host }, undefined).host).toBe(host);
  });

  it('HOST=0.0.0.0 starts with allow_unauthenticated: true, or with keys in the config or in its keys file', async () => {
    expect(loadConfig({ HOST: '0.0.0.0' }, await files({ allow_unauthenticated: true })).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }, await files({ keys: [entry('a')] })).keys).toHaveLength(1);
    expect(loadConfig({ HOST: '0.0.0.0' }, await files({ keys_file: 'secrets/keys.yaml' }, stringify([entry('a')]))).keys).toHaveLength(1);
  });

  it('a keys file with no entries does not count as keys', async () => {
    const path = await files({ keys_file: 'secrets/keys.yaml' }, '[]');
    expect(problemsOf(() => loadConfig({ HOST: '0.0.0.0' }, path))).toEqual([expect.stringMatching(/^host: /)]);
  });
});
