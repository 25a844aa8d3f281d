import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeServices, onStopSignals } from '../../src/stop-signals.js';

type Handler = (signal: NodeJS.Signals) => void;

let handlers: Map<string, Handler>;
let exits: number[];
let logger: { flush: (done: () => void) => void; error: ReturnType<typeof vi.fn>; warn: ReturnType<typeof vi.fn> };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  handlers = new Map();
  exits = [];
  // The handlers are taken, not installed: a real SIGTERM listener would outlive the test in this worker.
  vi.spyOn(process, 'on').mockImplementation(((event: string, handler: Handler) => {
    handlers.set(event, handler);
    return process;
  }) as typeof process.on);
  vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
    exits.push(code);
  }) as typeof process.exit);
  logger = { flush: (done) => done(), error: vi.fn(), warn: vi.fn() };
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('onStopSignals', () => {
  it('runs stop once on SIGTERM or SIGINT, then exits 0', async () => {
    const stop = vi.fn(async () => {});
    onStopSignals(logger as unknown as Logger, 'the batches', stop);
    expect([...handlers.keys()].sort()).toEqual(['SIGINT', 'SIGTERM']);
    handlers.get('SIGINT')!('SIGINT');
    await settle();
    expect(stop).toHaveBeenCalledExactlyOnceWith('SIGINT');
    expect(exits).toEqual([0]);
  });

  it('exits 1 with a log line when stop fails', async () => {
    onStopSignals(logger as unknown as Logger, 'the batches', async () => {
      throw new Error('close failed');
    });
    handlers.get('SIGTERM')!('SIGTERM');
    await settle();
    expect(logger.error).toHaveBeenCalledWith({ err: expect.any(Error) }, 'shutdown failed');
    expect(exits).toEqual([1]);
  });

  it('takes a repeat within a second as the same request, and a later signal as "exit now"', async () => {
    const stop = vi.fn(() => new Promise<void>(() => {}));
    onStopSignals(logger as unknown as Logger, 'the batches', stop);
    handlers.get('SIGINT')!('SIGINT');
    vi.advanceTimersByTime(999);
    handlers.get('SIGTERM')!('SIGTERM');
    expect(exits).toEqual([]);
    vi.advanceTimersByTime(1);
    handlers.get('SIGINT')!('SIGINT');
    expect(logger.warn).toHaveBeenCalledWith({ signal: 'SIGINT' }, 'second signal: exiting without waiting for the batches');
    expect(exits).toEqual([1]);
    expect(stop).toHaveBeenCalledOnce();
  });
});

describe('closeServices', () => {
  it('closes each part after every part that may still use it, the tracer last', async () => {
    const order: string[] = [];
    const part = (name: string) => ({
      close: async () => {
        order.push(name);
      },
    });
    await closeServices({
      outbox: part('outbox'),
      audit: part('audit'),
      metricsApp: part('metrics'),
      mcp: part('mcp'),
      openapi: part('openapi'),
      state: part('state'),
      dispatchers: { guarded: part('guarded'), open: part('open') },
      tracing: { shutdown: async () => void order.push('tracing') },
    });
    expect(order).toEqual(['outbox', 'audit', 'metrics', 'mcp', 'openapi', 'state', 'guarded', 'open', 'tracing']);
  });

  it('skips the parts a process runs without', async () => {
    const order: string[] = [];
    const part = (name: string) => ({ close: async () => void order.push(name) });
    await closeServices({
      outbox: undefined,
      audit: undefined,
      metricsApp: undefined,
      mcp: part('mcp'),
      openapi: part('openapi'),
      state: part('state'),
      dispatchers: { guarded: part('guarded'), open: part('open') },
      tracing: undefined,
    });
    expect(order).toEqual(['mcp', 'openapi', 'state', 'guarded', 'open']);
  });
});
