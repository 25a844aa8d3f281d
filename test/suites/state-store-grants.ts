import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import type { GrantStore } from '../../src/state/grants.js';
import { type StoreUnderTest } from './state-store-kit.js';

const grant = (sealed: string) => ({ sealed, scopes: ['repo'], expiresAt: 1_767_225_660_000, connectedAt: 1_767_225_600_000 });

/** GrantStore: users' sealed grants per (tenant, user, provider), the refresh lease, one-use flow records. */
export function describeGrantStore(ctx: StoreUnderTest<{ grants: GrantStore }>): void {
  let store: GrantStore;
  let clock: ManualClock;
  beforeEach(() => {
    const harness = ctx();
    store = harness.store.grants;
    clock = harness.clock;
  });

  describe('grants', () => {
    it('keeps a grant per tenant, user and provider, each write a new version', async () => {
      expect(await store.putGrant('acme', 'alice', 'github', grant('a1'))).toBe(1);
      expect(await store.putGrant('acme', 'bob', 'github', grant('b1'))).toBe(1);
      expect(await store.putGrant('acme', 'alice', 'github', grant('a2'))).toBe(2);
      expect(await store.getGrant('acme', 'alice', 'github')).toEqual({ ...grant('a2'), version: 2 });
      expect(await store.getGrant('other', 'alice', 'github')).toBeNull();
      expect(await store.getGrant('acme', 'alice', 'google')).toBeNull();
      const all = await store.listGrants('acme');
      expect(all.map((e) => `${e.user}/${e.provider}/${e.grant.sealed}`).sort()).toEqual(['alice/github/a2', 'bob/github/b1']);
      expect((await store.listGrants('acme', 'bob')).map((e) => e.user)).toEqual(['bob']);
      expect(await store.listGrants('other')).toEqual([]);
    });

    it('names with separators stay apart (a user named a:b is not user a at provider b)', async () => {
      await store.putGrant('acme', 'a:b', 'c', grant('x'));
      await store.putGrant('acme', 'a', 'b:c', grant('y'));
      const all = await store.listGrants('acme');
      expect(all.map((e) => [e.user, e.provider, e.grant.sealed]).sort()).toEqual([
        ['a', 'b:c', 'y'],
        ['a:b', 'c', 'x'],
      ]);
    });

    it('writes over an expected version only: a refresh never revives a forgotten grant nor overwrites a newer one', async () => {
      await store.putGrant('acme', 'alice', 'github', grant('a1'));
      expect(await store.putGrant('acme', 'alice', 'github', grant('stale'), 7)).toBeNull();
      expect(await store.putGrant('acme', 'alice', 'github', grant('a2'), 1)).toBe(2);
      expect(await store.putGrant('acme', 'alice', 'github', grant('again'), 1)).toBeNull();
      expect((await store.deleteGrant('acme', 'alice', 'github'))?.sealed).toBe('a2');
      expect(await store.deleteGrant('acme', 'alice', 'github')).toBeNull();
      expect(await store.putGrant('acme', 'alice', 'github', grant('revived'), 2)).toBeNull();
      expect(await store.getGrant('acme', 'alice', 'github')).toBeNull();
    });

    it('keeps an empty scope list a list', async () => {
      await store.putGrant('acme', 'alice', 'github', { ...grant('a'), scopes: [], expiresAt: null });
      expect(await store.getGrant('acme', 'alice', 'github')).toMatchObject({ scopes: [], expiresAt: null });
    });
  });

  describe('refresh lease', () => {
    it('is held by one holder at a time, given back by that holder only, and lapses', async () => {
      expect(await store.leaseRefresh('acme', 'alice', 'github', 'r1', 50)).toBe(true);
      expect(await store.leaseRefresh('acme', 'alice', 'github', 'r2', 50)).toBe(false);
      expect(await store.leaseRefresh('acme', 'bob', 'github', 'r2', 50)).toBe(true);
      await store.endRefresh('acme', 'alice', 'github', 'r2');
      expect(await store.leaseRefresh('acme', 'alice', 'github', 'r2', 50)).toBe(false);
      await store.endRefresh('acme', 'alice', 'github', 'r1');
      expect(await store.leaseRefresh('acme', 'alice', 'github', 'r2', 30)).toBe(true);
      clock.advance(80);
      await sleep(80);
      expect(await store.leaseRefresh('acme', 'alice', 'github', 'r3', 50)).toBe(true);
    });
  });

  describe('one-use records', () => {
    it('are taken once, by kind, and lapse', async () => {
      await store.putOnce('link', 'id1', 'value', 60_000, clock.now());
      expect(await store.takeOnce('flow', 'id1', clock.now())).toBeNull();
      expect(await store.takeOnce('link', 'id1', clock.now())).toBe('value');
      expect(await store.takeOnce('link', 'id1', clock.now())).toBeNull();
      await store.putOnce('link', 'id2', 'value', 30, clock.now());
      clock.advance(80);
      await sleep(80);
      expect(await store.takeOnce('link', 'id2', clock.now())).toBeNull();
    });
  });

  describe('links', () => {
    it('a target points at its link while it lives unused; a link taken or lapsed is no longer pending', async () => {
      const now = clock.now();
      expect(await store.pendingLink('t1', now)).toBeNull();
      expect(await store.putLink('acme', 't1', 'L1', 'sealed-1', 60_000, 10, now)).toBe(true);
      expect(await store.pendingLink('t1', now)).toEqual({ id: 'L1', expiresAt: now + 60_000 });
      expect(await store.pendingLink('t2', now)).toBeNull();
      expect(await store.takeOnce('link', 'L1', now)).toBe('sealed-1');
      expect(await store.pendingLink('t1', now)).toBeNull();
      expect(await store.putLink('acme', 't2', 'L2', 'sealed-2', 30, 10, now)).toBe(true);
      clock.advance(80);
      await sleep(80);
      expect(await store.pendingLink('t2', clock.now())).toBeNull();
    });

    it('a tenant makes at most `max` links within a link’s life; others are not held back, and lapsed ones free room', async () => {
      const now = clock.now();
      expect(await store.putLink('acme', 'a', 'A1', 'v', 50, 2, now)).toBe(true);
      expect(await store.putLink('acme', 'b', 'A2', 'v', 50, 2, now)).toBe(true);
      expect(await store.putLink('acme', 'c', 'A3', 'v', 50, 2, now)).toBe(false);
      expect(await store.takeOnce('link', 'A3', now)).toBeNull();
      expect(await store.pendingLink('c', now)).toBeNull();
      expect(await store.putLink('other', 'c', 'O1', 'v', 50, 2, now)).toBe(true);
      clock.advance(80);
      await sleep(80);
      expect(await store.putLink('acme', 'c', 'A4', 'v', 50, 2, clock.now())).toBe(true);
    });
  });
}
