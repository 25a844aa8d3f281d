import * as crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/**
 * Keys are stored as hashes and compared in constant time.
 * Timing itself is not measurable in a unit test; what is pinned is how the
 * comparison is made: with `timingSafeEqual`, against every configured key,
 * whichever key (or none) matches, so the work does not depend on the key.
 */

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const KEYS = ['tg_first', 'tg_second', 'tg_third'];
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

describe('API keys are compared in constant time', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      config: {
        keys: KEYS.map((key, i) => ({ id: `k${i}`, sha256: sha256(key), tenant: 't', scopes: ['execute'] })),
        auth: { failures_per_minute: 1_000 },
      },
    });
  });
  afterAll(() => t.close());

  async function comparisonsFor(authorization: string): Promise<{ status: number; comparisons: number }> {
    const spy = vi.mocked(crypto.timingSafeEqual);
    spy.mockClear();
    const res = await t.app.inject({ method: 'GET', url: '/tools', headers: { authorization } });
    return { status: res.statusCode, comparisons: spy.mock.calls.length };
  }

  it('every key is compared, with timingSafeEqual on sha256 digests, whether the first, the last or no key matches', async () => {
    const results = [];
    for (const header of [`Bearer ${KEYS[0]}`, `Bearer ${KEYS[2]}`, 'Bearer tg_unknown']) results.push(await comparisonsFor(header));
    expect(results.map((r) => r.status)).toEqual([200, 200, 401]);
    for (const r of results) expect(r.comparisons).toBe(KEYS.length);
    const [a, b] = vi.mocked(crypto.timingSafeEqual).mock.calls.at(-1)!;
    expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
  });

  it("a configured entry holds the key's sha256 only: the hash itself is not a key", async () => {
    expect((await comparisonsFor(`Bearer ${sha256(KEYS[0]!)}`)).status).toBe(401);
  });
});
