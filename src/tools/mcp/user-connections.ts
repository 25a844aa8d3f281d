import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpServerConfig } from '../../config/schema.js';
import { GatewayError } from '../../protocol/errors.js';
import { headerTemplates } from '../http/index.js';
import type { ToolContext } from '../tool.js';
import { VERSION } from '../../version.js';
import { answerClientRequests, UPSTREAM_CLIENT_CAPABILITIES, type CallInFlight } from './client-requests.js';
import type { HttpConnector } from './transport.js';

/** One person's connection to the server, while it is open. */
interface Entry {
  /** The headers each request sends: the configured ones and the person's token, replaced when a call brings a refreshed token. */
  headers: Record<string, string>;
  secrets: readonly string[];
  transport: StreamableHTTPClientTransport;
  client: Client;
  ready: Promise<void>;
  /** Calls holding it; an entry with none is idle. */
  readonly calls: Set<object>;
  /** What those calls let the server reach (their log, their caller's answers), as for the shared connection. */
  readonly inFlight: Set<CallInFlight>;
  lastUsed: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/** A call's hold on its person's connection: released when the call ends. */
export interface UserLease {
  readonly client: Client;
  /** The person's token (and every configured secret), scrubbed from the result by value. */
  readonly secrets: readonly string[];
  track(call: CallInFlight): () => void;
  /** The call found the connection gone: it is closed, and the next call opens another. */
  lost(err: unknown): void;
  release(): void;
}

/**
 * The connections of an MCP server with `auth` that act as each calling person (docs/mcp.md, "Per-person connections"): one per (tenant,
 * person), opened at that person's first call with their token from the vault, its requests sending the token the latest call got (so a
 * refreshed token goes on the same session), closed after `idle_close_ms` without a call. At most `max_user_connections` are open: a new
 * one closes the least recently used idle one, and when every one is busy the call answers OVERLOADED (retryable).
 */
export class UserConnections {
  private readonly open = new Map<string, Entry>();
  private readonly templates: ReturnType<typeof headerTemplates>;
  private closed = false;

  constructor(
    private readonly config: McpServerConfig,
    private readonly connector: HttpConnector,
    private readonly log: Logger,
  ) {
    // The person's token replaces a configured header of the same name (the listing connection's own credential).
    this.templates = headerTemplates(config.headers ?? {}, config.auth);
  }

  /** The calling person's connection; AUTHORIZATION_REQUIRED (with a link) when there is no person or no grant to use. */
  async acquire(ctx: Pick<ToolContext, 'caller' | 'credentials'>): Promise<UserLease> {
    const { headers, secrets } = await this.templates.fill(ctx.credentials);
    const key = JSON.stringify([ctx.caller.tenant, ctx.caller.user]);
    const entry = this.open.get(key) ?? this.connect(key, headers);
    entry.headers = headers;
    entry.secrets = secrets;
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    const hold = {};
    entry.calls.add(hold);
    const release = () => {
      if (!entry.calls.delete(hold)) return;
      entry.lastUsed = Date.now();
      if (entry.calls.size === 0 && this.open.get(key) === entry) {
        entry.idleTimer = setTimeout(() => this.drop(key, entry), this.config.idle_close_ms);
        entry.idleTimer.unref();
      }
    };
    try {
      await entry.ready;
    } catch (err) {
      release();
      this.drop(key, entry);
      throw err;
    }
    return {
      client: entry.client,
      secrets,
      track: (call) => {
        entry.inFlight.add(call);
        return () => entry.inFlight.delete(call);
      },
      lost: () => this.drop(key, entry),
      release,
    };
  }

  /** Close every connection (their sessions ended at the server). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.open].map(([key, entry]) => this.drop(key, entry)));
  }

  private connect(key: string, headers: Record<string, string>): Entry {
    if (this.closed) throw new GatewayError('NOT_READY');
    if (this.open.size >= this.config.max_user_connections) this.evict();
    const client = new Client({ name: 'toolgate', version: VERSION }, { capabilities: UPSTREAM_CLIENT_CAPABILITIES });
    const entry: Entry = {
      headers,
      secrets: [],
      client,
      transport: undefined!,
      ready: Promise.resolve(),
      calls: new Set(),
      inFlight: new Set(),
      lastUsed: Date.now(),
      idleTimer: undefined,
    };
    entry.transport = this.connector(() => entry.headers).transport;
    // A log message, an elicitation or a sampling request reaches a caller only when theirs is the only call on this person's connection
    // (see McpSupervisor.relayLog and answerClientRequests).
    answerClientRequests(client, this.config, entry.inFlight);
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      if (entry.inFlight.size === 1) for (const call of entry.inFlight) call.log?.(notification.params);
    });
    client.onclose = () => void this.drop(key, entry);
    entry.ready = client.connect(entry.transport, { timeout: this.config.connect_timeout_ms });
    this.open.set(key, entry);
    return entry;
  }

  /** Room for one more: the least recently used idle connection closed, or OVERLOADED when every one has a call in flight. */
  private evict(): void {
    let oldest: [string, Entry] | undefined;
    for (const pair of this.open) if (pair[1].calls.size === 0 && (!oldest || pair[1].lastUsed < oldest[1].lastUsed)) oldest = pair;
    if (!oldest) {
      throw new GatewayError('OVERLOADED', {
        message: `MCP server ${this.config.name} has its ${this.config.max_user_connections} per-person connections all busy; retry shortly.`,
        details: { server: this.config.name, reason: 'user_connections_full' },
      });
    }
    void this.drop(...oldest);
  }

  private async drop(key: string, entry: Entry): Promise<void> {
    clearTimeout(entry.idleTimer);
    if (this.open.get(key) !== entry) return;
    this.open.delete(key);
    entry.client.onclose = undefined;
    // The session is ended at the server (DELETE), then the transport closed; a server that is gone is not waited for.
    await entry.transport.terminateSession().catch(() => undefined);
    await entry.client.close().catch(() => undefined);
    this.log.debug('MCP per-person connection closed');
  }
}

/** `value` with every string holding a secret given that secret replaced by `[REDACTED]`: an upstream echoing the token. */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const needles = secrets.filter((s) => s !== '').sort((a, b) => b.length - a.length);
  if (needles.length === 0) return value;
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') return needles.reduce((text, needle) => text.split(needle).join('[REDACTED]'), v);
    if (Array.isArray(v)) return v.map(scrub);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return scrub(value) as T;
}
