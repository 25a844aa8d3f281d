import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';
import { describe, expect, it } from 'vitest';
import type { ConnectorFactory } from '../../../src/tools/http/ssrf.js';
import { createTripwire, isLoopback } from './helpers.js';

// The tripwire tested on its own, over a stand-in for undici's connector that opens nothing: this file
// never creates a socket, whatever the tripwire does.

interface Fake {
  build: ConnectorFactory;
  /** Targets that reached the stand-in connector. */
  reached: string[];
  /** The lookup the tripwire gave the stand-in (the one net.connect would use for names). */
  lookup(): LookupFunction;
}

function fakeConnector(): Fake {
  const reached: string[] = [];
  let given: LookupFunction | undefined;
  return {
    reached,
    lookup: () => given!,
    build: (options) => {
      given = (options as { lookup?: LookupFunction }).lookup;
      return (target, callback) => {
        reached.push(target.hostname);
        process.nextTick(() => callback(new Error('stand-in connector: nothing opened'), null));
      };
    },
  };
}

function connect(connector: buildConnector.connector, hostname: string): Promise<Error | null> {
  return new Promise((resolve) => connector({ hostname, protocol: 'http:', port: '80' }, (...args) => resolve(args[0])));
}

function lookup(fn: LookupFunction, hostname: string, options: LookupOptions = { all: true }) {
  return new Promise<{ err: Error | null; address: string | LookupAddress[] }>((resolve) =>
    fn(hostname, options, (err, address) => resolve({ err, address })),
  );
}

describe('isLoopback: 127.0.0.0/8 and ::1 only', () => {
  it.each(['127.0.0.1', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1'])('%s is loopback', (a) => expect(isLoopback(a)).toBe(true));
  it.each(['0.0.0.0', '10.0.0.1', '169.254.169.254', '::', '::ffff:127.0.0.1', 'fd00::1', 'fe80::1', '198.51.100.7', 'localhost', ''])(
    '%s is not',
    (a) => expect(isLoopback(a)).toBe(false),
  );
});

describe('tripwire: the last connect step refuses everything outside loopback', () => {
  it.each([
    '10.0.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '::ffff:169.254.169.254',
    '::ffff:127.0.0.1',
    'fd00::1',
    'fe80::1',
    '198.51.100.7',
    'example.test',
  ])('refuses %s without reaching the connector', async (host) => {
    const fake = fakeConnector();
    const tripwire = createTripwire({ build: fake.build });
    const err = await connect(tripwire.buildConnector({}), host);
    expect(err?.message).toBe(`TRIPWIRE: would have connected to ${host}`);
    expect(fake.reached).toEqual([]);
    expect(tripwire.fired).toEqual([`TRIPWIRE: would have connected to ${host}`]);
  });

  it.each(['127.0.0.1', '127.0.0.2', '::1', 'localhost'])('lets %s through to the connector', async (host) => {
    const fake = fakeConnector();
    const tripwire = createTripwire({ build: fake.build });
    await connect(tripwire.buildConnector({}), host);
    expect(fake.reached).toEqual([host]);
    expect(tripwire.fired).toEqual([]);
  });

  it('checks what the lookup it wraps answers, and asks it about no name but localhost', async () => {
    const fake = fakeConnector();
    const asked: string[] = [];
    let answer = ['127.0.0.1'];
    const wrapped: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      callback(
        null,
        answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    };
    const tripwire = createTripwire({ build: fake.build });
    tripwire.buildConnector({ lookup: wrapped });
    const checked = fake.lookup();

    expect(await lookup(checked, 'localhost')).toEqual({ err: null, address: [{ address: '127.0.0.1', family: 4 }] });
    answer = ['127.0.0.1', '10.0.0.1'];
    expect((await lookup(checked, 'localhost')).err?.message).toBe('TRIPWIRE: would have connected to 10.0.0.1 (localhost)');
    answer = ['::ffff:169.254.169.254'];
    expect((await lookup(checked, 'localhost')).err?.message).toBe('TRIPWIRE: would have connected to ::ffff:169.254.169.254 (localhost)');
    expect((await lookup(checked, 'metadata.google.internal')).err?.message).toBe('TRIPWIRE: would have resolved metadata.google.internal');
    expect(asked).toEqual(['localhost', 'localhost', 'localhost']);
  });

  it('resolves in memory: localhost to the chosen addresses, any other name to ENOTFOUND', async () => {
    const tripwire = createTripwire({ localhost: ['127.0.0.1', '::1'] });
    expect(await lookup(tripwire.lookup, 'localhost')).toEqual({
      err: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await lookup(tripwire.lookup, 'localhost', { family: 6 })).toEqual({ err: null, address: '::1' });
    expect((await lookup(tripwire.lookup, 'example.test')).err).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('without a lookup of its own (the open pool), the connector resolves through the in-memory one', async () => {
    const fake = fakeConnector();
    const tripwire = createTripwire({ localhost: ['10.0.0.1'], build: fake.build });
    tripwire.buildConnector({});
    expect((await lookup(fake.lookup(), 'localhost')).err?.message).toBe('TRIPWIRE: would have connected to 10.0.0.1 (localhost)');
  });
});
