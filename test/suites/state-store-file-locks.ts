import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import { ADMISSION_CONSTANTS } from '../../src/state/admission-constants.js';
import type { FileLockRequest, FileLockStore } from '../../src/state/file-locks.js';
import { TENANT, type StoreUnderTest } from './state-store-kit.js';

const LEASE_MS = 5_000;
const request = (holder: string, overrides: Partial<FileLockRequest> = {}): FileLockRequest => ({
  tenant: TENANT,
  path: 'src/app.ts',
  holder,
  leaseMs: LEASE_MS,
  ...overrides,
});

/** FileLockStore. Rule: one holder of a file's write lock at a time across the fleet; a lapsed holder is fenced by name. */
export function describeFileLockStore(ctx: StoreUnderTest<FileLockStore>): void {
  let store: FileLockStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });
  const lock = (holder: string, overrides?: Partial<FileLockRequest>) => store.lockFile(request(holder, overrides), clock.now());

  describe('file write locks', () => {
    it('grants a free file, answers busy with the lease left while it is held, and grants again once released', async () => {
      expect(await lock('.app.ts.a.tmp')).toEqual({ outcome: 'granted', fence: [] });
      clock.advance(1_000);
      expect(await lock('.app.ts.b.tmp')).toEqual({ outcome: 'busy', retryAfterMs: LEASE_MS - 1_000 });
      await store.unlockFile(TENANT, 'src/app.ts', '.app.ts.a.tmp');
      expect(await lock('.app.ts.b.tmp')).toEqual({ outcome: 'granted', fence: [] });
    });

    it('is per file and per tenant', async () => {
      expect(await lock('a')).toMatchObject({ outcome: 'granted' });
      expect(await lock('b', { path: 'src/other.ts' })).toMatchObject({ outcome: 'granted' });
      expect(await lock('c', { tenant: 'globex' })).toMatchObject({ outcome: 'granted' });
      expect(await lock('d', { path: 'src/app.ts ' })).toMatchObject({ outcome: 'granted' });
    });

    it('a release by anyone but the holder changes nothing', async () => {
      await lock('a');
      await store.unlockFile(TENANT, 'src/app.ts', 'b');
      await store.unlockFile('globex', 'src/app.ts', 'a');
      expect(await lock('b')).toMatchObject({ outcome: 'busy' });
    });

    it('a lapsed lease goes to the next asker with the lapsed holder in its fence; the fence carries on until a holder releases', async () => {
      await lock('a');
      clock.advance(LEASE_MS);
      expect(await lock('b')).toEqual({ outcome: 'granted', fence: ['a'] });
      // The lapsed holder's release no longer counts: b holds the lock.
      await store.unlockFile(TENANT, 'src/app.ts', 'a');
      expect(await lock('x')).toMatchObject({ outcome: 'busy' });
      // b lapses too, before it removed a's temp file: c must remove both.
      clock.advance(LEASE_MS);
      expect(await lock('c')).toEqual({ outcome: 'granted', fence: ['a', 'b'] });
      await store.unlockFile(TENANT, 'src/app.ts', 'c');
      expect(await lock('d')).toEqual({ outcome: 'granted', fence: [] });
    });

    it('a lapsed holder is still named to a successor that comes much later, within the record time', async () => {
      await lock('a');
      clock.advance(ADMISSION_CONSTANTS.FILE_LOCK_RECORD_MS - 1);
      expect(await lock('b')).toEqual({ outcome: 'granted', fence: ['a'] });
    });

    it('names with spaces, colons and dots come back as given', async () => {
      await lock('.my notes: v2.md.0a1b2c.tmp');
      clock.advance(LEASE_MS);
      expect(await lock('next')).toEqual({ outcome: 'granted', fence: ['.my notes: v2.md.0a1b2c.tmp'] });
    });
  });
}
