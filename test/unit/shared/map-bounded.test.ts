import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../../src/shared/map-bounded.js';

/** A task that records how many run at once and finishes in reverse order of start. */
function tracked() {
  let inFlight = 0;
  let most = 0;
  const task = async (n: number) => {
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 20 - n));
    inFlight--;
    return n * 10;
  };
  return { task, most: () => most };
}

describe('mapBounded', () => {
  it('runs at most `limit` tasks at once and keeps the input order', async () => {
    const t = tracked();
    expect(await mapBounded([1, 2, 3, 4, 5, 6, 7], 3, t.task)).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(t.most()).toBe(3);
  });

  it('starts every task at once when they fit within the limit', async () => {
    const t = tracked();
    expect(await mapBounded([1, 2, 3], 8, t.task)).toEqual([10, 20, 30]);
    expect(t.most()).toBe(3);
  });

  it('answers an empty list with an empty list', async () => {
    expect(await mapBounded([], 2, async () => 1)).toEqual([]);
  });
});
