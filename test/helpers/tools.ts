import { GatewayError } from '../../src/protocol/errors.js';
import type { Tool, ToolOutput } from '../../src/tools/tool.js';

const anyArgs = { type: 'object', properties: {}, additionalProperties: true } as const;

/** Records when calls start and end, to observe which ran together. */
export class Timeline {
  readonly events: Array<{ kind: 'start' | 'end'; name: string; id: string; at: number }> = [];
  private running = 0;
  maxConcurrent = 0;

  start(name: string, id: string): void {
    this.running += 1;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.running);
    this.events.push({ kind: 'start', name, id, at: performance.now() });
  }

  end(name: string, id: string): void {
    this.running -= 1;
    this.events.push({ kind: 'end', name, id, at: performance.now() });
  }

  /** Ids that were running at the same time as `id`. */
  overlapping(id: string): string[] {
    const own = this.span(id);
    return [...new Set(this.events.map((e) => e.id))].filter((other) => {
      if (other === id) return false;
      const span = this.span(other);
      return span.start < own.end && own.start < span.end;
    });
  }

  private span(id: string): { start: number; end: number } {
    const start = this.events.find((e) => e.id === id && e.kind === 'start');
    const end = this.events.find((e) => e.id === id && e.kind === 'end');
    return { start: start?.at ?? Infinity, end: end?.at ?? -Infinity };
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/** A tool that sleeps `ms` (argument or default) and echoes its arguments. */
export function slowTool(
  name: string,
  options: { safe: boolean; ms?: number; timeline?: Timeline; timeoutMs?: number; counter?: { runs: number } },
): Tool {
  const tool: Tool = {
    name,
    description: `Test tool ${name}.`,
    parameters: anyArgs,
    concurrencySafe: options.safe,
    async run(args, ctx): Promise<ToolOutput> {
      options.timeline?.start(name, ctx.callId);
      if (options.counter) options.counter.runs += 1;
      try {
        await sleep(typeof args.ms === 'number' ? args.ms : (options.ms ?? 30), ctx.signal);
        return { text: `${name} done`, data: { args } };
      } finally {
        options.timeline?.end(name, ctx.callId);
      }
    },
  };
  if (options.timeoutMs !== undefined) tool.timeoutMs = options.timeoutMs;
  return tool;
}

/** A tool that fails the way it is told to: throw a plain error, a gateway error, or hang ignoring its signal. */
export function faultyTool(name: string, options: { safe?: boolean; counter?: { runs: number }; timeoutMs?: number } = {}): Tool {
  const tool: Tool = {
    name,
    description: `Test tool ${name} that fails on request.`,
    parameters: {
      type: 'object',
      properties: { mode: { type: 'string', enum: ['ok', 'throw', 'fail', 'hang', 'not_found', 'late'] } },
      required: ['mode'],
    },
    concurrencySafe: options.safe ?? true,
    async run(args): Promise<ToolOutput> {
      if (options.counter) options.counter.runs += 1;
      switch (args.mode) {
        case 'throw':
          throw new Error('internal detail /secret/path must not reach the client');
        case 'fail':
          throw new GatewayError('EXECUTION_FAILED', { message: 'the tool reported a failure' });
        case 'not_found':
          throw new GatewayError('NOT_FOUND', { message: 'nothing there' });
        case 'hang':
          return new Promise<ToolOutput>(() => undefined);
        case 'late':
          await sleep(300);
          return { text: 'late result that must be dropped' };
        default:
          return { text: 'ok' };
      }
    },
  };
  if (options.timeoutMs !== undefined) tool.timeoutMs = options.timeoutMs;
  return tool;
}

/** A tool with a big output, for the budgets. */
export function bigOutputTool(name: string): Tool {
  return {
    name,
    description: 'Returns `size` bytes of text.',
    parameters: { type: 'object', properties: { size: { type: 'integer', minimum: 0 }, char: { type: 'string' } }, required: ['size'] },
    concurrencySafe: true,
    async run(args) {
      const char = typeof args.char === 'string' ? args.char : 'x';
      return { text: char.repeat(Number(args.size)) };
    },
  };
}
