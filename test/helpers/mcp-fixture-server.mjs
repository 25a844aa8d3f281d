// A small stdio MCP server of our own, for the cases the published servers cannot be made to show:
// a crash mid-call, a slow call and its cancellation, a tool list that changes, a schema ajv rejects,
// a name no provider accepts. Plain JavaScript on the SDK's low-level Server, so it starts as `node <file>`.
// FIXTURE_LOG: a file that gets one JSON line per event the tests wait for (started, cancelled, …).
// FIXTURE_TOOLS: extra tools to list at start, comma-separated: bad_schema, bad_name, Read, conformance.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { clearTimeout, setInterval, setTimeout } from 'node:timers';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const note = (event) => process.env.FIXTURE_LOG && appendFileSync(process.env.FIXTURE_LOG, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
const object = (properties = {}, required = []) => ({ type: 'object', properties, required });

const tools = [
  { name: 'echo', description: 'Echo the text back.', inputSchema: object({ text: { type: 'string' } }, ['text']), annotations: { readOnlyHint: true } },
  { name: 'slow', description: 'Answer after ms milliseconds.', inputSchema: object({ ms: { type: 'integer' } }, ['ms']) },
  { name: 'crash', description: 'Exit the process in the middle of the call.', inputSchema: object() },
  { name: 'fail', description: 'Answer with an error result.', inputSchema: object() },
  { name: 'add_tool', description: 'List one more tool, named added; notify: false keeps it quiet.', inputSchema: object({ notify: { type: 'boolean' } }) },
];
const extra = {
  bad_schema: { name: 'bad_schema', description: 'Its schema does not compile.', inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } },
  bad_name: { name: 'bad name!', description: 'A name no provider accepts.', inputSchema: object() },
  Read: { name: 'Read', description: 'Clashes with the built-in Read.', inputSchema: object() },
};
// The tools the conformance suite's server scenarios call, served through the gateway's /mcp (test/integration/mcp-conformance.test.ts).
const conformance = [
  { name: 'test_simple_text', description: 'Answers with simple text.', inputSchema: object() },
  { name: 'test_error_handling', description: 'Always answers with an error result.', inputSchema: object() },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
];
for (const name of (process.env.FIXTURE_TOOLS ?? '').split(',').filter(Boolean)) tools.push(...(name === 'conformance' ? conformance : [extra[name]]));

const server = new Server({ name: 'toolgate-fixture', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  // _meta: the trace context a traced gateway passes on (SEP-414).
  note({ event: 'called', tool: request.params.name, request_id: extra.requestId, meta: request.params._meta });
  switch (request.params.name) {
    case 'echo':
      return { content: [{ type: 'text', text: String(args.text) }] };
    case 'slow':
      return await new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: `waited ${args.ms} ms` }] }), Number(args.ms));
        // The SDK aborts the handler's signal when the client sends notifications/cancelled for this request.
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          note({ event: 'cancelled', request_id: extra.requestId });
        });
      });
    case 'crash':
      note({ event: 'crashing' });
      process.exit(3);
      break;
    case 'fail':
      return { isError: true, content: [{ type: 'text', text: 'the fixture tool failed on purpose' }] };
    case 'add_tool':
      if (!tools.some((t) => t.name === 'added')) tools.push({ name: 'added', description: 'Listed after add_tool.', inputSchema: object() });
      if (args.notify !== false) await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    case 'added':
      return { content: [{ type: 'text', text: 'the added tool ran' }] };
    case 'test_simple_text':
      return { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] };
    case 'test_error_handling':
      return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
    case 'json_schema_2020_12_tool':
      return { content: [{ type: 'text', text: JSON.stringify(args) }] };
    default:
      return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
  }
});
// FIXTURE_LINGER: stay up after stdin closes, as some servers do, so only a signal ends the process.
if (process.env.FIXTURE_LINGER) setInterval(() => undefined, 60_000);
note({ event: 'started' });
process.stderr.write(`fixture ${process.pid} up\n`);
await server.connect(new StdioServerTransport());
