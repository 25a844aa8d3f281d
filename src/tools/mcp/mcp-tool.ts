import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResultSchema, Tool as UpstreamTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../config/schema.js';
import type { CallInFlight } from './client-requests.js';
import { mergedSettings, settingsOf } from '../settings.js';
import type { JsonSchema, Tool } from '../tool.js';
import { classifyMcpFailure, isConnectionLoss, upstreamDown } from './failure.js';
import { toToolOutput, UpstreamResultSchema } from './result.js';
import { scrubSecrets, type UserConnections, type UserLease } from './user-connections.js';

/** What a tool needs of its server's supervisor. */
export interface UpstreamLink {
  readonly server: string;
  /** The client of the live connection; undefined while the server is down. */
  client(): Client | undefined;
  connected(): boolean;
  /** A call found the connection gone: reconnect. */
  lost(err: unknown): void;
  /** A call in flight, hearing the server's log messages and asked its requests (see client-requests.ts); call the result when it ends. */
  track(call: CallInFlight): () => void;
}

/** The SDK's own timeout, past the call's deadline, which decides (its abort sends `notifications/cancelled`): a backstop only. */
const SDK_TIMEOUT_SLACK_MS = 1_000;

/**
 * An upstream tool as a gateway tool: `prefix + name`, `concurrency_safe` from `readOnlyHint` unless configured, the tool's settings on the
 * server's. With `users` (a server with `auth`) each call goes over its calling person's own connection, never the listing one.
 */
export function createMcpTool(upstream: UpstreamTool, server: McpServerConfig, link: UpstreamLink, users?: UserConnections): Tool {
  const settings = mergedSettings(server, server.tools[upstream.name] ?? {});
  return {
    name: `${server.prefix}${upstream.name}`,
    description: upstream.description ?? upstream.title ?? upstream.name,
    parameters: upstream.inputSchema as JsonSchema,
    ...(upstream.outputSchema && { outputSchema: upstream.outputSchema as JsonSchema }),
    concurrencySafe: settings.concurrency_safe ?? upstream.annotations?.readOnlyHint === true,
    ...settingsOf(settings),
    upstream: { server: server.name, name: upstream.name, connected: () => link.connected() },
    async run(args, ctx) {
      let lease: UserLease | undefined;
      try {
        lease = users && (await users.acquire(ctx));
      } catch (err) {
        throw classifyMcpFailure(err, server.name, ctx.signal);
      }
      const client = lease ? lease.client : link.client();
      if (!client) throw upstreamDown(server.name);
      const events = ctx.events;
      const release = (lease ?? link).track({
        log: events && ((entry) => events.log(entry)),
        ask: events?.ask && ((request, signal) => events.ask!(request, signal)),
        signal: ctx.signal,
      });
      try {
        // SEP-414: the trace context travels in `_meta` (over HTTP transport.ts copies it to the headers too).
        const params = ctx.trace
          ? { name: upstream.name, arguments: args, _meta: { ...ctx.trace } }
          : { name: upstream.name, arguments: args };
        const progress = ctx.events?.progress;
        const result = await client.callTool(params, UpstreamResultSchema as unknown as typeof CallToolResultSchema, {
          signal: ctx.signal,
          timeout: Math.max(1, ctx.deadline - Date.now()) + SDK_TIMEOUT_SLACK_MS,
          // With onprogress the SDK asks the server for progress under a token of its own, and hands each notification here.
          ...(progress && { onprogress: (update: { progress: number; total?: number; message?: string }) => progress(update) }),
        });
        const shape = { server: server.name, hasOutputSchema: upstream.outputSchema !== undefined };
        const read = (lease ? scrubSecrets(result, lease.secrets) : result) as Parameters<typeof toToolOutput>[0];
        return await toToolOutput(read, shape, ctx.imageBytes, ctx.spill, ctx.secrets);
      } catch (err) {
        if (!ctx.signal.aborted && isConnectionLoss(err)) (lease ?? link).lost(err);
        throw classifyMcpFailure(err, server.name, ctx.signal);
      } finally {
        release();
        lease?.release();
      }
    },
  };
}
