import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createGuardedConnector,
  ForbiddenAddressError,
  isForbiddenAddress,
  type ConnectorFactory,
} from '../../../../src/tools/http/ssrf.js';

describe('isForbiddenAddress: only the public internet is allowed', () => {
  it.each([
    ['0.0.0.0', 'this host'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'link-local / metadata'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['192.0.0.192', 'IETF protocol assignments'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of private'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of metadata'],
    ['2001::1', 'Teredo'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with zone'],
    ['ff02::1', 'multicast'],
    ['localhost', 'not an IP address'],
    ['', 'empty'],
  ])('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

/*
 * The guarded connector over a stand-in final step that opens nothing and a resolver that answers from
 * memory: nothing here can create a socket or ask DNS, whether the guard works or not.
 */
describe('createGuardedConnector: checks before the final connect step', () => {
  function setup(answers: Record<string, string[]> = {}) {
    const reached: string[] = [];
    let checkingLookup: LookupFunction | undefined;
    const build: ConnectorFactory = (options) => {
      checkingLookup = (options as { lookup?: LookupFunction }).lookup;
      return (target, callback) => {
        reached.push(target.hostname);
        process.nextTick(() => callback(new Error('stand-in: nothing opened'), null));
      };
    };
    const resolver: LookupFunction = (hostname, _options, callback) => {
      const addresses = (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      process.nextTick(() => callback(null, addresses));
    };
    const connector = createGuardedConnector({
      connectTimeoutMs: 1000,
      isForbidden: isForbiddenAddress,
      lookup: resolver,
      buildConnector: build,
    });
    const connect = (hostname: string) =>
      new Promise<Error | null>((resolve) => connector({ hostname, protocol: 'http:', port: '80' }, (...args) => resolve(args[0])));
    const lookup = (hostname: string, all = true) =>
      new Promise<{ err: Error | null; address: string | LookupAddress[] }>((resolve) =>
        checkingLookup!(hostname, { all }, (err, address) => resolve({ err, address })),
      );
    return { reached, connect, lookup };
  }

  it.each(['10.0.0.1', '169.254.169.254', '127.0.0.1', '::1', '::ffff:169.254.169.254', 'fd00::1'])(
    'refuses the literal %s before the final step',
    async (address) => {
      const { reached, connect } = setup();
      expect(await connect(address)).toEqual(new ForbiddenAddressError(address, address));
      expect(reached).toEqual([]);
    },
  );

  it('hands a public literal and any name to the final step', async () => {
    const { reached, connect } = setup();
    await connect('198.51.100.7');
    await connect('api.example.test');
    expect(reached).toEqual(['198.51.100.7', 'api.example.test']);
  });

  it('gives the final step a lookup that refuses a name when any of its addresses is forbidden', async () => {
    const { lookup } = setup({
      'private.test': ['10.0.0.1'],
      'mixed.test': ['198.51.100.7', '169.254.169.254'],
      'public.test': ['198.51.100.7', '2606:4700::1'],
    });
    expect((await lookup('private.test')).err).toEqual(new ForbiddenAddressError('private.test', '10.0.0.1'));
    expect((await lookup('mixed.test')).err).toEqual(new ForbiddenAddressError('mixed.test', '169.254.169.254'));
    expect(await lookup('public.test')).toEqual({
      err: null,
      address: [
        { address: '198.51.100.7', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
    expect(await lookup('public.test', false)).toEqual({ err: null, address: '198.51.100.7' });
    expect((await lookup('unknown.test', false)).err).toMatchObject({ code: 'ENOTFOUND' });
  });
});
