import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, execute, type TestApp } from '../../../helpers/app.js';
import { png } from '../../../helpers/images.js';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER } from '../../../helpers/mcp.js';

type Json = Record<string, any>;

/**
 * The reference MCP servers behind a real gateway, against the same servers reached directly (docs/mcp.md, "What passes through"):
 * every tool of server-everything the gateway lists is called through toolgate's /mcp with the
 * official SDK client and directly with the same client, and the results are compared block for block (order, annotations,
 * structuredContent); then through POST /execute in every provider format, where the payload keeps the upstream's order and each image
 * travels well-formed. server-filesystem's read_media_file of a text file named text.png never reaches a model as an image.
 */

/** Arguments for each server-everything tool; every tool the gateway lists must be here or in SKIPPED. */
const ARGS: Record<string, Record<string, unknown>> = {
  echo: { message: 'through the gateway' },
  'get-annotated-message': { messageType: 'error', includeImage: true },
  'get-env': {},
  'get-resource-links': { count: 3 },
  'get-resource-reference': { resourceType: 'Text', resourceId: 2 },
  'get-structured-content': { location: 'Chicago' },
  'get-sum': { a: 2, b: 3 },
  'get-tiny-image': {},
  'gzip-file-as-resource': { name: 'hello.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQ=', outputType: 'resource' },
  'toggle-simulated-logging': {},
  'toggle-subscriber-updates': {},
  'trigger-long-running-operation': { duration: 0.2, steps: 2 },
};

/**
 * Tools that need a client capability (elicitation, sampling, roots) or task-based execution: how the gateway offers those is
 * another part of docs/mcp.md, tested with its relay; they are not compared here.
 */
const SKIPPED = new Set([
  'get-roots-list',
  'trigger-elicitation-request',
  'trigger-elicitation-request-async',
  'trigger-url-elicitation',
  'trigger-sampling-request',
  'trigger-sampling-request-async',
  'simulate-research-query',
]);

/** What legitimately differs between two server processes: the clock in a resource's text, the environment, the session. */
function comparable(name: string, result: CallToolResult): unknown {
  if (name === 'get-env') return (result.content as Json[]).map((block) => block.type);
  // isError absent means false (schema, CallToolResult): the gateway always says it.
  const json = JSON.stringify({ isError: false, ...result })
    .replace(/created at \d{1,2}:\d{2}:\d{2} [AP]M/g, 'created at <time>')
    .replace(/for session [\w-]+/g, 'for session <id>');
  return JSON.parse(json);
}

let dir: string;
let t: TestApp;
let viaGateway: Client;
let direct: Client;
let listed: Tool[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-reference-'));
  await writeFile(join(dir, 'text.png'), 'not an image at all, only text\n');
  await writeFile(join(dir, 'shot.png'), png(180, 178, true));
  t = await buildTestApp({
    builtins: false,
    config: {
      mcp_servers: [
        { name: 'everything', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], prefix: 'ev_', connect_timeout_ms: 20_000 },
        { name: 'files', command: process.execPath, args: [FILESYSTEM_SERVER, dir], prefix: 'fs_', connect_timeout_ms: 20_000 },
      ],
    },
  });
  const url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
  viaGateway = new Client({ name: 'reference-test', version: '1.0.0' });
  await viaGateway.connect(new StreamableHTTPClientTransport(url));
  direct = new Client({ name: 'reference-test', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' }));
  listed = (await viaGateway.listTools()).tools;
}, 60_000);
afterAll(async () => {
  await Promise.allSettled([viaGateway?.close(), direct?.close()]);
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const everything = () => listed.filter((tool) => tool.name.startsWith('ev_') && !SKIPPED.has(tool.name.slice(3)));

describe('server-everything through the gateway and directly, with the SDK client', () => {
  it('every tool it lists has arguments here or is skipped with its reason; its outputSchema is listed as given', async () => {
    const names = listed.filter((tool) => tool.name.startsWith('ev_')).map((tool) => tool.name.slice(3));
    expect(names.length).toBeGreaterThanOrEqual(Object.keys(ARGS).length);
    for (const name of names) expect(ARGS[name] !== undefined || SKIPPED.has(name), name).toBe(true);
    const upstream = (await direct.listTools()).tools;
    for (const tool of everything()) {
      expect(tool.outputSchema, tool.name).toEqual(upstream.find((x) => x.name === tool.name.slice(3))?.outputSchema);
    }
    expect(listed.find((tool) => tool.name === 'ev_get-structured-content')?.outputSchema).toMatchObject({ type: 'object' });
  });

  it('each tool answers through /mcp as it does directly: the same blocks, in the same order, with their annotations and structuredContent', async () => {
    for (const tool of everything()) {
      const name = tool.name.slice(3);
      const args = ARGS[name]!;
      const [gateway, upstream] = await Promise.all([
        viaGateway.callTool({ name: tool.name, arguments: args }),
        direct.callTool({ name, arguments: args }),
      ]);
      expect(comparable(name, gateway as CallToolResult), name).toEqual(comparable(name, upstream as CallToolResult));
    }
  });

  it('interleaved content stays interleaved and annotated blocks keep their annotations (the cases the comparison rests on)', async () => {
    const tiny = await viaGateway.callTool({ name: 'ev_get-tiny-image', arguments: {} });
    expect((tiny.content as Json[]).map((block) => block.type)).toEqual(['text', 'image', 'text']);
    expect((tiny.content as Json[])[2]!.text).toBe('The image above is the MCP logo.');
    const annotated = await viaGateway.callTool({ name: 'ev_get-annotated-message', arguments: ARGS['get-annotated-message']! });
    expect((annotated.content as Json[]).map((block) => block.annotations)).toEqual([
      { priority: 1, audience: ['user', 'assistant'] },
      { priority: 0.5, audience: ['user'] },
    ]);
    const structured = await viaGateway.callTool({ name: 'ev_get-structured-content', arguments: { location: 'Chicago' } });
    expect(structured.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });
});

describe('server-everything through POST /execute, in every provider format', () => {
  const formats = ['openai', 'responses', 'anthropic', 'gemini'] as const;

  it("each result's content keeps the upstream's block order; every image travels whole, in the provider's own form", async () => {
    for (const tool of everything()) {
      const name = tool.name.slice(3);
      const upstream = (await direct.callTool({ name, arguments: ARGS[name]! })) as CallToolResult;
      const types = (upstream.content as Json[]).map((block) => block.type);
      const images = (upstream.content as Json[]).filter((block) => block.type === 'image').map((block) => block.data as string);
      for (const format of formats) {
        const id = `call_${name}_${format}`;
        const { body } = await execute(t.app, { format, tool_calls: [{ id, name: tool.name, arguments: ARGS[name] }] });
        const result = body.results[0];
        expect(result.status, `${name} ${format}`).toBe('success');
        const kept = (result.content ?? []).map((block: Json) => block.type);
        // Without text parts the order is "the one text block, then the rest", which is the upstream's own.
        expect(kept.includes('text') ? kept : [...(types[0] === 'text' ? ['text'] : []), ...kept], `${name} ${format}`).toEqual(types);
        const messages = JSON.stringify(body.messages);
        for (const data of images) {
          expect(messages, `${name} ${format}`).toContain(data);
          expect(Buffer.from(data, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
        }
      }
    }
  });

  it('Anthropic: the tool_result holds the payload, then each image as a base64 image block', async () => {
    const { body } = await execute(t.app, {
      format: 'anthropic',
      tool_calls: [{ id: 'call_1', name: 'ev_get-tiny-image', arguments: {} }],
    });
    const [payload, image] = body.messages[0].content[0].content as Json[];
    expect(JSON.parse(payload!.text).content.map((block: Json) => block.type)).toEqual(['text', 'image', 'text']);
    expect(image).toMatchObject({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBOR/) },
    });
  });
});

describe('server-filesystem', () => {
  it('read_media_file of a text file named text.png is UPSTREAM_ERROR naming the block, never an image for a model', async () => {
    for (const format of ['anthropic', 'openai']) {
      const { body } = await execute(t.app, {
        format,
        tool_calls: [{ id: `call_text_${format}`, name: 'fs_read_media_file', arguments: { path: join(dir, 'text.png') } }],
      });
      expect(body.results[0]).toMatchObject({
        status: 'error',
        error: { code: 'UPSTREAM_ERROR', details: { server: 'files', reason: 'bad_content', block: 0, declared: 'image/png' } },
      });
      expect(body.results[0].error.message).toContain('bytes are text, not image/png');
      expect(JSON.stringify(body.messages)).not.toMatch(/"type":"image(_url)?"/);
    }
  });

  it('read_media_file of a 96 KB screenshot reaches the model inline with the default budgets, and /mcp as the server gave it', async () => {
    const path = join(dir, 'shot.png');
    const { body } = await execute(t.app, {
      format: 'anthropic',
      tool_calls: [{ id: 'call_1', name: 'fs_read_media_file', arguments: { path } }],
    });
    expect(body.results[0]).toMatchObject({ status: 'success', content: [{ type: 'image', mime_type: 'image/png' }] });
    expect(body.messages[0].content[0].content[1]).toMatchObject({ type: 'image', source: { media_type: 'image/png' } });
    // Its structuredContent repeats the blocks: the payload carries them once, /mcp as the server sent them.
    expect(JSON.parse(body.messages[0].content[0].content[0].text).data ?? {}).not.toHaveProperty('content');
    const result = await viaGateway.callTool({ name: 'fs_read_media_file', arguments: { path } });
    expect(result.content).toEqual([{ type: 'image', mimeType: 'image/png', data: body.results[0].content[0].data }]);
    expect(result.structuredContent).toEqual({ content: result.content });
  });
});
