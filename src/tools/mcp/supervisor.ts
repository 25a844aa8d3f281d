import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Tool as UpstreamTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { SecretScanner } from '../../guardrails/index.js';
import type { McpServerConfig } from '../../config/schema.js';
import type { Metrics } from '../../observability/metrics.js';
import { toolNameMatcher } from '../../policy/index.js';
import { VERSION } from '../../version.js';
import type { Tool } from '../tool.js';
import { answerClientRequests, UPSTREAM_CLIENT_CAPABILITIES, type CallInFlight } from './client-requests.js';
import { isConnectionLoss } from './failure.js';
import { createMcpTool, type UpstreamLink } from './mcp-tool.js';
import { allPages, listOffers, NO_OFFERS, type OfferLists, type UpstreamOffering } from './offers.js';
import { logStderr } from './stderr.js';
import type { Connection } from './transport.js';
import type { UserConnections } from './user-connections.js';

/** Reconnect waits: doubling from the first to the last, reset once a connection is up. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;
/** tools/list pages read per listing; a server that pages for ever is cut here. */
const MAX_PAGES = 100;

interface SupervisorDeps {
  log: Logger;
  /** What redacts the server's stderr lines by value before they are logged. */
  records: SecretScanner;
  metrics: Pick<Metrics, 'mcpServerUp' | 'mcpServerReconnects'>;
  /** A server with `auth`: its tools' calls go over each person's connection; this supervisor's connection only lists. */
  users?: UserConnections;
}

/**
 * One upstream MCP server, kept connected: the first connection, a restart (stdio) or reconnect (HTTP) with backoff whenever it drops, its
 * tool list read again on `notifications/tools/list_changed` and every `refresh_ms`, and each new list handed to the listeners. While it is
 * down its tools stay listed and answer UPSTREAM_ERROR (retryable).
 */
export class McpSupervisor implements UpstreamLink, UpstreamOffering {
  readonly server: string;
  private current: Client | undefined;
  private connecting: Client | undefined;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private signature: string | undefined;
  private readonly listeners: Array<(tools: Tool[]) => void> = [];
  private offers: OfferLists = NO_OFFERS;
  private readonly offerListeners: Array<(changed: ReadonlySet<'resources' | 'prompts'>) => void> = [];
  private readonly included: (name: string) => boolean;
  private markListed!: () => void;
  private readonly listed = new Promise<void>((resolve) => (this.markListed = resolve));
  /** The calls in flight, each with what its caller hears and can be asked, if one listens. */
  private readonly inFlight = new Set<CallInFlight>();
  /** The names of the tools last left out because they require task-based execution, logged once per change. */
  private taskOnly = '';

  constructor(
    private readonly config: McpServerConfig,
    private readonly connection: () => Promise<Connection>,
    private readonly deps: SupervisorDeps,
  ) {
    this.server = config.name;
    const globs = (config.include ?? []).map(toolNameMatcher);
    this.included = globs.length === 0 ? () => true : (name) => globs.some((glob) => glob(name));
    deps.metrics.mcpServerUp.set({ server: this.server }, 0);
  }

  /** Each new tool list, the first included. */
  onTools(listener: (tools: Tool[]) => void): void {
    this.listeners.push(listener);
  }

  /** The server's prefix: of its tools' and prompts' names. */
  get prefix(): string {
    return this.config.prefix;
  }

  /** The bound of one request to the server that is not a tool call (listings, reads). */
  get requestTimeoutMs(): number {
    return this.config.connect_timeout_ms;
  }

  /** Its resources, templates and prompts, as last listed (empty while it has never answered). */
  offered(): OfferLists {
    return this.offers;
  }

  /** Told which of its resources (templates included) and prompts changed, after each listing that changed them. */
  onOffers(listener: (changed: ReadonlySet<'resources' | 'prompts'>) => void): void {
    this.offerListeners.push(listener);
  }

  start(): void {
    void this.open();
    this.refreshTimer = setInterval(() => void this.refresh(), this.config.refresh_ms);
    this.refreshTimer.unref();
  }

  /** True once connected and listed; false when `timeoutMs` passes first (the server keeps being retried). */
  async ready(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.listed.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  client(): Client | undefined {
    return this.current;
  }

  connected(): boolean {
    return this.current !== undefined;
  }

  lost(err: unknown): void {
    if (this.current) this.dropped(this.current, err);
  }

  track(call: CallInFlight): () => void {
    this.inFlight.add(call);
    return () => this.inFlight.delete(call);
  }

  /**
   * A log message of the server reaches the caller of the call in flight only when that call is the only one: MCP ties no log message to a
   * request (over stdio nothing can), and one caller must never hear of another's call.
   */
  private relayLog(entry: Record<string, unknown>): void {
    if (this.inFlight.size !== 1) return;
    for (const call of this.inFlight) call.log?.(entry);
  }

  /** Close the connection (a stdio server's process is ended: stdin closed, then SIGTERM, then SIGKILL) and stop reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.refreshTimer);
    const clients = [this.current, this.connecting].filter((c): c is Client => c !== undefined);
    this.current = undefined;
    this.deps.metrics.mcpServerUp.set({ server: this.server }, 0);
    await Promise.all([...clients.map((c) => c.close().catch(() => undefined)), this.deps.users?.close()]);
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    let connection: Connection;
    try {
      connection = await this.connection();
    } catch (err) {
      this.retry(err);
      return;
    }
    if (this.closed) return;
    const { transport, stderr } = connection;
    if (stderr) logStderr(stderr, this.deps.log, this.deps.records);
    const client = new Client({ name: 'toolgate', version: VERSION }, { capabilities: UPSTREAM_CLIENT_CAPABILITIES });
    answerClientRequests(client, this.config, this.inFlight);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refresh());
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void this.refresh());
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void this.refresh());
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => this.relayLog(notification.params));
    client.onclose = () => this.dropped(client, new Error('the connection closed'));
    this.connecting = client;
    try {
      await client.connect(transport, { timeout: this.config.connect_timeout_ms });
    } catch (err) {
      this.connecting = undefined;
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      this.retry(err);
      return;
    }
    this.connecting = undefined;
    if (this.closed) {
      await client.close().catch(() => undefined);
      return;
    }
    this.current = client;
    this.attempt = 0;
    this.deps.metrics.mcpServerUp.set({ server: this.server }, 1);
    this.deps.log.info({ upstream: client.getServerVersion() }, 'MCP server connected');
    await this.refresh();
  }

  private keepOffers(offers: OfferLists): void {
    const changed = changedOf(this.offers, offers);
    if (changed.size === 0) return;
    this.offers = offers;
    for (const listener of this.offerListeners) listener(changed);
  }

  private dropped(client: Client, err: unknown): void {
    if (client !== this.current) return;
    this.current = undefined;
    this.deps.metrics.mcpServerUp.set({ server: this.server }, 0);
    client.onclose = undefined;
    void client.close().catch(() => undefined);
    this.retry(err);
  }

  private retry(err: unknown): void {
    if (this.closed) return;
    const waitMs = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** this.attempt);
    this.attempt++;
    this.deps.metrics.mcpServerReconnects.inc({ server: this.server });
    this.deps.log.warn({ err: (err as Error).message, retry_in_ms: waitMs }, 'MCP server not connected; retrying');
    this.retryTimer = setTimeout(() => void this.open(), waitMs);
  }

  /** Read the tool list again; one listing at a time, and one more when asked during it. */
  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await this.list();
      } while (this.refreshAgain);
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async list(): Promise<void> {
    const client = this.current;
    if (!client) return;
    let tools: UpstreamTool[];
    let offers: OfferLists;
    try {
      const timeout = this.config.connect_timeout_ms;
      tools = await allPages(async (cursor) => {
        const answer = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
        return { items: answer.tools, nextCursor: answer.nextCursor };
      }, MAX_PAGES);
      offers = await listOffers(client, timeout, MAX_PAGES);
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'MCP server: listing its tools, resources or prompts failed');
      if (isConnectionLoss(err)) this.dropped(client, err);
      return;
    }
    this.keepOffers(offers);
    const included = tools.filter((tool) => this.included(tool.name) && !requiresTasks(tool));
    const taskOnly = tools.filter(requiresTasks).map((tool) => tool.name);
    if (taskOnly.join('\n') !== this.taskOnly) {
      this.taskOnly = taskOnly.join('\n');
      if (taskOnly.length > 0)
        this.deps.log.warn(
          { tools: taskOnly },
          'MCP server tools left out: they require task-based execution, which the gateway does not offer',
        );
    }
    const signature = JSON.stringify(included);
    if (signature !== this.signature) {
      this.signature = signature;
      const served = included.map((tool) => createMcpTool(tool, this.config, this, this.deps.users));
      for (const listener of this.listeners) listener(served);
    }
    this.markListed();
  }
}

/** Which of the offers' lists differ. */
function changedOf(before: OfferLists, after: OfferLists): Set<'resources' | 'prompts'> {
  const changed = new Set<'resources' | 'prompts'>();
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(before.resources, after.resources) || !same(before.templates, after.templates)) changed.add('resources');
  if (!same(before.prompts, after.prompts)) changed.add('prompts');
  return changed;
}

/** A tool the server runs only as an MCP task (`execution.taskSupport: "required"`): the gateway calls tools plainly, so never lists it. */
function requiresTasks(tool: UpstreamTool): boolean {
  return tool.execution?.taskSupport === 'required';
}
