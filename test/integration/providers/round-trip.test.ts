import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type Tool as GeminiTool } from '@google/genai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { startFakeModel, type FakeModel, type ModelHandler } from './fake-model.js';

type Json = Record<string, any>;

/**
 * The "done when": toolgate's tools and messages pass through each
 * official SDK unchanged to a model server that checks the provider's
 * documented request format. The tools go from GET /tools into the request
 * as they are, the model's reply goes to POST /execute as the SDK returned
 * it, and toolgate's `messages` are appended to the next request as they are.
 */
describe('provider round trips through the official SDKs', () => {
  let t: TestApp;
  let gatewayUrl: string;
  const models: FakeModel[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    await writeFile(join(t.workspace, 'notes.txt'), 'buy milk\nwrite tests\n');
    gatewayUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(models.map((m) => m.close()));
    await t.close();
  });

  async function gateway(path: string, body?: unknown): Promise<Json> {
    const response = await fetch(gatewayUrl + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': 'providers' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    return (await response.json()) as Json;
  }

  async function model(handle: ModelHandler): Promise<FakeModel> {
    const fake = await startFakeModel(handle);
    models.push(fake);
    return fake;
  }

  /** The first problem of a list of checks, or a reply. */
  function answer(problems: (string | false)[], reply: unknown): { problem: string } | { reply: unknown } {
    const problem = problems.find((p): p is string => typeof p === 'string');
    return problem ? { problem } : { reply };
  }

  const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

  it('openai Chat Completions: tool messages answer every tool_call id with string content', async () => {
    const toolsSent = (await gateway('/tools?format=openai')).tools as Json[];
    const fake = await model(({ path, body }, turn) => {
      const messages = body.messages as Json[];
      const problems: (string | false)[] = [
        path !== '/v1/chat/completions' && `unexpected path ${path}`,
        JSON.stringify(body.tools) !== JSON.stringify(toolsSent) && 'tools differ from GET /tools',
        !(body.tools as Json[]).every(
          (tool) => tool.type === 'function' && isObject(tool.function) && typeof tool.function.name === 'string',
        ) && 'tools must be {type:function, function:{name,...}}',
      ];
      messages.forEach((message, i) => {
        for (const call of (message.tool_calls ?? []) as Json[]) {
          const answered = messages.slice(i + 1).find((m) => m.role === 'tool' && m.tool_call_id === call.id);
          problems.push(!answered && `tool_call ${call.id} has no tool message`);
          problems.push(
            answered !== undefined && typeof answered.content !== 'string' && `tool message ${call.id}: content must be a string`,
          );
        }
        problems.push(
          message.role === 'tool' && Object.keys(message).sort().join() !== 'content,role,tool_call_id' && 'tool message has extra fields',
        );
      });
      const reply =
        turn === 0
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_read', type: 'function', function: { name: 'Read', arguments: '{"path":"notes.txt"}' } },
                { id: 'call_ls', type: 'function', function: { name: 'LS', arguments: '{"path":"."}' } },
              ],
            }
          : { role: 'assistant', content: 'Two items.' };
      return answer(problems, {
        id: `chatcmpl-${turn}`,
        object: 'chat.completion',
        created: 1_767_225_600,
        model: 'gpt-test',
        choices: [{ index: 0, message: reply, finish_reason: turn === 0 ? 'tool_calls' : 'stop', logprobs: null }],
      });
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is in notes.txt?' }];
    for (let turn = 0; ; turn++) {
      const completion = await client.chat.completions.create({ model: 'gpt-test', messages, tools: toolsSent as never });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      const executed = await gateway('/execute', message);
      expect(executed.results.map((r: Json) => r.status)).toEqual(['success', 'success']);
      messages.push(...(executed.messages as OpenAI.Chat.ChatCompletionMessageParam[]));
      expect(turn).toBe(0);
    }
    expect(fake.requests).toHaveLength(2);
    expect(messages.at(-1)).toMatchObject({ content: 'Two items.' });
  });

  it.each([false, true])(
    'openai Responses (strict %s): every function_call has a function_call_output with its call_id, and no role:tool item',
    async (strict) => {
      const toolsSent = (await gateway(`/tools?format=responses${strict ? '&strict=true' : ''}`)).tools as Json[];
      const fake = await model(({ path, body }, turn) => {
        const input = body.input as Json[];
        const problems: (string | false)[] = [
          path !== '/v1/responses' && `unexpected path ${path}`,
          JSON.stringify(body.tools) !== JSON.stringify(toolsSent) && 'tools differ from GET /tools',
          !(body.tools as Json[]).every(
            (tool) =>
              tool.type === 'function' && typeof tool.name === 'string' && isObject(tool.parameters) && typeof tool.strict === 'boolean',
          ) && 'tools must be {type:function, name, parameters, strict}',
          input.some((item) => item.role === 'tool') && 'the Responses API takes no role:tool item',
        ];
        for (const [i, item] of input.entries()) {
          if (item.type !== 'function_call') continue;
          const outputs = input.slice(i + 1).filter((o) => o.type === 'function_call_output' && o.call_id === item.call_id);
          problems.push(outputs.length !== 1 && `function_call ${item.call_id} needs exactly one function_call_output`);
          problems.push(
            outputs.length === 1 &&
              typeof outputs[0]!.output !== 'string' &&
              `function_call_output ${item.call_id}: output must be a string`,
          );
        }
        for (const item of input) {
          if (item.type !== 'function_call_output') continue;
          problems.push(
            !input.some((c) => c.type === 'function_call' && c.call_id === item.call_id) &&
              `function_call_output ${item.call_id} answers no call`,
          );
          problems.push(Object.keys(item).sort().join() !== 'call_id,output,type' && 'function_call_output has extra fields');
        }
        const output =
          turn === 0
            ? [
                { type: 'reasoning', id: 'rs_1', summary: [] },
                {
                  type: 'function_call',
                  id: 'fc_1',
                  call_id: 'call_read',
                  name: 'Read',
                  arguments: '{"path":"notes.txt"}',
                  status: 'completed',
                },
                {
                  type: 'function_call',
                  id: 'fc_2',
                  call_id: 'call_ls',
                  name: 'LS',
                  arguments: strict ? '{"path":"."}' : '{}',
                  status: 'completed',
                },
              ]
            : [
                {
                  type: 'message',
                  id: 'msg_1',
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: 'Two items.', annotations: [] }],
                },
              ];
        return answer(problems, {
          id: `resp_${turn}`,
          object: 'response',
          created_at: 1_767_225_600,
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
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is in notes.txt?' }];
      let text = '';
      for (;;) {
        const response = await client.responses.create({ model: 'gpt-test', input, tools: toolsSent as never });
        input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
        if (!response.output.some((item) => item.type === 'function_call')) {
          text = response.output_text;
          break;
        }
        const executed = await gateway('/execute', response);
        expect(executed.results.map((r: Json) => r.status)).toEqual(['success', 'success']);
        input.push(...(executed.messages as OpenAI.Responses.ResponseInputItem[]));
      }
      expect(fake.requests).toHaveLength(2);
      expect(text).toBe('Two items.');
    },
  );

  it('anthropic Messages: the tool_result blocks answer every tool_use id, first in the next user turn', async () => {
    const toolsSent = (await gateway('/tools?format=anthropic')).tools as Json[];
    const fake = await model(({ path, body }, turn) => {
      const messages = body.messages as Json[];
      const problems: (string | false)[] = [
        path !== '/v1/messages' && `unexpected path ${path}`,
        JSON.stringify(body.tools) !== JSON.stringify(toolsSent) && 'tools differ from GET /tools',
        !(body.tools as Json[]).every(
          (tool) => typeof tool.name === 'string' && isObject(tool.input_schema) && tool.input_schema.type === 'object',
        ) && 'tools must be {name, description, input_schema}',
      ];
      messages.forEach((message, i) => {
        problems.push(message.role !== (i % 2 === 0 ? 'user' : 'assistant') && `message ${i}: roles must alternate`);
        if (message.role !== 'assistant' || !Array.isArray(message.content)) return;
        const uses = (message.content as Json[]).filter((b) => b.type === 'tool_use').map((b) => b.id as string);
        if (uses.length === 0) return;
        const next = messages[i + 1];
        const blocks = Array.isArray(next?.content) ? (next.content as Json[]) : [];
        const results = blocks.filter((b) => b.type === 'tool_result');
        problems.push(
          JSON.stringify(results.map((b) => b.tool_use_id).sort()) !== JSON.stringify([...uses].sort()) &&
            'tool_result ids must match the tool_use ids',
        );
        problems.push(
          blocks.findIndex((b) => b.type !== 'tool_result') !== -1 &&
            blocks.findIndex((b) => b.type !== 'tool_result') < results.length &&
            'tool_result blocks must come first',
        );
        problems.push(
          results.some((b) => typeof b.content !== 'string' || typeof b.is_error !== 'boolean') &&
            'tool_result content must be a string, is_error a boolean',
        );
      });
      const content =
        turn === 0
          ? [
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { path: 'notes.txt' } },
              { type: 'tool_use', id: 'toolu_ls', name: 'LS', input: { path: '.' } },
            ]
          : [{ type: 'text', text: 'Two items.' }];
      return answer(problems, {
        id: `msg_${turn}`,
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
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is in notes.txt?' }];
    for (;;) {
      const reply = await client.messages.create({ model: 'claude-test', max_tokens: 1024, messages, tools: toolsSent as never });
      messages.push({ role: reply.role, content: reply.content });
      if (reply.stop_reason !== 'tool_use') break;
      const executed = await gateway('/execute', reply);
      expect(executed.results.map((r: Json) => r.status)).toEqual(['success', 'success']);
      messages.push(...(executed.messages as Anthropic.MessageParam[]));
    }
    expect(fake.requests).toHaveLength(2);
    expect(messages.at(-1)).toMatchObject({ content: [{ type: 'text', text: 'Two items.' }] });
  });

  it('gemini generateContent: functionResponse parts answer every functionCall, by name and id, with an object response', async () => {
    const toolsSent = (await gateway('/tools?format=gemini')).tools as GeminiTool[];
    const fake = await model(({ path, body }, turn) => {
      const contents = body.contents as Json[];
      const problems: (string | false)[] = [
        !path.endsWith('/models/gemini-test:generateContent') && `unexpected path ${path}`,
        JSON.stringify(body.tools) !== JSON.stringify(toolsSent) && 'tools differ from GET /tools',
        !(body.tools as Json[]).every((tool) => Array.isArray(tool.functionDeclarations)) && 'tools must be {functionDeclarations}',
      ];
      contents.forEach((content, i) => {
        problems.push(content.role !== 'user' && content.role !== 'model' && `content ${i}: role must be user or model`);
        const calls = ((content.parts ?? []) as Json[]).filter((p) => isObject(p.functionCall)).map((p) => p.functionCall as Json);
        if (calls.length === 0) return;
        const next = contents[i + 1];
        const responses = ((next?.parts ?? []) as Json[]).map((p) => p.functionResponse as Json | undefined);
        problems.push(next?.role !== 'user' && 'function responses go in the next user turn');
        problems.push(responses.length !== calls.length && 'one functionResponse per functionCall');
        calls.forEach((call, k) => {
          const response = responses[k];
          problems.push(
            (response?.name !== call.name || response?.id !== call.id) && `functionResponse ${k} must carry the call's name and id`,
          );
          problems.push(!isObject(response?.response) && `functionResponse ${k}: response must be an object`);
        });
      });
      const parts =
        turn === 0
          ? [
              { functionCall: { id: 'fc_read', name: 'Read', args: { path: 'notes.txt' } } },
              { functionCall: { name: 'LS', args: { path: '.' } } },
            ]
          : [{ text: 'Two items.' }];
      return answer(problems, {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        modelVersion: 'gemini-test',
      });
    });
    const client = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } });
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is in notes.txt?' }] }];
    let text: string | undefined;
    for (;;) {
      const response = await client.models.generateContent({ model: 'gemini-test', contents, config: { tools: toolsSent } });
      const content = response.candidates![0]!.content!;
      contents.push(content);
      if (!response.functionCalls?.length) {
        text = response.text;
        break;
      }
      const executed = await gateway('/execute', content);
      expect(executed.results.map((r: Json) => r.status)).toEqual(['success', 'success']);
      contents.push(...(executed.messages as Content[]));
    }
    expect(fake.requests).toHaveLength(2);
    expect(text).toBe('Two items.');
  });
});
