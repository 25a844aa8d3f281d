import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { childOptions, serveTarget } from './child.js';
import { RAW_TOOLS } from './raw-tools.js';

/**
 * The peer a user might pick instead: an MCP server on the official SDK over
 * Streamable HTTP, stateless, built the way the SDK's stateless example builds
 * it (a server and a transport per request: a stateless transport cannot be
 * reused). JSON responses rather than SSE streams, its faster mode. Its tools
 * do the same raw work as the floor's, with zod-validated arguments.
 */
const { workspace } = childOptions<{ workspace: string }>();
let toolCalls = 0;
let toolErrors = 0;

const SHAPES = {
  Noop: { echo: z.string().max(1000).optional() },
  Read: { path: z.string().min(1) },
  Edit: { path: z.string().min(1), old_string: z.string().min(1), new_string: z.string() },
  Grep: { pattern: z.string().min(1), path: z.string().min(1) },
};

function tool(name: keyof typeof SHAPES) {
  return async (args: Record<string, unknown>): Promise<CallToolResult> => {
    toolCalls++;
    try {
      return { content: [{ type: 'text', text: await RAW_TOOLS[name]!(args, workspace) }] };
    } catch (err) {
      toolErrors++;
      return { content: [{ type: 'text', text: (err as Error).message }], isError: true };
    }
  };
}

function peer(): McpServer {
  const server = new McpServer({ name: 'bench-peer', version: '1.0.0' });
  server.registerTool('Noop', { description: 'Does nothing.', inputSchema: SHAPES.Noop }, tool('Noop'));
  server.registerTool('Read', { description: 'Reads a file.', inputSchema: SHAPES.Read }, tool('Read'));
  server.registerTool('Edit', { description: 'Replaces a string in a file.', inputSchema: SHAPES.Edit }, tool('Edit'));
  server.registerTool('Grep', { description: 'Searches the files of a directory.', inputSchema: SHAPES.Grep }, tool('Grep'));
  return server;
}

await serveTarget(async () => {
  const http = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const server = peer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((err: unknown) => {
        console.error(err);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    stats: async () => ({ toolCalls, toolErrors }),
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
});
