import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SpecOrigin } from './document.js';
import type { PlannedDocument } from './plan.js';

/** What the load's worker is given: the document's bytes and where they came from. */
export interface LoadInput {
  bytes: Uint8Array;
  origin: SpecOrigin;
}

/** What it answers: the document planned, or why it cannot be read. */
export type LoadOutput = { ok: true; document: PlannedDocument } | { ok: false; message: string };

/** A load stopped by one of its bounds (the fetch's included); `bound` names the setting. */
export class LoadBoundError extends Error {
  constructor(
    readonly bound: 'spec_timeout_ms' | 'spec_memory_mb' | 'max_spec_bytes',
    message: string,
  ) {
    super(message);
  }
}

interface LoadLimits {
  timeoutMs: number;
  memoryMb: number;
  /** Aborted when the gateway stops: the worker ends at once. */
  signal?: AbortSignal;
}

/** How many loads' workers run at once; the others wait their turn, which is not counted against their `spec_timeout_ms`. */
export interface LoadSlots {
  run<T>(load: () => Promise<T>): Promise<T>;
}

/** At most `count` workers at once: the loads' memory is then at most `count` times the largest `spec_memory_mb`. */
export function createLoadSlots(count: number): LoadSlots {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    async run(load) {
      if (running >= count) await new Promise<void>((resolve) => waiting.push(resolve));
      running++;
      try {
        return await load();
      } finally {
        running--;
        waiting.shift()?.();
      }
    },
  };
}

/** Under a TypeScript runner (tests, tsx) the entry is a .ts file, which a worker can import only once tsx's loader is registered in it. */
function startWorker(input: LoadInput, memoryMb: number): Worker {
  // The pathname, not the URL: a loader may put a query after it (tsx's tsImport does).
  const entry = new URL(`./load-worker${new URL(import.meta.url).pathname.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const options = {
    workerData: input,
    // The young generation counts too: a load holds little short-lived data, so most of the bound goes to the old one.
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.max(8, Math.floor(memoryMb / 16)), stackSizeMb: 4 },
  };
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  // tsx's ESM entry, as its package's exports name it (a require() of it would give the CommonJS one).
  const require = createRequire(import.meta.url);
  const manifest = require('tsx/package.json') as { exports: Record<string, { import: { default: string } }> };
  const tsx = pathToFileURL(join(dirname(require.resolve('tsx/package.json')), manifest.exports['./esm/api']!.import.default)).href;
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}

/**
 * Parse, read and plan a document in a worker thread of its own, so that neither a slow document nor a huge one holds the gateway's event
 * loop or heap: past `timeoutMs` or `memoryMb` the worker is ended and a {@link LoadBoundError} names the bound. A document that cannot be
 * read throws a plain Error saying why.
 */
export function loadInWorker(input: LoadInput, limits: LoadLimits): Promise<PlannedDocument> {
  return new Promise((resolve, reject) => {
    if (limits.signal?.aborted) return reject(new Error('the load was stopped: the gateway is shutting down'));
    const worker = startWorker(input, limits.memoryMb);
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', stop);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new LoadBoundError('spec_timeout_ms', `was not read within spec_timeout_ms (${limits.timeoutMs} ms); the load was stopped`))),
      limits.timeoutMs,
    );
    const stop = () => settle(() => reject(new Error('the load was stopped: the gateway is shutting down')));
    limits.signal?.addEventListener('abort', stop);
    worker.on('message', (output: LoadOutput) => settle(() => (output.ok ? resolve(output.document) : reject(new Error(output.message)))));
    worker.on('error', (err: Error & { code?: string }) =>
      settle(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new LoadBoundError('spec_memory_mb', `needs more than spec_memory_mb (${limits.memoryMb} MB) to be read; the load was stopped`)
            : new Error(`could not be read: ${err.message}`),
        ),
      ),
    );
    worker.on('exit', () => settle(() => reject(new Error('could not be read: its load ended without an answer'))));
  });
}
