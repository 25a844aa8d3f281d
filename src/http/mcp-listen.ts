import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { sha256Hex } from '../protocol/canonical.js';
import { GatewayError } from '../protocol/errors.js';
import { toMcp } from '../protocol/providers/mcp.js';
import type { Caller, PipelineDeps } from '../pipeline/types.js';

/** Streams one API key may hold open on a replica at once (GET /mcp); past it RATE_LIMITED. */
export const STREAMS_PER_KEY = 8;
/** How often an open stream gets a keep-alive comment, and its caller's tool list (breakers included) is looked at again. */
export const KEEP_ALIVE_MS = 15_000;
/** How long shutdown waits for an ended stream's socket to close before destroying it. */
const CLOSE_WAIT_MS = 1_000;

type Kind = 'tools' | 'resources' | 'prompts';

/** One open GET /mcp stream and what its caller last saw of each list. */
interface Listener {
  caller: Caller;
  mcpSessionId: string;
  reply: FastifyReply;
  log: FastifyBaseLogger;
  seen: Record<Kind, string>;
  timer: NodeJS.Timeout;
  /** The looks at its tool list, one after another. */
  checking: Promise<void>;
}

/**
 * The server-to-client streams of GET /mcp on this replica (transports, "Listening for Messages from the Server"): each tells its client
 * `notifications/{tools,resources,prompts}/list_changed` when what THAT caller may list changes, and nothing about anyone else's. The
 * gateway keeps no session: a stream lives as long as its connection, and each replica's streams hear of its own upstream connections.
 */
export class ListChangedStreams {
  private readonly open = new Set<Listener>();
  private closing = false;

  constructor(
    private readonly deps: Pick<PipelineDeps, 'catalog' | 'offers' | 'registry'>,
    private readonly keepAliveMs = KEEP_ALIVE_MS,
  ) {
    deps.registry.onChange(() => this.open.forEach((l) => this.checkTools(l)));
    deps.offers?.onChange((changed) => this.open.forEach((l) => changed.forEach((kind) => this.compare(l, kind, this.offersOf(l, kind)))));
  }

  /** Opens a stream for the caller's session on `reply` (hijacked): refused past STREAMS_PER_KEY of the key's, and while closing. */
  async listen(caller: Caller, mcpSessionId: string, reply: FastifyReply, log: FastifyBaseLogger): Promise<void> {
    if (this.closing) throw new GatewayError('NOT_READY', { retryAfterMs: 1_000 });
    const held = [...this.open].filter((l) => l.caller.keyId === caller.keyId).length;
    if (held >= STREAMS_PER_KEY)
      throw new GatewayError('RATE_LIMITED', {
        message: `This API key has ${STREAMS_PER_KEY} GET /mcp streams open on this replica already; close one (DELETE /mcp or end its connection) first.`,
        retryAfterMs: this.keepAliveMs,
      });
    const tools = await this.toolsOf(caller, log);
    // A client gone while its list was read has no stream to keep: its 'close' has passed already.
    const socket = reply.raw.socket;
    if (!socket || socket.destroyed) {
      reply.hijack();
      return;
    }
    const listener: Listener = {
      caller,
      mcpSessionId,
      reply,
      log,
      seen: { tools, resources: '', prompts: '' },
      timer: setInterval(() => {
        this.write(listener, ': keep-alive\n\n');
        this.checkTools(listener);
      }, this.keepAliveMs).unref(),
      checking: Promise.resolve(),
    };
    listener.seen.resources = this.offersOf(listener, 'resources');
    listener.seen.prompts = this.offersOf(listener, 'prompts');
    this.open.add(listener);
    reply.hijack();
    // Connection: close, so an ended stream frees its socket at once and a shutdown never waits on it.
    const headers = { ...reply.getHeaders(), 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' };
    reply.raw.writeHead(200, headers as Record<string, string | number | string[]>);
    reply.raw.once('close', () => this.drop(listener));
    this.write(listener, ': listening for list changes\n\n');
  }

  /** DELETE /mcp: ends the caller's streams of that session on this replica; how many there were. */
  end(caller: Caller, mcpSessionId: string): number {
    const ended = [...this.open].filter((l) => l.caller.keyId === caller.keyId && l.mcpSessionId === mcpSessionId);
    for (const listener of ended) this.finish(listener);
    return ended.length;
  }

  /** Shutdown: ends every stream and waits (briefly) for each socket to close, destroying the ones that do not. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...this.open].map(
        (listener) =>
          new Promise<void>((resolve) => {
            const raw = listener.reply.raw;
            const late = setTimeout(() => {
              raw.destroy();
              resolve();
            }, CLOSE_WAIT_MS);
            raw.once('close', () => {
              clearTimeout(late);
              resolve();
            });
            this.finish(listener);
          }),
      ),
    );
  }

  private finish(listener: Listener): void {
    this.drop(listener);
    listener.reply.raw.end();
  }

  private drop(listener: Listener): void {
    clearInterval(listener.timer);
    this.open.delete(listener);
  }

  private write(listener: Listener, text: string): void {
    const raw = listener.reply.raw;
    if (!raw.writableEnded && !raw.destroyed) raw.write(text);
  }

  private checkTools(listener: Listener): void {
    listener.checking = listener.checking
      .then(async () => this.compare(listener, 'tools', await this.toolsOf(listener.caller, listener.log)))
      .catch((err: unknown) => listener.log.warn({ err }, 'GET /mcp: the tool list could not be read for a list change'));
  }

  /** Sends `notifications/<kind>/list_changed` when what the caller sees of `kind` differs from what it last saw. */
  private compare(listener: Listener, kind: Kind, now: string): void {
    if (!this.open.has(listener) || listener.seen[kind] === now) return;
    listener.seen[kind] = now;
    this.write(listener, `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` })}\n\n`);
  }

  /** What tools/list would answer the caller (breaker-open tools left out), as a hash. */
  private async toolsOf(caller: Caller, log: FastifyBaseLogger): Promise<string> {
    const visible = await this.deps.catalog.visible(caller, log);
    return sha256Hex(JSON.stringify(toMcp(visible.map((e) => e.tool))));
  }

  /** What resources/list and resources/templates/list, or prompts/list, would answer the caller, as a hash. */
  private offersOf(listener: Listener, kind: 'resources' | 'prompts'): string {
    const offers = this.deps.offers;
    if (!offers) return '';
    const lists =
      kind === 'resources' ? [offers.resources(listener.caller), offers.templates(listener.caller)] : offers.prompts(listener.caller);
    return sha256Hex(JSON.stringify(lists));
  }
}
