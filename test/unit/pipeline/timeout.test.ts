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
