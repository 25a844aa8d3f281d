import { GatewayError } from '../protocol/errors.js';

/**
 * Run `work` with a hard deadline. The signal tells the tool to stop; a tool
 * that ignores it still loses the race at the deadline, and whatever it
 * returns later is dropped.
 */
export async function runWithTimeout<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new GatewayError('TIMEOUT', {
        message: `The tool did not finish within ${timeoutMs} ms.`,
        suggestion: 'Retry, or ask for less work in one call.',
      });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const running = Promise.resolve().then(() => work(controller.signal));
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Run `task` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
