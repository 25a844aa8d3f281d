import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { answer, isObject, useRoundTrip, type Json } from './round-trip-harness.js';

/** See round-trip-harness.ts: the SDK's request must reach the model in the provider's documented format. */
describe('provider round trips through the official SDKs', () => {
  const { gateway, model } = useRoundTrip();

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
});
