import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../../src/webhooks/deliver.js';

describe('retryDelay', () => {
  it('waits the backoff before the first retry and twice as long before each next one', () => {
    const policy = { retries: 4, backoffMs: 250, timeoutMs: 1_000 };
    expect([2, 3, 4, 5].map((next) => retryDelay(policy, next))).toEqual([250, 500, 1_000, 2_000]);
  });
});
