import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** What one tools/call brought of its trace context: the HTTP headers and `params._meta`. */
export interface TracedCall {
  header: unknown;
  tracestate: unknown;
  meta: unknown;
}

export interface McpHttpUpstream {
  origin: string;
  calls: TracedCall[];
  /** The headers of every request it received, in order. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A Streamable HTTP MCP server on loopback (the SDK's own server transport,
 * stateless) with one tool, `answer`, that returns `output`; it records the
 * trace context of each tools/call and the headers of every request.
 */
export async function startMcpHttpUpstream(output: string): Promise<McpHttpUpstream> {
  const calls: TracedCall[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const http = createServer((req: IncomingMessage, res) => {
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const server = new Server({ name: 'traced-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: 'answer',
            description: 'Answers.',
            inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
            annotations: { readOnlyHint: true },
          },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        calls.push({ header: req.headers.traceparent, tracestate: req.headers.tracestate, meta: request.params._meta });
        return { content: [{ type: 'text', text: output }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    headers,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
