import { describe, expect, it } from 'vitest';
import { runWithTimeout } from '../../../src/pipeline/timeout.js';

describe('runWithTimeout', () => {
  it('says whether the call was aborted without making its signal, and the signal made after the deadline is aborted', async () => {
    let seen: { readonly signal: AbortSignal; readonly aborted: boolean } | undefined;
    const before: boolean[] = [];
    await expect(
      runWithTimeout(20, async (abort) => {
        seen = abort;
        before.push(abort.aborted);
        await new Promise((resolve) => setTimeout(resolve, 60));
      }),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(before).toEqual([false]);
    expect(seen!.aborted).toBe(true);
    expect(seen!.signal.aborted).toBe(true);
    expect(seen!.signal.reason).toMatchObject({ code: 'TIMEOUT' });
  });

  it('a call that finishes in time was never aborted', async () => {
    let seen: { readonly aborted: boolean } | undefined;
    await expect(
      runWithTimeout(1_000, async (abort) => {
        seen = abort;
        return 'done';
      }),
    ).resolves.toBe('done');
    expect(seen!.aborted).toBe(false);
  });
});

describe('runWithTimeout deadlines', () => {
  const forever = () => new Promise<never>(() => {});
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** When a call settled, in ms from `t0`, and how. */
  const settled = (t0: number, call: Promise<unknown>) =>
    call.then(
      () => ({ ms: performance.now() - t0, code: 'ok' }),
      (err: { code?: string }) => ({ ms: performance.now() - t0, code: err.code }),
    );

  it('each call ends at its own deadline: calls with one timeout started apart, and calls with another timeout in flight', async () => {
    const t0 = performance.now();
    const first = settled(t0, runWithTimeout(40, forever));
    const other = settled(t0, runWithTimeout(20, forever));
    await sleep(30);
    const later = settled(t0, runWithTimeout(40, forever));
    const [a, b, c] = await Promise.all([first, other, later]);
    expect([a.code, b.code, c.code]).toEqual(['TIMEOUT', 'TIMEOUT', 'TIMEOUT']);
    expect(b.ms).toBeGreaterThanOrEqual(19);
    expect(a.ms).toBeGreaterThanOrEqual(39);
    expect(c.ms).toBeGreaterThanOrEqual(69);
    expect(b.ms).toBeLessThanOrEqual(a.ms);
    expect(a.ms).toBeLessThanOrEqual(c.ms);
  });

  it('a call that finishes first leaves the others their deadlines, and one that finishes in time is not cut', async () => {
    const t0 = performance.now();
    const quick = settled(
      t0,
      runWithTimeout(50, () => sleep(5).then(() => 'done')),
    );
    const slow = settled(t0, runWithTimeout(50, forever));
    const inTime = settled(
      t0,
      runWithTimeout(50, () => sleep(25).then(() => 'done')),
    );
    const [q, s, i] = await Promise.all([quick, slow, inTime]);
    expect([q.code, i.code, s.code]).toEqual(['ok', 'ok', 'TIMEOUT']);
    expect(s.ms).toBeGreaterThanOrEqual(49);
    // A call started after all this still gets its whole timeout.
    const t1 = performance.now();
    const next = await settled(t1, runWithTimeout(30, forever));
    expect(next.code).toBe('TIMEOUT');
    expect(next.ms).toBeGreaterThanOrEqual(29);
  });
});
