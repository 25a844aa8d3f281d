import { describe, expect, it } from 'vitest';
import { createLoadSlots, LoadBoundError, loadInWorker } from '../../../../src/tools/openapi/load.js';
import { yamlAliasBomb } from '../../../fixtures/openapi/hostile.js';
import { doc } from './helpers.js';

/** A document's load runs in a worker of its own, ended at its time or memory bound; the caller's thread only waits. */
const origin = { location: '/docs/api.yaml', isUrl: false };
const bytes = (text: string) => new TextEncoder().encode(text);
const ok = bytes(JSON.stringify(doc({ '/ping': { get: { operationId: 'ping', responses: {} } } })));

async function refusal(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => expect.fail('the load should have been refused'),
    (err: unknown) => err as Error,
  );
}

describe('loadInWorker', () => {
  it('answers the planned document', async () => {
    const planned = await loadInWorker({ bytes: ok, origin }, { timeoutMs: 30_000, memoryMb: 128 });
    expect(planned.operations.map((o) => [o.operation.operationId, o.reason])).toEqual([['ping', undefined]]);
  });

  it('a document that cannot be read is a plain error saying why', async () => {
    const err = await refusal(loadInWorker({ bytes: bytes('openapi: [1, 2'), origin }, { timeoutMs: 30_000, memoryMb: 128 }));
    expect(err).not.toBeInstanceOf(LoadBoundError);
    expect(err.message).toMatch(/^is neither JSON nor YAML: /);
  });

  it('past spec_timeout_ms the worker is ended and the bound named, however long the parse would take', async () => {
    const started = performance.now();
    // A megabyte of aliases keeps the YAML parser busy for tens of seconds, in little memory.
    const err = await refusal(loadInWorker({ bytes: bytes(yamlAliasBomb(1)), origin }, { timeoutMs: 1500, memoryMb: 256 }));
    expect(err).toBeInstanceOf(LoadBoundError);
    expect(err).toMatchObject({ bound: 'spec_timeout_ms', message: 'was not read within spec_timeout_ms (1500 ms); the load was stopped' });
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('past spec_memory_mb the worker dies alone and the bound is named: 16 MB of YAML aliases', async () => {
    const started = performance.now();
    const err = await refusal(loadInWorker({ bytes: bytes(yamlAliasBomb(16)), origin }, { timeoutMs: 60_000, memoryMb: 64 }));
    expect(err).toMatchObject({ bound: 'spec_memory_mb', message: 'needs more than spec_memory_mb (64 MB) to be read; the load was stopped' });
    expect(performance.now() - started).toBeLessThan(30_000);
    // This thread is unharmed: it goes on loading.
    await expect(loadInWorker({ bytes: ok, origin }, { timeoutMs: 30_000, memoryMb: 128 })).resolves.toBeDefined();
  });

  it('a stop (the gateway shutting down) ends the load at once', async () => {
    const stop = new AbortController();
    const load = loadInWorker({ bytes: bytes(yamlAliasBomb(1)), origin }, { timeoutMs: 60_000, memoryMb: 256, signal: stop.signal });
    setTimeout(() => stop.abort(), 200);
    const err = await refusal(load);
    expect(err.message).toBe('the load was stopped: the gateway is shutting down');
  });
});

describe('createLoadSlots', () => {
  it('runs at most its count of loads at once; one that fails frees its slot', async () => {
    const slots = createLoadSlots(2);
    let running = 0;
    let most = 0;
    const load = (fail: boolean) =>
      slots.run(async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        if (fail) throw new Error('refused');
        return 'read';
      });
    const results = await Promise.allSettled([load(true), load(false), load(false), load(true), load(false)]);
    expect(most).toBe(2);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });
});
