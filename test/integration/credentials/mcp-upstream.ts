import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AuthorizationServer } from '../../helpers/authorization-server.js';

/** One MCP session the server opened: for whom (null: no token, the listing connection), and whether it was ended. */
export interface UpstreamSession {
  id: string;
  user: string | null;
  closed: boolean;
}

/**
 * A Streamable HTTP MCP server on loopback (the SDK's server, with sessions) that checks each request's bearer token at the provider
 * (RFC 7662) and answers per person. Without a token it lists its tools but calls none. A session is bound to the person whose token
 * opened it: a request on it with another person's token is refused (403).
 */
export interface McpUpstream {
  url: string;
  sessions: UpstreamSession[];
  /** Every token a call brought, with its person. */
  seen: Array<{ user: string; token: string }>;
  /** Calls of `hold` wait until this is called. */
  releaseHolds(): void;
  close(): Promise<void>;
}

export async function startMcpUpstream(provider: AuthorizationServer): Promise<McpUpstream> {
  const sessions: UpstreamSession[] = [];
  const seen: McpUpstream['seen'] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let holds: Array<() => void> = [];
  const basic = `Basic ${Buffer.from(`${provider.client.id}:${provider.client.secret}`).toString('base64')}`;

  const introspect = async (token: string): Promise<string | null> => {
    const answer = await fetch(`${provider.issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    const info = (await answer.json()) as { active: boolean; sub?: string };
    return info.active && info.sub ? info.sub : null;
  };

  const mcpServer = (): Server => {
    const server = new Server({ name: 'per-person', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        { name: 'whoami', description: 'Who the token is for.', inputSchema: { type: 'object' } },
        { name: 'echo_token', description: 'Repeats the token, as a careless server might.', inputSchema: { type: 'object' } },
        { name: 'hold', description: 'Answers once released.', inputSchema: { type: 'object' } },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const auth = extra.authInfo;
      if (!auth) return { content: [{ type: 'text', text: 'no token' }], isError: true };
      const user = String(auth.extra!.user);
      seen.push({ user, token: auth.token });
      if (request.params.name === 'hold') await new Promise<void>((resolve) => holds.push(resolve));
      const text = request.params.name === 'echo_token' ? `${user}:${auth.token}` : user;
      return { content: [{ type: 'text', text }] };
    });
    return server;
  };

  const handle = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const user = token ? await introspect(token) : null;
    if (token && !user) return void res.writeHead(401).end('invalid_token');
    if (token) req.auth = { token, clientId: 'toolgate', scopes: [], extra: { user } };
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.find((s) => s.id === sessionId);
      const transport = transports.get(sessionId);
      if (!session || !transport) return void res.writeHead(404).end('no such session');
      if (session.user !== user) return void res.writeHead(403).end('this session belongs to someone else');
      return transport.handleRequest(req, res, body);
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.push({ id, user, closed: false });
        transports.set(id, transport);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
        const session = sessions.find((s) => s.id === id);
        if (session) session.closed = true;
      },
    });
    await mcpServer().connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const http: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
      handle(req, res, body).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    sessions,
    seen,
    releaseHolds() {
      for (const release of holds) release();
      holds = [];
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
