import { describe, expect, it } from 'vitest';
import { scopeOf, scopeTenant } from '../../../../src/state/breaker-scope.js';
import { hashTag, RedisKeys } from '../../../../src/state/redis/keys.js';
import { clusterSlot } from '../../../helpers/cluster-slot.js';

const keys = new RedisKeys('tg');
const ref = { tenant: 'acme', sessionId: 's', callId: 'c' };

describe('Redis key layout: which slot each kind is in', () => {
  it('puts everything of a tenant in its slot, whatever the session, path or subject', () => {
    const slot = clusterSlot(keys.tenant('acme'));
    for (const key of [
      keys.call(ref),
      keys.call({ ...ref, sessionId: 'other' }),
      keys.request('acme', 'idem'),
      keys.approval('acme', 's', 'Edit', 'h'),
      keys.approvalIndex('acme'),
      keys.lock('acme', 's', 'src/{x}.ts'),
      keys.rate('acme', 'key-1', 'Edit'),
      keys.breaker(scopeOf('Edit', 'acme')),
    ])
      expect(clusterSlot(key), key).toBe(slot);
  });

  it('keeps shared breakers, the approvals index and failed-login counters out of every tenant’s slot', () => {
    expect(keys.breaker('Edit')).toBe('{tg:breakers}:breaker:Edit');
    expect(hashTag(keys.breaker('Read'))).toBe(hashTag(keys.breaker('Edit')));
    expect(hashTag(keys.approvalIndex(null))).toBe(hashTag(keys.approvalId('apr_1')));
    expect(hashTag(keys.hit('auth-failures:10.0.0.1', 0))).toBe(hashTag(keys.hit('auth-failures:10.0.0.1', 60_000)));
    expect(hashTag(keys.hit('auth-failures:10.0.0.1', 0))).not.toBe(hashTag(keys.hit('auth-failures:10.0.0.2', 0)));
    const tags = new Set([keys.tenant('acme'), keys.tenant('globex'), keys.breaker('Edit'), keys.approvalIndex(null)].map(hashTag));
    expect(tags.size).toBe(4);
  });

  it('cannot let a tenant, session or path move the hash tag', () => {
    const tricky = keys.call({ tenant: 'a}b{c', sessionId: '}{', callId: '{x}' });
    expect(hashTag(tricky)).toBe('tg:tenant:a%7Db%7Bc');
    expect(keys.tenant('a:b')).not.toBe(keys.tenant('a'));
    expect(() => new RedisKeys('a{b')).toThrow(/braces/);
  });

  it('reads the hash tag as Redis Cluster does', () => {
    for (const key of ['plain', '{tag}rest', 'a{tag}b', '{}x{y}', 'a{', 'a}{b}', '{{x}}']) {
      // What the store groups by hashes to the slot the key is in.
      expect(clusterSlot(hashTag(key)), key).toBe(clusterSlot(key));
    }
    expect(hashTag('{}x{y}')).toBe('{}x{y}');
    expect(hashTag('a}{b}')).toBe('b');
    expect(hashTag('{{x}}')).toBe('{x');
  });

  it('leaves the queue its own prefix, as BullMQ expects', () => {
    expect(keys.queuePrefix()).toBe('{tg}:queue');
  });
});

describe('breaker scope', () => {
  it('names the tenant of a per-tenant breaker and none for a shared one', () => {
    expect(scopeTenant(scopeOf('Edit', 'acme'))).toBe('acme');
    expect(scopeTenant(scopeOf('Edit', null))).toBeNull();
    // Tool names cannot hold a colon; a tenant given to the store directly may.
    expect(scopeTenant(scopeOf('Edit', 'a:b'))).toBe('a:b');
  });
});
