// A small stdio MCP server of our own, for the cases the published servers cannot be made to show:
// a crash mid-call, a slow call and its cancellation, a tool list that changes, a schema ajv rejects,
// a name no provider accepts. Plain JavaScript on the SDK's low-level Server, so it starts as `node <file>`.
// FIXTURE_LOG: a file that gets one JSON line per event the tests wait for (started, cancelled, …).
// FIXTURE_TOOLS: extra tools to list at start, comma-separated: bad_schema, bad_name, Read, redos, lookahead, conformance, content, secrets.
import { appendFileSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { clearTimeout, setInterval, setTimeout } from 'node:timers';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const note = (event) =>
  process.env.FIXTURE_LOG && appendFileSync(process.env.FIXTURE_LOG, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
const object = (properties = {}, required = []) => ({ type: 'object', properties, required });

const tools = [
  {
    name: 'echo',
    description: 'Echo the text back.',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
    annotations: { readOnlyHint: true },
  },
  { name: 'slow', description: 'Answer after ms milliseconds.', inputSchema: object({ ms: { type: 'integer' } }, ['ms']) },
  { name: 'crash', description: 'Exit the process in the middle of the call.', inputSchema: object() },
  { name: 'fail', description: 'Answer with an error result.', inputSchema: object() },
  {
    name: 'add_tool',
    description: 'List one more tool, named added; notify: false keeps it quiet.',
    inputSchema: object({ notify: { type: 'boolean' } }),
  },
];
// A 1x1 PNG and a 1 ms WAV, for the blocks the conformance scenarios expect.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WAV = 'UklGRjAAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';
const blob = (uri, mimeType, data) => ({ type: 'resource', resource: { uri, mimeType, blob: data } });
// Non-text content: real files as given (screenshots, audio), and the blocks a gateway must keep or refuse.
const content = [
  {
    name: 'media',
    description: 'Answer with a text block and the file at path as an image or audio block.',
    inputSchema: object({ path: { type: 'string' }, type: { type: 'string' }, mime: { type: 'string' } }, ['path', 'type', 'mime']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'mixed',
    description: 'Text, an image, a text resource, a blob resource and a resource link.',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
  },
  { name: 'odd_blocks', description: 'Text and a block of a type no MCP revision has.', inputSchema: object() },
  { name: 'bad_base64', description: 'An image block whose data is not base64.', inputSchema: object() },
  { name: 'data_url', description: 'An image block whose data is a data URL.', inputSchema: object() },
  {
    name: 'repeat',
    description: 'Answer with block given, times times over (an answer far larger than its arguments).',
    inputSchema: object({ block: { type: 'object' }, times: { type: 'integer' } }, ['block', 'times']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'blocks',
    description: 'Answer with the content blocks given, as given: any block, however wrong.',
    inputSchema: object({ content: { type: 'array' } }, ['content']),
    annotations: { readOnlyHint: true },
  },
];
const extra = {
  bad_schema: {
    name: 'bad_schema',
    description: 'Its schema does not compile.',
    inputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } },
  },
  bad_name: { name: 'bad name!', description: 'A name no provider accepts.', inputSchema: object() },
  Read: { name: 'Read', description: 'Clashes with the built-in Read.', inputSchema: object() },
  redos: {
    name: 'redos',
    description: 'A pattern a backtracking engine takes exponential time on.',
    inputSchema: object({ q: { type: 'string', pattern: '^(a+)+$' } }, ['q']),
  },
  lookahead: {
    name: 'lookahead',
    description: 'A pattern RE2 cannot run.',
    inputSchema: object({ q: { type: 'string', pattern: '^(?!admin)' } }),
  },
};
// The tools the conformance suite's server scenarios call, served through the gateway's /mcp (test/integration/mcp-conformance/conformance.test.ts).
const conformance = [
  { name: 'test_simple_text', description: 'Answers with simple text.', inputSchema: object() },
  { name: 'test_error_handling', description: 'Always answers with an error result.', inputSchema: object() },
  { name: 'test_image_content', description: 'Answers with an image.', inputSchema: object() },
  { name: 'test_audio_content', description: 'Answers with audio.', inputSchema: object() },
  { name: 'test_embedded_resource', description: 'Answers with an embedded resource.', inputSchema: object() },
  { name: 'test_multiple_content_types', description: 'Answers with text, an image and a resource.', inputSchema: object() },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs.', inputSchema: object() },
  { name: 'test_tool_with_progress', description: 'Reports progress three times while it runs.', inputSchema: object() },
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
// A credential (the caller's argument, so none sits in this file) on every way an answer can carry it.
const secrets = [
  {
    name: 'leak',
    description: 'Tell secret in a log message, a progress message and every field of every block.',
    inputSchema: object({ secret: { type: 'string' } }, ['secret']),
  },
  {
    name: 'leak_error',
    description: 'Answer with an error result whose text holds secret at offset at.',
    inputSchema: object({ secret: { type: 'string' }, at: { type: 'integer' } }, ['secret', 'at']),
  },
];
const sets = { conformance, content, secrets };
for (const name of (process.env.FIXTURE_TOOLS ?? '').split(',').filter(Boolean)) tools.push(...(sets[name] ?? [extra[name]]));

const server = new Server({ name: 'toolgate-fixture', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, logging: {} } });
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
// Registered past the Server class's own wrapper, which checks each result against the SDK's schema:
// odd_blocks and bad_base64 must reach the gateway as a misbehaving server would send them.
const setRawHandler = Object.getPrototypeOf(Server.prototype).setRequestHandler;
setRawHandler.call(server, CallToolRequestSchema, async (request, extra) => {
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
      if (!tools.some((t) => t.name === 'added'))
        tools.push({ name: 'added', description: 'Listed after add_tool.', inputSchema: object() });
      if (args.notify !== false) await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    case 'added':
      return { content: [{ type: 'text', text: 'the added tool ran' }] };
    case 'test_simple_text':
      return { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] };
    case 'test_error_handling':
      return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
    case 'media':
      return {
        content: [
          { type: 'text', text: `the ${args.type} you asked for` },
          { type: args.type, mimeType: args.mime, data: readFileSync(args.path).toString('base64') },
        ],
      };
    case 'mixed':
      return {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', mimeType: 'image/png', data: PIXEL },
          { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'a note' } },
          blob('file:///pixel.png', 'image/png', PIXEL),
          { type: 'resource_link', uri: 'file:///big.log', name: 'big.log', mimeType: 'text/plain' },
          { type: 'text', text: 'last' },
        ],
      };
    case 'odd_blocks':
      return {
        content: [
          { type: 'text', text: 'before' },
          { type: 'hologram', depth: 3 },
        ],
      };
    case 'bad_base64':
      return {
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', mimeType: 'image/png', data: 'not base64 at all!' },
        ],
      };
    case 'blocks':
      return { content: args.content };
    case 'repeat':
      return { content: Array.from({ length: args.times }, () => args.block) };
    case 'data_url':
      return { content: [{ type: 'image', mimeType: 'application/octet-stream', data: `data:image/png;base64,${PIXEL}` }] };
    case 'test_image_content':
      return { content: [{ type: 'image', data: PIXEL, mimeType: 'image/png' }] };
    case 'test_audio_content':
      return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
    case 'test_embedded_resource':
      return {
        content: [
          {
            type: 'resource',
            resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
          },
        ],
      };
    case 'test_multiple_content_types':
      return {
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PIXEL, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
          },
        ],
      };
    case 'test_tool_with_logging':
      for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
        await pause(50);
      }
      return { content: [{ type: 'text', text: 'Logging test completed' }] };
    case 'test_tool_with_progress': {
      const token = request.params._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (token !== undefined)
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
        await pause(50);
      }
      return { content: [{ type: 'text', text: 'Progress test completed' }] };
    }
    case 'leak': {
      const secret = String(args.secret);
      const token = request.params._meta?.progressToken;
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', logger: secret, data: { line: `key=${secret}`, secret } },
      });
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 2, message: `uploading with ${secret}` },
        });
      // The SDK's client handles a notification a turn later than a response: one sent just before it would find its call gone.
      await pause(50);
      return {
        content: [
          { type: 'text', text: `text ${secret}` },
          { type: 'resource', resource: { uri: `file:///${secret}.txt`, mimeType: 'text/plain', text: `resource ${secret}` } },
          {
            type: 'resource_link',
            uri: `https://example.com/cb?token=${secret}`,
            name: `link ${secret}`,
            description: secret,
            mimeType: 'text/plain',
            annotations: { note: secret },
          },
          { type: 'hologram', depth: 3, label: secret },
        ],
        structuredContent: { nested: { value: `v ${secret}` } },
      };
    }
    case 'leak_error':
      return { isError: true, content: [{ type: 'text', text: `${'x'.repeat(Number(args.at))}${args.secret} trailing` }] };
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
// A line the test chose (a credential, say), printed as a server's own diagnostics would be.
if (process.env.FIXTURE_STDERR) process.stderr.write(`${process.env.FIXTURE_STDERR}\n`);
await server.connect(new StdioServerTransport());
