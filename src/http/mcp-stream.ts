import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RpcId } from '../protocol/mcp.js';
import type { Caller } from '../pipeline/types.js';
import type { ToolEvents } from '../tools/tool.js';

/** Whether the client of a POST takes an SSE answer (transports, "Sending Messages to the Server"). */
export function acceptsEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.toLowerCase().includes('text/event-stream');
}

/**
 * The answer to one `tools/call` POST, as JSON until the call has something to tell while it runs: the first progress or log message turns
 * it into an SSE stream (headers as the reply had them), which carries each message and then the response. A call that tells nothing is
 * answered with JSON as before, through the reply's own hooks.
 */
export class LazyEventStream {
  #started = false;

  constructor(private readonly reply: FastifyReply) {}

  get started(): boolean {
    return this.#started;
  }

  send(message: unknown): void {
    if (!this.#started) {
      this.#started = true;
      this.reply.hijack();
      const headers = { ...this.reply.getHeaders(), 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
      this.reply.raw.writeHead(200, headers as Record<string, string | number | string[]>);
    }
    if (!this.reply.raw.writableEnded && !this.reply.raw.destroyed)
      this.reply.raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  end(): void {
    this.reply.raw.end();
  }

  /**
   * The caller's events for the pipeline: an upstream's log messages (`notifications/message`), and its progress under the client's own
   * `progressToken` when the request carried one.
   */
  events(progressToken: unknown): ToolEvents {
    const events: ToolEvents = { log: (entry) => this.send({ jsonrpc: '2.0', method: 'notifications/message', params: entry }) };
    if (typeof progressToken === 'string' || typeof progressToken === 'number') {
      events.progress = (update) => this.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, ...update } });
    }
    return events;
  }
}

/**
 * The `tools/call` requests this replica is running, by caller, MCP session and request id, so that a `notifications/cancelled` from the
 * same client stops its own call and no other.
 */
export class CallsInFlight {
  private readonly running = new Map<string, AbortController>();

  private static key(caller: Caller, mcpSessionId: string | undefined, id: unknown): string {
    return `${caller.keyId}\n${mcpSessionId ?? ''}\n${JSON.stringify(id)}`;
  }

  /** A call started: its cancel signal, and the release to call when it ends. */
  start(caller: Caller, mcpSessionId: string | undefined, id: RpcId): { signal: AbortSignal; done: () => void } {
    const key = CallsInFlight.key(caller, mcpSessionId, id);
    const controller = new AbortController();
    this.running.set(key, controller);
    return { signal: controller.signal, done: () => this.running.get(key) === controller && this.running.delete(key) };
  }

  /** `notifications/cancelled`: stops the caller's call of that request id, if it still runs here. */
  cancel(caller: Caller, mcpSessionId: string | undefined, id: unknown): void {
    this.running.get(CallsInFlight.key(caller, mcpSessionId, id))?.abort();
  }
}
