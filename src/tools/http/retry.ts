import { setTimeout as delay } from 'node:timers/promises';

/** Statuses worth another attempt: the upstream is throttling or briefly unavailable. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Waits `ms`, rejecting when the signal aborts. Injected so tests need not wait. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, { signal });
};

const BASE_DELAY_MS = 200;
const MAX_DELAY_MS = 5_000;

/** Backoff with equal jitter (half fixed, half random, so replicas do not retry in step); `attempt` counts retries made. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return step / 2 + random() * (step / 2);
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3). Undefined when absent or unparseable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // An HTTP date always names its month; this keeps Date.parse from reading "-1" as a year.
  if (!/[A-Za-z]/.test(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
