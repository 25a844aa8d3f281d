import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { file, problemsOf, useConfigDir } from './load-fixtures.js';

useConfigDir();

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
