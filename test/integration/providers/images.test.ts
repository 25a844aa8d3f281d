import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type Tool as GeminiTool } from '@google/genai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { png } from '../../helpers/images.js';
import { fixtureServer } from '../../helpers/mcp.js';
import { startFakeModel, type FakeModel, type ModelHandler } from './fake-model.js';

type Json = Record<string, any>;

/**
 * A screenshot an upstream MCP tool returns reaches each provider's model as an image, through the
 * official SDKs (docs/api.md, "Content in messages"): the model asks for it, the gateway runs the
 * upstream tool (our fixture server, answering with a real multi-MB PNG file), toolgate's `messages`
 * are appended as they are, and the loopback model server checks the next request carries the
 * image in the provider's own form, byte for byte, and the payload names it without its base64.
 */

const SCREENSHOT = png(1000, 800, true);
const SHA = createHash('sha256').update(SCREENSHOT).digest('hex');
const B64 = SCREENSHOT.toString('base64');
const sameImage = (base64: unknown) =>
  typeof base64 === 'string' && createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex') === SHA;
const namesImage = (payload: unknown) => {
  if (typeof payload !== 'string' || payload.includes(B64)) return false;
  return (JSON.parse(payload) as Json).content?.[0]?.bytes === SCREENSHOT.length;
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

let dir: string;
let t: TestApp;
let gatewayUrl: string;
let args: string;
const models: FakeModel[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-provider-images-'));
  await writeFile(join(dir, 'screen.png'), SCREENSHOT);
  args = JSON.stringify({ path: join(dir, 'screen.png'), type: 'image', mime: 'image/png' });
  t = await buildTestApp({
    builtins: false,
    config: {
      limits: { call_budget_bytes: 8 << 20, batch_budget_bytes: 16 << 20 },
      mcp_servers: [fixtureServer(join(dir, 'events.jsonl'), {}, ['content'])],
    },
  });
  gatewayUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await Promise.all(models.map((m) => m.close()));
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function gateway(path: string, body?: unknown): Promise<Json> {
  const response = await fetch(gatewayUrl + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

async function model(handle: ModelHandler): Promise<FakeModel> {
  const fake = await startFakeModel(handle);
  models.push(fake);
  return fake;
}

/** The first problem, or the reply. */
const answer = (problems: (string | false)[], reply: unknown) => {
  const problem = problems.find((p): p is string => typeof p === 'string');
  return problem ? { problem } : { reply };
};

describe('a screenshot from an upstream MCP tool reaches each model as an image, through its SDK', () => {
  it('openai Chat Completions: the tool message names it; one user message after the tool messages carries it as an image_url', async () => {
    const tools = (await gateway('/tools?format=openai')).tools as Json[];
    const fake = await model(({ body }, turn) => {
      const messages = body.messages as Json[];
      const problems: (string | false)[] = [];
      if (turn === 1) {
        const [, assistant, tool, user] = messages;
        problems.push(assistant?.tool_calls?.[0]?.id !== 'call_shot' && 'the assistant turn must come back');
        problems.push(
          (tool?.role !== 'tool' || tool.tool_call_id !== 'call_shot' || !namesImage(tool.content)) &&
            'the tool message must name the image, without its base64',
        );
        const parts = (user?.content ?? []) as Json[];
        problems.push(user?.role !== 'user' && 'one user message must follow the tool messages');
        problems.push(
          !parts.some((p) => p.type === 'text' && typeof p.text === 'string' && p.text.includes('call_shot')) &&
            'a text part names the call',
        );
        const image = parts.find((p) => p.type === 'image_url');
        problems.push(
          !(isObject(image?.image_url) && image.image_url.url === `data:image/png;base64,${B64}`) &&
            'an image_url part must carry the screenshot as a data URL',
        );
      }
      const message =
        turn === 0
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_shot', type: 'function', function: { name: 'fx_media', arguments: args } }],
            }
          : { role: 'assistant', content: 'A page.' };
      return answer(problems, {
        id: `c${turn}`,
        object: 'chat.completion',
        created: 1,
        model: 'gpt-test',
        choices: [{ index: 0, message, finish_reason: turn === 0 ? 'tool_calls' : 'stop', logprobs: null }],
      });
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Take a screenshot.' }];
    for (;;) {
      const message = (await client.chat.completions.create({ model: 'gpt-test', messages, tools: tools as never })).choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      messages.push(...((await gateway('/execute', message)).messages as OpenAI.Chat.ChatCompletionMessageParam[]));
    }
    expect(fake.requests).toHaveLength(2);
  });

  it('openai Responses: the function_call_output is input_text naming it, then an input_image', async () => {
    const tools = (await gateway('/tools?format=responses')).tools as Json[];
    const fake = await model(({ body }, turn) => {
      const problems: (string | false)[] = [];
      if (turn === 1) {
        const output = (body.input as Json[]).find((i) => i.type === 'function_call_output')?.output as Json[] | undefined;
        problems.push(!Array.isArray(output) && 'output must be a list of input items');
        problems.push(
          Array.isArray(output) &&
            !(output[0]?.type === 'input_text' && namesImage(output[0].text)) &&
            'the first item is input_text naming the image',
        );
        problems.push(
          Array.isArray(output) &&
            !(output[1]?.type === 'input_image' && output[1].image_url === `data:image/png;base64,${B64}`) &&
            'then an input_image with the screenshot',
        );
      }
      const output =
        turn === 0
          ? [{ type: 'function_call', id: 'fc_1', call_id: 'call_shot', name: 'fx_media', arguments: args, status: 'completed' }]
          : [
              {
                type: 'message',
                id: 'm1',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: 'A page.', annotations: [] }],
              },
            ];
      return answer(problems, {
        id: `r${turn}`,
        object: 'response',
        created_at: 1,
        status: 'completed',
        model: 'gpt-test',
        output,
        parallel_tool_calls: true,
        tool_choice: 'auto',
        tools: body.tools,
        incomplete_details: null,
        error: null,
      });
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Take a screenshot.' }];
    for (;;) {
      const response = await client.responses.create({ model: 'gpt-test', input, tools: tools as never });
      input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
      if (!response.output.some((item) => item.type === 'function_call')) break;
      input.push(...((await gateway('/execute', response)).messages as OpenAI.Responses.ResponseInputItem[]));
    }
    expect(fake.requests).toHaveLength(2);
  });

  it('anthropic Messages: the tool_result holds a text block naming it and an image block with a base64 source', async () => {
    const tools = (await gateway('/tools?format=anthropic')).tools as Json[];
    const fake = await model(({ body }, turn) => {
      const problems: (string | false)[] = [];
      if (turn === 1) {
        const result = ((body.messages as Json[])[2]?.content as Json[] | undefined)?.[0];
        const blocks = (result?.content ?? []) as Json[];
        problems.push(result?.type !== 'tool_result' && 'the next user turn starts with the tool_result');
        problems.push(!(blocks[0]?.type === 'text' && namesImage(blocks[0].text)) && 'its first block is text naming the image');
        const source = blocks[1]?.source as Json | undefined;
        problems.push(
          !(blocks[1]?.type === 'image' && source?.type === 'base64' && source.media_type === 'image/png' && sameImage(source.data)) &&
            'then an image block with the screenshot',
        );
      }
      const content =
        turn === 0
          ? [{ type: 'tool_use', id: 'toolu_shot', name: 'fx_media', input: JSON.parse(args) }]
          : [{ type: 'text', text: 'A page.' }];
      return answer(problems, {
        id: `m${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content,
        stop_reason: turn === 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    });
    const client = new Anthropic({ apiKey: 'test', baseURL: fake.url, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Take a screenshot.' }];
    for (;;) {
      const reply = await client.messages.create({ model: 'claude-test', max_tokens: 1024, messages, tools: tools as never });
      messages.push({ role: reply.role, content: reply.content });
      if (reply.stop_reason !== 'tool_use') break;
      messages.push(...((await gateway('/execute', reply)).messages as Anthropic.MessageParam[]));
    }
    expect(fake.requests).toHaveLength(2);
  });

  it('gemini generateContent: the functionResponse names it in its response and carries it as an inline-data part', async () => {
    const tools = (await gateway('/tools?format=gemini')).tools as GeminiTool[];
    const fake = await model(({ body }, turn) => {
      const problems: (string | false)[] = [];
      if (turn === 1) {
        const response = ((body.contents as Json[])[2]?.parts as Json[] | undefined)?.[0]?.functionResponse as Json | undefined;
        problems.push(
          !(isObject(response?.response) && response.response.content?.[0]?.bytes === SCREENSHOT.length) &&
            'the response object names the image',
        );
        const inline = (response?.parts as Json[] | undefined)?.[0]?.inlineData as Json | undefined;
        problems.push(!(inline?.mimeType === 'image/png' && sameImage(inline.data)) && 'a part carries the screenshot as inline data');
      }
      const parts = turn === 0 ? [{ functionCall: { id: 'fc_shot', name: 'fx_media', args: JSON.parse(args) } }] : [{ text: 'A page.' }];
      return answer(problems, {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        modelVersion: 'gemini-test',
      });
    });
    const client = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } });
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Take a screenshot.' }] }];
    for (;;) {
      const response = await client.models.generateContent({ model: 'gemini-test', contents, config: { tools } });
      const content = response.candidates![0]!.content!;
      contents.push(content);
      if (!response.functionCalls?.length) break;
      contents.push(...((await gateway('/execute', content)).messages as Content[]));
    }
    expect(fake.requests).toHaveLength(2);
  });

  it('MCP: a client of /mcp gets the screenshot as an image content block', async () => {
    const response = await fetch(`${gatewayUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fx_media', arguments: JSON.parse(args) } }),
    });
    const { result } = (await response.json()) as Json;
    expect(result.isError).toBe(false);
    expect(result.content[0]).toEqual({ type: 'text', text: 'the image you asked for' });
    expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(sameImage(result.content[1].data)).toBe(true);
  });
});
