import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Headers, fetch as undiciFetch } from 'undici';
import type { McpServerConfig } from '../../config/schema.js';
import type { CredentialProvider } from '../credentials.js';
import { envTemplates, headerTemplates, type HttpDispatchers } from '../http/index.js';

/** A fresh transport to the server, for each (re)connect; `stderr` of a stdio server's process. */
export interface Connection {
  transport: Transport;
  stderr?: Readable;
}

export interface TransportDeps {
  /** Answers each `${NAME}` of `env` and `headers`: checked at creation, asked at each connect for the server's name. */
  credentials: CredentialProvider;
  /** The HTTP tools' pools: a Streamable HTTP server goes through the same SSRF guard. */
  dispatchers: HttpDispatchers;
}

/** What the SDK would copy from the gateway into a child's environment when not given: cleared, so the child gets only the config's. */
const SDK_INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;

/**
 * A stdio server's environment: the config's `env` and nothing of the gateway's own, except a fixed PATH (unless `env` sets one) that
 * starts with the directory of the gateway's node, so `node` and `npx` resolve to the Node that runs the gateway.
 */
function childEnvironment(listed: Record<string, string>): Record<string, string> {
  const cleared = Object.fromEntries(SDK_INHERITED.map((name) => [name, undefined]));
  const path = `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
  // Node leaves out of a child's environment every variable whose value is undefined.
  return { ...cleared, PATH: path, ...listed } as Record<string, string>;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * A tool call's trace context as HTTP headers too (W3C Trace Context), for Streamable HTTP servers that read headers rather than `_meta`.
 * The SDK's transport takes no per-request headers, so they are read back from the request's own `params._meta` (mcp-tool.ts put them
 * there): structurally, so that a `traceparent` inside a call's arguments is never taken for it.
 */
function setTraceHeaders(body: unknown, headers: Headers): void {
  if (typeof body !== 'string' || !body.includes('"traceparent"')) return;
  let meta: Record<string, unknown> | undefined;
  try {
    meta = (JSON.parse(body) as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  } catch {
    return;
  }
  const { traceparent, tracestate } = meta ?? {};
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return;
  headers.set('traceparent', traceparent);
  if (typeof tracestate === 'string') headers.set('tracestate', tracestate);
}

/** A Streamable HTTP connection sending, on every request, the headers `headers()` answers then (a person's token once refreshed). */
export type HttpConnector = (headers: () => Record<string, string>) => { transport: StreamableHTTPClientTransport };

/** How to open connections to a Streamable HTTP server: through the pool (and its address checks) of this server. */
export function httpConnector(server: McpServerConfig, deps: Pick<TransportDeps, 'dispatchers'>): HttpConnector {
  const url = new URL(server.url!);
  const dispatcher = server.allow_private_network ? deps.dispatchers.open : deps.dispatchers.guarded;
  return (current) => {
    // undici's own fetch, so every connection goes through the pool of this server.
    const fetchWith = ((input, init) => {
      const headers = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]);
      for (const [name, value] of Object.entries(current())) headers.set(name, value);
      setTraceHeaders(init?.body, headers);
      return undiciFetch(input, { ...(init as object), headers, dispatcher });
    }) as FetchLike;
    return { transport: new StreamableHTTPClientTransport(url, { fetch: fetchWith }) };
  };
}

/** How to reach a server, a new transport per call; throws naming every `${NAME}` of `env` or `headers` the credentials cannot answer. */
export function transportFor(server: McpServerConfig, deps: TransportDeps): () => Promise<Connection> {
  const templates = server.command !== undefined ? envTemplates(server.env ?? {}) : headerTemplates(server.headers ?? {});
  const problems = templates.problems(deps.credentials);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const credentials = () => templates.fill(deps.credentials.for(server.name));
  if (server.command !== undefined) {
    const { command, args = [], cwd } = server;
    return async () => {
      const env = childEnvironment((await credentials()).headers);
      const transport = new StdioClientTransport({ command, args, env, ...(cwd !== undefined && { cwd }), stderr: 'pipe' });
      return { transport, stderr: transport.stderr as Readable };
    };
  }
  const connect = httpConnector(server, deps);
  return async () => {
    const { headers } = await credentials();
    return connect(() => headers);
  };
}
