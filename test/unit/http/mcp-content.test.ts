import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { png } from '../../helpers/images.js';
import type { Tool, ToolOutput } from '../../../src/tools/tool.js';
import { post, rpc } from './mcp-rpc.js';

/**
 * /mcp answers keep what an upstream gave (docs/mcp.md, "What passes through"): the text parts in their place among the other
 * blocks, each block's annotations, and `structuredContent` for a tool with an `outputSchema`; when the guardrails redacted the text
 * or a budget cut it, the text is one block, then the others in order.
 */

const PIXEL = png(2, 2).toString('base64');
const TOKEN = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
const ANNOTATED = { audience: ['user'], priority: 0.5 };

/** A tool answering `output`, as an upstream MCP tool's result maps to one (tools/mcp/result.ts). */
function answering(name: string, output: ToolOutput, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `Answers a fixed ${name} result.`,
    parameters: { type: 'object', properties: {} },
    concurrencySafe: true,
    run: async () => structuredClone(output),
    ...extra,
  };
}

/** "before" (6 bytes), an image, "after" (5 bytes): the layout an upstream's [text, image, text] maps to. */
const interleaved = (before = 'before'): ToolOutput => ({
  text: `${before}\nafter`,
  content: [
    { type: 'text', bytes: Buffer.byteLength(before), annotations: ANNOTATED },
    { type: 'image', mime_type: 'image/png', data: PIXEL, annotations: { priority: 1 } },
    { type: 'text', bytes: 5 },
  ],
});

const WEATHER = { type: 'object', properties: { temperature: { type: 'number' } }, required: ['temperature'] };
const FILES = { type: 'object', properties: { content: { type: 'array' } } };

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    builtins: false,
    tools: [
      answering('Interleaved', interleaved()),
      answering('Leaky', interleaved(`token ${TOKEN}`)),
      answering('Long', { ...interleaved(), text: `${'x'.repeat(80_000)}\nafter` }),
      answering('Weather', { text: '{"temperature":21}', data: { temperature: 21 } }, { outputSchema: WEATHER }),
      answering('HugeWeather', { text: 'stations', data: { temperature: 21, stations: 'x'.repeat(80_000) } }, { outputSchema: WEATHER }),
      answering('LeakyWeather', { text: `{"temperature":21,"key":"${TOKEN}"}`, data: { temperature: 21 } }, { outputSchema: WEATHER }),
      answering(
        'Media',
        { text: '', content: [{ type: 'image', mime_type: 'image/png', data: PIXEL }], data: {} },
        { outputSchema: FILES },
      ),
    ],
  });
});
afterAll(() => t.close());

async function call(name: string) {
  const res = await post(t, rpc('tools/call', { name, arguments: {} }));
  expect(res.statusCode).toBe(200);
  return res.json().result;
}

describe('/mcp answers keep the upstream content as given', () => {
  it('text, image, text stays three blocks in that order, each with its annotations', async () => {
    expect(await call('Interleaved')).toEqual({
      content: [
        { type: 'text', text: 'before', annotations: ANNOTATED },
        { type: 'image', data: PIXEL, mimeType: 'image/png', annotations: { priority: 1 } },
        { type: 'text', text: 'after' },
      ],
      isError: false,
    });
  });

  it('a text the guardrails redacted is one text block, with the note, then the other blocks in order', async () => {
    const result = await call('Leaky');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(result.content.map((block: { type: string }) => block.type)).toEqual(['text', 'image']);
    expect(result.content[0].text).toMatch(/redacted[\s\S]*token \[REDACTED:github_token\]\nafter$/);
  });

  it('a text a budget cut is one text block, then the truncated record, then the other blocks', async () => {
    const result = await call('Long');
    expect(result.content.map((block: { type: string }) => block.type)).toEqual(['text', 'text', 'image']);
    expect(JSON.parse(result.content[1].text)).toMatchObject({ status: 'partial', truncated: { url: expect.any(String) } });
  });

  it('a tool with an outputSchema: listed with it, its data is structuredContent (not _meta)', async () => {
    const listed = (await post(t, rpc('tools/list'))).json().result.tools;
    expect(listed.find((tool: { name: string }) => tool.name === 'Weather').outputSchema).toEqual(WEATHER);
    expect(listed.find((tool: { name: string }) => tool.name === 'Interleaved')).not.toHaveProperty('outputSchema');
    expect(await call('Weather')).toEqual({
      content: [{ type: 'text', text: '{"temperature":21}' }],
      structuredContent: { temperature: 21 },
      isError: false,
    });
  });

  it("structuredContent holds the tool's structure only: the guardrails' counts stay in data and the note in text", async () => {
    const result = await call('LeakyWeather');
    expect(result.structuredContent).toEqual({ temperature: 21 });
    expect(result.content[0].text).toContain('[REDACTED:github_token]');
  });

  it('a structured result whose data the budget had to drop is an error result naming where the whole output is', async () => {
    const result = await call('HugeWeather');
    expect(result.isError).toBe(true);
    expect(result).not.toHaveProperty('structuredContent');
    expect(JSON.parse(result.content.at(-1).text)).toMatchObject({ status: 'partial', truncated: { url: expect.any(String) } });
  });

  it('a content key its schema declares, left out of data as a repetition of the blocks, is put back as the blocks are sent', async () => {
    const result = await call('Media');
    expect(result.content).toEqual([{ type: 'image', data: PIXEL, mimeType: 'image/png' }]);
    expect(result.structuredContent).toEqual({ content: result.content });
  });
});
