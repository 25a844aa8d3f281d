import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring, keyringFromEnv } from '../../../src/vault/keyring.js';

const key = () => randomBytes(32);

describe('the vault keyring (AES-256-GCM under keys named by id)', () => {
  it('opens what it sealed, for the same context only', () => {
    const ring = createKeyring('k1', new Map([['k1', key()]]));
    const sealed = ring.seal('gho_secret-token', 'grant\0acme\0alice\0github');
    expect(sealed).not.toContain('gho_secret-token');
    expect(sealed.split('.').slice(0, 2)).toEqual(['v1', 'k1']);
    expect(ring.open(sealed, 'grant\0acme\0alice\0github')).toBe('gho_secret-token');
    // A record copied under another user's name does not open there.
    expect(() => ring.open(sealed, 'grant\0acme\0bob\0github')).toThrow();
  });

  it('refuses a record altered anywhere, or relabelled to another key id', () => {
    const k = key();
    const ring = createKeyring(
      'k1',
      new Map([
        ['k1', k],
        ['k2', k],
      ]),
    );
    const sealed = ring.seal('token', 'ctx');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => ring.open([...parts.slice(0, 3), flipped.toString('base64url'), parts[4]].join('.'), 'ctx')).toThrow();
    expect(() => ring.open(['v1', 'k2', ...parts.slice(2)].join('.'), 'ctx')).toThrow();
    expect(() => ring.open([...parts.slice(0, 4), parts[4]!.slice(0, 8)].join('.'), 'ctx')).toThrow();
  });

  it('rotates: records of an earlier key still open, new ones are sealed under the current key', () => {
    const old = key();
    const before = createKeyring('2026-01', new Map([['2026-01', old]]));
    const sealed = before.seal('token', 'ctx');
    const { keyring, problems } = keyringFromEnv({
      TOOLGATE_VAULT_KEY: key().toString('base64'),
      TOOLGATE_VAULT_KEY_ID: '2026-02',
      TOOLGATE_VAULT_OLD_KEYS: `2026-01:${old.toString('base64')}`,
    });
    expect(problems).toEqual([]);
    expect(keyring!.open(sealed, 'ctx')).toBe('token');
    expect(keyring!.seal('token', 'ctx').split('.')[1]).toBe('2026-02');
    const without = keyringFromEnv({ TOOLGATE_VAULT_KEY: key().toString('base64'), TOOLGATE_VAULT_KEY_ID: '2026-02' }).keyring!;
    expect(() => without.open(sealed, 'ctx')).toThrow(/sealed under the key 2026-01, which is not configured/);
  });

  it('refuses a key that is missing, too short or unnamed, never showing a value', () => {
    expect(keyringFromEnv({}).problems).toEqual([
      'TOOLGATE_VAULT_KEY: not set; grants are stored encrypted under it (openssl rand -base64 32)',
      'TOOLGATE_VAULT_KEY_ID: must name the key in 1 to 32 letters, digits, _ or - (e.g. 2026-01); records carry it',
    ]);
    const short = randomBytes(16).toString('base64');
    const { problems } = keyringFromEnv({
      TOOLGATE_VAULT_KEY: short,
      TOOLGATE_VAULT_KEY_ID: 'k1',
      TOOLGATE_VAULT_OLD_KEYS: `k0:${short},nocolon`,
    });
    expect(problems).toEqual([
      'TOOLGATE_VAULT_KEY must be base64 of 32 random bytes (openssl rand -base64 32); it decodes to 16 bytes',
      'TOOLGATE_VAULT_OLD_KEYS (key k0) must be base64 of 32 random bytes (openssl rand -base64 32); it decodes to 16 bytes',
      'TOOLGATE_VAULT_OLD_KEYS: each entry must be id:base64-key, entries separated by commas',
    ]);
    expect(problems.join('\n')).not.toContain(short);
  });
});
