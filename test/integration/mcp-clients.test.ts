import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMCPClient, type CallToolResult, type MCPClient } from '@ai-sdk/mcp';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { FIXTURE_SERVER } from '../helpers/mcp.js';

/**
 * /mcp: what an agent framework's MCP client hands the model.
 * A tool result is the tool's text, not a JSON wrapper around it: no
 * `structuredContent` (no tool declares an `outputSchema`) and no
 * result-level `_meta`, either of which makes LangChain's adapter wrap it.
 * Tools of an upstream MCP server (fx_*, docs/mcp.md) reach them the same way.
 */

const FILE = 'alpha line\nbeta line\n';

let t: TestApp;
let url: URL;
beforeAll(async () => {
  t = await buildTestApp({
    config: { mcp_servers: [{ name: 'fx', command: process.execPath, args: [FIXTURE_SERVER], prefix: 'fx_', include: ['echo', 'fail'] }] },
  });
  url = new URL('/mcp', await t.app.listen({ host: '127.0.0.1', port: 0 }));
  await writeFile(join(t.workspace, 'notes.txt'), FILE);
});
afterAll(() => t.close());

describe('LangChain (@langchain/mcp-adapters) against /mcp', () => {
  let client: MultiServerMCPClient;
  let tools: DynamicStructuredTool[];
  beforeAll(async () => {
    client = new MultiServerMCPClient({ mcpServers: { toolgate: { transport: 'http', url: url.href } } });
    tools = await client.getTools();
  });
  afterAll(() => client.close());
  const tool = (name: string) => tools.find((x) => x.name === name)!;

  it('lists the tools', () => {
    expect(tools.map((x) => x.name)).toEqual(['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write', 'fx_echo', 'fx_fail']);
  });

  it('an upstream MCP tool answers through the gateway with its text; its error result names UPSTREAM_ERROR', async () => {
    expect(await tool('fx_echo').invoke({ text: 'via the gateway' })).toBe('via the gateway');
    const node = new ToolNode(tools);
    const asked = new AIMessage({ content: '', tool_calls: [{ id: 'call_3', name: 'fx_fail', args: {} }] });
    const [message] = (await node.invoke([asked])) as ToolMessage[];
    expect(message!.status).toBe('error');
    expect(message!.content).toContain('"code":"UPSTREAM_ERROR"');
  });

  it('a Read result reaches the model as the file text: a plain string ToolMessage content', async () => {
    const message = await tool('Read').invoke({ type: 'tool_call', id: 'call_1', name: 'Read', args: { path: 'notes.txt' } });
    expect(message).toBeInstanceOf(ToolMessage);
    expect(typeof message.content).toBe('string');
    expect(message.content).toMatch(/^\s*1\talpha line\n\s*2\tbeta line/);
    expect(await tool('Read').invoke({ path: 'notes.txt' })).toBe(message.content);
  });

  it('a failed call reaches the model as an error ToolMessage whose text names the code', async () => {
    const node = new ToolNode(tools);
    const asked = new AIMessage({ content: '', tool_calls: [{ id: 'call_2', name: 'Read', args: { path: 'missing.txt' } }] });
    const [message] = (await node.invoke([asked])) as ToolMessage[];
    expect(message!.status).toBe('error');
    expect(message!.content).toContain('"code":"NOT_FOUND"');
  });
});

describe('Vercel AI SDK (@ai-sdk/mcp) against /mcp', () => {
  let client: MCPClient;
  let tools: Awaited<ReturnType<MCPClient['tools']>>;
  beforeAll(async () => {
    client = await createMCPClient({ transport: { type: 'http', url: url.href } });
    tools = await client.tools();
  });
  afterAll(() => client.close());

  /** Run a tool as `generateText` does and return what goes into the model's tool-result part. */
  async function modelOutput(name: string, input: Record<string, unknown>) {
    const tool = tools[name]!;
    const options = { toolCallId: 'call_1', messages: [] };
    // A streaming tool's execute may yield an AsyncIterable; an MCP tool's returns the result.
    const output = (await tool.execute!(input, options)) as CallToolResult;
    return tool.toModelOutput!({ toolCallId: 'call_1', input, output });
  }

  it('lists the tools', () => {
    expect(Object.keys(tools).sort()).toEqual(['Edit', 'Glob', 'Grep', 'LS', 'Read', 'Write', 'fx_echo', 'fx_fail']);
  });

  it('an upstream MCP tool answers through the gateway with its text', async () => {
    expect(await modelOutput('fx_echo', { text: 'via the gateway' })).toEqual({
      type: 'content',
      value: [{ type: 'text', text: 'via the gateway' }],
    });
    expect(await modelOutput('fx_fail', {})).toMatchObject({
      type: 'content',
      value: [{ type: 'text', text: expect.stringContaining('"code":"UPSTREAM_ERROR"') }],
    });
  });

  it('a Read result reaches the model as the file text: one text part', async () => {
    const output = await modelOutput('Read', { path: 'notes.txt' });
    expect(output).toEqual({
      type: 'content',
      value: [{ type: 'text', text: expect.stringMatching(/^\s*1\talpha line\n\s*2\tbeta line/) }],
    });
  });

  it('a failed call reaches the model as its error text, naming the code', async () => {
    const output = await modelOutput('Read', { path: 'missing.txt' });
    expect(output).toMatchObject({ type: 'content', value: [{ type: 'text', text: expect.stringContaining('"code":"NOT_FOUND"') }] });
  });
});
